package rules

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func march(unit string, x, y float64) step {
	return do(CmdUnitMarch, `{"unit":"`+unit+`","to":{"x":`+ftoa(x)+`,"y":`+ftoa(y)+`}}`)
}

func move(unit string, x, y float64) step {
	return do(CmdUnitMove, `{"unit":"`+unit+`","to":{"x":`+ftoa(x)+`,"y":`+ftoa(y)+`}}`)
}

func declare(brigade string, dice ...int) step {
	if len(dice) > 0 {
		return do(CmdMarchDeclare, `{"brigade":"`+brigade+`","initiative":true}`, dice...)
	}
	return do(CmdMarchDeclare, `{"brigade":"`+brigade+`"}`)
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func wantEvent[T Event](f func(*testing.T, T, *State)) func(*testing.T, []Event, *State) {
	return func(t *testing.T, evs []Event, s *State) {
		t.Helper()
		e := findEvent[T](evs)
		var zero T
		if any(e) == any(zero) {
			t.Fatalf("no %T in %s", zero, eventsJSON(t, evs))
		}
		if f != nil {
			f(t, e, s)
		}
	}
}

// TestRulesM: one table per rule of docs/rules.md M (and the T.4 outcomes), valid
// and refused cases; every refusal checks the rule, the code, its numbers
// and that nothing was emitted.
func TestRulesM(t *testing.T) {
	mt := movementTable
	runMCases(t, []mCase{
		// M.1: the phasing side moves first, then hands over.
		{rule: "M.1", name: "the phasing side marches first", given: one(redEnds, declare("f1")), when: march("f1-a", 10, 20),
			check: wantEvent(func(t *testing.T, e *UnitMarched, s *State) { center(t, s, "f1-a", 10, 20) })},
		{rule: "M.1", name: "the other side waits for the hand-over", given: one(redEnds), when: declare("a2"), refuse: "M.1/phasing_side_first"},
		{rule: "M.1", name: "hand-over recorded; then the other side moves", given: one(redEnds, redHands), when: declare("a2"),
			check: func(t *testing.T, evs []Event, s *State) {
				if s.TurnBook.Mover != "blue" || s.TurnBook.Marches["a2"] != MarchByAllowance {
					t.Fatalf("book %+v", s.TurnBook)
				}
			}},
		{rule: "M.1", name: "after the hand-over the phasing side moves no more", given: one(redEnds, redHands), when: declare("f1"), refuse: "M.1/not_moving"},
		{rule: "M.1", name: "the last side to move ends the movement phase", given: one(redEnds, redHands), when: blueEnds,
			check: func(t *testing.T, evs []Event, s *State) {
				if s.Phase != PhaseCombat || s.Phasing != "red" {
					t.Fatalf("phase %s of %s", s.Phase, s.Phasing)
				}
			}},
		{rule: "M.1", name: "no hand-over once every side has moved", given: one(redEnds, redHands), when: do(CmdMovementHandOver, `{"side":"blue"}`), refuse: "M.1/all_moved"},
		// M.2: generals.
		{rule: "M.2", name: "an unattached general moves and joins a unit in base contact", given: one(redEnds),
			when: do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":28,"y":15.25},"join":"f4-a"}`),
			check: wantEvent(func(t *testing.T, e *GeneralMoved, s *State) {
				if e.Joined != "f4-a" || e.Distance != 1.25 || s.Sides[0].Brigades[3].General.AttachedTo != "f4-a" {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.2", name: "then he moves again with it", given: one(redEnds, do(CmdGeneralMove, `{"general":"f1-gen","to":{"x":10,"y":7.25},"join":"f1-a"}`), declare("f1")),
			when: march("f1-a", 10, 20),
			check: func(t *testing.T, evs []Event, s *State) {
				if p := s.Sides[0].Brigades[0].General.Position; p.X != 10 || p.Y != 20 {
					t.Fatalf("general at %v", p)
				}
			}},
		{rule: "M.2", name: "not in the command phase", when: do(CmdGeneralMove, `{"general":"f1-gen","to":{"x":10,"y":10}}`), refuse: "M.2/not_movement_phase"},
		{rule: "M.2", name: "not beyond his full distance", given: one(redEnds), when: do(CmdGeneralMove, `{"general":"f1-gen","to":{"x":10,"y":31}}`),
			refuse: "M.2/move_too_far", nums: map[string]float64{"distance": 25, "allowed": 24}},
		{rule: "M.2", name: "his distance is for the whole phase", given: one(redEnds, do(CmdGeneralMove, `{"general":"f1-gen","to":{"x":10,"y":26}}`)),
			when: do(CmdGeneralMove, `{"general":"f1-gen","to":{"x":15,"y":26}}`), refuse: "M.2/move_too_far", nums: map[string]float64{"distance": 5, "moved": 20, "allowed": 24}},
		{rule: "M.2", name: "joins only in base contact", given: one(redEnds), when: do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":28,"y":14.5},"join":"f4-a"}`),
			refuse: "M.2/not_in_contact", nums: map[string]float64{"distance": 0.75}},
		{rule: "M.2", name: "an attached general moves with his unit", given: one(redEnds, do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":28,"y":15.25},"join":"f4-a"}`)),
			when: do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":30,"y":12}}`), refuse: "M.2/attached"},
		{rule: "M.2", name: "he leaves it in a movement phase, then moves on", given: one(redEnds, do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":28,"y":15.25},"join":"f4-a"}`),
			do(CmdGeneralDetach, `{"general":"f4-gen"}`)),
			when: do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":36,"y":16}}`),
			check: wantEvent(func(t *testing.T, e *GeneralMoved, s *State) {
				if e.Moved != 9.25 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.2", name: "detach only when attached", given: one(redEnds), when: do(CmdGeneralDetach, `{"general":"f4-gen"}`), refuse: "M.2/not_attached"},
		// M.3: the normal move (movement_table).
		{rule: "M.3", name: "infantry in line moves 6 in the movement phase", overlay: mt, given: one(redEnds), when: move("f4-b", 28, 26),
			check: wantEvent(func(t *testing.T, e *UnitMoved, s *State) {
				if e.Phase != PhaseMovement || e.MovementUsed != 1 || e.ActionsUsed != 0 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.3", name: "not 6.5", overlay: mt, given: one(redEnds), when: move("f4-b", 28, 26.5), refuse: "M.3/move_too_far",
			nums: map[string]float64{"distance": 6.5, "allowed": 6, "normal_move": 6}},
		{rule: "M.3", name: "company column moves 9 (table by formation)", overlay: mt, given: one(redEnds), when: move("f1-a", 10, 17)},
		{rule: "M.3", name: "under command_actions moves are command-phase actions", given: one(redEnds), when: move("f4-b", 28, 22), refuse: "T.7/moves_are_actions"},
		{rule: "M.3", name: "difficult terrain at half speed", overlay: mt, given: one(redEnds), tweak: place("f4-b", 33, 25, 0),
			when: move("f4-b", 33, 30), refuse: "M.3/move_too_far", nums: map[string]float64{"distance": 7, "allowed": 6, "path": 5, "difficult": 2}},
		// M.4: formation changes use a fraction of the move.
		{rule: "M.4", name: "line to attack column takes a quarter, the rest moves", overlay: mt, given: one(redEnds, do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`)),
			when: move("f4-b", 28, 26),
			check: func(t *testing.T, evs []Event, s *State) {
				if u := s.TurnBook.peekUnit("f4-b"); math.Abs(u.MovementUsed-1) > 1e-9 {
					t.Fatalf("used %v", u.MovementUsed)
				}
			}},
		{rule: "M.4", name: "what is used is gone", overlay: mt, given: one(redEnds, do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`)),
			when: move("f4-b", 28, 27.5), refuse: "M.4/move_too_far", nums: map[string]float64{"allowed": 6.75, "used": 0.25, "normal_move": 9}},
		{rule: "M.4", name: "no change without the fraction left", overlay: mt, given: one(redEnds, move("f4-b", 28, 24.5)),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"square"}`), refuse: "M.4/no_movement_left", nums: map[string]float64{"fraction": 0.5, "used": 0.75, "budget": 1}},
		// M.5: half a move after firing.
		{rule: "M.5", name: "fired: 3 of 6", overlay: mt, given: one(do(CmdUnitFire, `{"unit":"f4-b","target":"a3-hus","entered_by":"alice"}`), redEnds),
			when: move("f4-b", 28, 23)},
		{rule: "M.5", name: "fired: not 3.5", overlay: mt, given: one(do(CmdUnitFire, `{"unit":"f4-b"}`), redEnds),
			when: move("f4-b", 28, 23.5), refuse: "M.5/move_too_far", nums: map[string]float64{"allowed": 3, "distance": 3.5}},
		// M.6: nothing carried over.
		{rule: "M.6", name: "half a move in turn 1 leaves a full move in turn 3", overlay: mt, given: with(one(redEnds, move("f4-b", 28, 23)), toTurn3Movement[1:]),
			when: move("f4-b", 28, 29)},
		{rule: "M.6", name: "and not more", overlay: mt, given: with(one(redEnds, move("f4-b", 28, 23)), toTurn3Movement[1:]),
			when: move("f4-b", 28, 29.5), refuse: "M.3/move_too_far", nums: map[string]float64{"allowed": 6, "used": 0}},
		// M.7: no contact with the enemy in the movement phase.
		{rule: "M.7", name: "a move into contact", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 28, 26, 180),
			when: move("f4-b", 28, 24.25), refuse: "M.7/enemy_contact", nums: map[string]float64{"distance": 0}},
		{rule: "M.7", name: "stopping 1\" short is fine", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 28, 26, 180),
			when: move("f4-b", 28, 23.25)},
		// M.8: re-forming the disordered.
		{rule: "M.8", name: "disordered this turn, re-forms", given: one(do(CmdCombatRecord, `{"unit":"f4-b","result":"disorder"}`), redEnds),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"line"}`),
			check: wantEvent(func(t *testing.T, e *UnitReformed, s *State) {
				if !e.Reordered || s.Units["f4-b"].Status != UnitOK {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.8", name: "disordered two turns ago, not now", given: with(one(do(CmdCombatRecord, `{"unit":"f4-b","result":"disorder"}`)), toTurn3Movement),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"line"}`), refuse: "M.8/disordered_earlier", nums: map[string]float64{"disordered_turn": 1}},
		{rule: "M.8", name: "in good order: formation changes are actions", given: one(redEnds),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`), refuse: "T.7/changes_are_actions"},
		// M.9: the formation test near formed close-order enemy.
		{rule: "M.9", name: "passed: the change is made", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 28, 26, 180),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`, 4),
			check: wantEvent(func(t *testing.T, e *FormationTested, s *State) {
				if !e.Passed || e.Enemy != "a3-hus" || s.Units["f4-b"].Formation != "attack_column" {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.9", name: "failed: the unit stays, the fraction is spent", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 28, 26, 180),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`, 3),
			check: wantEvent(func(t *testing.T, e *FormationTested, s *State) {
				if e.Passed || s.Units["f4-b"].Formation != "line" || s.TurnBook.peekUnit("f4-b").MovementUsed != 0.25 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.9", name: "a disordered enemy is not formed: no test", overlay: mt, given: one(redEnds), tweak: tweaks(place("a3-hus", 28, 26, 180), status("a3-hus", UnitDisordered)),
			when: do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`)},
		{rule: "M.9", name: "the command phase too, under the default ruleset (T.2)",
			tweak: place("a3-hus", 28, 26, 180),
			given: one(do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"formation","formation":"attack_column"}}`, 1, 1)),
			when:  do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`, 2),
			check: wantEvent(func(t *testing.T, e *FormationTested, s *State) {
				if e.Passed || s.TurnBook.peekUnit("f4-b").ActionsLeft != 2 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.9", name: "passed in the command phase: the action is spent on the change",
			tweak: place("a3-hus", 28, 26, 180),
			given: one(do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"formation","formation":"attack_column"}}`, 1, 1)),
			when:  do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`, 4),
			check: func(t *testing.T, evs []Event, s *State) {
				ft, re := findEvent[*FormationTested](evs), findEvent[*UnitReformed](evs)
				if ft == nil || !ft.Passed || ft.Distance != 4.25 || re == nil || s.Units["f4-b"].Formation != "attack_column" || s.TurnBook.peekUnit("f4-b").ActionsLeft != 2 {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "M.9", name: "6\" away is within: tested", tweak: place("a3-hus", 28, 27.75, 180),
			given: one(do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"formation","formation":"attack_column"}}`, 1, 1)),
			when:  do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`, 4),
			check: wantEvent(func(t *testing.T, e *FormationTested, s *State) {
				if e.Distance != 6 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.9", name: "6.01\" away: no test", tweak: place("a3-hus", 28, 27.76, 180),
			given: one(do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"formation","formation":"attack_column"}}`, 1, 1)),
			when:  do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if findEvent[*FormationTested](evs) != nil || s.Units["f4-b"].Formation != "attack_column" {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "M.9", name: "a ruleset may narrow the test to the movement phase", overlay: "movement: {formation_test: {phases: [movement]}}",
			tweak: place("a3-hus", 28, 26, 180),
			given: one(do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"formation","formation":"attack_column"}}`, 1, 1)),
			when:  do(CmdUnitReform, `{"unit":"f4-b","formation":"attack_column"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if findEvent[*FormationTested](evs) != nil || s.Units["f4-b"].Formation != "attack_column" {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		// M.10: no turning flank or rear to formed close-order enemy.
		{rule: "M.10", name: "turning the left flank to a line 3\" away", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 28, 24.25, 180),
			when: do(CmdUnitMove, `{"unit":"f4-b","to":{"x":28,"y":20},"facing":90}`), refuse: "M.10/flank_exposed", nums: map[string]float64{"limit": 6}, msg: "left flank toward formed squadron_column unit a3-hus"},
		{rule: "M.10", name: "not applied when the only enemy near is retreating", overlay: mt, given: one(redEnds), tweak: tweaks(place("a3-hus", 28, 24.25, 180), status("a3-hus", UnitRetreating)),
			when: do(CmdUnitMove, `{"unit":"f4-b","to":{"x":28,"y":20},"facing":90}`)},
		{rule: "M.10", name: "evading horse artillery may turn its back", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 46, 13, 180),
			when: do(CmdUnitMove, `{"unit":"f2-ha","to":{"x":46,"y":7},"facing":180,"evading":true}`)},
		{rule: "M.10", name: "not evading, it may not", overlay: mt, given: one(redEnds), tweak: place("a3-hus", 46, 13, 180),
			when: do(CmdUnitMove, `{"unit":"f2-ha","to":{"x":46,"y":7},"facing":180}`), refuse: "M.10/flank_exposed", msg: "rear"},
		{rule: "M.10", name: "only horse artillery evades free", overlay: mt, given: one(redEnds),
			when: do(CmdUnitMove, `{"unit":"f4-b","to":{"x":28,"y":22},"evading":true}`), refuse: "M.10/not_evading_type"},
		// M.11: whole brigades under Attack, Support or Move, in march formations.
		{rule: "M.11", name: "an attack brigade in columns marches", given: one(redEnds), when: declare("f1"),
			check: wantEvent(func(t *testing.T, e *MarchDeclared, s *State) {
				if !e.Granted || e.By != MarchByAllowance || e.Limit != 2 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.11", name: "not under a defend order", given: one(redEnds), when: declare("f4"), refuse: "M.11/march_order"},
		{rule: "M.11", name: "not with a unit in line", given: one(redEnds), tweak: func(s *State) { s.Units["f1-b"].Formation = "line" }, when: declare("f1"),
			refuse: "M.11/march_formation", msg: "f1-b is in line"},
		{rule: "M.11", name: "a unit marches only with its declared brigade", given: one(redEnds), when: march("f1-a", 10, 20), refuse: "M.11/brigade_not_marching"},
		{rule: "M.11", name: "not in the command phase", when: declare("f1"), refuse: "T.3/not_movement_phase"},
		// M.12: speeds.
		{rule: "M.12", name: "infantry 18\"", given: one(redEnds, declare("f1")), when: march("f1-a", 10, 26)},
		{rule: "M.12", name: "infantry not 18.5\"", given: one(redEnds, declare("f1")), when: march("f1-a", 10, 26.5), refuse: "M.12/march_too_far",
			nums: map[string]float64{"distance": 18.5, "allowed": 18, "speed": 18}},
		{rule: "M.12", name: "cavalry 24\"", given: one(redEnds, declare("f2")), when: do(CmdUnitMarch, `{"unit":"f2-hus","path":[{"x":40,"y":20}],"to":{"x":52,"y":20}}`)},
		{rule: "M.12", name: "cavalry not 24.5\"", given: one(redEnds, declare("f2")),
			when: do(CmdUnitMarch, `{"unit":"f2-hus","path":[{"x":40,"y":20}],"to":{"x":52.5,"y":20}}`), refuse: "M.12/march_too_far", nums: map[string]float64{"distance": 24.5, "allowed": 24}},
		// M.13: a unit's march ends within 20" of any enemy; the rest goes on.
		{rule: "M.13", name: "stopped where it comes within 20\"", given: one(redEnds, declare("f3")), when: march("f3-a", 60, 26),
			check: wantEvent(func(t *testing.T, e *UnitMarched, s *State) {
				if !e.Ended || e.Enemy != "a1-gren" || math.Abs(e.To.Center.Y-24.5) > 1e-6 || math.Abs(e.Marched-16.5) > 1e-6 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.13", name: "its march has ended", given: one(redEnds, declare("f3"), march("f3-a", 60, 26)), when: march("f3-a", 58, 20), refuse: "M.13/march_ended"},
		{rule: "M.13", name: "the rest of the brigade goes on", given: one(redEnds, declare("f3"), march("f3-a", 60, 26)), when: march("f3-b", 69, 15)},
		{rule: "M.13", name: "no march from within 20\"", given: one(redEnds, declare("f3")), tweak: place("f3-a", 60, 26, 0), when: march("f3-a", 58, 20),
			refuse: "M.13/march_ended", nums: map[string]float64{"distance": 18.5, "stop_distance": 20}},
		// M.14: no normal move and march in one turn, except a formation change.
		{rule: "M.14", name: "moved in the command phase: no march", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"move"}}`, 1, 1), move("f1-a", 10, 9), redEnds, declare("f1")),
			when: march("f1-a", 10, 20), refuse: "M.14/moved_in_command_phase"},
		{rule: "M.14", name: "a formation change in the command phase combines with a march", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"formation","formation":"division_column"}}`, 1, 1),
			do(CmdUnitReform, `{"unit":"f1-a","formation":"division_column"}`), redEnds, declare("f1")),
			when: march("f1-a", 10, 20)},
		{rule: "M.14", name: "a normal move, then no march", overlay: mt, given: one(redEnds, declare("f1"), move("f1-b", 18, 12)), when: march("f1-b", 18, 20), refuse: "M.14/normal_move_made"},
		{rule: "M.14", name: "a march, then no normal move", overlay: mt, given: one(redEnds, declare("f1"), march("f1-b", 18, 20)), when: move("f1-b", 18, 22), refuse: "M.14/marched"},
		{rule: "M.14", name: "a formation change in the movement phase, then a march", overlay: mt,
			given: one(redEnds, declare("f1"), do(CmdUnitReform, `{"unit":"f1-b","formation":"company_column"}`)), when: march("f1-b", 18, 20)},
		{rule: "M.14", name: "march, then deploy in the same turn, with an action of the order", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"formation","formation":"line","text":"march to the hill and deploy into line"}}`, 1, 1),
			redEnds, declare("f1"), march("f1-a", 10, 20)),
			when: do(CmdUnitReform, `{"unit":"f1-a","formation":"line"}`),
			check: wantEvent(func(t *testing.T, e *UnitReformed, s *State) {
				ut := s.TurnBook.peekUnit("f1-a")
				if e.Phase != PhaseMovement || !e.AfterMarch || e.ActionsUsed != 1 || ut.ActionsLeft != 2 || s.Units["f1-a"].Formation != "line" || e.To.FrontCenter() != e.From.FrontCenter() {
					t.Fatalf("%+v, turn %+v", e, ut)
				}
				if d := Describe(e); !strings.Contains(d, "after its tactical march (M.14)") {
					t.Fatalf("%q", d)
				}
			})},
		{rule: "M.14", name: "form, march, then deploy", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"formation","formation":"division_column"}}`, 1, 1),
			do(CmdUnitReform, `{"unit":"f1-a","formation":"division_column"}`), redEnds, declare("f1"), march("f1-a", 10, 20)),
			when: do(CmdUnitReform, `{"unit":"f1-a","formation":"line"}`)},
		{rule: "M.14", name: "march, then deploy: without an order's action, no deployment", given: one(redEnds, declare("f1"), march("f1-a", 10, 20)),
			when: do(CmdUnitReform, `{"unit":"f1-a","formation":"line"}`), refuse: "C.3/no_order", msg: "M.14"},
		{rule: "M.14", name: "march, then deploy: every action spent", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"formation","formation":"company_column"}}`, 3, 3),
			do(CmdUnitReform, `{"unit":"f1-a","formation":"division_column"}`), do(CmdUnitReform, `{"unit":"f1-a","formation":"company_column"}`),
			redEnds, declare("f1"), march("f1-a", 10, 20)),
			when: do(CmdUnitReform, `{"unit":"f1-a","formation":"line"}`), refuse: "C.16/no_actions_left", nums: map[string]float64{"actions_left": 0, "cost": 1}},
		{rule: "M.14", name: "a deployment comes after the march, not before it", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"formation","formation":"line"}}`, 1, 1), redEnds, declare("f1")),
			when: do(CmdUnitReform, `{"unit":"f1-a","formation":"division_column"}`), refuse: "T.7/changes_are_actions", msg: "M.14"},
		{rule: "M.14", name: "deployed in line, it marches no farther", given: one(
			do(CmdOrderGive, `{"general":"f1-gen","units":["f1-a"],"content":{"action":"formation","formation":"line"}}`, 1, 1),
			redEnds, declare("f1"), march("f1-a", 10, 14), do(CmdUnitReform, `{"unit":"f1-a","formation":"line"}`)),
			when: march("f1-a", 10, 18), refuse: "M.11/march_formation"},
		// M.15: marches a turn by nation; brigadier initiative.
		{rule: "M.15", name: "France: a third brigade needs initiative", given: one(redEnds, declare("f1"), declare("f2")), when: declare("f3"),
			refuse: "M.15/march_limit", nums: map[string]float64{"limit": 2, "marching": 2}},
		{rule: "M.15", name: "the brigadier's initiative 7 or less", given: one(redEnds, declare("f1"), declare("f2")), when: declare("f3", 3, 4),
			check: wantEvent(func(t *testing.T, e *MarchDeclared, s *State) {
				if !e.Granted || e.By != MarchByInitiative || e.Roll.Total != 7 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.15", name: "initiative failed: no march", given: one(redEnds, declare("f1"), declare("f2"), declare("f3", 4, 4)), when: march("f3-a", 60, 12),
			refuse: "M.11/brigade_not_marching"},
		{rule: "M.15", name: "one initiative try a turn", given: one(redEnds, declare("f1"), declare("f2"), declare("f3", 4, 4)), when: declare("f3", 1, 1),
			refuse: "M.15/initiative_tried"},
		{rule: "M.15", name: "Austria: one brigade", given: one(redEnds, redHands, declare("a2")), when: declare("a3"),
			refuse: "M.15/march_limit", nums: map[string]float64{"limit": 1, "marching": 1}},
		{rule: "M.15", name: "a gifted commander-in-chief: one more", given: one(redEnds, redHands, declare("a2")), tweak: func(s *State) { s.Sides[1].CInC.Gifted = true },
			when: declare("a3")},
		{rule: "M.15", name: "order change and march initiative in the same turn", given: one(redEnds, declare("f1"), declare("f2"),
			do(CmdBrigadeOrder, `{"brigade":"f3","order":"attack"}`, 2, 2)), when: declare("f3", 1, 2),
			check: func(t *testing.T, evs []Event, s *State) {
				if b, _ := s.brigade("f3"); b.Order != OrderAttack || s.TurnBook.Marches["f3"] != MarchByInitiative {
					t.Fatalf("%+v %+v", b, s.TurnBook)
				}
			}},
		{rule: "M.15", name: "one order-change try a turn", given: one(redEnds, do(CmdBrigadeOrder, `{"brigade":"f4","order":"attack"}`, 6, 5)),
			when: do(CmdBrigadeOrder, `{"brigade":"f4","order":"support"}`, 1, 1), refuse: "M.15/initiative_tried"},
		{rule: "M.15", name: "the umpire changes an order without a roll", when: do(CmdBrigadeOrder, `{"brigade":"f4","order":"move","by_umpire":true}`),
			check: wantEvent(func(t *testing.T, e *BrigadeOrderChanged, s *State) {
				if !e.Changed || e.Roll != nil {
					t.Fatalf("%+v", e)
				}
			})},
		// M.16: dragoons as heavy cavalry, lancers as light; Austrian horse artillery 9".
		{rule: "M.16", name: "dragoons move 12\" as heavy cavalry", overlay: mt, given: one(redEnds), when: move("f5-drag", 6, 42.5), refuse: "M.3/move_too_far",
			nums: map[string]float64{"normal_move": 12}},
		{rule: "M.16", name: "lancers move 18\" as light cavalry", overlay: mt, given: one(redEnds), when: move("f5-lan", 14, 48.5), refuse: "M.3/move_too_far",
			nums: map[string]float64{"normal_move": 18}},
		{rule: "M.16", name: "Austrian horse artillery 9\"", overlay: mt, given: one(redEnds, redHands), when: move("a2-ha", 30, 36.5), refuse: "M.3/move_too_far",
			nums: map[string]float64{"normal_move": 9, "distance": 9.5}},
		{rule: "M.16", name: "Austrian horse artillery moves its 9\"", overlay: mt, given: one(redEnds, redHands), when: move("a2-ha", 30, 37)},
		{rule: "M.16", name: "French horse artillery 15\"", overlay: mt, given: one(redEnds), when: move("f2-ha", 46, 23)},
		// M.17: retreats of cavalry and horse artillery.
		{rule: "M.17", name: "light cavalry retreating before a charge: 9\" + 1D6\"", when: do(CmdCombatRecord, `{"unit":"f2-hus","result":"retreat","toward":{"x":40,"y":48},"entered_by":"umpire"}`, 4),
			check: wantEvent(func(t *testing.T, e *CombatRecorded, s *State) {
				if e.Fixed != 18 || e.Fraction != 0.5 || e.Roll.Total != 4 || e.Distance != 13 || e.Status != UnitRetreating || e.EnteredBy != "umpire" {
					t.Fatalf("%+v", e)
				}
				center(t, s, "f2-hus", 40, 21)
			})},
		{rule: "M.17", name: "the distance is rolled, not entered", when: do(CmdCombatRecord, `{"unit":"f2-hus","result":"rout","toward":{"x":40,"y":0},"distance":5}`),
			refuse: "M.17/distance_is_rolled", nums: map[string]float64{"distance": 5}},
		{rule: "M.17", name: "horse artillery routs off the table", when: do(CmdCombatRecord, `{"unit":"f2-ha","result":"rout","toward":{"x":46,"y":0},"facing":180}`, 6),
			check: wantEvent(func(t *testing.T, e *CombatRecorded, s *State) {
				if !e.OffTable || e.Status != UnitOffTable || e.Distance != 12 {
					t.Fatalf("%+v", e)
				}
			})},
		{rule: "M.17", name: "infantry retreats the distance entered", when: do(CmdCombatRecord, `{"unit":"f4-b","result":"retreat","toward":{"x":28,"y":0},"distance":3}`),
			check: func(t *testing.T, evs []Event, s *State) { center(t, s, "f4-b", 28, 17) }},
		// T.4: combat outcomes keep the state consistent.
		{rule: "T.4", name: "casualties added", when: do(CmdCombatRecord, `{"unit":"f4-b","result":"casualties","markers":2,"entered_by":"bob"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if s.Units["f4-b"].Markers != 2 {
					t.Fatal(s.Units["f4-b"].Markers)
				}
			}},
		{rule: "T.4", name: "never below zero markers", when: do(CmdCombatRecord, `{"unit":"f4-b","result":"casualties","markers":-1}`),
			refuse: "T.4/markers_below_zero", nums: map[string]float64{"markers": 0, "change": -1}},
		{rule: "T.4", name: "a destroyed unit cannot move", given: one(do(CmdCombatRecord, `{"unit":"f4-b","result":"destroyed"}`)),
			when: do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"move"}}`, 1, 1), refuse: "T.4/unit_inactive"},
		{rule: "T.4", name: "a routed unit takes no orders", given: one(do(CmdCombatRecord, `{"unit":"f4-b","result":"rout","toward":{"x":28,"y":0},"distance":2}`)),
			when: do(CmdOrderGive, `{"general":"f4-gen","units":["f4-b"],"content":{"action":"move"}}`, 1, 1), refuse: "T.4/unit_inactive"},
		{rule: "T.4", name: "a routed unit does not march", given: one(do(CmdCombatRecord, `{"unit":"f1-a","result":"rout","toward":{"x":10,"y":0},"distance":1}`), redEnds, declare("f1")),
			when: march("f1-a", 10, 20), refuse: "T.4/unit_routed"},
		{rule: "T.4", name: "a rally restores good order", given: one(do(CmdCombatRecord, `{"unit":"f4-b","result":"rout","toward":{"x":28,"y":0},"distance":2}`)),
			when: do(CmdCombatRecord, `{"unit":"f4-b","result":"rally"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if s.Units["f4-b"].Status != UnitOK {
					t.Fatal(s.Units["f4-b"].Status)
				}
			}},
		{rule: "T.4", name: "a destroyed unit's general is released", given: one(redEnds, do(CmdGeneralMove, `{"general":"f4-gen","to":{"x":28,"y":15.25},"join":"f4-a"}`)),
			when: do(CmdCombatRecord, `{"unit":"f4-a","result":"destroyed"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if s.attachedTo("f4-gen") != "" {
					t.Fatal("still attached")
				}
			}},
	})
}

// TestFormationTestScenario: m-formation-test.yaml takes the M.9 test in
// the command phase under the default ruleset at exactly 6" (failed, then
// passed) and 2.5", none at 6.01", and none where the battle's ruleset
// narrows the test to the movement phase.
func TestFormationTestScenario(t *testing.T) {
	run := playScenarioFile(t, "../testdata/scenarios/m-formation-test.yaml")
	for id, want := range map[string]struct {
		tested, passed bool
		distance       float64
	}{
		"m9-six-failed":  {true, false, 6},
		"m9-six-passed":  {true, true, 6},
		"m9-beyond":      {false, true, 0},
		"m9-near-passed": {true, true, 2.5},
		"m9-narrowed":    {false, true, 0},
	} {
		evs := run.step(t, id).Events
		ft, re := findEvent[*FormationTested](evs), findEvent[*UnitReformed](evs)
		if (ft != nil) != want.tested || (re != nil) != want.passed || (ft != nil && (ft.Passed != want.passed || ft.Distance != want.distance)) {
			t.Errorf("%s: %s", id, eventsJSON(t, evs))
		}
	}
	s := run.States["b1"]
	if ut := s.TurnBook.peekUnit("fr-a"); ut.ActionsLeft != 1 || s.Units["fr-a"].Formation != "attack_column" {
		t.Errorf("fr-a: %+v in %s", ut, s.Units["fr-a"].Formation)
	}
}

// TestMarchDeployScenario: m-march-deploy.yaml marches a battalion until
// its march ends (M.13), then deploys it into line in the same movement
// phase with its order's action (M.14).
func TestMarchDeployScenario(t *testing.T) {
	run := playScenarioFile(t, "../testdata/scenarios/m-march-deploy.yaml")
	m := findEvent[*UnitMarched](run.step(t, "m14-march").Events)
	d := findEvent[*UnitReformed](run.step(t, "m14-deploy").Events)
	if m == nil || !m.Ended || d == nil || !d.AfterMarch || d.ActionsUsed != 1 || d.FromFormation != "company_column" || d.ToFormation != "line" || d.Turn != m.Turn {
		t.Fatalf("march %+v, deploy %+v", m, d)
	}
	s := run.States["b1"]
	if u, ut := s.Units["fr-a"], s.TurnBook.peekUnit("fr-a"); u.Formation != "line" || ut.ActionsLeft != 0 || u.Base.FrontCenter() != m.To.FrontCenter() {
		t.Fatalf("fr-a %+v, turn %+v", u, ut)
	}
}
