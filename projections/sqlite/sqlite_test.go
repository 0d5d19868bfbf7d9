package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

func mustOpen(tb testing.TB, path string) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// battleLog plays a small battle with many commands into a real log.
func battleLog(t *testing.T) events.Log {
	t.Helper()
	return battleLedger(t, campaigntest.Options{}).Log
}

// battleLedger is battleLog's ledger opened with opts (a key file), with
// the connection, for writing to NATS behind the service's back.
func battleLedger(t *testing.T, opts campaigntest.Options) *campaigntest.Ledger {
	t.Helper()
	l := campaigntest.Open(t, opts)
	do := func(id, name, battle string, body any, dice ...int) {
		t.Helper()
		execute(t, l.Service, "umpire", "c1", battle, id, name, body, dice...)
	}
	do("c", campaign.CmdCreate, "", map[string]any{"name": "C", "sides": []map[string]string{{"id": "red"}, {"id": "blue"}}})
	for _, b := range []string{"b1", "b2"} {
		do(b+"-create", "battle.create", b, map[string]any{"table": map[string]int{"width": 72, "depth": 48}, "first_side": "red"})
		for _, side := range []struct {
			id string
			y  float64
		}{{"red", 10}, {"blue", 38}} {
			do(b+"-deploy-"+side.id, "army.deploy", b, map[string]any{"side": side.id,
				"c_in_c": map[string]any{"id": side.id + "-c", "rating": 9, "position": map[string]float64{"x": 36, "y": side.y - 6}},
				"brigades": []map[string]any{{"id": side.id + "-b", "order": "attack",
					"general": map[string]any{"id": side.id + "-g", "rating": 8, "position": map[string]float64{"x": 20, "y": side.y}},
					"units":   []map[string]any{{"id": side.id + "-u", "type": "light_cavalry", "position": map[string]float64{"x": 30, "y": side.y}}}}}})
		}
		do(b+"-start", "battle.start", b, map[string]any{})
		for turn := 0; turn < 6; turn++ {
			side := []string{"red", "blue"}[turn%2]
			do(fmt.Sprintf("%s-o%d", b, turn), "order.give", b, map[string]any{"general": side + "-g", "units": []string{side + "-u"},
				"content": map[string]string{"action": "move"}}, 1, 1)
			for i := 0; i < 3; i++ {
				do(fmt.Sprintf("%s-end%d-%d", b, turn, i), "phase.end", b, map[string]string{"side": side})
			}
		}
	}
	return l
}

func TestResumeAfterStopEqualsCleanRebuild(t *testing.T) {
	log := battleLog(t)
	ctx := context.Background()
	dir := t.TempDir()

	clean := mustOpen(t, filepath.Join(dir, "clean.db"))
	if err := projections.Run(ctx, log, clean, projections.RunOptions{}); err != nil {
		t.Fatal(err)
	}

	// A projector stopped between batches (its context cancelled after
	// each second batch, its file closed and opened again), resumed from
	// its checkpoint each time, ends equal to the clean rebuild.
	path := filepath.Join(dir, "resumed.db")
	stops := 0
	for i := 0; i < 200; i++ {
		db, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		batches := 0
		err = projections.Run(runCtx, log, db, projections.RunOptions{BatchSize: 7, OnProgress: func(p projections.Progress) {
			batches++
			if batches == 2 {
				cancel()
			}
		}})
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		cp, _ := db.Checkpoint(ctx)
		db.Close()
		last, _ := log.LastSequence(ctx)
		if cp == last {
			break
		}
		stops++
	}
	if stops < 3 {
		t.Fatalf("the projector was stopped only %d times", stops)
	}
	resumed := mustOpen(t, path)
	diffs, err := resumed.Compare(ctx, clean)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d.Detail)
	}
	cp, _ := resumed.Checkpoint(ctx)
	t.Logf("stopped %d times; checkpoint %d", stops, cp)

	// The comparison does see a difference of one value.
	if _, err := resumed.SQL().Exec(`UPDATE units SET x = x + 0.5 WHERE unit = 'red-u' AND battle = 'b1'`); err != nil {
		t.Fatal(err)
	}
	diffs, err = resumed.Compare(ctx, clean)
	if err != nil || len(diffs) != 1 || diffs[0].Table != "units" {
		t.Fatalf("after changing one unit: %+v, %v", diffs, err)
	}
}

func TestBatchAppliedTwiceCountsOnce(t *testing.T) {
	log := battleLog(t)
	ctx := context.Background()
	db := mustOpen(t, filepath.Join(t.TempDir(), "p.db"))
	evs, err := log.Read(ctx, events.Key{Campaign: "c1", Battle: ""}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ApplyBatch(ctx, evs[:1]); err != nil {
		t.Fatal(err)
	}
	if err := db.ApplyBatch(ctx, evs[:1]); err != nil {
		t.Fatalf("a redelivered batch failed: %v", err)
	}
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM campaigns`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d campaigns, %v", n, err)
	}
}

func TestProjectedBattleMatchesRulesState(t *testing.T) {
	log := battleLog(t)
	ctx := context.Background()
	db := mustOpen(t, filepath.Join(t.TempDir(), "p.db"))
	if err := projections.Run(ctx, log, db, projections.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := db.Battle(ctx, events.Key{Campaign: "c1", Battle: "b2"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Turn != 7 || v.PhasingSide != "red" || len(v.Units) != 2 || len(v.Generals) != 4 {
		t.Fatalf("battle view %+v", v)
	}
	var orders, rolls int
	db.SQL().QueryRow(`SELECT count(*) FROM orders WHERE battle = 'b2'`).Scan(&orders)
	db.SQL().QueryRow(`SELECT count(*) FROM rolls WHERE battle = 'b2'`).Scan(&rolls)
	if orders != 6 || rolls != 6 {
		t.Fatalf("%d orders, %d rolls", orders, rolls)
	}
	c, err := db.Campaign(ctx, "c1")
	if err != nil || len(c.Battles) != 2 || c.Battles[1].Turn != 7 {
		t.Fatalf("campaign view %+v %v", c, err)
	}
}
