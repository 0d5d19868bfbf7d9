package campaign_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// TestOnlyTheUmpireEntersAResultForSomeoneElse: a player says a combat
// result (unit.fire, combat.record) or physical dice were entered by
// themselves only; naming the umpire or another player is forbidden, names
// the field, and appends nothing. The umpire names whom they entered it
// for, on their own or entering the command for a player, and a player
// names themselves or nobody. Through the service, with the people's own
// tokens.
func TestOnlyTheUmpireEntersAResultForSomeoneElse(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	who := diceBattle(t, svc)
	fire := func(by string) map[string]any {
		return map[string]any{"unit": "red-inf1", "target": "blue-inf1", "entered_by": by}
	}
	casualty := func(unit, by string) map[string]any {
		return map[string]any{"unit": unit, "result": "casualties", "markers": 1, "entered_by": by}
	}
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	before := lastSeq(t, l.log)
	for i, c := range []struct {
		what, name, field string
		body              any
		dice              campaign.DiceInput
	}{
		{"marie's fire entered by the umpire", rules.CmdUnitFire, "entered_by", fire("ump"), campaign.DiceInput{}},
		{"marie's fire entered by karl", rules.CmdUnitFire, "entered_by", fire("karl"), campaign.DiceInput{}},
		{"marie's casualty entered by karl", rules.CmdCombatRecord, "entered_by", casualty("red-inf1", "karl"), campaign.DiceInput{}},
		{"marie's casualty entered by the umpire", rules.CmdCombatRecord, "entered_by", casualty("red-inf1", "ump"), campaign.DiceInput{}},
		{"marie's order with dice entered by karl", rules.CmdOrderGive, "dice.entered_by", order(1), campaign.DiceInput{Values: []int{3, 3}, EnteredBy: "karl"}},
	} {
		out, err := svc.Execute(context.Background(), campaign.Request{ID: fmt.Sprintf("m-refused-%d", i), Principal: who["marie"],
			Campaign: "c1", Battle: "b1", Name: c.name, Body: body(t, c.body), Dice: c.dice})
		var f *campaign.Forbidden
		if !errors.As(err, &f) {
			t.Fatalf("%s: want forbidden, got %v %+v", c.what, err, out)
		}
		if f.Who != "marie" || !strings.Contains(f.Reason, c.field) || f.Why.Format == "" {
			t.Errorf("%s: forbidden as %+v, want marie's, naming %s, with its format", c.what, f, c.field)
		}
		if ru := cat.Detail("ru", "detail.forbidden", f.Why, f.Reason); !strings.Contains(ru, "marie указывает в "+c.field+" только себя") {
			t.Errorf("%s: in Russian %q", c.what, ru)
		}
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("refused entries appended %d events", after-before)
	}

	enteredBy := func(out campaign.Outcome, err error, what, typ, want, actor, forWho string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, e := range out.Events {
			if e.Type != typ {
				continue
			}
			var p struct {
				EnteredBy string `json:"entered_by"`
			}
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				t.Fatal(err)
			}
			if p.EnteredBy != want || e.Actor != actor || e.OnBehalfOf != forWho {
				t.Fatalf("%s: %s entered by %q, actor %q for %q; want %q, %q for %q", what, typ, p.EnteredBy, e.Actor, e.OnBehalfOf, want, actor, forWho)
			}
			return
		}
		t.Fatalf("%s: no %s in %+v", what, typ, out.Events)
	}
	out, err := give(t, svc, who["marie"], "", "m-own-fire", rules.CmdUnitFire, fire("marie"), "")
	enteredBy(out, err, "marie's fire entered by herself", rules.EvUnitFired, "marie", "marie", "")
	out, err = give(t, svc, who["marie"], "", "m-nobody", rules.CmdCombatRecord, casualty("red-inf1", ""), "")
	enteredBy(out, err, "marie's casualty naming nobody", rules.EvCombatRecorded, "", "marie", "")
	out, err = svc.Execute(context.Background(), campaign.Request{ID: "m-own-dice", Principal: who["marie"], Campaign: "c1", Battle: "b1",
		Name: rules.CmdOrderGive, Body: body(t, order(2)), Dice: campaign.DiceInput{Values: []int{3, 3}, EnteredBy: "marie"}})
	enteredBy(out, err, "marie's dice entered by herself", rules.EvDiceRolled, "marie", "marie", "")
	out, err = give(t, svc, who["ump"], "", "u-for-karl", rules.CmdCombatRecord, casualty("blue-inf1", "karl"), "")
	enteredBy(out, err, "the umpire's casualty entered for karl", rules.EvCombatRecorded, "karl", "ump", "")
	out, err = give(t, svc, who["ump"], "karl", "u-as-karl", rules.CmdCombatRecord, casualty("blue-inf1", "karl"), "")
	enteredBy(out, err, "the umpire, entering for karl, names karl", rules.EvCombatRecorded, "karl", "ump", "karl")
	out, err = give(t, svc, who["ump"], "marie", "u-as-marie", rules.CmdUnitFire, fire("ump"), "")
	enteredBy(out, err, "the umpire, entering for marie, names themselves", rules.EvUnitFired, "ump", "ump", "marie")
}
