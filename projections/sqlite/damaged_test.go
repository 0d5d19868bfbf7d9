package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

// TestDamagedFileIsMovedAsideAndRebuilt: a projection file cut short, with
// a damaged header, or not a database at all is refused in words without
// MoveDamaged, and with it moved aside (saying where) and rebuilt from the
// log, equal to a clean build. A file whose pages are damaged past the
// header is refused too: SQLite's quick check at open finds them.
func TestDamagedFileIsMovedAsideAndRebuilt(t *testing.T) {
	ctx := context.Background()
	log := battleLog(t)
	dir := t.TempDir()
	cleanPath := filepath.Join(dir, "clean.db")
	clean, err := sqlite.Open(cleanPath)
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
	good, err := os.ReadFile(cleanPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(good) < 3*4096 {
		t.Fatalf("the projection is only %d bytes", len(good))
	}
	damages := map[string]struct {
		bytes []byte
		says  string
	}{
		"cut in a page":     {good[:len(good)/2+100], "cut short"},
		"cut at a page":     {good[:4096*2], "cut short: the header says"},
		"cut in the header": {good[:60], "less than a SQLite header"},
		"damaged header":    {append([]byte("\x00\x01garbage-garbage"), good[16:]...), "not a SQLite database"},
		"page size":         {append(append(append([]byte(nil), good[:16]...), 0x03, 0x00), good[18:]...), "page size 768"},
		"not a database":    {bytes.Repeat([]byte("this is not a database, it is a note\n"), 300), "not a SQLite database"},
	}
	for name, d := range damages {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".db")
		if err := os.WriteFile(path, d.bytes, 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path+"-wal", []byte("stale"), 0o644)
		var de *sqlite.DamagedError
		if _, err := sqlite.Open(path); !errors.As(err, &de) || !strings.Contains(err.Error(), d.says) || !strings.Contains(err.Error(), "cannot read the projection file") || !strings.Contains(err.Error(), "only a projection") {
			t.Errorf("%s: %v", name, err)
			continue
		}
		db, err := sqlite.OpenWith(path, sqlite.Options{MoveDamaged: true})
		if err != nil {
			t.Errorf("%s, moved aside: %v", name, err)
			continue
		}
		dm := db.Damaged()
		if dm == nil || dm.Path != path || !strings.HasPrefix(dm.MovedTo, path+".damaged-") || !strings.Contains(dm.String(), "moved it to "+dm.MovedTo) {
			t.Errorf("%s: %+v", name, dm)
		}
		if moved, err := os.ReadFile(dm.MovedTo); err != nil || !bytes.Equal(moved, d.bytes) {
			t.Errorf("%s: the damaged file is not kept at %s: %v", name, dm.MovedTo, err)
		}
		if wal, err := os.ReadFile(dm.MovedTo + "-wal"); err != nil || string(wal) != "stale" {
			t.Errorf("%s: its -wal did not go with it: %v", name, err)
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
				t.Errorf("%s: rebuilt table %s differs", name, got[i].Table)
			}
		}
		db.Close()
		if again, err := sqlite.OpenWith(path, sqlite.Options{MoveDamaged: true}); err != nil || again.Damaged() != nil {
			t.Errorf("%s: reopened: %v", name, err)
		} else {
			again.Close()
		}
	}

	// Pages damaged past the header: SQLite's quick check finds them at
	// open (TestQuickCheckMovesABadPageAside: one page in the middle, and
	// one damaged while the file is open).
	path := filepath.Join(dir, "pages.db")
	bad := bytes.Clone(good)
	for i := len(bad) - 2*4096; i < len(bad); i++ {
		bad[i] = 0xa5
	}
	os.WriteFile(path, bad, 0o644)
	var de *sqlite.DamagedError
	if _, err := sqlite.Open(path); !errors.As(err, &de) || !strings.Contains(err.Error(), "quick check") {
		t.Fatalf("damaged pages at open: %v", err)
	} else {
		t.Logf("damaged pages refused at open: %v", err)
	}
}

// TestKilledMidCheckpointIsWhole: a process killed while SQLite copies the
// write-ahead log into the file (a checkpoint) leaves the file shorter than
// its header says, with the log beside it still holding every page. The
// open took that for a file cut short (CI: TestRebuildSurvivesSIGKILL, "the
// header says 767 pages ..., the file holds 2977792"), and a serve would
// have moved its projection aside and rebuilt it. Made here by copying the
// file and its log in the middle of a connection's life, the file cut to
// half its pages: it opens, passes SQLite's quick check, and holds every
// event the projection had applied.
func TestKilledMidCheckpointIsWhole(t *testing.T) {
	ctx := context.Background()
	log := battleLog(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw := db.SQL()
	// Every page written from here on stays in the log until the
	// checkpoint below copies it: the log then holds all of them.
	if _, err := raw.ExecContext(ctx, `PRAGMA wal_autocheckpoint=0`); err != nil {
		t.Fatal(err)
	}
	if err := projections.Run(ctx, log, db, projections.RunOptions{BatchSize: 5}); err != nil {
		t.Fatal(err)
	}
	want, err := db.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(path + "-wal")
	if err != nil || len(wal) == 0 {
		t.Fatalf("no write-ahead log to keep: %v (%d bytes)", err, len(wal))
	}
	if _, err := raw.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(file[16])<<8 | int(file[17])
	pages := len(file) / pageSize
	if pages < 4 {
		t.Fatalf("a file of %d pages: too small to cut", pages)
	}
	// The copy as a kill in the middle of that checkpoint leaves it.
	killed := filepath.Join(t.TempDir(), "ledger.db")
	if err := os.WriteFile(killed, file[:pages/2*pageSize], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(killed+"-wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := sqlite.OpenWith(killed, sqlite.Options{})
	if err != nil {
		t.Fatalf("the file killed in the middle of a checkpoint (%d of %d pages, its log beside it): %v", pages/2, pages, err)
	}
	defer got.Close()
	if got.Damaged() != nil {
		t.Fatalf("moved aside: %v", got.Damaged())
	}
	if cp, err := got.Checkpoint(ctx); err != nil || cp != want {
		t.Fatalf("checkpoint %d (%v), want %d", cp, err, want)
	}
	if err := got.Check(ctx); err != nil {
		t.Fatalf("quick check: %v", err)
	}
	// Without its log, the same cut file is cut short, as before.
	bare := filepath.Join(t.TempDir(), "ledger.db")
	if err := os.WriteFile(bare, file[:pages/2*pageSize], 0o600); err != nil {
		t.Fatal(err)
	}
	var de *sqlite.DamagedError
	if _, err := sqlite.OpenWith(bare, sqlite.Options{}); !errors.As(err, &de) || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("the cut file with no log: %v", err)
	}
}
