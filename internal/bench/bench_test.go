package bench

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/projections/sqlite"
)

// memOpener opens ledgers whose log and vault are in memory
// (events/memlog) and whose projection is a SQLite file in the data
// folder: what Run drives (it builds its own service on the log), without
// the wiring of cmd/ledger. TestBenchSmall (cmd/ledger) runs the command
// on the real one.
func memOpener() Opener {
	return Opener{Open: func(ctx context.Context, cfg config.Config, o OpenOptions) (*Ledger, error) {
		db, err := sqlite.Open(filepath.Join(cfg.DataDir, "projection.db"))
		if err != nil {
			return nil, err
		}
		return &Ledger{Config: cfg, Log: memlog.New(), Vault: memlog.NewVault(), DB: db, Close: db.Close}, nil
	}}
}

// TestRunMeasuresEveryFigure runs the harness on a ledger in memory: every
// figure of `ledger bench` is measured and printed, and the temporary
// ledger is removed.
func TestRunMeasuresEveryFigure(t *testing.T) {
	dir := t.TempDir()
	var progress bytes.Buffer
	res, err := Run(context.Background(), memOpener(), Options{Commands: 20, Events: 2000, Batch: 500, Rounds: 2, Dir: dir}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if res.Command.N != 20-loadgen.Setup || res.Projected.N != res.Command.N || res.Projected.P50 < res.Command.P50 ||
		res.RebuildEvents < 2000 || res.Rounds != 2 || res.RebuildPerSec <= 0 || res.RawReadPerSec <= 0 || res.RawWritePerSec <= 0 ||
		res.RebuildRead <= 0 || res.RebuildWrite <= 0 || res.Read.N == 0 || len(res.Append) == 0 || !res.Sync || res.Seconds <= 0 {
		t.Fatalf("bench result %+v", res)
	}
	// Both runs decode every event, so both allocate; the rebuild more,
	// since it also folds and writes what it decoded.
	if res.RawReadSpent.Objects <= 0 || res.RebuildSpent.Objects <= res.RawReadSpent.Objects || res.RebuildSpent.Bytes <= 0 {
		t.Errorf("allocations per event: rebuild %+v, raw read %+v", res.RebuildSpent, res.RawReadSpent)
	}
	for _, name := range []string{"order.give", "unit.move", "phase.end"} {
		if l := res.ByName[name]; l.N == 0 || l.P99 < l.P50 || l.Max < l.P99 {
			t.Errorf("%s: %+v", name, l)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the temporary ledger was left in %s: %v", dir, left)
	}
	for _, want := range []string{"20 commands through the full path", "writing a synthetic campaign of 2000 events", "round 2 of 2"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, &progress)
		}
	}
	var out bytes.Buffer
	if err := Print(&out, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"command path, one battle, embedded server, fsync per write (sync_always): 16 commands",
		"command (decode, decide, append+ack)", "command + projected", "order.give", "unit.move", "phase.end",
		"append of 1 event (plain publish)", "read before deciding", "best of 2 interleaved rounds",
		"rebuild/raw read", "rebuild/raw write", "peak heap growth", "heap allocations per event, rebuild / raw read", "bench took",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed figures lack %q:\n%s", want, &out)
		}
	}
}

// TestRawInsert checks the raw write's baseline: every row is written, in
// a file with the projection's journal mode (WAL).
func TestRawInsert(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var rows []benchRow
	for i := range 7 {
		rows = append(rows, benchRow{seq: uint64(i + 1), campaign: "c", battle: "b", id: fmt.Sprintf("e%d", i), typ: "t", version: uint64(i + 1),
			schema: 1, when: time.Now().UTC().Format(time.RFC3339Nano), payload: "{}"})
	}
	d, err := rawInsert(ctx, filepath.Join(dir, "raw.db"), rows, 3)
	if err != nil || d <= 0 {
		t.Fatalf("rawInsert: %v, %v", d, err)
	}
	proj, err := sqlite.Open(filepath.Join(dir, "projection.db"))
	if err != nil {
		t.Fatal(err)
	}
	proj.Close()

	journal := func(path string) string {
		t.Helper()
		db, err := sql.Open("sqlite3", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var mode string
		if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return mode
	}
	if raw, p := journal(filepath.Join(dir, "raw.db")), journal(filepath.Join(dir, "projection.db")); raw != p || raw != "wal" {
		t.Fatalf("journal mode: raw write %q, projection %q", raw, p)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "raw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var seqs string
	if err := db.QueryRowContext(ctx, `SELECT count(*), group_concat(seq) FROM events`).Scan(&n, &seqs); err != nil {
		t.Fatal(err)
	}
	if n != len(rows) || seqs != "1,2,3,4,5,6,7" {
		t.Fatalf("raw write holds %d rows (%s), want %d", n, seqs, len(rows))
	}
}

func TestSummarise(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if got := summarise(ds); got != (Latency{N: 100, P50: 51, P99: 100, Max: 100}) {
		t.Fatalf("summarise 1..100 ms: %+v", got)
	}
	if ds[0] != 100*time.Millisecond {
		t.Fatal("summarise sorted its argument")
	}
	if got := summarise(nil); got != (Latency{}) {
		t.Fatalf("summarise nothing: %+v", got)
	}
}

func TestVerdictAndBest(t *testing.T) {
	for _, c := range []struct {
		got, target float64
		under       bool
		want        string
	}{{19, 20, true, "met"}, {20, 20, true, "MISSED"}, {0.7, 0.7, false, "met"}, {0.69, 0.7, false, "MISSED"}} {
		if v := verdict(c.got, c.target, c.under); v != c.want {
			t.Errorf("verdict(%v, %v, %v) = %s, want %s", c.got, c.target, c.under, v, c.want)
		}
	}
	a := LimitResult{Single: Rate{PerSec: 10}, Batch: Rate{PerSec: 5}, Parallel: Rate{PerSec: 1}, Writers: 2}
	b := LimitResult{Single: Rate{PerSec: 9}, Batch: Rate{PerSec: 6}, Parallel: Rate{PerSec: 3}, Writers: 4}
	if got := a.best(b); got.Single.PerSec != 10 || got.Batch.PerSec != 6 || got.Parallel.PerSec != 3 || got.Writers != 4 {
		t.Fatalf("best %+v", got)
	}
}

// TestBenchLog: the league's logger counts the ledger's warnings by
// message and keeps the first five in full.
func TestBenchLog(t *testing.T) {
	h := &benchLog{}
	l := slog.New(h)
	l.Info("not counted")
	for i := range 6 {
		l.Warn(unprojectedWarning, "seq", i)
	}
	l.Error("broken")
	if n := h.count(unprojectedWarning); n != 6 {
		t.Fatalf("counted %d", n)
	}
	s := h.summary()
	if len(s) != 2+5 || s[0] != "6 x "+unprojectedWarning || s[1] != "1 x broken" || s[2] != "e.g. "+unprojectedWarning+" seq=0" {
		t.Fatalf("summary %q", s)
	}
	h.reset()
	if h.count(unprojectedWarning) != 0 || len(h.summary()) != 0 {
		t.Fatalf("after reset: %q", h.summary())
	}
}

// TestPrintLeague prints each part only when it ran, beside its target.
func TestPrintLeague(t *testing.T) {
	r := LeagueResult{Server: "embedded NATS server", Machine: "a machine", Seconds: 1,
		Rebuild: &LeagueRebuild{RebuildFigures: RebuildFigures{RebuildEvents: 5000, Rounds: 1, RebuildPerSec: 80, RawReadPerSec: 100, RebuildRead: 0.8}, Target: 0.7}}
	var out bytes.Buffer
	if err := PrintLeague(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"league bench: embedded NATS server; a machine", "rebuild: 5000 events, best of 1 interleaved rounds",
		"rebuild / raw read 0.80, target at least 0.7: met", "bench took 1.0 s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("league output lacks %q:\n%s", want, &out)
		}
	}
	for _, not := range []string{"load:", "timeline:", "audit:", "memory:", "start-up:", "live:"} {
		if strings.Contains(out.String(), not) {
			t.Errorf("league output has %q, a part that did not run:\n%s", not, &out)
		}
	}
}
