package campaign_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/rules"
)

// TestEventTooLargeIsRefused: a command whose event the log could not
// store (larger than Options.MaxEventBytes: the NATS server's largest
// message less its headers) is refused before anything is appended, dry
// run or not, naming the event and both sizes; the same command within the
// bound is accepted. Before, a player's army.deploy of half a megabyte
// whose names the event's JSON escapes six times over was accepted as a
// dry run and answered 500 "outcome unknown: send the same events again"
// for real (found by this round's tester), which sending again could not
// mend.
func TestEventTooLargeIsRefused(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, jetstream.Config{})
	who := diceBattle(t, l.service())
	small := campaign.NewService(l.log, l.vault, campaign.Options{Entropy: l.entropy, MaxEventBytes: 2500})
	before := lastSeq(t, l.log)
	// "<" is six bytes in the event's JSON ("\u003c").
	raise := func(id string, dry bool) (campaign.Outcome, error) {
		return small.Execute(ctx, campaign.Request{ID: id, Principal: who["marie"], Campaign: "c1", Battle: "b1", DryRun: dry,
			Name: rules.CmdDisputeRaise, Body: body(t, map[string]any{"event_version": 1, "reason": strings.Repeat("<", 1000)})})
	}
	for _, dry := range []bool{true, false} {
		_, err := raise("big", dry)
		var r *rules.Refusal
		if !errors.As(err, &r) || r.Code != "command.too_large" || r.Numbers["max"] != 2500 || r.Numbers["bytes"] <= 2500 ||
			!strings.Contains(r.Message, "dispute.raised") {
			t.Fatalf("dry run %v: %v, want command.too_large naming dispute.raised, its bytes and 2500", dry, err)
		}
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("the log moved from %d to %d", before, after)
	}
	big := campaign.NewService(l.log, l.vault, campaign.Options{Entropy: l.entropy})
	if _, err := big.Execute(ctx, campaign.Request{ID: "big", Principal: who["marie"], Campaign: "c1", Battle: "b1",
		Name: rules.CmdDisputeRaise, Body: body(t, map[string]any{"event_version": 1, "reason": strings.Repeat("<", 1000)})}); err != nil {
		t.Fatalf("within the default bound: %v", err)
	}
}

// TestBattleTooLargeLeavesTheCampaignAlone: a battle.create whose
// battle.created event would be too large is refused before the campaign
// lists the battle (before: the campaign's battle_added was appended, then
// the battle's own event failed, leaving a listed battle that was never
// created).
func TestBattleTooLargeLeavesTheCampaignAlone(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, jetstream.Config{})
	who := diceBattle(t, l.service())
	small := campaign.NewService(l.log, l.vault, campaign.Options{Entropy: l.entropy, MaxEventBytes: 2500})
	camp, err := small.Campaign(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	battles := len(camp.Battles)
	before := lastSeq(t, l.log)
	// The battle of diceBattle again, under another id: its armies alone
	// are more than 2,500 bytes.
	_, err = small.Execute(ctx, campaign.Request{ID: "b2", Principal: who["ump"], Campaign: "c1", Battle: "b2",
		Name: rules.CmdBattleCreate, Body: body(t, battleBody(t))})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Code != "command.too_large" {
		t.Fatalf("battle.create of a battle too large: %v, want command.too_large", err)
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("the log moved from %d to %d", before, after)
	}
	camp, err = small.Campaign(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(camp.Battles) != battles {
		t.Fatalf("the campaign lists %d battles, was %d", len(camp.Battles), battles)
	}
}

// battleBody is a battle.create of a small battle whose ruleset overlay
// carries a long doc: its battle.created event is over 2,500 bytes, the
// campaign's battle_added is not.
func battleBody(t *testing.T) map[string]any {
	t.Helper()
	return map[string]any{"name": "B2", "measurement": "in", "table": map[string]float64{"width": 72, "depth": 48},
		"first_side": "red", "ruleset": "doc: " + strings.Repeat("x", 2400) + "\n"}
}

// TestRulesetAliasesBounded: a ruleset overlay that YAML's aliases expand
// past campaign.MaxRuleset is refused before the rules read it (before: a
// 15 KB overlay of aliases took 6 s and 180 MB of a server before its
// battle.create failed: found by this round's tester).
func TestRulesetAliasesBounded(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	who := diceBattle(t, l.service())
	var y strings.Builder
	y.WriteString("doc: &d \"" + strings.Repeat("x", 1000) + "\"\nformations:\n")
	for i := 0; i < 200; i++ {
		y.WriteString("  f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ": {doc: *d}\n")
	}
	before := lastSeq(t, l.log)
	_, err := l.service().Execute(context.Background(), campaign.Request{ID: "b3", Principal: who["ump"], Campaign: "c1", Battle: "b3",
		Name: rules.CmdBattleCreate, Body: body(t, map[string]any{"name": "B3", "measurement": "in", "table": map[string]float64{"width": 72, "depth": 48},
			"first_side": "red", "ruleset": y.String()})})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Code != "ruleset.too_large" || r.Numbers["max"] != campaign.MaxRuleset {
		t.Fatalf("an overlay of %d bytes whose aliases expand: %v, want ruleset.too_large", y.Len(), err)
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("the log moved from %d to %d", before, after)
	}
}
