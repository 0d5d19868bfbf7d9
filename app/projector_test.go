package app_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections/sqlite"
)

// lostFollower is a log whose first following delivers nothing and reports
// nothing until it is ended, as a JetStream consumer lost with a killed
// server of the cluster did (issue 24: the serve's commands each waited
// their full 5 s for the projection for as long as that server was down).
type lostFollower struct {
	events.Log
	follows atomic.Int32
}

func (l *lostFollower) Follow(ctx context.Context, after uint64, fn func(events.Envelope) error, caughtUp func()) error {
	if l.follows.Add(1) == 1 {
		if caughtUp != nil {
			caughtUp()
		}
		<-ctx.Done()
		return ctx.Err()
	}
	return l.Log.Follow(ctx, after, fn, caughtUp)
}

// TestProjectorFollowsAgainByItself: a projector whose following stands
// still behind the log follows it again by itself (its watchdog), with
// nobody asking the server's readiness, which is what used to make it
// (Projector.Watch from /readyz): a server nobody probes came back only
// when restarted.
func TestProjectorFollowsAgainByItself(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ledger := campaigntest.Open(t, campaigntest.Options{Memory: true})
	mem := ledger.Log
	log := &lostFollower{Log: mem}
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p := app.NewProjector(log, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	go p.Run(ctx)
	t.Cleanup(func() { cancel(); <-p.Done() })

	campaigntest.Do(t, ledger.Service, loadgen.CreateCampaign("c"))
	last, err := mem.LastSequence(ctx)
	if err != nil || last == 0 {
		t.Fatalf("log's last sequence: %d, %v", last, err)
	}
	// Nothing calls Watch here. The watchdog refollows after StuckAfter
	// standing still; the bound leaves four times that.
	wctx, wcancel := context.WithTimeout(ctx, 4*app.StuckAfter)
	defer wcancel()
	if err := p.Wait(wctx, last); err != nil {
		t.Fatalf("the projection stayed at %d of the log's %d (%d followings): %v", p.Checkpoint(), last, log.follows.Load(), err)
	}
	if n := log.follows.Load(); n != 2 {
		t.Fatalf("%d followings, want the lost one and one again", n)
	}
	if got, err := db.Checkpoint(ctx); err != nil || got < last {
		t.Fatalf("projection's checkpoint %d (%v), want %d", got, err, last)
	}
}
