package campaign_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/rules"
)

// playFile plays a scenario file into svc; it skips the test if the
// service does not seal flank marches yet (prepare not wired to
// prepareSealed: docs/flank-marches.md, "Wiring").
func playFile(t *testing.T, svc *campaign.Service, path string) {
	t.Helper()
	sc, err := campaign.LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []campaign.StepResult
	err = sc.Play(context.Background(), svc, campaign.Operator("umpire"), func(r campaign.StepResult) { steps = append(steps, r) })
	for _, r := range steps {
		if r.Mismatch != "" {
			t.Errorf("%s step %d %s (%s): %s: %v %v", filepath.Base(path), r.Number, r.Step.Do, r.Step.Note, r.Mismatch, r.Refusal, r.Err)
		}
	}
	if err != nil && t.Failed() {
		t.FailNow()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestFlankScenarios plays testdata/scenarios/f-*.yaml and v-*.yaml
// through a real service: sealed orders in the vault, reveals stamped.
func TestFlankScenarios(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/[fv]-*.yaml")
	if len(files) == 0 {
		t.Fatal("no f-*.yaml or v-*.yaml scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			l := openLedger(t, jetstream.Config{})
			playFile(t, l.service(), f)
		})
	}
}

// TestCampaignStandings plays the two-battle campaign of f-campaign.yaml:
// the flank march lost in battle one counts for neither side (F.9, V.3)
// and returns to Red's roster with no losses for battle two; the standings
// sum both battles (V.4).
func TestCampaignStandings(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	playFile(t, svc, "../testdata/scenarios/f-campaign.yaml")
	ctx := context.Background()
	st, err := svc.Standings(ctx, "f-campaign")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	t.Logf("standings:\n%s", b)

	// Battle one: red 3 (b1-inf1 destroyed) + 5 (the hill) = 8, blue 0:
	// the lost march (rf-inf1 3, rf-cav 3) gives blue nothing.
	// Battle two: blue 3 (rf-cav destroyed), red 0.
	if len(st.Battles) != 2 {
		t.Fatalf("battles %+v", st.Battles)
	}
	want := [][]campaign.SidePoints{
		{{Side: "red", Points: 8, Result: campaign.ResultWon}, {Side: "blue", Points: 0, Result: campaign.ResultLost}},
		{{Side: "red", Points: 0, Result: campaign.ResultLost}, {Side: "blue", Points: 3, Result: campaign.ResultWon}},
	}
	for i, w := range want {
		if got := st.Battles[i].Points; len(got) != 2 || got[0] != w[0] || got[1] != w[1] {
			t.Errorf("battle %d points %+v, want %+v", i+1, got, w)
		}
	}
	if got := st.Battles[0].Returned; strings.Join(got, ",") != "rf-inf1,rf-cav" {
		t.Errorf("battle one returned %v", got)
	}
	red, blue := st.Side("red"), st.Side("blue")
	if red.Points != 8 || blue.Points != 3 || red.Won != 1 || red.Lost != 1 || blue.Won != 1 || blue.Played != 2 {
		t.Errorf("sides %+v %+v", red, blue)
	}
	// Rosters for a third battle.
	rr, br := st.Roster("red"), st.Roster("blue")
	for _, c := range []struct {
		r       *campaign.Roster
		id      string
		markers int
		battles int
		present bool
	}{
		{rr, "r1-inf1", 0, 2, true},
		{rr, "r1-inf2", 2, 2, true},
		{rr, "rf-inf1", 0, 1, true}, // lost in battle one, fought in battle two
		{rr, "rf-cav", 0, 0, false}, // destroyed in battle two
		{br, "b1-inf1", 0, 0, false},
		{br, "b1-inf2", 0, 2, true},
		{br, "b1-inf3", 0, 1, true},
	} {
		u, ok := c.r.Unit(c.id)
		if ok != c.present || (ok && (u.Markers != c.markers || u.Battles != c.battles)) {
			t.Errorf("%s: %+v present %v, want markers %d battles %d present %v", c.id, u, ok, c.markers, c.battles, c.present)
		}
	}
	if strings.Join(rr.Destroyed, ",") != "rf-cav" || strings.Join(br.Destroyed, ",") != "b1-inf1" {
		t.Errorf("destroyed %v %v", rr.Destroyed, br.Destroyed)
	}

	// The roster after battle one, as battle two's deployment saw it.
	logs := map[string][]rules.Event{}
	c, err := svc.Campaign(ctx, "f-campaign")
	if err != nil {
		t.Fatal(err)
	}
	one := c
	one.Battles = c.Battles[:1]
	logs["b1"] = battleLog(t, l.log, events.Key{Campaign: "f-campaign", Battle: "b1"})
	after1 := campaign.FoldStandings(one, logs)
	for _, id := range []string{"rf-inf1", "rf-cav"} {
		u, ok := after1.Roster("red").Unit(id)
		if !ok || u.Markers != 0 || u.Battles != 0 || u.LastWas != "returned" {
			t.Errorf("after battle one, lost flank marcher %s: %+v %v", id, u, ok)
		}
	}
}

// TestFlankSealedInVault: the log holds no flank march's orders before
// they are revealed; the vault does, under the commitment; the opponent's
// view of the state shows the edge and nothing more.
func TestFlankSealedInVault(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)
	ctx := context.Background()
	_, err := svc.Execute(ctx, campaign.Request{ID: "fm", Principal: campaign.Operator("alice"), Campaign: "c1", Battle: "b1", Name: rules.CmdFlankDeclare,
		Body: body(t, map[string]any{"side": "red", "edge": "east", "orders": map[string]any{
			"entry": map[string]float64{"x": 72, "y": 30},
			"brigades": []map[string]any{{"id": "rf", "order": "attack", "general": map[string]any{"id": "rf-gen", "rating": 7},
				"units": []map[string]any{{"id": "rf-secret", "type": "infantry"}}}},
		}}), Dice: campaign.DiceInput{Values: []int{2}}})
	if err != nil {
		// Sealed orders not wired (the service not sealing them) is a
		// failure, never a skip.
		t.Fatal(err)
	}
	key := events.Key{Campaign: "c1", Battle: "b1"}
	envs, err := l.log.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range envs {
		if strings.Contains(string(e.Payload), "rf-secret") || strings.Contains(string(e.Payload), `"y":30`) {
			t.Fatalf("%s (%s) holds the sealed orders: %s", e.Type, e.Audience, e.Payload)
		}
	}
	st, _, err := svc.State(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	cm := st.Flank.Marches[0].Commitment
	raw, err := l.vault.Get(ctx, "flank.c1.b1."+cm)
	if err != nil || !strings.Contains(string(raw), "rf-secret") {
		t.Fatalf("vault: %s %v", raw, err)
	}
	for _, c := range []struct {
		p    campaign.Principal
		sees bool
	}{
		{campaign.Principal{Role: campaign.RolePlayer, Side: "blue"}, false},
		{campaign.Principal{Role: campaign.RoleReader}, false},
		{campaign.Principal{Role: campaign.RolePlayer, Side: "red"}, true},
		{campaign.Principal{Role: campaign.RoleUmpire}, true},
	} {
		st, _, err := svc.State(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		v, err := svc.View(ctx, key, st, c.p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		if got := strings.Contains(string(b), "rf-secret"); got != c.sees {
			t.Errorf("%+v sees the orders: %v", c.p, got)
		}
		if m := v.Flank.Marches[0]; m.Edge != "east" || m.Commitment != cm {
			t.Errorf("%+v: the edge and commitment are public: %+v", c.p, m)
		}
	}
	// battle.end reveals the march that never arrived, from the vault.
	out := exec(t, svc, "end", rules.CmdBattleEnd, "b1", map[string]any{"reason": "agreed"})
	var types []string
	for _, e := range out.Events {
		types = append(types, e.Type)
	}
	if !strings.Contains(strings.Join(types, " "), "flank.revealed battle.scored battle.ended") {
		t.Fatalf("end: %v", types)
	}
}

func battleLog(t *testing.T, l events.Log, key events.Key) []rules.Event {
	t.Helper()
	envs, err := l.Read(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []rules.Event
	for i := range envs {
		payload, err := campaign.Registry().Upcast(&envs[i])
		if err != nil {
			t.Fatal(err)
		}
		e, err := rules.DecodeEvent(envs[i].Type, payload)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}
