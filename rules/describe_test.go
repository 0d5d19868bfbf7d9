package rules

import (
	"strings"
	"testing"
)

// TestDescribeEveryEvent: every event type has a sentence of its own, not
// just its type name.
func TestDescribeEveryEvent(t *testing.T) {
	evs, s := seededSetup(t, "", testSeed)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdDiceAddSeed, `{"player":"alice","seed":"s"}`), nil)...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3))...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`), nil)...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdPhaseEnd, `{"side":"red"}`), nil)...)
	evs = append(evs, mustDecide(t, s, WithDiceReveal(cmd(t, CmdBattleEnd, `{"reason":"agreed"}`), testSeed.Hex()), nil)...)
	cp, _ := commandPhaseLog(t)
	evs = append(evs, cp...)
	mp, _ := movementPhaseLog(t)
	evs = append(evs, mp...)
	evs = append(evs, flankVictoryLog(t)...) // F and V events (flank_test.go)
	evs = append(evs, disputeLog(t)...)      // retractions and disputes (dispute_test.go)
	evs = append(evs, chargeLog(t)...)       // K events (charge_test.go)
	seen := map[string]bool{}
	for _, e := range evs {
		d := Describe(e)
		if d == "" || d == e.EventType() {
			t.Errorf("%s: no description", e.EventType())
		}
		seen[e.EventType()] = true
	}
	for _, et := range EventTypes() {
		if !seen[et.Name] {
			t.Errorf("%s not exercised", et.Name)
		}
	}
	mv := findEvent[*UnitMoved](evs)
	if got := Describe(mv); !strings.Contains(got, "r1-inf1 moved 6.0 using 1 action") {
		t.Errorf("move described as %q", got)
	}
	if got := Describe(findEvent[*DiceRolled](evs)); !strings.Contains(got, "2D6 = 3+3") {
		t.Errorf("roll described as %q", got)
	}
}
