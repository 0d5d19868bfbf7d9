package campaign_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/rules"
)

// ledger is a real in-process JetStream with the ledger stream and vault.
type ledger struct {
	log   *jetstream.Log
	vault *jetstream.Vault
	// entropy fixes the dice of the test's services (dicetest).
	entropy io.Reader
}

func openLedger(t *testing.T, cfg jetstream.Config) ledger {
	t.Helper()
	nc := jstest.RunServer(t)
	js := jstest.JetStream(t, nc)
	log := jstest.OpenLog(t, nc, cfg)
	v, err := jetstream.OpenVault(context.Background(), js, jetstream.VaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return ledger{log: log, vault: v, entropy: dicetest.Entropy(t)}
}

func (l ledger) service() *campaign.Service {
	return campaign.NewService(l.log, l.vault, campaign.Options{Entropy: l.entropy})
}

func body(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exec(t testing.TB, svc *campaign.Service, id, name, battle string, b any, dice ...int) campaign.Outcome {
	t.Helper()
	out, err := svc.Execute(context.Background(), campaign.Request{
		ID: id, Principal: seedOwner(name, b), Campaign: "c1", Battle: battle, Name: name, Body: body(t, b),
		Dice: campaign.DiceInput{Values: dice},
	})
	if err != nil {
		t.Fatalf("%s %s: %v", id, name, err)
	}
	return out
}

// seedOwner is who gives a command in these tests: the operator, named
// after the player whose dice seed a dice.add_seed adds (a seed is only
// ever added by its own player, docs/dice.md).
func seedOwner(name string, b any) campaign.Principal {
	if m, ok := b.(map[string]string); ok && name == rules.CmdDiceAddSeed {
		return campaign.Operator(m["player"])
	}
	return campaign.Operator("umpire")
}

// started creates campaign c1 with battle b1, both armies deployed, started.
func started(t testing.TB, svc *campaign.Service) {
	t.Helper()
	exec(t, svc, "create", campaign.CmdCreate, "", map[string]any{"name": "C1", "sides": []map[string]string{
		{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	exec(t, svc, "battle", "battle.create", "b1", map[string]any{"name": "B1", "measurement": "in",
		"table": map[string]float64{"width": 72, "depth": 48}, "first_side": "red"})
	for _, side := range []struct {
		id   string
		y    float64
		face float64
	}{{"red", 10, 0}, {"blue", 38, 180}} {
		exec(t, svc, "deploy-"+side.id, "army.deploy", "b1", map[string]any{
			"side":   side.id,
			"c_in_c": map[string]any{"id": side.id + "-cinc", "name": "C", "rating": 9, "position": map[string]float64{"x": 36, "y": side.y - 6}},
			"brigades": []map[string]any{{
				"id": side.id + "-1", "name": "First", "order": "attack",
				"general": map[string]any{"id": side.id + "-gen", "name": "G", "rating": 8, "position": map[string]float64{"x": 20, "y": side.y - 2}},
				"units": []map[string]any{
					{"id": side.id + "-inf1", "type": "infantry", "position": map[string]float64{"x": 20, "y": side.y}, "facing": side.face},
					{"id": side.id + "-inf2", "type": "infantry", "position": map[string]float64{"x": 27, "y": side.y}, "facing": side.face},
				},
			}},
		})
	}
	exec(t, svc, "start", "battle.start", "b1", map[string]any{})
}

var b1 = events.Key{Campaign: "c1", Battle: "b1"}

func lastSeq(t testing.TB, l events.Log) uint64 {
	t.Helper()
	seq, err := l.LastSequence(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func TestOrderRollsAndMoveRefusalAppendNothing(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)

	out := exec(t, svc, "o1", "order.give", "b1", map[string]any{"general": "red-gen", "units": []string{"red-inf1"},
		"content": map[string]string{"action": "move"}}, 3, 3)
	res := findResolved(t, out)
	if res.Outcome != rules.OutcomeActions || res.Actions != 2 || res.Effective != 8 {
		t.Fatalf("(3,3) against 8: %s, %d actions, rating %d", res.Outcome, res.Actions, res.Effective)
	}
	if out.Events[0].Type != rules.EvDiceRolled {
		t.Fatalf("the roll is an event of its own before the decision; got %s first", out.Events[0].Type)
	}

	before := lastSeq(t, l.log)
	_, err := svc.Execute(context.Background(), campaign.Request{ID: "m1", Principal: campaign.Operator("alice"), Campaign: "c1", Battle: "b1",
		Name: "unit.move", Body: body(t, map[string]any{"unit": "red-inf1", "to": map[string]float64{"x": 20, "y": 16.1}, "actions": 1})})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Rule != "C.17" {
		t.Fatalf("6.1\" move: want a C.17 refusal, got %v", err)
	}
	if r.Numbers["distance"] < 6.09 || r.Numbers["allowed"] != 6 {
		t.Errorf("refusal numbers %v", r.Numbers)
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("a refusal appended %d events", after-before)
	}

	out = exec(t, svc, "o2", "order.give", "b1", map[string]any{"general": "red-cinc", "units": []string{"red-inf2"},
		"content": map[string]string{"action": "move"}}, 6, 4)
	if res := findResolved(t, out); res.Outcome != rules.OutcomeFailed || res.Actions != 0 {
		t.Fatalf("(6,4) against 9: %s, %d actions", res.Outcome, res.Actions)
	}
}

func findResolved(t testing.TB, out campaign.Outcome) rules.OrderResolved {
	t.Helper()
	for _, e := range out.Events {
		if e.Type == rules.EvOrderResolved {
			var r rules.OrderResolved
			if err := json.Unmarshal(e.Payload, &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no order.resolved in %d events", len(out.Events))
	return rules.OrderResolved{}
}

func TestRepeatedCommandAppendsOnce(t *testing.T) {
	l := openLedger(t, jetstream.Config{DuplicateWindow: time.Second})
	svc := l.service()
	started(t, svc)
	order := map[string]any{"general": "red-gen", "units": []string{"red-inf1"}, "content": map[string]string{"action": "move"}}
	first := exec(t, svc, "same-id", "order.give", "b1", order)
	seq := lastSeq(t, l.log)

	// The same service, the same id: the recorded outcome, nothing new.
	again := exec(t, svc, "same-id", "order.give", "b1", order)
	if !again.Duplicate || len(again.Events) != len(first.Events) || again.Events[0].ID != first.Events[0].ID {
		t.Fatalf("repeat: duplicate=%v, %d events", again.Duplicate, len(again.Events))
	}
	// Another process (a fresh service, no cache), after the server's own
	// duplicate window has passed: still recognised, from the stream itself.
	time.Sleep(1500 * time.Millisecond) // let the server's 1s duplicate window elapse; not a synchronisation
	fresh := l.service()
	late := exec(t, fresh, "same-id", "order.give", "b1", order)
	if !late.Duplicate {
		t.Fatal("a repeat after the duplicate window was appended again")
	}
	for i := range first.Events {
		if late.Events[i].ID != first.Events[i].ID || string(late.Events[i].Payload) != string(first.Events[i].Payload) {
			t.Fatalf("event %d differs from the recorded one", i)
		}
	}
	if got := lastSeq(t, l.log); got != seq {
		t.Fatalf("repeats appended %d events", got-seq)
	}
}

// TestConflictingAppendsRetryToConsistentLog: two services (two processes'
// worth of caches) on one battle; each decides on a stale state half the
// time, gets a conflict and decides again. The log ends gap-free, chained,
// with every command applied exactly once.
func TestConflictingAppendsRetryToConsistentLog(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	a, b := l.service(), l.service()
	started(t, a)
	if _, _, err := b.State(context.Background(), b1); err != nil { // b caches the state now
		t.Fatal(err)
	}
	const per = 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*per)
	conflicts := make(chan int, 2*per)
	for w, svc := range []*campaign.Service{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				// Seeds are added by distinct players: all commands are valid in any order.
				out, err := svc.Execute(context.Background(), campaign.Request{
					ID: fmt.Sprintf("w%d-%d", w, i), Principal: campaign.Operator(fmt.Sprintf("p%d-%d", w, i)), Campaign: "c1", Battle: "b1", Name: rules.CmdDiceAddSeed,
					Body: body(t, map[string]string{"player": fmt.Sprintf("p%d-%d", w, i), "seed": "s"}),
				})
				if err != nil {
					errs <- err
					return
				}
				conflicts <- out.Attempts - 1
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(conflicts)
	for err := range errs {
		t.Fatal(err)
	}
	retried := 0
	for c := range conflicts {
		retried += c
	}
	evs, err := l.log.Read(context.Background(), b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range evs {
		if e.Type == rules.EvDiceSeedAdded {
			seen[e.CommandID]++
		}
	}
	if len(seen) != 2*per {
		t.Fatalf("%d commands applied, want %d", len(seen), 2*per)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("command %s applied %d times", id, n)
		}
	}
	t.Logf("%d decisions were retried after a conflict", retried)
	st, _, err := a.State(context.Background(), b1)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Dice.PlayerSeeds) != 2*per {
		t.Fatalf("state has %d player seeds", len(st.Dice.PlayerSeeds))
	}
}

// TestStaleDecisionIsNeverAppended: a service decides on what it last read;
// when another appended in between, the append conflicts and the command
// is decided again on the fresh state (so a player cannot add two seeds).
func TestStaleDecisionIsNeverAppended(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	a, b := l.service(), l.service()
	started(t, a)
	exec(t, a, "x1", rules.CmdDiceAddSeed, "b1", map[string]string{"player": "alice", "seed": "a"})
	_, err := b.Execute(context.Background(), campaign.Request{ID: "x3", Principal: campaign.Operator("alice"), Campaign: "c1", Battle: "b1",
		Name: rules.CmdDiceAddSeed, Body: body(t, map[string]string{"player": "alice", "seed": "again"})})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Code != "seed_given" {
		t.Fatalf("want seed_given, got %v", err)
	}
}

func TestDigitalDiceFromSealedSeed(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)
	out := exec(t, svc, "o1", "order.give", "b1", map[string]any{"general": "red-gen", "units": []string{"red-inf1"},
		"content": map[string]string{"action": "move"}})
	var roll rules.DiceRolled
	if err := json.Unmarshal(out.Events[0].Payload, &roll); err != nil {
		t.Fatal(err)
	}
	if roll.Source != rules.SourceDigital || roll.Period != "battle" || roll.Counter != 1 {
		t.Fatalf("roll %+v", roll)
	}
	// The vault holds the seed; nobody reads it from the log before the end.
	evs, _ := l.log.Read(context.Background(), b1, 0)
	var commit rules.DiceCommitted
	for _, e := range evs {
		if e.Type == rules.EvDiceCommitted {
			_ = json.Unmarshal(e.Payload, &commit)
		}
	}
	end := exec(t, svc, "end", "battle.end", "b1", map[string]string{"reason": "agreed"})
	var rev rules.DiceRevealed
	if err := json.Unmarshal(end.Events[0].Payload, &rev); err != nil || end.Events[0].Type != rules.EvDiceRevealed {
		t.Fatalf("first event at the end is %s: %v", end.Events[0].Type, err)
	}
	if rev.Commitment != commit.Commitment || commit.Commitment == "" {
		t.Fatalf("revealed against %q, committed %q", rev.Commitment, commit.Commitment)
	}
}

func TestPhysicalDiceMustAllBeUsed(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)
	before := lastSeq(t, l.log)
	for _, tc := range []struct {
		dice []int
		code string
	}{{[]int{3}, "dice.missing"}, {[]int{3, 3, 2}, "dice.unused"}, {[]int{7, 1}, "dice.out_of_range"}} {
		_, err := svc.Execute(context.Background(), campaign.Request{ID: "o", Principal: campaign.Operator("alice"), Campaign: "c1", Battle: "b1",
			Name: "order.give", Body: body(t, map[string]any{"general": "red-gen", "units": []string{"red-inf1"},
				"content": map[string]string{"action": "move"}}), Dice: campaign.DiceInput{Values: tc.dice}})
		var r *rules.Refusal
		if !errors.As(err, &r) || r.Code != tc.code {
			t.Errorf("dice %v: want %s, got %v", tc.dice, tc.code, err)
		}
	}
	if lastSeq(t, l.log) != before {
		t.Fatal("a refused roll appended events")
	}
}

func TestUnknownCampaignRefused(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	_, err := svc.Execute(context.Background(), campaign.Request{ID: "b", Principal: campaign.Operator("umpire"), Campaign: "nope", Battle: "b1",
		Name: "battle.create", Body: body(t, map[string]any{"table": map[string]int{"width": 72, "depth": 48}, "first_side": "red"})})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Code != "campaign.unknown" {
		t.Fatalf("want campaign.unknown, got %v", err)
	}
	if lastSeq(t, l.log) != 0 {
		t.Fatal("appended")
	}
}

// racingLog is the real log with a hook run just before an append: the
// hook appends through another service, so the append that follows really
// conflicts on the server.
type racingLog struct {
	events.Log
	before func()
}

func (r *racingLog) Append(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope) error {
	if r.before != nil {
		f := r.before
		r.before = nil
		f()
	}
	return r.Log.Append(ctx, key, expected, batch)
}

func TestConflictIsDecidedAgainOnFreshState(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	other := l.service()
	started(t, other)
	racing := &racingLog{Log: l.log}
	svc := campaign.NewService(racing, l.vault, campaign.Options{Entropy: l.entropy})
	if _, _, err := svc.State(context.Background(), b1); err != nil {
		t.Fatal(err)
	}

	// Between bob's decision and its append, another process adds alice's
	// seed: bob's append conflicts, is decided again and lands after it.
	racing.before = func() {
		exec(t, other, "alice-1", rules.CmdDiceAddSeed, "b1", map[string]string{"player": "alice", "seed": "a"})
	}
	out := exec(t, svc, "bob-1", rules.CmdDiceAddSeed, "b1", map[string]string{"player": "bob", "seed": "b"})
	if out.Attempts != 2 {
		t.Fatalf("attempts %d, want 2 (one conflict, one retry)", out.Attempts)
	}

	// Now the competitor adds carol's seed while svc decides carol's own
	// (stale: no carol yet): the retry sees it and refuses, appending nothing.
	racing.before = func() {
		exec(t, other, "carol-1", rules.CmdDiceAddSeed, "b1", map[string]string{"player": "carol", "seed": "c"})
	}
	_, err := svc.Execute(context.Background(), campaign.Request{ID: "carol-2", Principal: campaign.Operator("carol"), Campaign: "c1", Battle: "b1",
		Name: rules.CmdDiceAddSeed, Body: body(t, map[string]string{"player": "carol", "seed": "again"})})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Code != "seed_given" {
		t.Fatalf("want seed_given on the retry, got %v", err)
	}
	evs, err := l.log.Read(context.Background(), b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range evs {
		if e.Type == rules.EvDiceSeedAdded {
			order = append(order, e.CommandID)
		}
	}
	if fmt.Sprint(order) != "[alice-1 bob-1 carol-1]" {
		t.Fatalf("seeds appended in order %v", order)
	}
}

// TestRefusedBattleCreateLeavesNoBattle: the rules judge battle.create
// before the campaign records the battle, so a refused one can be given
// again, corrected.
func TestRefusedBattleCreateLeavesNoBattle(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	exec(t, svc, "create", campaign.CmdCreate, "", map[string]any{"name": "C1", "sides": []map[string]string{
		{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	_, err := svc.Execute(context.Background(), campaign.Request{ID: "bad", Principal: campaign.Operator("umpire"), Campaign: "c1", Battle: "b1",
		Name: "battle.create", Body: body(t, map[string]any{"table": map[string]float64{"width": -1, "depth": 48}, "first_side": "red"})})
	var r *rules.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("a table of width -1: %v", err)
	}
	c, err := svc.Campaign(context.Background(), "c1")
	if err != nil || len(c.Battles) != 0 {
		t.Fatalf("the campaign lists %+v after a refused battle.create (%v)", c.Battles, err)
	}
	exec(t, svc, "good", "battle.create", "b1", map[string]any{"table": map[string]float64{"width": 72, "depth": 48}, "first_side": "red"})
	if c, _ := svc.Campaign(context.Background(), "c1"); len(c.Battles) != 1 || c.Battles[0].Number != 1 {
		t.Fatalf("battles %+v", c.Battles)
	}
}

// A 2D6 roll given one die is one die short, in English and in Russian
// (the count is the shortfall, not the roll's number of dice).
func TestPhysicalDiceMissingSaysTheShortfall(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)
	_, err := svc.Execute(context.Background(), campaign.Request{ID: "o", Principal: campaign.Operator("alice"), Campaign: "c1", Battle: "b1",
		Name: "order.give", Body: body(t, map[string]any{"general": "red-gen", "units": []string{"red-inf1"},
			"content": map[string]string{"action": "move"}}), Dice: campaign.DiceInput{Values: []int{3}}})
	var r *rules.Refusal
	if !errors.As(err, &r) || r.Code != "dice.missing" {
		t.Fatalf("want dice.missing, got %v", err)
	}
	if !strings.Contains(r.Message, "needs 1 more die; 1 entered, 0 used so far") || r.Numbers["needed"] != 1 {
		t.Errorf("message %q, numbers %v: want one more die", r.Message, r.Numbers)
	}
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	if ru := cat.Refusal("ru", r, i18n.Vars{}); !strings.Contains(ru, "нужно ещё 1 кубик;") {
		t.Errorf("russian %q: want one more die", ru)
	}
}
