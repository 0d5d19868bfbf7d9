package campaign_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// TestDisputeScenarios plays testdata/scenarios/d-*.yaml through a real
// service: each disputes, rules and corrects one kind of decision, the
// service reading the facts the rules need from the log. The corrected
// states are checked, and the audit of each battle passes (its check of
// the corrections included).
func TestDisputeScenarios(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/d-*.yaml")
	if len(files) < 7 {
		t.Fatalf("want a dispute scenario per kind of correction and the campaign: %v", files)
	}
	ctx := context.Background()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			l := openLedger(t, jetstream.Config{})
			svc := l.service()
			playFile(t, svc, f)
			key := events.Key{Campaign: name, Battle: "b1"}
			st, _, err := svc.State(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			corrections := 0
			for _, e := range battleLog(t, l.log, key) {
				if rules.IsCorrectionEvent(e.EventType()) {
					corrections++
				}
			}
			if corrections == 0 {
				t.Fatal("no correction recorded")
			}
			at := func(unit string, x, y float64) {
				t.Helper()
				if u := st.Units[unit]; u == nil || u.Base.Center != (geom.Vec{X: x, Y: y}) {
					t.Errorf("%s at %+v, want (%g,%g)", unit, u, x, y)
				}
			}
			switch name {
			case "d-order":
				at("fr-a", 20, 16)
				at("au-a", 20, 46) // the blunder's retire
			case "d-move":
				at("fr-b", 59, 12)
				at("fr-a", 20, 22)
				at("au-a2", 15.5, 30)
				at("fr-m", 66, 4)
			case "d-general":
				if g := st.Sides[0].Brigades[0].General; g.AttachedTo != "" || g.Position != (geom.Vec{X: 24, Y: 10}) {
					t.Errorf("Friant %+v", g)
				}
			case "d-flank":
				if u := st.Units["rf-inf1"]; u.Status != rules.UnitOffTable {
					t.Errorf("rf-inf1 %+v", u)
				}
				if m := st.Flank.Marches[0]; m.Entry != rules.EntryOrdered || m.ArrivalTurn != 4 {
					t.Errorf("march 1 %+v", m)
				}
			case "d-combat":
				if u := st.Units["au-a"]; u.Markers != 1 || u.Status != rules.UnitDisordered || u.Base.Center != (geom.Vec{X: 20, Y: 26}) {
					t.Errorf("au-a %+v", u)
				}
			case "d-score":
				if sc := st.Victory.Score; sc.Points("red") != 0 || sc.Points("blue") != 5 {
					t.Errorf("score %+v", sc)
				}
			}
			envs, err := l.log.Read(ctx, key, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep := audit.Verify(envs, audit.Options{Key: key})
			for _, c := range rep.Checks {
				if c.Status == audit.Fail {
					t.Errorf("audit check %s fails: %+v", c.ID, c.Findings)
				}
			}
		})
	}
}

// TestCorrectionFlipsCampaign plays d-campaign.yaml: battle one, entered
// as red's win, is corrected after its end into blue's; the standings, the
// winner and the roster for battle two follow. A second correction, after
// battle two started, is scored again with battle two named as started,
// and battle two stands as deployed.
func TestCorrectionFlipsCampaign(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	playFile(t, svc, "../testdata/scenarios/d-campaign.yaml")
	ctx := context.Background()
	st, err := svc.Standings(ctx, "d-campaign")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	t.Logf("standings:\n%s", b)
	one := st.Battles[0]
	want := []campaign.SidePoints{{Side: "red", Points: 0, Result: campaign.ResultLost}, {Side: "blue", Points: 8, Result: campaign.ResultWon}}
	if !slices.Equal(one.Points, want) {
		t.Errorf("battle one %+v, want %+v", one.Points, want)
	}
	if red, blue := st.Side("red"), st.Side("blue"); red.Won != 0 || red.Lost != 1 || blue.Won != 1 || blue.Points != 8 {
		t.Errorf("standings red %+v blue %+v", red, blue)
	}
	if len(one.Rescores) != 2 {
		t.Fatalf("rescores %+v", one.Rescores)
	}
	flip, hill := one.Rescores[0], one.Rescores[1]
	if flip.Before[0].Result != campaign.ResultWon || flip.After[0].Result != campaign.ResultLost || flip.After[1].Points != 3 || len(flip.Successors) != 0 {
		t.Errorf("the flip %+v", flip)
	}
	var gone, back bool
	for _, c := range flip.Rosters {
		gone = gone || (c.Unit == "r1-inf1" && c.After == campaign.RosterDestroyed)
		back = back || (c.Unit == "b1-inf1" && c.Before == campaign.RosterDestroyed && c.After == campaign.RosterPresent)
	}
	if !gone || !back {
		t.Errorf("roster changes %+v", flip.Rosters)
	}
	if !slices.Equal(hill.Successors, []string{"b2"}) || hill.After[1].Points != 8 {
		t.Errorf("the hill %+v", hill)
	}
	if red := st.Roster("red"); slices.Contains(red.Destroyed, "r1-inf1") == false {
		t.Errorf("red roster %+v", red)
	}
	// Battle two stands as deployed: the grenadiers are there, r1-inf1 not.
	b2, _, err := svc.State(ctx, events.Key{Campaign: "d-campaign", Battle: "b2"})
	if err != nil {
		t.Fatal(err)
	}
	if b2.Units["b1-inf1"] == nil || b2.Units["r1-inf1"] != nil || b2.Status != rules.StatusInProgress {
		t.Errorf("battle two %s: %v", b2.Status, b2.Units)
	}
	for _, battle := range []string{"b1", "b2"} {
		key := events.Key{Campaign: "d-campaign", Battle: battle}
		envs, err := l.log.Read(ctx, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range audit.Verify(envs, audit.Options{Key: key}).Checks {
			if c.Status == audit.Fail {
				t.Errorf("%s: audit check %s fails: %+v", battle, c.ID, c.Findings)
			}
		}
	}
}
