package sqlite_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

// publish puts raw on key's subject as someone with write access to NATS
// would: no service, no key.
func publish(t *testing.T, nc *nats.Conn, key events.Key, raw []byte) {
	t.Helper()
	js := jstest.JetStream(t, nc)
	if _, err := js.Publish(context.Background(), jetstream.Subject(key), raw); err != nil {
		t.Fatal(err)
	}
}

// forged returns an event chained correctly after last, signed by s (nil:
// unsigned).
func forged(t *testing.T, last events.Envelope, typ, payload string, s *events.Signer) []byte {
	t.Helper()
	b := []events.Envelope{{ID: last.Key().String() + "/forged-" + typ + "/0", Campaign: last.Campaign, Battle: last.Battle, Type: typ, Schema: 1,
		Time: last.Time, Actor: "umpire", CommandID: "forged-" + typ, Audience: events.AudienceAll, Payload: json.RawMessage(payload)}}
	if err := events.ChainSigned(&last, b, s); err != nil {
		t.Fatal(err)
	}
	return b[0].Raw
}

func lastOf(t *testing.T, log events.Log, key events.Key) events.Envelope {
	t.Helper()
	evs, err := log.Read(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs[len(evs)-1]
}

// TestProjectorStopsAtEventsTheLedgerDidNotWrite: events put on the
// ledger's subjects with NATS write access but not the key (unsigned and
// chained correctly, signed by another key, a real event replayed) are not
// applied: each stream stops there, says why, and the rest of the log goes
// on; a rebuild stops the same way. Without the keys, the forgery would
// have been applied.
func TestProjectorStopsAtEventsTheLedgerDidNotWrite(t *testing.T) {
	ctx := context.Background()
	l := battleLedger(t, campaigntest.Options{Keys: true})
	log, nc, k := l.Log, l.Conn, l.Keys
	b1, b2, c1 := events.Key{Campaign: "c1", Battle: "b1"}, events.Key{Campaign: "c1", Battle: "b2"}, events.Key{Campaign: "c1"}
	before := lastOf(t, log, b1)
	other, _ := events.NewSigner(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32)))
	// b1: the battle ended, unsigned, chained correctly.
	publish(t, nc, b1, forged(t, before, "battle.ended", `{"turn":7,"reason":"forged"}`, nil))
	// c1: a person added with a key that is not the ledger's.
	publish(t, nc, c1, forged(t, lastOf(t, log, c1), campaign.EvPlayerAdded, `{"player":"mallory","role":"umpire","token_hash":"00"}`, other))
	// b2: one of its own signed events, published again.
	b2evs, err := log.Read(ctx, b2, 0)
	if err != nil {
		t.Fatal(err)
	}
	publish(t, nc, b2, b2evs[5].Raw)

	dir := t.TempDir()
	open := func(name string, ring *events.Keyring) *sqlite.DB {
		db, err := sqlite.OpenWith(filepath.Join(dir, name), sqlite.Options{Keys: ring})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := projections.Run(ctx, log, db, projections.RunOptions{BatchSize: 7}); err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open("live.db", k.Keyring())
	stopped, err := db.Stopped(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[events.Key]string{
		b1: "not signed by the ledger: it carries no signature",
		b2: "it does not follow the stream's last event (v" + itoa(b2evs[len(b2evs)-1].Version) + ")",
		c1: "not signed by the ledger: it is signed by key " + other.Fingerprint() + ", which is not one of the ledger's",
	}
	if len(stopped) != len(want) {
		t.Fatalf("stopped: %+v", stopped)
	}
	for _, s := range stopped {
		key := events.Key{Campaign: s.Campaign, Battle: s.Battle}
		if !strings.Contains(s.Reason, want[key]) || !strings.Contains(s.Error(), "stopped at v") || !strings.Contains(s.Error(), "ledger audit") {
			t.Errorf("%s: %s", key, s.Error())
		}
	}
	// b1 stands as it was before the forged end; b2 as after its last
	// real event; the forged person is not there.
	v, err := db.Battle(ctx, b1)
	if err != nil || v.Status == "ended" || v.Version != before.Version {
		t.Errorf("b1: %+v %v", v, err)
	}
	var n int
	db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM players WHERE player = 'mallory'`).Scan(&n)
	if n != 0 {
		t.Error("the forged person was projected")
	}

	// Another forged event on the stopped battle is skipped and counted.
	publish(t, nc, b1, forged(t, before, "battle.ended", `{"turn":8,"reason":"again"}`, nil))
	if err := projections.Run(ctx, log, db, projections.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, err := db.StoppedAt(ctx, b1); err != nil || s == nil || s.Skipped != 1 || !strings.Contains(s.Error(), "1 later event not applied") {
		t.Errorf("b1 after a second forgery: %+v %v", s, err)
	}

	// A rebuild stops the same way: the files are equal.
	rebuilt := open("rebuilt.db", k.Keyring())
	a, _ := db.Digest(ctx)
	b, _ := rebuilt.Digest(ctx)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("table %s: live %+v, rebuilt %+v", a[i].Table, a[i], b[i])
		}
	}
	// Without the ledger's keys the forged end would have been applied.
	blind := open("blind.db", nil)
	if v, err := blind.Battle(ctx, b1); err != nil || v.Status != "ended" {
		t.Errorf("without keys: %+v %v", v, err)
	}
}

func itoa(v uint64) string { b, _ := json.Marshal(v); return string(b) }
