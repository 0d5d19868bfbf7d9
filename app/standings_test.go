package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/rules"
)

// TestStandingsReadTheProjection plays a campaign through the door, on the
// real in-process NATS JetStream and a real SQLite file, with the
// projection brought up to date after each command as the CLI owning the
// folder does (projections.Run) and as the served ledger does (its
// projector followed, app.Projector.WaitFor): battle two ends before
// battle one, then battle one ends, then a dispute upheld after battle
// one's end corrects it and scores it again. After each, the standings the
// door answers, read from the projection with its checkpoint, equal those
// the service folds from the log (Rescores included), at once. A ledger
// whose projection does not hold the campaign yet answers the fold of the
// log, and says so.
func TestStandingsReadTheProjection(t *testing.T) {
	for _, served := range []bool{false, true} {
		name := map[bool]string{false: "cli", true: "served"}[served]
		t.Run(name, func(t *testing.T) { standingsThroughTheDoor(t, served) })
	}
}

func standingsThroughTheDoor(t *testing.T, served bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ledger := campaigntest.Open(t, campaigntest.Options{})
	log, svc := ledger.Log, ledger.Service
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	projected := func(ctx context.Context, _ uint64) error {
		return projections.Run(ctx, log, db, projections.RunOptions{})
	}
	if served {
		p := app.NewProjector(log, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
		go p.Run(ctx)
		t.Cleanup(func() { cancel(); <-p.Done() })
		projected = p.WaitFor(5 * time.Second)
	}
	l, err := app.New(app.Options{Service: svc, Log: log, Read: db, Projected: projected})
	if err != nil {
		t.Fatal(err)
	}
	op := l.As(app.Caller{Operator: "operator"})
	do := func(battle, id, name string, body any) {
		t.Helper()
		b, _ := json.Marshal(body)
		if _, err := op.Execute(ctx, app.Command{ID: id, Campaign: "c1", Battle: battle, Name: name, Body: b}); err != nil {
			t.Fatalf("%s %s: %v", id, name, err)
		}
	}
	var player *app.Session
	check := func(what string, counted int) {
		t.Helper()
		want, err := svc.Standings(ctx, "c1")
		if err != nil {
			t.Fatal(err)
		}
		cp, err := db.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*app.Session{op, player} {
			got, err := s.Standings(ctx, "c1")
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got.Source != app.StandingsProjection || got.Sequence != cp {
				t.Errorf("%s: read from %q at sequence %d; the projection's checkpoint is %d", what, got.Source, got.Sequence, cp)
			}
			if !reflect.DeepEqual(got.Standings, want) {
				g, _ := json.Marshal(got.Standings)
				w, _ := json.Marshal(want)
				t.Errorf("%s: the door's standings:\n%s\nthe service folds:\n%s", what, g, w)
			}
		}
		n := 0
		for _, b := range want.Battles {
			if len(b.Points) > 0 {
				n++
			}
		}
		if n != counted {
			t.Errorf("%s: %d battles counted, want %d", what, n, counted)
		}
	}

	do("", "c", campaign.CmdCreate, map[string]any{"name": "C", "sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	res, err := op.Execute(ctx, app.Command{ID: "add-red", Campaign: "c1", Name: campaign.CmdPlayerAdd,
		Body: json.RawMessage(`{"player":"red-player","role":"player","side":"red"}`)})
	if err != nil || res.Token == "" {
		t.Fatalf("add red-player: %v (token %q)", err, res.Token)
	}
	player = l.As(app.Caller{Token: res.Token})
	check("created", 0)
	for _, b := range []string{"b1", "b2"} {
		do(b, b+"-create", "battle.create", map[string]any{"table": map[string]int{"width": 72, "depth": 48}, "first_side": "red"})
		for _, side := range []struct {
			id string
			y  float64
		}{{"red", 10}, {"blue", 38}} {
			do(b, b+"-deploy-"+side.id, "army.deploy", projtest.SmallArmy(side.id, side.y))
		}
		do(b, b+"-start", "battle.start", map[string]any{})
	}
	check("both started", 0)
	do("b2", "b2-kill", "combat.record", map[string]any{"unit": "blue-u", "result": "destroyed"})
	do("b2", "b2-end", "battle.end", map[string]any{"reason": "over"})
	check("battle two ended first", 1)
	do("b1", "b1-kill", "combat.record", map[string]any{"unit": "red-u", "result": "destroyed"})
	do("b1", "b1-end", "battle.end", map[string]any{"reason": "over"})
	check("battle one ended second", 2)

	// After battle one's end the umpire rules that red-u was only
	// shaken: battle one is scored again (what that changed is the log's).
	var killed uint64
	envs, err := log.Read(ctx, events.Key{Campaign: "c1", Battle: "b1"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range envs {
		if e.CommandID == "b1-kill" {
			killed = e.Version
		}
	}
	do("b1", "q1", rules.CmdDisputeRaise, map[string]any{"event_version": killed, "reason": "it was only shaken"})
	two := 2
	do("b1", "q1-uphold", rules.CmdDisputeUphold, map[string]any{"dispute": 1, "ruling": "two markers, not destroyed",
		"corrections": []map[string]any{{"unit": "red-u", "status": "ok", "markers": &two}}})
	check("battle one rescored", 2)
	if st, _ := op.Standings(ctx, "c1"); len(st.Battles) == 0 || len(st.Battles[0].Rescores) == 0 {
		t.Errorf("battle one's rescore is not in the standings: %+v", st.Battles)
	}

	// A projection that does not hold the campaign yet: the fold of the
	// log, at the log's last sequence.
	empty, err := sqlite.Open(filepath.Join(t.TempDir(), "behind.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { empty.Close() })
	behind, err := app.New(app.Options{Service: svc, Log: log, Read: empty})
	if err != nil {
		t.Fatal(err)
	}
	last, err := log.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := behind.As(app.Caller{Operator: "operator"}).Standings(ctx, "c1")
	want, werr := svc.Standings(ctx, "c1")
	if err != nil || werr != nil || got.Source != app.StandingsLog || got.Sequence != last || !reflect.DeepEqual(got.Standings, want) {
		t.Errorf("standings with the projection behind: from %q at %d (log at %d), %v %v; equal: %v",
			got.Source, got.Sequence, last, err, werr, reflect.DeepEqual(got.Standings, want))
	}
	// Who may read them is as before: a campaign nobody made is not found
	// for the operator; a token nobody holds is unauthenticated.
	if _, err := op.Standings(ctx, "nosuch"); kindOf(err) != app.KindNotFound {
		t.Errorf("standings of a campaign nobody made: %v", err)
	}
	if _, err := l.As(app.Caller{Token: "no-such-token"}).Standings(ctx, "c1"); kindOf(err) != app.KindUnauthenticated {
		t.Errorf("standings asked with a token nobody holds: %v", err)
	}
}
