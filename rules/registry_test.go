package rules

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
)

func TestDecodeCommandStrict(t *testing.T) {
	if _, err := DecodeCommand(CmdUnitMove, []byte(`{"unit":"u","to":{"x":1,"y":2},"speed":3}`)); err == nil {
		t.Fatal("unknown field accepted")
	}
	if _, err := DecodeCommand(CmdUnitMove, []byte(`{"unit":"u"} {"unit":"v"}`)); err == nil {
		t.Fatal("trailing data accepted")
	}
	if _, err := DecodeCommand("unit.teleport", []byte(`{}`)); err == nil {
		t.Fatal("unknown command accepted")
	}
	c, err := DecodeCommand(CmdBattleStart, nil)
	if err != nil || c.CommandName() != CmdBattleStart {
		t.Fatalf("empty body: %v", err)
	}
	names := CommandNames()
	if !sort.StringsAreSorted(names) || len(names) != len(commandTable) {
		t.Fatalf("names %v", names)
	}
	for _, n := range names {
		c, err := DecodeCommand(n, []byte(`{}`))
		if err != nil || c.CommandName() != n {
			t.Fatalf("%s: %v", n, err)
		}
	}
}

// TestEventsRoundTrip: every event type decodes back to itself, and
// EventTypes lists exactly the emitted types, sorted.
func TestEventsRoundTrip(t *testing.T) {
	types := EventTypes()
	if !slices.IsSortedFunc(types, func(a, b EventType) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	}) {
		t.Fatal("not sorted")
	}
	evs, s := seededSetup(t, "", testSeed)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdDiceAddSeed, `{"player":"alice","seed":"s"}`), nil)...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(6, 6, 3))...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"red-cinc","units":["r1-inf2"],"content":{"action":"move"}}`), NewFixedDice(1, 1))...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf2","to":{"x":27,"y":14}}`), nil)...)
	evs = append(evs, mustDecide(t, s, cmd(t, CmdPhaseEnd, `{"side":"red"}`), nil)...)
	evs = append(evs, mustDecide(t, s, WithDiceReveal(cmd(t, CmdBattleEnd, `{"reason":"agreed"}`), testSeed.Hex()), nil)...)
	cp, _ := commandPhaseLog(t)
	evs = append(evs, cp...)
	mp, _ := movementPhaseLog(t)
	evs = append(evs, mp...)
	evs = append(evs, flankVictoryLog(t)...) // F and V events (flank_test.go)
	evs = append(evs, disputeLog(t)...)      // retractions and disputes (dispute_test.go)
	evs = append(evs, chargeLog(t)...)       // K events (charge_test.go)
	emitted := map[string]bool{}
	for _, e := range evs {
		emitted[e.EventType()] = true
		if e.Audience() != AudienceAll {
			t.Errorf("%s audience %s", e.EventType(), e.Audience())
		}
		b, _ := json.Marshal(e)
		back, err := DecodeEvent(e.EventType(), b)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, e.EventType(), back, e)
	}
	for _, et := range types {
		if et.Schema != 1 || et.Doc == "" {
			t.Errorf("%+v", et)
		}
		if !emitted[et.Name] {
			t.Errorf("%s never emitted in this test", et.Name)
		}
	}
	if _, err := DecodeEvent("unit.teleported", nil); err == nil {
		t.Fatal("unknown type decoded")
	}
}
