package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

// TestProjectionFollowsRescore plays testdata/scenarios/d-campaign.yaml
// (battle one corrected after its end, its winner flipped, battle two
// started, battle one corrected again): the projection, followed event by
// event from before the first correction, holds the standings, rosters and
// victory points the service folds, and equals one built in one go.
func TestProjectionFollowsRescore(t *testing.T) {
	ctx := context.Background()
	l := campaigntest.Open(t, campaigntest.Options{})
	log, svc := l.Log, l.Service
	sc, err := campaign.LoadScenario("../../testdata/scenarios/d-campaign.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = sc.Play(ctx, svc, campaign.Operator("umpire"), func(r campaign.StepResult) {
		if r.Mismatch != "" {
			t.Errorf("step %d %s: %s: %v %v", r.Number, r.Step.Do, r.Mismatch, r.Refusal, r.Err)
		}
	})
	if err != nil || t.Failed() {
		t.Fatalf("play: %v", err)
	}
	const camp = "d-campaign"
	envs, err := log.Read(ctx, events.Key{Campaign: camp, Battle: "b1"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var upheld uint64
	for _, e := range envs {
		if e.Type == rules.EvDisputeUpheld && upheld == 0 {
			upheld = e.Sequence
		}
	}
	dir := t.TempDir()
	// Before the correction the projection has red winning battle one.
	live := project(t, log, filepath.Join(dir, "live.db"), projections.RunOptions{Until: upheld - 1, BatchSize: 1})
	st, err := live.Standings(ctx, camp)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sides) != 2 || st.Sides[0].Won != 1 || st.Sides[0].Points != 3 {
		t.Fatalf("before the correction: %+v", st.Sides)
	}
	if err := projections.Run(ctx, log, live, projections.RunOptions{BatchSize: 1}); err != nil {
		t.Fatal(err)
	}
	checkStandings(t, live, log, svc, camp)
	var blue int
	if err := live.SQL().QueryRow(`SELECT points FROM victory_points WHERE campaign = ? AND battle = 'b1' AND side = 'blue'`, camp).Scan(&blue); err != nil {
		t.Fatal(err)
	}
	if blue != 8 {
		t.Errorf("blue's victory points in battle one: %d, want 8", blue)
	}
	fresh := project(t, log, filepath.Join(dir, "fresh.db"), projections.RunOptions{BatchSize: 500})
	diffs, err := live.Compare(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("followed and fresh differ: %s", d.Detail)
	}
}
