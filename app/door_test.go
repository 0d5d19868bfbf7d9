package app_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/projections/sqlite"
)

func asCommand(req campaign.Request) app.Command {
	return app.Command{ID: req.ID, Campaign: req.Campaign, Battle: req.Battle, Name: req.Name, Body: req.Body, Dice: req.Dice.Values}
}

func kindOf(err error) app.Kind {
	var ae *app.Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return ""
}

// TestDoorDecidesWhoMay tests the door on its own, on the in-memory log
// (events/memlog, which passes the JetStream log's conformance suite) and
// a real SQLite file: a campaign and its people set up by the operator, a
// battle played by its people; then the door refuses, and appends nothing
// for, an unknown token, a player giving the other side's command, a
// player asking for the operator's work (an import, the status), and
// gives each person the battle's events with the log's head.
func TestDoorDecidesWhoMay(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	svc := campaign.NewService(log, memlog.NewVault(), campaign.Options{})
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := app.New(app.Options{Service: svc, Log: log, Read: db})
	if err != nil {
		t.Fatal(err)
	}
	op := l.As(app.Caller{Operator: "operator"})
	if _, err := op.Execute(ctx, asCommand(loadgen.CreateCampaign("c"))); err != nil {
		t.Fatal(err)
	}
	people := map[string]*app.Session{}
	for _, req := range loadgen.People("c") {
		res, err := op.Execute(ctx, asCommand(req))
		if err != nil || res.Token == "" {
			t.Fatalf("%s: %v (token %q)", req.ID, err, res.Token)
		}
		people[req.ID] = l.As(app.Caller{Token: res.Token})
	}
	session := func(side string) *app.Session {
		if side == "" {
			return people["people-"+loadgen.Umpire]
		}
		return people["people-"+loadgen.Player(side)]
	}
	g := loadgen.NewLeagueBattle("c", "b", 1)
	key := events.Key{Campaign: "c", Battle: "b"}
	var lastReq campaign.Request
	// At least 20 commands, the last of them a side's (not the umpire's).
	for n := 0; n < 20 || g.Side() == ""; n++ {
		req := g.Next()
		if _, err := session(g.Side()).Execute(ctx, asCommand(req)); err != nil {
			t.Fatalf("%s %s by %q: %v", req.ID, req.Name, g.Side(), err)
		}
		lastReq = req
	}
	before, err := log.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Refused, with nothing appended.
	stranger := l.As(app.Caller{Token: "no-such-token"})
	again := asCommand(lastReq)
	again.ID = "stranger-1"
	if _, err := stranger.Execute(ctx, again); kindOf(err) != app.KindUnauthenticated {
		t.Errorf("an unknown token's command: %v", err)
	}
	var other string
	for _, s := range loadgen.Sides {
		if s.ID != g.Side() {
			other = s.ID
		}
	}
	again.ID = "other-side-1"
	if _, err := session(other).Execute(ctx, again); kindOf(err) != app.KindForbidden {
		t.Errorf("%s's player giving %s's %s: %v", other, g.Side(), lastReq.Name, err)
	}
	player := session(loadgen.Sides[0].ID)
	if _, err := player.Import(ctx, &audit.Export{}, app.ImportOptions{}); kindOf(err) != app.KindForbidden {
		t.Errorf("a player's import: %v", err)
	}
	if _, err := player.Status(ctx); kindOf(err) != app.KindForbidden {
		t.Errorf("a player's status: %v", err)
	}
	if _, err := op.Status(ctx); kindOf(err) != app.KindNotFound {
		t.Errorf("the status of a ledger with no projection to report on: %v", err)
	}
	if after, _ := log.LastSequence(ctx); after != before {
		t.Fatalf("refused calls moved the log from %d to %d", before, after)
	}

	// Each person reads the battle up to the log's head; the chain holds.
	head, err := log.Head(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for id, s := range people {
		page, err := s.Events(ctx, key, 0)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if page.Chain != app.ChainIntact || len(page.Events) == 0 || page.Events[len(page.Events)-1].Seq > head || page.Last == 0 {
			t.Errorf("%s's page: chain %q, %d events, last %d (head %d)", id, page.Chain, len(page.Events), page.Last, head)
		}
	}
}
