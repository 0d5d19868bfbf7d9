package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/keys"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/projections/sqlite"
)

// benchEvents is the size of BenchmarkRebuild's synthetic campaign:
// LEDGER_BENCH_EVENTS, default 20,000 (docs/performance.md runs 1,000,000).
func benchEvents(b *testing.B) int {
	n := 20_000
	if s := os.Getenv("LEDGER_BENCH_EVENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			b.Fatalf("LEDGER_BENCH_EVENTS=%q: want a positive number", s)
		}
	}
	return n
}

var errDone = errors.New("done")

// BenchmarkRebuild measures a full rebuild of the projection from the log,
// in events per second, beside two raw rates measured in the same run on
// the same stream: reading it (one ordered consumer, Log.Follow) and
// writing one row per event to SQLite (the projection's events table,
// same columns and values, same batch size and settings). The ratios say
// how far the rebuild is from its floor. It also reports the heap after
// the rebuild and the most it reached during it, which must not grow with
// the number of events: the projector keeps only open battles in memory.
//
//	LEDGER_BENCH_EVENTS=1000000 go test ./projections/sqlite/ -run '^$' -bench Rebuild -benchtime 1x -timeout 30m
func BenchmarkRebuild(b *testing.B) {
	ctx := context.Background()
	n := benchEvents(b)
	emb, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: b.TempDir(), NoSyncAlways: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(emb.Shutdown)
	nc, err := emb.Connect()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	log := jstest.OpenLog(b, nc, jetstream.Config{})
	start := time.Now()
	st, err := projtest.Fill(ctx, log, projtest.FillOptions{Events: n})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %d events, %d battles, in %s", st.Events, st.Battles, time.Since(start).Round(time.Millisecond))

	// Raw read: every event of the log through one ordered consumer.
	start = time.Now()
	var read int
	err = log.Follow(ctx, 0, func(e events.Envelope) error {
		read++
		if e.Sequence >= st.Last {
			return errDone
		}
		return nil
	}, nil)
	if !errors.Is(err, errDone) {
		b.Fatal(err)
	}
	readRate := float64(read) / time.Since(start).Seconds()

	// Raw write: the same events, read again, written one row each to the
	// table of the envelope's fields, 1,000 to a transaction (as the rebuild),
	// without the rules.
	raw, err := sqlite.Open(filepath.Join(b.TempDir(), "raw.db"))
	if err != nil {
		b.Fatal(err)
	}
	// The bare row per event: the envelope's fields, in the projection's
	// file settings (WAL, synchronous=NORMAL).
	if _, err := raw.SQL().ExecContext(ctx, `CREATE TABLE events (seq INTEGER PRIMARY KEY, campaign TEXT NOT NULL,
		battle TEXT NOT NULL, version INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, schema INTEGER NOT NULL,
		time TEXT NOT NULL, actor TEXT NOT NULL, command_id TEXT NOT NULL, audience TEXT NOT NULL, prev_hash TEXT NOT NULL,
		hash TEXT NOT NULL, payload TEXT NOT NULL, UNIQUE (campaign, battle, version))`); err != nil {
		b.Fatal(err)
	}
	start = time.Now()
	var batch []events.Envelope
	write := func() error {
		if len(batch) == 0 {
			return nil
		}
		tx, err := raw.SQL().BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		// Prepared once per transaction, as the projector does.
		st, err := tx.PrepareContext(ctx, `INSERT INTO events
			(seq, campaign, battle, version, id, type, schema, time, actor, command_id, audience, prev_hash, hash, payload)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			tx.Rollback()
			return err
		}
		defer st.Close()
		for _, e := range batch {
			if _, err := st.ExecContext(ctx,
				e.Sequence, e.Campaign, e.Battle, e.Version, e.ID, e.Type, e.Schema,
				e.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"), e.Actor, e.CommandID, e.Audience, e.PrevHash,
				events.Hash(e.Raw), string(e.Payload)); err != nil {
				tx.Rollback()
				return err
			}
		}
		batch = batch[:0]
		return tx.Commit()
	}
	err = log.Follow(ctx, 0, func(e events.Envelope) error {
		batch = append(batch, e)
		if len(batch) == 1000 || e.Sequence >= st.Last {
			if err := write(); err != nil {
				return err
			}
		}
		if e.Sequence >= st.Last {
			return errDone
		}
		return nil
	}, nil)
	if !errors.Is(err, errDone) {
		b.Fatal(err)
	}
	writeRate := float64(st.Events) / time.Since(start).Seconds()
	raw.Close()

	var peak uint64
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	batches := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := sqlite.Open(filepath.Join(b.TempDir(), fmt.Sprintf("rebuild-%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		err = projections.Run(ctx, log, db, projections.RunOptions{OnProgress: func(projections.Progress) {
			if batches++; batches%10 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
		if i == b.N-1 {
			b.StopTimer()
			if n := db.CachedBattles(); n > 4 {
				b.Errorf("the projector holds %d battles in memory; the campaign plays 4 at once", n)
			}
			runtime.GC()
			runtime.ReadMemStats(&ms)
			// What the projector holds once done, its file still open,
			// beyond the heap before it started (the embedded NATS server
			// shares this process), and the most the heap reached.
			b.ReportMetric(float64(int64(ms.HeapAlloc)-int64(base))/(1<<20), "heap-MB-growth")
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB-after")
			b.ReportMetric(float64(peak)/(1<<20), "heap-MB-peak")
			b.ReportMetric(float64(db.CachedBattles()), "battles-in-memory")
		}
		db.Close()
	}
	rate := float64(st.Events) * float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(readRate, "read-events/s")
	b.ReportMetric(writeRate, "write-rows/s")
	b.ReportMetric(rate/readRate, "rebuild/read")
	b.ReportMetric(rate/writeRate, "rebuild/write")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRebuildVerified measures what checking every event costs a
// rebuild: the same signed synthetic campaign rebuilt without the ledger's
// keys and with them (every signature verified, on every processor), in
// the same run. It reports both rates and their ratio.
//
//	go test ./projections/sqlite/ -run '^$' -bench RebuildVerified -benchtime 1x
func BenchmarkRebuildVerified(b *testing.B) {
	ctx := context.Background()
	n := benchEvents(b)
	emb, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: b.TempDir(), NoSyncAlways: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(emb.Shutdown)
	nc, err := emb.Connect()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	log := jstest.OpenLog(b, nc, jetstream.Config{})
	k, err := keys.Create(filepath.Join(b.TempDir(), keys.DefaultFile), 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	st, err := projtest.Fill(ctx, log, projtest.FillOptions{Events: n, Signer: k.Signer})
	if err != nil {
		b.Fatal(err)
	}
	rebuild := func(ring *events.Keyring, name string) float64 {
		db, err := sqlite.OpenWith(filepath.Join(b.TempDir(), name), sqlite.Options{Keys: ring})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		start := time.Now()
		if err := projections.Run(ctx, log, db, projections.RunOptions{}); err != nil {
			b.Fatal(err)
		}
		rate := float64(st.Events) / time.Since(start).Seconds()
		if stopped, err := db.Stopped(ctx); err != nil || len(stopped) > 0 {
			b.Fatalf("stopped: %v %v", stopped, err)
		}
		return rate
	}
	var plain, verified float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plain = max(plain, rebuild(nil, fmt.Sprintf("plain-%d.db", i)))
		verified = max(verified, rebuild(k.Keyring(), fmt.Sprintf("verified-%d.db", i)))
	}
	b.ReportMetric(plain, "unchecked-events/s")
	b.ReportMetric(verified, "verified-events/s")
	b.ReportMetric(verified/plain, "verified/unchecked")
	b.ReportMetric(0, "ns/op")
}
