package rules

import (
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// nearSetup is the standard battle with the armies close: blue's grenadiers
// at (20,22) facing south, 10.5" from r1-inf1 (within the C.15 12", beyond
// the C.7 6"); the red C-in-C at (56,4), near r2's guns; the heavy guns
// carry 2 casualty markers (C.14).
func nearSetup(t testing.TB) ([]Event, *State) {
	t.Helper()
	red := strings.NewReplacer(
		`"position":{"x":36,"y":2}`, `"position":{"x":56,"y":4}`,
		`"type":"heavy_artillery","position":{"x":60,"y":10},"facing":0}`, `"type":"heavy_artillery","position":{"x":60,"y":10},"facing":0,"markers":2}`,
	).Replace(redBody)
	blue := strings.Replace(blueBody, `"position":{"x":20,"y":38}`, `"position":{"x":20,"y":22}`, 1)
	s := NewState()
	var all []Event
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleCreate, createBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, red), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, blue), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleStart, ``), nil)...)
	return all, s
}

// commandPhaseLog plays a whole red command phase that emits every event
// type of the command phase, and returns its events and the final state.
func commandPhaseLog(t testing.TB) ([]Event, *State) {
	t.Helper()
	log, s := nearSetup(t)
	step := func(name, body string, dice ...int) []Event {
		t.Helper()
		evs := mustDecide(t, s, cmd(t, name, body), NewFixedDice(dice...))
		log = append(log, evs...)
		return evs
	}
	step(CmdInitiativeDecline, `{"unit":"r1-inf2"}`)
	step(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"formation","formation":"attack_column"}}`)
	step(CmdUnitReform, `{"unit":"r1-inf1","formation":"attack_column"}`)
	step(CmdOrderGive, `{"general":"r1-gen","units":["r1-inf2"],"content":{"action":"charge","target":"b1-inf1"}}`, 1, 1)
	step(CmdUnitCharge, `{"unit":"r1-inf2","target":"b1-inf1","actions":3}`)
	step(CmdOrderGive, `{"general":"r1-gen","units":["r1-col"],"content":{"action":"move"}}`, 6, 6, 1)
	step(CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"special":"follow_me"}`, 1, 1)
	step(CmdUnitMove, `{"unit":"r2-lc","to":{"x":50,"y":20}}`)
	step(CmdOrderGive, `{"general":"red-cinc","units":["r2-hvy"],"special":"steady"}`, 1, 1)
	return log, s
}

func TestCommandPhaseLog(t *testing.T) {
	log, s := commandPhaseLog(t)
	if got := stateJSON(t, replayJSON(t, log)); got != stateJSON(t, s) {
		t.Fatalf("replay differs from live")
	}
	ch := findEvent[*ChargeDeclared](log)
	if !ch.Contact || ch.Side != "front" || ch.To.Center.X != 20 || ch.To.Center.Y != 20.5 {
		t.Fatalf("charge %s", eventsJSON(t, []Event{ch}))
	}
	bl := findEvent[*BlunderCarriedOut](log)
	if bl.Result != BlunderRetire || bl.Distance != 6 || bl.To.Center.Y != 4 || bl.Stopped != "" {
		t.Fatalf("blunder %s", eventsJSON(t, []Event{bl}))
	}
	// The attached general moved with the unit he follows (C.13).
	if g := s.Sides[0].Brigades[1].General; g.AttachedTo != "r2-lc" || g.Position.Y != 20 {
		t.Fatalf("r2-gen %+v", g)
	}
	if u := s.Units["r2-hvy"]; u.Markers != 1 || s.Sides[0].CInC.AttachedTo != "r2-hvy" {
		t.Fatalf("steady: %+v %+v", u, s.Sides[0].CInC)
	}
}

func gv(x, y float64) geom.Vec { return geom.Vec{X: x, Y: y} }
