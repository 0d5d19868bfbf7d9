package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// vault plays the service's part for flank marches (campaign/sealed.go):
// it seals the orders a flank.declare carries, keeps them by commitment and
// supplies the reveals a command needs.
type vault struct {
	sealed map[string]string
	n      int
}

func newVault() *vault { return &vault{sealed: map[string]string{}} }

func (v *vault) prep(t testing.TB, s *State, c Command) Command {
	t.Helper()
	if o := FlankOrdersToSeal(c); o != nil {
		if r := CheckFlankOrders(s, o); r != nil {
			t.Fatalf("orders refused before sealing: %v", r)
		}
		v.n++
		txt, cm, err := SealFlankOrders(*o, fmt.Sprintf("%032x", v.n*7919))
		if err != nil {
			t.Fatal(err)
		}
		v.sealed[cm] = txt
		c = WithFlankCommitment(c, cm)
	}
	for _, cm := range FlankReveals(s, c) {
		c = WithFlankReveal(c, cm, v.sealed[cm])
	}
	return c
}

func (v *vault) do(t testing.TB, s *State, name, body string, dice ...int) []Event {
	t.Helper()
	return mustDecide(t, s, v.prep(t, s, cmd(t, name, body)), NewFixedDice(dice...))
}

func (v *vault) no(t testing.TB, s *State, name, body, rule, code string, dice ...int) *Refusal {
	t.Helper()
	return refused(t, s, v.prep(t, s, cmd(t, name, body)), NewFixedDice(dice...), rule, code)
}

// flankBody is red's march on the west edge: a brigade of two battalions
// and a battery, entering at (0, 30).
const flankBody = `{"side":"red","edge":"west","orders":{"entry":{"x":0,"y":30},"brigades":[
	{"id":"rf","name":"Flank","order":"attack","general":{"id":"rf-gen","rating":8},
	 "units":[{"id":"rf-inf1","type":"infantry"},{"id":"rf-inf2","type":"infantry"},{"id":"rf-art","type":"light_artillery","formation":"limbered"}]}]}}`

// flankSetup is setup with no turn limit and an extra body of battle.create.
func flankSetup(t testing.TB, extra string) ([]Event, *State) {
	t.Helper()
	s := NewState()
	body := strings.Replace(createBody, `"turn_limit":4}`, `"turn_limit":0`+extra+`}`, 1)
	var all []Event
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleCreate, body), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, redBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, blueBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleStart, ``), nil)...)
	return all, s
}

// toPhase ends phases until it is turn's phase, handing the movement phase
// over to side when it is not the phasing side's.
func toPhase(t testing.TB, v *vault, s *State, turn int, phase, side string) []Event {
	t.Helper()
	var evs []Event
	for s.Turn < turn || s.Phase != phase {
		evs = append(evs, v.do(t, s, CmdPhaseEnd, `{"side":"`+s.Phasing+`"}`)...)
	}
	if phase == PhaseMovement && side != "" && side != s.Phasing {
		evs = append(evs, v.do(t, s, CmdMovementHandOver, `{"side":"`+s.Phasing+`"}`)...)
	}
	return evs
}

func TestFlankDeclare(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.no(t, s, CmdFlankDeclare, strings.Replace(flankBody, `"side":"red"`, `"side":"blue"`, 1), "F.1", "not_own_command_phase", 3)
	refused(t, s, WithFlankCommitment(cmd(t, CmdFlankDeclare, strings.Replace(flankBody, `"west"`, `"left"`, 1)), strings.Repeat("a", 64)), NewFixedDice(3), RuleInput, "bad_edge")
	// The orders in the open, not sealed by the service: refused.
	refused(t, s, cmd(t, CmdFlankDeclare, flankBody), NewFixedDice(3), "F.1", "orders_in_open")
	refused(t, s, cmd(t, CmdFlankDeclare, `{"side":"red","edge":"west"}`), NewFixedDice(3), "F.1", "no_commitment")

	evs := v.do(t, s, CmdFlankDeclare, flankBody, 3)
	roll, decl := findEvent[*DiceRolled](evs), findEvent[*FlankDeclared](evs)
	if roll == nil || roll.Purpose != "flank:red:west" || decl == nil || decl.Roll != 3 || decl.ArrivalTurn != 3 || decl.Entry != EntryOrdered || decl.Exclusion != 12 {
		t.Fatalf("declared: %s", eventsJSON(t, evs))
	}
	v.no(t, s, CmdFlankDeclare, flankBody, "F.1", "already_declared", 2)
	// F.2 roll 3: "after 2 turns".
	toPhase(t, v, s, 1, PhaseMovement, "red")
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`, "F.2", "not_arrived")
	toPhase(t, v, s, 2, PhaseMovement, "red")
	r := v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`, "F.2", "not_arrived")
	if r.Numbers["arrival_turn"] != 3 || r.Numbers["turn"] != 2 {
		t.Fatalf("numbers %v", r.Numbers)
	}
	toPhase(t, v, s, 3, PhaseCommand, "")
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`, "F.5", "not_movement_phase")
	toPhase(t, v, s, 3, PhaseMovement, "red")
	v.no(t, s, CmdFlankEnter, `{"side":"blue","march":1,"unit":"rf-inf1"}`, "F.1", "not_own_march")
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1","to":{"x":7,"y":30}}`, "F.5", "move_too_far")
	evs = v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1","to":{"x":6.75,"y":30}}`)
	rev, in := findEvent[*FlankRevealed](evs), findEvent[*FlankUnitEntered](evs)
	if rev == nil || rev.Reason != RevealArrival || flankCommitment(rev.Sealed) != rev.Commitment || in == nil || in.Allowance != 6 || in.Distance != 6 {
		t.Fatalf("entered: %s", eventsJSON(t, evs))
	}
	if u := s.Units["rf-inf1"]; u.Status != UnitOK || u.Base.Center.X != 6.75 || u.Base.Facing != 90 {
		t.Fatalf("rf-inf1 %+v", u)
	}
	if u := s.Units["rf-inf2"]; u.Status != UnitOffTable {
		t.Fatalf("rf-inf2 waits off the table, got %+v", u)
	}
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`, "F.5", "already_entered")
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"b1-inf1"}`, "F.1", "not_in_march")
	// F.6: off the table, no firing: unit.fire cites F.6.
	if r := v.no(t, s, CmdUnitFire, `{"unit":"rf-inf2"}`, "F.6", "off_table"); !strings.Contains(r.Message, "rf-inf2 is off the table") {
		t.Fatalf("fire from off the table: %v", r)
	}
	v.do(t, s, CmdUnitFire, `{"unit":"rf-inf1"}`)
	// F.3 only for artillery arriving at once: roll 3 gives the battery its normal move.
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-art","to":{"x":10.6,"y":30}}`, "F.5", "move_too_far")
}

func TestFlankRevealMismatch(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 1)
	toPhase(t, v, s, 1, PhaseMovement, "red")
	m := s.Flank.Marches[0]
	// Another composition (one battalion fewer) sealed with the same salt.
	var sf sealedFlank
	if err := json.Unmarshal([]byte(v.sealed[m.Commitment]), &sf); err != nil {
		t.Fatal(err)
	}
	sf.Orders.Brigades[0].Units = sf.Orders.Brigades[0].Units[1:]
	other, _, err := SealFlankOrders(sf.Orders, sf.Salt)
	if err != nil {
		t.Fatal(err)
	}
	c := WithFlankReveal(cmd(t, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf2"}`), m.Commitment, other)
	refused(t, s, c, nil, "F.1", "reveal_mismatch")
	refused(t, s, cmd(t, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf2"}`), nil, "F.1", "no_reveal")
	v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf2"}`)
}

func TestFlankArtilleryAtOnce(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 1)
	toPhase(t, v, s, 1, PhaseMovement, "red")
	// Limbered light guns: normal move 9", twice at once (F.3).
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-art","to":{"x":19.6,"y":30}}`, "F.5", "move_too_far")
	evs := v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-art","to":{"x":19.5,"y":30}}`)
	if e := findEvent[*FlankUnitEntered](evs); !e.ExtraMove || e.Allowance != 18 {
		t.Fatalf("F.3: %+v", e)
	}
	// Infantry gets no extra move.
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1","to":{"x":6.8,"y":30}}`, "F.5", "move_too_far")
}

func TestFlankEntryOccupied(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 1)
	toPhase(t, v, s, 1, PhaseMovement, "red")
	v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`)
	// The first battalion stands on the entry point: the next waits (F.5).
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf2"}`, "F.5", "entry_occupied")
	// Next turn it has moved off.
	toPhase(t, v, s, 2, PhaseCommand, "")
	toPhase(t, v, s, 3, PhaseCommand, "")
	v.do(t, s, CmdOrderGive, `{"general":"rf-gen","units":["rf-inf1"],"content":{"action":"move"}}`, 3, 3)
	v.do(t, s, CmdUnitMove, `{"unit":"rf-inf1","to":{"x":6.75,"y":30}}`)
	toPhase(t, v, s, 3, PhaseMovement, "red")
	v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf2"}`)
}

func TestFlankEdgeExclusion(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 4)
	toPhase(t, v, s, 2, PhaseCommand, "")
	v.do(t, s, CmdOrderGive, `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, 3, 3)
	// b1-inf1 (4.5" wide) at x=20: its west side 17.75" from the west edge.
	r := v.no(t, s, CmdUnitMove, `{"unit":"b1-inf1","to":{"x":14,"y":38}}`, "F.8", "flank_edge")
	if r.Numbers["distance"] != 11.75 || r.Numbers["exclusion"] != 12 {
		t.Fatalf("numbers %v", r.Numbers)
	}
	v.do(t, s, CmdUnitMove, `{"unit":"b1-inf1","to":{"x":14.25,"y":38}}`)
}

// TestFlankEdgeAlongPath: F.8 holds along the whole move, not only where
// it ends: a path that dips to 11.9" from the declared edge and comes back
// out is refused; one that keeps 12.0" is accepted. A turn on the spot
// that swings a corner into the zone is refused too.
func TestFlankEdgeAlongPath(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 4)
	toPhase(t, v, s, 2, PhaseCommand, "")
	v.do(t, s, CmdOrderGive, `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, 1, 1)
	// b1-inf1 (4.5" x 1.5", facing south) at (20,38): its west side 17.75" from the west edge.
	r := v.no(t, s, CmdUnitMove, `{"unit":"b1-inf1","path":[{"x":14.15,"y":36}],"to":{"x":20,"y":34},"actions":3}`, "F.8", "flank_edge")
	if math.Abs(r.Numbers["distance"]-11.9) > 1e-9 || r.Numbers["exclusion"] != 12 || r.Numbers["waypoint"] != 1 || !strings.Contains(r.Message, "waypoint 1") {
		t.Fatalf("%v %v", r, r.Numbers)
	}
	// A turn at the waypoint: standing there its west side is 12.05" from
	// the edge, but turning 90 degrees on the spot swings a corner (2.37"
	// from its centre) to 11.93".
	r = v.no(t, s, CmdUnitMove, `{"unit":"b1-inf1","path":[{"x":14.3,"y":38,"facing":270}],"to":{"x":16,"y":38},"actions":3}`, "F.8", "flank_edge")
	if !strings.Contains(r.Message, "turning at waypoint 1") {
		t.Fatalf("%v", r)
	}
	evs := v.do(t, s, CmdUnitMove, `{"unit":"b1-inf1","path":[{"x":14.25,"y":36}],"to":{"x":20,"y":34},"actions":3}`)
	if m := findEvent[*UnitMoved](evs); m == nil || m.To.Center != gv(20, 34) {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
}

// TestFlankEdgeMarch: a tactical march keeps out of the zone along its
// path too (the movement battle; red declares a march on the east edge and
// Austria's a2 brigade marches in the same turn's movement phase).
func TestFlankEdgeMarch(t *testing.T) {
	s := given(mSetup(t, "")...)
	v := newVault()
	v.do(t, s, CmdFlankDeclare, `{"side":"red","edge":"east","orders":{"entry":{"x":72,"y":30},"brigades":[
		{"id":"rf","order":"attack","general":{"id":"rf-gen","rating":8},"units":[{"id":"rf-inf1","type":"infantry"}]}]}}`, 4)
	v.do(t, s, CmdPhaseEnd, `{"side":"red"}`)
	v.do(t, s, CmdMovementHandOver, `{"side":"red"}`)
	v.do(t, s, CmdMarchDeclare, `{"brigade":"a2"}`)
	// a2-col (4.5" x 1.5", facing south) at (48,46): its east side 21.75" from the east edge.
	r := v.no(t, s, CmdUnitMarch, `{"unit":"a2-col","path":[{"x":60.1,"y":44}],"to":{"x":56,"y":42}}`, "F.8", "flank_edge")
	if math.Abs(r.Numbers["distance"]-9.65) > 1e-9 || r.Numbers["waypoint"] != 1 {
		t.Fatalf("%v %v", r, r.Numbers)
	}
	v.do(t, s, CmdUnitMarch, `{"unit":"a2-col","path":[{"x":57.75,"y":44}],"to":{"x":54,"y":42}}`)
}

// TestFlankEdgeCentimetres: on a cm table the zone is 20 cm (its own
// conversion of 12"): 19.9 cm refused, 20.0 cm accepted, along the path.
func TestFlankEdgeCentimetres(t *testing.T) {
	s := NewState()
	body := strings.NewReplacer(`"measurement":"in"`, `"measurement":"cm"`, `"width":72,"depth":48`, `"width":180,"depth":120`, `"turn_limit":4}`, `"turn_limit":0}`).Replace(createBody)
	mustDecide(t, s, cmd(t, CmdBattleCreate, body), nil)
	mustDecide(t, s, cmd(t, CmdArmyDeploy, `{"side":"red","c_in_c":{"id":"red-cinc","rating":9,"position":{"x":90,"y":2}},
		"brigades":[{"id":"r1","order":"attack","general":{"id":"r1-gen","rating":8,"position":{"x":90,"y":8}},
		 "units":[{"id":"r1-inf1","type":"infantry","position":{"x":90,"y":10},"facing":0}]}]}`), nil)
	mustDecide(t, s, cmd(t, CmdArmyDeploy, strings.Replace(blueBody, `"position":{"x":20,"y":38}`, `"position":{"x":40,"y":90}`, 1)), nil)
	mustDecide(t, s, cmd(t, CmdBattleStart, ``), nil)
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 4)
	toPhase(t, v, s, 2, PhaseCommand, "")
	v.do(t, s, CmdOrderGive, `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, 1, 1)
	// b1-inf1 (7.5 x 2.5 cm) at (40,90): its west side 36.25 cm from the west edge.
	r := v.no(t, s, CmdUnitMove, `{"unit":"b1-inf1","path":[{"x":23.65,"y":88}],"to":{"x":30,"y":88},"actions":3}`, "F.8", "flank_edge")
	if math.Abs(r.Numbers["distance"]-19.9) > 1e-9 || r.Numbers["exclusion"] != 20 || !strings.Contains(r.Message, "19.9 cm") {
		t.Fatalf("%v %v", r, r.Numbers)
	}
	v.do(t, s, CmdUnitMove, `{"unit":"b1-inf1","path":[{"x":23.75,"y":88}],"to":{"x":30,"y":88},"actions":3}`)
}

// TestFlankEdgeCharge: a charge may not end in, nor pass through, the
// zone of a flank march's edge; it slides along the target as far out of
// it as K.6 lets it, and is refused F.8 only when every placement lies
// inside. Blue has declared a march on the west edge.
func TestFlankEdgeCharge(t *testing.T) {
	west := func(s *State) {
		s.Flank.Marches = []FlankMarch{{N: 1, Side: "blue", Edge: geom.EdgeWest, Commitment: strings.Repeat("a", 64), DeclaredTurn: 1, Roll: 4, Entry: EntryOrdered, ArrivalTurn: 4}}
	}
	// The charger 13.75" from the edge; the target's west side 2" from it:
	// even slid as far east as K.7 allows the charger would stand 6.48" from it.
	s := kBattle(t, []kU{red("r1-inf1", 16, 10, 0, 4.5, 1.5), blue("b1-inf1", 4.25, 16, 180, 4.5, 1.5)})
	west(s)
	r := refused(t, s, chargeCmd(t, "b1-inf1"), nil, "F.8", "flank_edge")
	if r.Numbers["exclusion"] != 12 || r.Numbers["distance"] >= 12 {
		t.Fatalf("%v %v", r, r.Numbers)
	}
	// Outside the zone: the charge is made as ever.
	s = kBattle(t, []kU{red("r1-inf1", 30, 10, 0, 4.5, 1.5), blue("b1-inf1", 24, 16, 180, 4.5, 1.5)})
	west(s)
	c := findEvent[*ChargeDeclared](mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil))
	if c == nil || s.Table.DistanceToEdge(c.To, geom.EdgeWest) < 12 {
		t.Fatalf("%+v", c)
	}
	// Inside the middle placement but not at the far end of the slide: the
	// charger ends as near the middle as the zone lets it, 12" from the edge.
	s = kBattle(t, []kU{red("r1-inf1", 18, 10, 0, 4.5, 1.5), blue("b1-inf1", 12, 16, 180, 4.5, 1.5)})
	west(s)
	c = findEvent[*ChargeDeclared](mustDecide(t, s, chargeCmd(t, "b1-inf1"), nil))
	if d := s.Table.DistanceToEdge(c.To, geom.EdgeWest); c == nil || d < 12-1e-9 || d > 12.5 {
		t.Fatalf("ends %v from the edge: %+v", d, c)
	}
}

// TestFlankEdgeOtherMoves: a general's move, a formation change and a
// blunder keep out of the zone too; forced moves (a retreat entered at the
// table) are not refused.
func TestFlankEdgeOtherMoves(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 4)
	toPhase(t, v, s, 1, PhaseMovement, "blue")
	// Blue's general at (20,40): 20" from the edge.
	r := v.no(t, s, CmdGeneralMove, `{"general":"b1-gen","to":{"x":11.9,"y":40}}`, "F.8", "flank_edge")
	if math.Abs(r.Numbers["distance"]-11.9) > 1e-9 {
		t.Fatalf("%v", r.Numbers)
	}
	v.do(t, s, CmdGeneralMove, `{"general":"b1-gen","to":{"x":12,"y":40}}`)
	// A retreat into the zone is a forced move: recorded as entered.
	evs := v.do(t, s, CmdCombatRecord, `{"unit":"b1-inf1","result":"retreat","toward":{"x":0,"y":38},"distance":9}`)
	if c := findEvent[*CombatRecorded](evs); c == nil || s.Table.DistanceToEdge(*c.To, geom.EdgeWest) >= 12 {
		t.Fatalf("%s", eventsJSON(t, evs))
	}

	// A formation change whose new base reaches into the zone.
	_, s = flankSetup(t, "")
	v = newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 4)
	toPhase(t, v, s, 2, PhaseCommand, "")
	v.do(t, s, CmdOrderGive, `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, 1, 1)
	v.do(t, s, CmdUnitMove, `{"unit":"b1-inf1","to":{"x":14.25,"y":38}}`) // its west side 12" from the edge
	// March column facing east: 4.5" deep behind the command point.
	r = v.no(t, s, CmdUnitReform, `{"unit":"b1-inf1","formation":"march_column","facing":90}`, "F.8", "flank_edge")
	if math.Abs(r.Numbers["distance"]-9.75) > 1e-9 {
		t.Fatalf("%v", r.Numbers)
	}
	v.do(t, s, CmdUnitReform, `{"unit":"b1-inf1","formation":"march_column"}`)

	// A blunder to its right (west, for a unit facing south) stops where
	// the zone begins, as it stops at any other obstacle.
	_, s = flankSetup(t, "")
	v = newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 4)
	toPhase(t, v, s, 2, PhaseCommand, "")
	evs = v.do(t, s, CmdOrderGive, `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, 6, 6, 4)
	b := findEvent[*BlunderCarriedOut](evs)
	if b == nil || b.Result != BlunderMoveRight || math.Abs(b.Distance-5.75) > 1e-6 || !strings.Contains(b.Stopped, "F.8") {
		t.Fatalf("%s", eventsJSON(t, evs))
	}
}

func TestFlankOpponentView(t *testing.T) {
	evs, s := flankSetup(t, "")
	v := newVault()
	evs = append(evs, v.do(t, s, CmdFlankDeclare, flankBody, 4)...)
	for _, e := range evs {
		b, _ := json.Marshal(e)
		for _, secret := range []string{"rf-", `"entry":{`, `"y":30`} {
			if _, created := e.(*BattleCreated); created && secret == `"entry":{` {
				continue // the ruleset's arrival table has entries
			}
			if e.Audience() == AudienceAll && strings.Contains(string(b), secret) {
				t.Fatalf("%s (audience %s) holds %q: %s", e.EventType(), e.Audience(), secret, b)
			}
		}
	}
	full := s.WithSealedOrders(v.sealed)
	if full.Flank.Marches[0].Orders == nil {
		t.Fatal("the sealed orders did not attach")
	}
	for _, c := range []struct {
		side   string
		umpire bool
		sees   bool
	}{{"blue", false, false}, {"red", false, true}, {"", true, true}, {"", false, false}} {
		view := full.ViewFor(c.side, c.umpire)
		b, _ := json.Marshal(view)
		if got := strings.Contains(string(b), "rf-inf1") || strings.Contains(string(b), `"entry":{`); got != c.sees {
			t.Errorf("%s umpire=%v sees the orders: %v", c.side, c.umpire, got)
		}
		if m := view.Flank.Marches[0]; m.Edge != "west" || m.Commitment == "" {
			t.Errorf("%s view lost the edge or commitment: %+v", c.side, m)
		}
	}
	if b, _ := json.Marshal(s.ViewFor("blue", false)); string(b) != stateJSON(t, s) {
		t.Error("the folded state holds nothing hidden, its view for blue is the same")
	}
}

func TestFlankOpponentChoice(t *testing.T) {
	wood := `,"terrain":[{"name":"wood","kind":"difficult","outline":[{"x":0,"y":20},{"x":5,"y":20},{"x":5,"y":25},{"x":0,"y":25}]}]`
	_, s := flankSetup(t, wood)
	v := newVault()
	evs := v.do(t, s, CmdFlankDeclare, flankBody, 5)
	if d := findEvent[*FlankDeclared](evs); d.Entry != EntryOpponentChoice || d.ArrivalTurn != 5 {
		t.Fatalf("roll 5: %+v", d)
	}
	toPhase(t, v, s, 5, PhaseMovement, "red")
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`, "F.4", "entry_not_chosen")
	v.no(t, s, CmdFlankChooseEntry, `{"side":"red","march":1,"entry":{"x":0,"y":40}}`, "F.4", "not_opponent")
	v.no(t, s, CmdFlankChooseEntry, `{"side":"blue","march":1,"entry":{"x":1,"y":40}}`, "F.4", "entry_not_on_edge")
	v.no(t, s, CmdFlankChooseEntry, `{"side":"blue","march":1,"entry":{"x":0,"y":22}}`, "F.4", "entry_in_difficult_terrain")
	v.do(t, s, CmdFlankChooseEntry, `{"side":"blue","march":1,"entry":{"x":0,"y":40}}`)
	v.no(t, s, CmdFlankChooseEntry, `{"side":"blue","march":1,"entry":{"x":0,"y":41}}`, "F.4", "already_chosen")
	v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf2"}`, "F.4", "entry_order")
	evs = v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1","to":{"x":5,"y":40}}`)
	if e := findEvent[*FlankUnitEntered](evs); e.Entry.Y != 40 || e.From.Center.X != 0.75 {
		t.Fatalf("entered at %+v", e)
	}
}

func TestFlankRally(t *testing.T) {
	_, s := flankSetup(t, "")
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 1)
	toPhase(t, v, s, 1, PhaseMovement, "red")
	v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1","to":{"x":3,"y":30}}`)
	v.no(t, s, CmdFlankRally, `{"unit":"rf-inf1"}`, "F.7", "not_gone_off_table")
	v.do(t, s, CmdCombatRecord, `{"unit":"rf-inf1","result":"rout","toward":{"x":-10,"y":30},"distance":6}`)
	if s.Units["rf-inf1"].Status != UnitOffTable {
		t.Fatalf("routed off: %+v", s.Units["rf-inf1"])
	}
	v.do(t, s, CmdCombatRecord, `{"unit":"r1-inf1","result":"rout","toward":{"x":20,"y":-10},"distance":20}`)
	v.no(t, s, CmdFlankRally, `{"unit":"r1-inf1"}`, "F.7", "not_flank_marcher")
	v.do(t, s, CmdFlankRally, `{"unit":"rf-inf1","note":"rallied on 4+"}`)
	if m := s.Flank.Marches[0]; len(m.Waiting) != 3 || m.Waiting[2] != "rf-inf1" {
		t.Fatalf("waiting %v", m.Waiting)
	}
	v.do(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1","to":{"x":3,"y":30}}`)
}

// TestFlankLostScore: a roll of 6 loses the march (F.2); it takes no part
// and is left out of both sides' points (F.9, V.3), checked against a
// score computed by hand.
func TestFlankLostScore(t *testing.T) {
	obj := `,"objectives":[{"id":"hill","name":"The hill","value":5,"position":{"x":36,"y":24}},{"id":"bridge","value":2}]`
	for _, c := range []struct {
		overlay   string
		red, blue int
	}{
		// red: blue's b1-inf1 destroyed (infantry 3) + the hill (5) = 8;
		// blue: red's r1-inf1 destroyed (infantry 3) + r2-lc routed off the
		// table (light cavalry 2) = 5. The lost march (2 infantry, 1 light
		// gun: 8 points) counts for neither.
		{"", 8, 5},
		// With lost_flank_marchers_count, blue scores them too: 5 + 8.
		{`,"ruleset":"victory: {lost_flank_marchers_count: true}"`, 8, 13},
	} {
		evs, s := flankSetup(t, obj+c.overlay)
		v := newVault()
		evs = append(evs, v.do(t, s, CmdFlankDeclare, flankBody, 6)...)
		if d := findEvent[*FlankDeclared](evs); d.Entry != EntryLost || d.ArrivalTurn != 0 {
			t.Fatalf("roll 6: %+v", d)
		}
		evs = append(evs, toPhase(t, v, s, 1, PhaseMovement, "red")...)
		v.no(t, s, CmdFlankEnter, `{"side":"red","march":1,"unit":"rf-inf1"}`, "F.2", "march_lost")
		for _, body := range []string{
			`{"unit":"b1-inf1","result":"destroyed"}`,
			`{"unit":"r1-inf1","result":"destroyed"}`,
			`{"unit":"r2-lc","result":"rout","toward":{"x":50,"y":-10}}`,
		} {
			evs = append(evs, v.do(t, s, CmdCombatRecord, body, 6)...)
		}
		evs = append(evs, v.do(t, s, CmdObjectiveHold, `{"objective":"hill","side":"red"}`)...)
		evs = append(evs, v.do(t, s, CmdObjectiveHold, `{"objective":"bridge","side":"blue"}`)...)
		evs = append(evs, v.do(t, s, CmdObjectiveHold, `{"objective":"bridge","side":""}`)...)
		v.no(t, s, CmdObjectiveHold, `{"objective":"mill","side":"red"}`, "V.2", "unknown_objective")
		// Without the sealed orders the battle cannot end: the log must say who was lost.
		refused(t, s, cmd(t, CmdBattleEnd, `{"reason":"agreed"}`), nil, "F.1", "no_reveal")
		end := v.do(t, s, CmdBattleEnd, `{"reason":"agreed"}`)
		evs = append(evs, end...)
		types := make([]string, len(end))
		for i, e := range end {
			types[i] = e.EventType()
		}
		if strings.Join(types, " ") != "flank.revealed battle.scored battle.ended" {
			t.Fatalf("end events %v", types)
		}
		sc := findEvent[*BattleScored](end)
		if sc.Points("red") != c.red || sc.Points("blue") != c.blue {
			t.Fatalf("%s: score red %d blue %d, want %d %d: %s", c.overlay, sc.Points("red"), sc.Points("blue"), c.red, c.blue, eventsJSON(t, end))
		}
		if c.overlay == "" && len(sc.Excluded) != 3 {
			t.Fatalf("excluded %+v", sc.Excluded)
		}
		if got, want := stateJSON(t, replayJSON(t, evs)), stateJSON(t, s); got != want {
			t.Fatal("replay differs from live")
		}
	}
}

// TestFlankMutual: two sides' marches on one edge fight it out (F.10) by
// the ruleset's table, measured in units or victory points.
func TestFlankMutual(t *testing.T) {
	blueMarch := func(units ...string) string {
		var us []string
		for i, ty := range units {
			us = append(us, fmt.Sprintf(`{"id":"bf-%d","type":%q}`, i, ty))
		}
		return `{"side":"blue","edge":"west","orders":{"entry":{"x":0,"y":40},"brigades":[{"id":"bf","order":"attack","general":{"id":"bf-gen","rating":7},"units":[` + strings.Join(us, ",") + `]}]}}`
	}
	for _, c := range []struct {
		name       string
		overlay    string
		blue       []string
		result     string
		winner     string
		percent    int
		red, blueM FlankChange
	}{
		// red 3 units (declared turn 1, roll 2: turn 2) against blue's (turn 2, roll 2: turn 3).
		{"equal", "", []string{"infantry", "infantry", "infantry"}, MutualBothDelayed, "", 0,
			FlankChange{March: 1, Entry: EntryOrdered, ArrivalTurn: 3}, FlankChange{March: 2, Entry: EntryOrdered, ArrivalTurn: 4}},
		{"red by 50%", "", []string{"infantry", "infantry"}, MutualLoserRetires, "red", 50,
			FlankChange{March: 1, Entry: EntryOrdered, ArrivalTurn: 2}, FlankChange{March: 2, Entry: EntryOpponentChoice, ArrivalTurn: 6}},
		{"red by 200%", "", []string{"infantry"}, MutualLoserLost, "red", 200,
			FlankChange{March: 1, Entry: EntryOrdered, ArrivalTurn: 2}, FlankChange{March: 2, Entry: EntryLost}},
		{"blue by 33%", "", []string{"infantry", "infantry", "infantry", "infantry"}, MutualLoserDelayed, "blue", 33,
			FlankChange{March: 1, Entry: EntryOrdered, ArrivalTurn: 3}, FlankChange{March: 2, Entry: EntryOrdered, ArrivalTurn: 3}},
		// In victory points red has 3+3+2 = 8, blue 4+4 = 8: equal.
		{"victory points", `,"ruleset":"flank_march: {mutual_measure: victory_points}"`, []string{"heavy_cavalry", "heavy_cavalry"}, MutualBothDelayed, "", 0,
			FlankChange{March: 1, Entry: EntryOrdered, ArrivalTurn: 3}, FlankChange{March: 2, Entry: EntryOrdered, ArrivalTurn: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, s := flankSetup(t, c.overlay)
			v := newVault()
			v.do(t, s, CmdFlankDeclare, flankBody, 2)
			toPhase(t, v, s, 2, PhaseCommand, "")
			evs := v.do(t, s, CmdFlankDeclare, blueMarch(c.blue...), 2)
			f := findEvent[*FlankFightResolved](evs)
			if f == nil || f.Result != c.result || f.Winner != c.winner || f.Percent != c.percent {
				t.Fatalf("fight: %s", eventsJSON(t, evs))
			}
			for _, want := range []FlankChange{c.red, c.blueM} {
				m := s.march(want.March)
				if m.Entry != want.Entry || m.ArrivalTurn != want.ArrivalTurn {
					t.Errorf("march %d: %s turn %d, want %s turn %d", m.N, m.Entry, m.ArrivalTurn, want.Entry, want.ArrivalTurn)
				}
			}
			b, _ := json.Marshal(f)
			if strings.Contains(string(b), "bf-") || strings.Contains(string(b), "rf-") {
				t.Fatalf("the fight leaks the orders: %s", b)
			}
		})
	}
}

func TestFlankRulesetValidation(t *testing.T) {
	for _, bad := range []string{
		"flank_march: {mutual_measure: men}",
		"flank_march: {mutual: [{min_percent: 0, result: explode}]}",
		"flank_march: {mutual: [{min_percent: 5, result: loser_lost}]}",
		"flank_march: {mutual: [{min_percent: 0, max_percent: 50, result: loser_lost}]}",
	} {
		if _, err := LoadRuleset(nil, []byte(bad)); err == nil {
			t.Errorf("overlay %q: want an error", bad)
		}
	}
	_, s := setup(t)
	refused(t, s, cmd(t, CmdObjectiveHold, `{"objective":"x"}`), nil, "V.2", "unknown_objective")
	refused(t, NewState(), cmd(t, CmdBattleCreate, strings.Replace(createBody, `"turn_limit":4}`, `"objectives":[{"id":"a","value":-1}]}`, 1)), nil, "V.2", "bad_objective_value")
}

// TestFlankTurnLimitScores: the end at the turn limit scores too.
func TestFlankTurnLimitScores(t *testing.T) {
	_, s := setup(t) // turn limit 4
	v := newVault()
	v.do(t, s, CmdFlankDeclare, flankBody, 2)
	var end []Event
	for s.Status != StatusEnded {
		end = v.do(t, s, CmdPhaseEnd, `{"side":"`+s.Phasing+`"}`)
	}
	if sc := findEvent[*BattleScored](end); sc == nil || findEvent[*FlankRevealed](end) == nil || len(sc.Excluded) != 3 {
		t.Fatalf("turn limit end: %s", eventsJSON(t, end))
	}
}

// flankVictoryLog is a battle that emits every event type of flank marches
// and victory, for the codec and describe tests.
func flankVictoryLog(t testing.TB) []Event {
	t.Helper()
	evs, s := flankSetup(t, `,"objectives":[{"id":"hill","value":5}]`)
	v := newVault()
	evs = append(evs, v.do(t, s, CmdFlankDeclare, flankBody, 5)...)
	evs = append(evs, toPhase(t, v, s, 2, PhaseCommand, "")...)
	blue := `{"side":"blue","edge":"west","orders":{"entry":{"x":0,"y":44},"brigades":[{"id":"bf","order":"attack","general":{"id":"bf-gen","rating":7},
		"units":[{"id":"bf-inf1","type":"infantry"},{"id":"bf-inf2","type":"infantry"}]}]}}`
	// Red's 3 units outnumber blue's 2 by 50%: blue's march retires and
	// enters at red's choice (F.10), in turn 2 + 4.
	evs = append(evs, v.do(t, s, CmdFlankDeclare, blue, 1)...)
	evs = append(evs, v.do(t, s, CmdFlankChooseEntry, `{"side":"red","march":2,"entry":{"x":0,"y":40}}`)...)
	evs = append(evs, toPhase(t, v, s, 6, PhaseMovement, "blue")...)
	evs = append(evs, v.do(t, s, CmdFlankEnter, `{"side":"blue","march":2,"unit":"bf-inf1","to":{"x":3,"y":40}}`)...)
	evs = append(evs, v.do(t, s, CmdCombatRecord, `{"unit":"bf-inf1","result":"rout","toward":{"x":-10,"y":40},"distance":6}`)...)
	evs = append(evs, v.do(t, s, CmdFlankRally, `{"unit":"bf-inf1"}`)...)
	evs = append(evs, v.do(t, s, CmdObjectiveHold, `{"objective":"hill","side":"red"}`)...)
	evs = append(evs, v.do(t, s, CmdBattleEnd, `{"reason":"agreed"}`)...)
	return evs
}

func TestFlankVictoryLogReplays(t *testing.T) {
	evs := flankVictoryLog(t)
	seen := map[string]bool{}
	for _, e := range evs {
		seen[e.EventType()] = true
		if d := Describe(e); d == "" || d == e.EventType() {
			t.Errorf("%s: no description", e.EventType())
		}
	}
	for _, typ := range []string{EvFlankDeclared, EvFlankFightResolved, EvFlankEntryChosen, EvFlankRevealed, EvFlankUnitEntered, EvFlankRallied, EvObjectiveHeld, EvBattleScored} {
		if !seen[typ] {
			t.Errorf("%s not emitted", typ)
		}
	}
	s := replayJSON(t, evs)
	if s.Status != StatusEnded || s.Victory.Score == nil || s.Victory.Score.Points("red") != 5 {
		t.Fatalf("replayed: %s", stateJSON(t, s))
	}
}

// TestFlankFireScenario: f-fire.yaml refuses both off-table shots citing
// F.6 with the unit named (F.6: a flank marcher waiting to enter, a unit
// that retreated off the table).
func TestFlankFireScenario(t *testing.T) {
	run := playScenarioFile(t, "../testdata/scenarios/f-fire.yaml")
	for id, unit := range map[string]string{"f6-waiting": "rf-inf2", "f6-left": "r1-inf2"} {
		r := run.step(t, id).Refusal
		if r == nil || r.Rule != "F.6" || r.Code != "off_table" || !strings.Contains(r.Message, unit+" is off the table") {
			t.Errorf("%s: %v", id, r)
		}
	}
}

// TestFlankEdgeScenario: f-edge.yaml refuses the path at 11.9" and 19.9 cm
// and the charge into the zone, citing F.8 with the distance, and makes
// the path at 12.0" and 20.0 cm and the charge outside.
func TestFlankEdgeScenario(t *testing.T) {
	run := playScenarioFile(t, "../testdata/scenarios/f-edge.yaml")
	for id, want := range map[string][2]float64{"f8-path-11-9": {11.9, 12}, "f8-path-19-9cm": {19.9, 20}} {
		r := run.step(t, id).Refusal
		if r == nil || r.Rule != "F.8" || math.Abs(r.Numbers["distance"]-want[0]) > 1e-9 || r.Numbers["exclusion"] != want[1] || r.Numbers["waypoint"] != 1 {
			t.Errorf("%s: %v", id, r)
		}
	}
	if r := run.step(t, "f8-charge-in").Refusal; r == nil || r.Rule != "F.8" || r.Numbers["distance"] >= 12 || !strings.Contains(r.Message, "charging r-edge") {
		t.Errorf("charge into the zone: %v", r)
	}
	if m := findEvent[*UnitMoved](run.step(t, "f8-path-12-0").Events); m == nil {
		t.Error("the path at 12.0\" was not made")
	}
	if m := findEvent[*UnitMoved](run.step(t, "f8-path-20-0cm").Events); m == nil {
		t.Error("the path at 20.0 cm was not made")
	}
	c := findEvent[*ChargeDeclared](run.step(t, "f8-charge-out").Events)
	if c == nil || run.States["b1"].Table.DistanceToEdge(c.To, geom.EdgeWest) != 21.75 {
		t.Errorf("charge outside the zone: %+v", c)
	}
}
