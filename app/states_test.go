package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

func testSigner(t *testing.T, seed byte) *events.Signer {
	t.Helper()
	s, err := events.NewSigner(ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize))))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEventSignature: the door says who signed each event in parts
// (EventView.Signature), in each of its four states, and the sentence kept
// for older clients (EventView.Signed) says the same: campaign c written
// before the ledger signed, then battle c/b signed by the ledger's key,
// then an unsigned event chained onto c/b by someone without the key;
// campaign x signed by another ledger's key, trusted for x only (an
// imported battle).
func TestEventSignature(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	run := func(svc *campaign.Service, reqs ...campaign.Request) {
		t.Helper()
		for _, req := range reqs {
			campaigntest.Do(t, svc, req)
		}
	}
	// Before signing.
	run(campaigntest.Open(t, campaigntest.Options{Log: log}).Service, loadgen.CreateCampaign("c"))
	last, err := log.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own, foreign := testSigner(t, 0), testSigner(t, 1)
	g := loadgen.NewBattle("c", "b", 1)
	run(campaigntest.Open(t, campaigntest.Options{Log: log, Service: campaign.Options{Signer: own}}).Service, g.Next(), g.Next())
	g = loadgen.NewBattle("x", "imp", 1)
	run(campaigntest.Open(t, campaigntest.Options{Log: log, Service: campaign.Options{Signer: foreign}}).Service, loadgen.CreateCampaign("x"), g.Next())

	// A forgery, chained after c/b's last event, unsigned.
	key := events.Key{Campaign: "c", Battle: "b"}
	evs, err := log.Read(ctx, key, 0)
	if err != nil || len(evs) == 0 {
		t.Fatalf("c/b: %d events, %v", len(evs), err)
	}
	prev := evs[len(evs)-1]
	forged := []events.Envelope{{ID: "c/b/forged/0", Campaign: "c", Battle: "b", Type: "battle.scored", Schema: 1, Time: prev.Time,
		Actor: "umpire", CommandID: "forged", Audience: events.AudienceAll, Payload: json.RawMessage(`{"turn":1,"sides":[]}`)}}
	if err := events.Chain(&prev, forged); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(ctx, key, prev.Sequence, forged); err != nil {
		t.Fatal(err)
	}

	ring := events.NewKeyring(last+1, events.TrustedKey{Key: own.KeyHex()},
		events.TrustedKey{Key: foreign.KeyHex(), Streams: []events.Key{{Campaign: "x"}, {Campaign: "x", Battle: "imp"}}})
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := app.New(app.Options{Service: campaigntest.Open(t, campaigntest.Options{Log: log}).Service, Log: log, Read: db, Keys: ring})
	if err != nil {
		t.Fatal(err)
	}
	op := l.As(app.Caller{Operator: "operator"})
	states := map[string]int{}
	for _, k := range []events.Key{{Campaign: "c"}, key, {Campaign: "x"}, {Campaign: "x", Battle: "imp"}} {
		page, err := op.Events(ctx, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Events {
			sig := e.Signature
			if sig == nil {
				t.Fatalf("%s v%d: no signature", k, e.Version)
			}
			states[sig.State]++
			var want app.Signature
			switch {
			case k.Campaign == "x":
				want = app.Signature{State: app.SignatureImported, Key: foreign.KeyHex(), Fingerprint: foreign.Fingerprint()}
			case e.ID == "c/b/forged/0":
				want = app.Signature{State: app.SignatureNotSigned, Why: sig.Why}
				if !strings.Contains(sig.Why, "carries no signature") {
					t.Errorf("%s v%d: why %q", k, e.Version, sig.Why)
				}
			case e.Seq <= last:
				want = app.Signature{State: app.SignatureUnsigned}
			default:
				want = app.Signature{State: app.SignatureSigned, Key: own.KeyHex(), Fingerprint: own.Fingerprint()}
			}
			if *sig != want {
				t.Errorf("%s v%d (seq %d): signature %+v, want %+v", k, e.Version, e.Seq, *sig, want)
			}
			// The sentence kept for older clients says the same.
			sentence := map[string]string{
				app.SignatureSigned:    "signed " + sig.Fingerprint,
				app.SignatureImported:  "signed " + sig.Fingerprint + events.ImportedSuffix,
				app.SignatureUnsigned:  "unsigned (before signing)",
				app.SignatureNotSigned: "NOT SIGNED BY THE LEDGER: " + sig.Why,
			}[sig.State]
			if e.Signed != sentence {
				t.Errorf("%s v%d: signed %q, want %q", k, e.Version, e.Signed, sentence)
			}
		}
	}
	for _, s := range []string{app.SignatureSigned, app.SignatureImported, app.SignatureUnsigned} {
		if states[s] == 0 {
			t.Errorf("no event %s: %v", s, states)
		}
	}
	if states[app.SignatureNotSigned] != 1 {
		t.Errorf("%d events not signed, want the forgery: %v", states[app.SignatureNotSigned], states)
	}
}

// failingFollow is a log whose following fails its first times with an
// error that is not "unavailable" (a consumer lost, a connection broken):
// the log is whole, and the projector follows it again.
type failingFollow struct {
	events.Log
	fails atomic.Int32
}

func (l *failingFollow) Follow(ctx context.Context, after uint64, fn func(events.Envelope) error, caughtUp func()) error {
	if l.fails.Add(-1) >= 0 {
		return errors.New("the follower broke")
	}
	return l.Log.Follow(ctx, after, fn, caughtUp)
}

// failingProjection is a projection whose every batch fails: the
// projector stops, and says why.
type failingProjection struct{ *sqlite.DB }

func (failingProjection) ApplyBatch(context.Context, []events.Envelope) error {
	return errors.New("the projection broke")
}

// ApplyPrepared fails as ApplyBatch does: the SQLite projection prepares
// its batches apart (projections.Preparer), and Run then applies them so.
func (failingProjection) ApplyPrepared(context.Context, projections.Prepared) error {
	return errors.New("the projection broke")
}

// TestProjectorStatus: the projector's state in parts (Status.ProjectorState)
// while it runs, once it stopped on its projection's error (why), and once
// it stopped with its server (no why); String says each as the kept
// sentence. A follower's error is no reason to stop: it follows again.
func TestProjectorStatus(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	open := func() *sqlite.DB {
		db, err := sqlite.Open(filepath.Join(t.TempDir(), "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ledger := campaigntest.Open(t, campaigntest.Options{Memory: true})
	log := ledger.Log
	campaigntest.Do(t, ledger.Service, loadgen.CreateCampaign("c"))
	last, err := log.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := app.NewProjector(log, open(), quiet)
	go p.Run(ctx)
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := p.Wait(wctx, last); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Status(), (app.ProjectorState{State: app.ProjectorRunning}); got != want || got.String() != "running" {
		t.Errorf("running: %+v %q", got, got.String())
	}
	cancel()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the projector did not stop with its context")
	}
	if got, want := p.Status(), (app.ProjectorState{State: app.ProjectorStopped}); got != want || got.String() != "stopped" {
		t.Errorf("stopped with its server: %+v %q", got, got.String())
	}

	broken := app.NewProjector(log, failingProjection{open()}, quiet)
	go broken.Run(context.Background())
	select {
	case <-broken.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the projector did not stop when its projection failed")
	}
	got := broken.Status()
	if got.State != app.ProjectorStopped || !strings.Contains(got.Why, "the projection broke") || got.String() != "stopped: "+got.Why {
		t.Errorf("stopped on an error: %+v %q", got, got.String())
	}

	// A follower that fails twice is followed again (after 1 s, then 2 s),
	// not given up: the projection reaches the log and the projector runs.
	ff := &failingFollow{Log: log}
	ff.fails.Store(2)
	again := app.NewProjector(ff, open(), quiet)
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	go again.Run(actx)
	wctx2, wcancel2 := context.WithTimeout(actx, 20*time.Second)
	defer wcancel2()
	if err := again.Wait(wctx2, last); err != nil {
		t.Fatalf("after its follower failed twice: %v (%+v)", err, again.Status())
	}
	if got := again.Status(); got.State != app.ProjectorRunning {
		t.Errorf("after its follower failed twice: %+v, want running", got)
	}
}
