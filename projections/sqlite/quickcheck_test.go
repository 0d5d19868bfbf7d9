package sqlite_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/projections/sqlite/sqlitetest"
)

// TestQuickCheckMovesABadPageAside: a projection file whose header is
// sound but one page in the middle of it is damaged is refused at open in
// words (SQLite's quick check) without MoveDamaged, and with it moved
// aside (saying where and why) and rebuilt from the log, equal to a clean
// build. A file damaged after it was opened is named by Digest (what
// `projections verify` compares), read from the disk, not from the
// connection's cache.
func TestQuickCheckMovesABadPageAside(t *testing.T) {
	ctx := context.Background()
	log := battleLog(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	clean, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := projections.Run(ctx, log, clean, projections.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := clean.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clean.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad, page := sqlitetest.DamagePage(t, good)
	t.Logf("damaged page %d of %d", page, len(good)/pageSize(good))
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}

	var de *sqlite.DamagedError
	if _, err := sqlite.Open(path); !errors.As(err, &de) || !strings.Contains(err.Error(), "quick check") || !strings.Contains(err.Error(), "only a projection") {
		t.Fatalf("a damaged page at open: %v", err)
	} else {
		t.Logf("refused: %v", err)
	}
	db, err := sqlite.OpenWith(path, sqlite.Options{MoveDamaged: true})
	if err != nil {
		t.Fatal(err)
	}
	dm := db.Damaged()
	if dm == nil || !strings.HasPrefix(dm.MovedTo, path+".damaged-") || !strings.Contains(dm.String(), "quick check") {
		t.Fatalf("a damaged page, moved aside: %+v", dm)
	}
	t.Logf("moved: %s", dm)
	if moved, err := os.ReadFile(dm.MovedTo); err != nil || !bytes.Equal(moved, bad) {
		t.Errorf("the damaged file is not kept at %s: %v", dm.MovedTo, err)
	}
	if err := projections.Run(ctx, log, db, projections.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("rebuilt table %s differs", got[i].Table)
		}
	}
	db.Close()

	// Damaged while open: the projection's connection has the page in its
	// cache; Digest still names it.
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	live, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := live.Digest(ctx); err != nil {
		t.Fatal(err)
	}
	sqlitetest.Checkpoint(t, path)
	sqlitetest.WritePage(t, path, bad, page)
	if _, err := live.Digest(ctx); !errors.As(err, &de) || !strings.Contains(err.Error(), "quick check") {
		t.Fatalf("digest of a file damaged while open: %v", err)
	} else {
		t.Logf("digest: %v", err)
	}
}

func pageSize(b []byte) int {
	n := int(binary.BigEndian.Uint16(b[16:18]))
	if n == 1 {
		return 65536
	}
	return n
}

// BenchmarkQuickCheck measures what the quick check at open costs: the
// synthetic campaign (LEDGER_BENCH_EVENTS, default 20,000) projected, then
// the file checked from a connection of its own, as Check and every open
// do. It reports the file's size and the check's time.
//
//	LEDGER_BENCH_EVENTS=100000 go test ./projections/sqlite/ -run '^$' -bench QuickCheck -benchtime 5x
func BenchmarkQuickCheck(b *testing.B) {
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
	st, err := projtest.Fill(ctx, log, projtest.FillOptions{Events: n})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "ledger.db")
	db, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := projections.Run(ctx, log, db, projections.RunOptions{}); err != nil {
		b.Fatal(err)
	}
	db.Close()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	db, err = sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.Logf("%d events, a file of %.1f MB; the first open (quick check and migrations) took %s",
		st.Events, float64(fi.Size())/(1<<20), time.Since(start).Round(time.Millisecond))
	b.ResetTimer()
	for range b.N {
		if err := db.Check(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/check")
	b.ReportMetric(float64(fi.Size())/(1<<20), "MB")
	b.ReportMetric(float64(st.Events), "events")
}

// TestQuickCheckAfterAnUncleanClose: the quick check at open is skipped for
// a file exactly as its clean close left it (closed.go: what keeps ledger
// serve's start fast); damage that leaves the size and the time alone
// after a clean close is found by Check (`ledger projections verify`), and
// a file found damaged is not marked clean at its close, so the next open
// checks it. (A file changed since, or never closed cleanly, is checked at
// open: TestQuickCheckMovesABadPageAside.)
func TestQuickCheckAfterAnUncleanClose(t *testing.T) {
	ctx := context.Background()
	log := battleLog(t)
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := projections.Run(ctx, log, db, projections.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".closed"); err != nil {
		t.Fatalf("a clean close leaves no mark: %v", err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	bad, _ := sqlitetest.DamagePage(t, good)
	// Damage at rest, size and time as the close left them: not seen at
	// open, seen by Check.
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	db, err = sqlite.Open(path)
	if err != nil {
		t.Fatalf("a file unchanged since its clean close is checked at open: %v", err)
	}
	var de *sqlite.DamagedError
	if err := db.Check(ctx); !errors.As(err, &de) {
		t.Errorf("Check on a damaged page: %v", err)
	}
	if _, err := os.Stat(path + ".closed"); !os.IsNotExist(err) {
		t.Errorf("the mark outlives the open: %v", err)
	}
	// Found damaged, the file's close leaves no mark: the next open (a
	// restart of ledger serve) checks it, and finds it.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".closed"); !os.IsNotExist(err) {
		t.Errorf("a file found damaged is marked clean at its close: %v", err)
	}
	if _, err := sqlite.Open(path); !errors.As(err, &de) {
		t.Errorf("after a close of a file found damaged, a damaged page at open: %v", err)
	}
}
