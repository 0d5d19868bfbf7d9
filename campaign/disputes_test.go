package campaign_test

import (
	"context"
	"errors"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/rules"
)

// as runs a command through Execute as actor.
func as(t testing.TB, svc *campaign.Service, actor, id, name string, b any, dice ...int) (campaign.Outcome, error) {
	t.Helper()
	return svc.Execute(context.Background(), campaign.Request{
		ID: id, Principal: campaign.Operator(actor), Campaign: "c1", Battle: "b1", Name: name, Body: body(t, b),
		Dice: campaign.DiceInput{Values: dice},
	})
}

func TestRetractionFactsFromTheLog(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)
	ctx := context.Background()
	must := func(out campaign.Outcome, err error) campaign.Outcome {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	refusal := func(_ campaign.Outcome, err error) string {
		t.Helper()
		var r *rules.Refusal
		if !errors.As(err, &r) {
			t.Fatalf("want a refusal, got %v", err)
		}
		return r.Code
	}
	must(as(t, svc, "marie", "o1", rules.CmdOrderGive, map[string]any{"general": "red-gen", "units": []string{"red-inf1"},
		"content": map[string]string{"action": "move"}}, 3, 3))
	must(as(t, svc, "marie", "m1", rules.CmdUnitMove, map[string]any{"unit": "red-inf1", "to": map[string]float64{"x": 20, "y": 16}}))
	if c := refusal(as(t, svc, "karl", "r0", rules.CmdRetractRequest, map[string]any{"command_id": "m1"})); c != "not_yours" {
		t.Fatalf("another's command: %s", c)
	}
	if c := refusal(as(t, svc, "marie", "r0", rules.CmdRetractRequest, map[string]any{"command_id": "o1"})); c != "rolled" {
		t.Fatalf("a command that rolled: %s", c)
	}
	// A dispute raised by marie in between does not make m1 "not last".
	must(as(t, svc, "marie", "q1", rules.CmdDisputeRaise, map[string]any{"event_version": 2, "reason": "x"}))
	req := must(as(t, svc, "marie", "r1", rules.CmdRetractRequest, map[string]any{"command_id": "m1"}))
	if len(req.Events) != 1 || req.Events[0].Type != rules.EvRetractRequested {
		t.Fatalf("request: %+v", req.Events)
	}
	must(as(t, svc, "karl", "a1", rules.CmdRetractAgree, map[string]any{"request": 1}))
	st, _, err := svc.State(ctx, b1)
	if err != nil {
		t.Fatal(err)
	}
	if u := st.Units["red-inf1"]; u.Base.Center.Y != 10 || st.TurnBook.Units["red-inf1"].ActionsLeft != 2 {
		t.Fatalf("not restored: %+v %+v", u.Base, st.TurnBook.Units["red-inf1"])
	}
	// The dispute names the event's type, read from the log.
	if d := st.Disputes.Disputes; len(d) != 1 || d[0].EventType != rules.EvArmyDeployed {
		t.Fatalf("disputes %+v", d)
	}
	if c := refusal(as(t, svc, "karl", "q2", rules.CmdDisputeRaise, map[string]any{"event_version": 99, "reason": "x"})); c != "no_event" {
		t.Fatalf("no such event: %s", c)
	}
	// Dice entered for a command that rolls none are refused.
	if c := refusal(as(t, svc, "karl", "q3", rules.CmdDisputeRaise, map[string]any{"event_version": 3, "reason": "x"}, 4)); c != "dice.unused" {
		t.Fatalf("dice: %s", c)
	}
}
