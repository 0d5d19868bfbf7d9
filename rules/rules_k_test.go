package rules

import (
	"math"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

func orderF(general, unit string) step {
	return do(CmdOrderGive, `{"general":"`+general+`","units":["`+unit+`"],"content":{"action":"move"}}`, 1, 1) // 3 actions
}

// TestRulesK: K.1-K.3 on every move, in the command phase (C.9 cites the
// gap there) and the movement phase (K.2, M.7), valid and refused; every
// refusal checks the rule, the code, its numbers and that nothing was
// emitted.
func TestRulesK(t *testing.T) {
	mt := movementTable
	hussarsNear := place("a3-hus", 36, 24, 180)
	runMCases(t, []mCase{
		// K.1: friends may be passed through, never ended on or touched.
		{rule: "K.1", name: "through a friend, ending clear", given: one(orderF("f4-gen", "f4-a")),
			when: do(CmdUnitMove, `{"unit":"f4-a","to":{"x":28,"y":22.5},"actions":2}`)},
		{rule: "K.1", name: "ending on a friend", given: one(orderF("f4-gen", "f4-a")),
			when: do(CmdUnitMove, `{"unit":"f4-a","to":{"x":28,"y":20.5}}`), refuse: "K.1/friend_contact", nums: map[string]float64{"distance": 0}, msg: "overlapping friendly unit f4-b"},
		{rule: "K.1", name: "ending in base contact with a friend", given: one(orderF("f4-gen", "f4-a")),
			when: do(CmdUnitMove, `{"unit":"f4-a","to":{"x":28,"y":18.5}}`), refuse: "K.1/friend_contact", nums: map[string]float64{"distance": 0}, msg: "in base contact with friendly unit f4-b"},
		{rule: "K.1", name: "a march ends clear of friends too", given: one(redEnds, declare("f1")),
			when: march("f1-a", 14, 8), refuse: "K.1/friend_contact"},
		// K.2: never within 1" of an enemy, along the whole path.
		{rule: "K.2", name: "passing 0.6\" from the enemy on the way", overlay: mt, given: one(redEnds), tweak: hussarsNear,
			when:   do(CmdUnitMove, `{"unit":"f4-b","path":[{"x":31,"y":22}],"to":{"x":29,"y":22.5}}`),
			refuse: "K.2/path_reaches_enemy", nums: map[string]float64{"waypoint": 1, "gap": 1, "distance": 0.559}, msg: `passes 0.6" from a3-hus on the leg to waypoint 1; at least 1" unless charging`},
		{rule: "K.2", name: "keeping 1\" away is fine", overlay: mt, given: one(redEnds), tweak: hussarsNear,
			when: do(CmdUnitMove, `{"unit":"f4-b","path":[{"x":30,"y":21.5}],"to":{"x":29,"y":22}}`)},
		{rule: "K.2", name: "in the command phase the move stops 1\" short instead (C.9)", given: one(orderF("f4-gen", "f4-b")), tweak: hussarsNear,
			when: do(CmdUnitMove, `{"unit":"f4-b","path":[{"x":31,"y":22}],"to":{"x":29,"y":22.5}}`),
			check: wantEvent(func(t *testing.T, e *UnitMoved, s *State) {
				if !e.StoppedShort || e.Enemy != "a3-hus" || len(e.Path) != 0 || math.Abs(geom.Distance(e.To, s.Units["a3-hus"].Base)-1) > 1e-6 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "K.2", name: "with a charge order the command phase refuses, citing C.9", given: one(do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"charge"}}`, 1, 1)), tweak: hussarsNear,
			when: do(CmdUnitMove, `{"unit":"f4-b","path":[{"x":31,"y":22}],"to":{"x":29,"y":22.5}}`), refuse: "C.9/path_reaches_enemy", nums: map[string]float64{"waypoint": 1}, msg: "unit.charge"},
		{rule: "K.2", name: "ending within 1\"", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 28, 23.5, 180),
			when: move("f4-b", 28, 21), refuse: "K.2/enemy_too_close", nums: map[string]float64{"distance": 0.75, "gap": 1}},
		{rule: "K.2", name: "turning may pass within 1\"", given: one(orderF("f4-gen", "f4-b")), tweak: tweaks(place("a3-hus", 28, 22.95, 180), status("a3-hus", UnitRetreating)),
			when: do(CmdUnitMove, `{"unit":"f4-b","to":{"x":28,"y":20},"facing":180,"actions":2}`)},
		// K.3: turning on the spot.
		{rule: "K.3", name: "a turn may pass through a friend and end clear", given: one(orderF("f4-gen", "f4-a")), tweak: place("f4-b", 28, 18.5, 0),
			when: do(CmdUnitMove, `{"unit":"f4-a","to":{"x":28,"y":16},"facing":180,"actions":2}`)},
		{rule: "K.3", name: "a turn may not end touching a friend", given: one(orderF("f4-gen", "f4-a")), tweak: place("f4-b", 28, 18.5, 0),
			when: do(CmdUnitMove, `{"unit":"f4-a","path":[{"x":28,"y":16,"facing":90}],"to":{"x":22,"y":16},"actions":3}`), refuse: "K.3/friend_contact", msg: "at waypoint 1"},
		{rule: "K.3", name: "a turn must end 1\" from enemies", given: one(orderF("f4-gen", "f4-b")), tweak: tweaks(place("a3-hus", 28, 23.5, 180), status("a3-hus", UnitRetreating)),
			when: do(CmdUnitMove, `{"unit":"f4-b","path":[{"x":28,"y":20,"facing":90}],"to":{"x":20,"y":20},"actions":2}`), refuse: "K.3/enemy_too_close", nums: map[string]float64{"distance": 0.25}},
		{rule: "K.3", name: "a turn may sweep over impassable terrain", given: one(orderF("f1-gen", "f1-a")), tweak: place("f1-a", 3, 19.5, 0),
			when: do(CmdUnitMove, `{"unit":"f1-a","to":{"x":3,"y":19.5},"facing":180,"actions":2}`)},
		{rule: "K.3", name: "a move may not cross impassable terrain", given: one(orderF("f1-gen", "f1-a")),
			when: do(CmdUnitMove, `{"unit":"f1-a","path":[{"x":3,"y":12}],"to":{"x":3,"y":20},"actions":3}`), refuse: "K.3/impassable", msg: `"Ferme" on the leg to the destination`},
		{rule: "K.3", name: "nor end on it", given: one(orderF("f1-gen", "f1-a")),
			when: do(CmdUnitMove, `{"unit":"f1-a","to":{"x":4,"y":15},"actions":2}`), refuse: "K.3/impassable"},
		{rule: "K.3", name: "it ends wholly on the table", given: one(orderF("f1-gen", "f1-a")),
			when: do(CmdUnitMove, `{"unit":"f1-a","to":{"x":10,"y":0.5},"actions":2}`), refuse: "K.3/off_table", nums: map[string]float64{"over": 0.25}, msg: "south edge"},
		{rule: "K.3", name: "a turn ends wholly on the table", overlay: mt, given: one(redEnds), tweak: place("f4-b", 20, 46.5, 0),
			when: do(CmdUnitMove, `{"unit":"f4-b","to":{"x":20,"y":46.5},"facing":90}`), refuse: "K.3/off_table", nums: map[string]float64{"over": 0.75}, msg: "north edge"},
	})
}

// TestTerrainRoads: battle.create records terrain; C.7's road bonus comes
// from the terrain when the battle has roads, and a declaration the terrain
// contradicts is refused.
func TestTerrainRoads(t *testing.T) {
	s := given(mSetup(t, "")...)
	if len(s.Terrain) != 3 || s.Terrain[2].Name != "Chaussée" {
		t.Fatalf("terrain %+v", s.Terrain)
	}
	u := s.Units["f1-a"]
	u.Formation, u.Base.Width, u.Base.Depth, u.Base.Center.Y = "march_column", 1.5, 4.5, 3
	evs := mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"move"}}`), NewFixedDice(4, 4))
	r := resolved(t, evs)
	if !strings.Contains(r.Summary, "on a road (terrain): +2") {
		t.Fatalf("%s", r.Summary)
	}
	refused(t, s, cmd(t, CmdOrderGive, `{"general":"f1-gen","units":["f1-b"],"content":{"action":"move"},"on_road":["f1-b"]}`), NewFixedDice(1, 1), "C.7", "not_on_road")
	bad := strings.Replace(strings.Replace(mCreate, "RULESET", "", 1), `{"x":1,"y":14},{"x":5,"y":14}`, `{"x":1,"y":14},{"x":1,"y":14}`, 1)
	refused(t, NewState(), cmd(t, CmdBattleCreate, bad), nil, RuleInput, "bad_terrain")
	// A unit may not deploy on impassable terrain.
	s2 := NewState()
	mustDecide(t, s2, cmd(t, CmdBattleCreate, strings.Replace(mCreate, "RULESET", "", 1)), nil)
	refused(t, s2, cmd(t, CmdArmyDeploy, strings.Replace(mRed, `"position":{"x":10,"y":8}`, `"position":{"x":3,"y":16}`, 1)), nil, "K.3", "impassable")
	if math.IsNaN(0) {
		t.Fatal()
	}
}
