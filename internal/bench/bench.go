// Package bench is the measuring harness behind `ledger bench`: the
// command path and the projection's rebuild on a synthetic campaign (Run),
// and what a league asks of the ledger, each figure beside its target and
// the limit it cannot beat (RunLeague); docs/performance.md records the
// figures. It opens no ledger itself: cmd/ledger wires them and hands them
// over through an Opener, and this package imports nothing of cmd/.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/projections/sqlite"
)

// Options are the sizes of a bench run.
type Options struct {
	Commands int    // commands through the full path, on one battle
	Events   int    // events of the synthetic campaign for the rebuild
	Batch    int    // projection batch size
	NoSync   bool   // embedded server without fsync per write
	Dir      string // where to make the temporary ledger
	Keep     bool
	Rounds   int // interleaved rounds of raw read, raw write and rebuild
}

// Latency summarises durations.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func summarise(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return Latency{N: len(s), P50: ms(at(0.50)), P99: ms(at(0.99)), Max: ms(s[len(s)-1])}
}

// Result is what `ledger bench` prints.
type Result struct {
	Sync     bool `json:"sync_always"`
	Commands int  `json:"commands"`
	// Throughput of the whole path, commands and events per second, one
	// writer on one battle (each command waits for the one before).
	CommandsPerSec float64 `json:"commands_per_second"`
	EventsPerSec   float64 `json:"events_per_second"`
	// Command: Service.Execute (decode, decide, append with the server's
	// ack). Projected: the same plus the time until the live projection has
	// committed the command's last event.
	Command   Latency `json:"command"`
	Projected Latency `json:"command_projected"`
	// ByName: Execute's latency per command name; Append: the log's append
	// alone, per number of events in the append (1 = a plain publish,
	// more = an atomic batch); Read: the service's read of what is new
	// before it decides.
	ByName map[string]Latency `json:"by_command"`
	Append map[string]Latency `json:"append_by_events"`
	Read   Latency            `json:"read"`

	RebuildFigures
	Seconds float64 `json:"seconds"`
}

// RebuildFigures compares the projection's rebuild with the raw read and
// the raw write of the same log.
type RebuildFigures struct {
	RebuildEvents int `json:"rebuild_events"`
	// Rounds of raw read, raw write and rebuild; each rate is the best.
	Rounds         int     `json:"rounds"`
	RebuildPerSec  float64 `json:"rebuild_events_per_second"`
	RawReadPerSec  float64 `json:"raw_read_events_per_second"`
	RawWritePerSec float64 `json:"raw_write_rows_per_second"`
	RebuildRead    float64 `json:"rebuild_over_raw_read"`
	RebuildWrite   float64 `json:"rebuild_over_raw_write"`
	// PeakHeapHalf and PeakHeap are how far the heap grew above what was
	// live before, at its peak, while rebuilding half of the log and all of
	// it: equal sizes mean memory does not grow with the number of events.
	PeakHeapHalf uint64 `json:"peak_heap_half_bytes"`
	PeakHeap     uint64 `json:"peak_heap_bytes"`
	// RebuildCPU and RawReadCPU are the process's CPU time per event, in
	// microseconds (all its threads, the embedded server's included), in
	// the round of the best rate; RebuildCores and RawReadCores the
	// processors they kept busy on average (CPU time over elapsed time).
	// Zero where the CPU time is not measured (not on Unix).
	RebuildCPU   float64 `json:"rebuild_cpu_us_per_event"`
	RawReadCPU   float64 `json:"raw_read_cpu_us_per_event"`
	RebuildCores float64 `json:"rebuild_cores"`
	RawReadCores float64 `json:"raw_read_cores"`
	// RebuildSpent and RawReadSpent break that CPU down, in the same
	// rounds: the kernel's part, the garbage collector's, and the heap
	// allocations per event, so that what the rebuild does beyond the
	// read can be seen without a profiler.
	RebuildSpent Spent `json:"rebuild_spent"`
	RawReadSpent Spent `json:"raw_read_spent"`
}

// timedLog measures the service's appends and reads.
type timedLog struct {
	events.Log
	mu     sync.Mutex
	append map[int][]time.Duration
	read   []time.Duration
}

func (l *timedLog) Append(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope) error {
	t := time.Now()
	err := l.Log.Append(ctx, key, expected, batch)
	d := time.Since(t)
	l.mu.Lock()
	l.append[len(batch)] = append(l.append[len(batch)], d)
	l.mu.Unlock()
	return err
}

func (l *timedLog) Read(ctx context.Context, key events.Key, after uint64) ([]events.Envelope, error) {
	t := time.Now()
	evs, err := l.Log.Read(ctx, key, after)
	d := time.Since(t)
	l.mu.Lock()
	l.read = append(l.read, d)
	l.mu.Unlock()
	return evs, err
}

// notifying tells a waiter how far the projection has committed.
type notifying struct {
	projections.Projection
	mu      sync.Mutex
	applied uint64
	wake    chan struct{} // closed and replaced at each batch
}

func (n *notifying) ApplyBatch(ctx context.Context, evs []events.Envelope) error {
	if err := n.Projection.ApplyBatch(ctx, evs); err != nil {
		return err
	}
	n.applied1(evs)
	return nil
}

// notifyingPrep is notifying on a projection that prepares its batches
// apart (projections.Preparer), as the live projector runs the SQLite one.
type notifyingPrep struct {
	*notifying
	p projections.Preparer
}

func (n notifyingPrep) PrepareBatch(evs []events.Envelope) projections.Prepared {
	return n.p.PrepareBatch(evs)
}

func (n notifyingPrep) ApplyPrepared(ctx context.Context, b projections.Prepared) error {
	if err := n.p.ApplyPrepared(ctx, b); err != nil {
		return err
	}
	n.applied1(b.Events())
	return nil
}

// live is n as the projector is to see it: a Preparer when its projection
// is one.
func (n *notifying) live() projections.Projection {
	if p, ok := n.Projection.(projections.Preparer); ok {
		return notifyingPrep{notifying: n, p: p}
	}
	return n
}

// applied1 wakes the waiters once evs are committed.
func (n *notifying) applied1(evs []events.Envelope) {
	n.mu.Lock()
	n.applied = evs[len(evs)-1].Sequence
	close(n.wake)
	n.wake = make(chan struct{})
	n.mu.Unlock()
}

// wait blocks until the projection has committed seq.
func (n *notifying) wait(ctx context.Context, seq uint64) error {
	for {
		n.mu.Lock()
		done, wake := n.applied >= seq, n.wake
		n.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Run measures the command path and the projection (`ledger bench`) on a
// fresh ledger in a temporary folder, opened by op.
func Run(ctx context.Context, op Opener, o Options, progress io.Writer) (Result, error) {
	start := time.Now()
	res := Result{Sync: !o.NoSync, Commands: o.Commands, ByName: map[string]Latency{}, Append: map[string]Latency{}}
	dir, err := os.MkdirTemp(o.Dir, "ledger-bench-")
	if err != nil {
		return res, err
	}
	if o.Keep {
		fmt.Fprintf(progress, "bench: the ledger is kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.NATS.SyncAlways = !o.NoSync
	l, err := op.Open(ctx, cfg, OpenOptions{})
	if err != nil {
		return res, err
	}
	defer l.Close()

	// 1. The command path on one battle, with a live projection following.
	fmt.Fprintf(progress, "bench: %d commands through the full path on one battle\n", o.Commands)
	tl := &timedLog{Log: l.Log, append: map[int][]time.Duration{}}
	svc := newBenchService(tl, l)
	proj := &notifying{Projection: l.DB, wake: make(chan struct{})}
	pctx, pcancel := context.WithCancel(ctx)
	projErr := make(chan error, 1)
	go func() {
		projErr <- projections.Run(pctx, l.Log, proj.live(), projections.RunOptions{Follow: true, BatchSize: o.Batch})
	}()
	if _, err := svc.Execute(ctx, loadgen.CreateCampaign("bench")); err != nil {
		pcancel()
		return res, err
	}
	gen := loadgen.NewBattle("bench", "single", 1)
	var cmdLat, projLat []time.Duration
	byName := map[string][]time.Duration{}
	nEvents := 0
	t0 := time.Now()
	for i := 0; i < o.Commands; i++ {
		req := gen.Next()
		t := time.Now()
		out, err := svc.Execute(ctx, req)
		if err != nil {
			pcancel()
			return res, fmt.Errorf("bench: %s %s: %w", req.ID, req.Name, err)
		}
		d := time.Since(t)
		if err := proj.wait(ctx, out.Events[len(out.Events)-1].Sequence); err != nil {
			pcancel()
			return res, err
		}
		if i < loadgen.Setup {
			continue // battle.create parses the ruleset: set-up, not play
		}
		projLat = append(projLat, time.Since(t))
		cmdLat = append(cmdLat, d)
		byName[req.Name] = append(byName[req.Name], d)
		nEvents += len(out.Events)
	}
	elapsed := time.Since(t0)
	pcancel()
	if err := <-projErr; err != nil {
		return res, fmt.Errorf("bench: live projection: %w", err)
	}
	res.CommandsPerSec = float64(len(cmdLat)) / elapsed.Seconds()
	res.EventsPerSec = float64(nEvents) / elapsed.Seconds()
	res.Command, res.Projected = summarise(cmdLat), summarise(projLat)
	for name, ds := range byName {
		res.ByName[name] = summarise(ds)
	}
	tl.mu.Lock()
	for n, ds := range tl.append {
		res.Append[fmt.Sprint(n)] = summarise(ds)
	}
	res.Read = summarise(tl.read)
	tl.mu.Unlock()

	// 2. A synthetic campaign, then rebuild, raw read and raw write of it.
	fmt.Fprintf(progress, "bench: writing a synthetic campaign of %d events\n", o.Events)
	if _, err := projtest.Fill(ctx, l.Log, projtest.FillOptions{Events: o.Events, Campaign: "synth", Signer: l.Signer}); err != nil {
		return res, err
	}
	if res.RebuildFigures, err = measureRebuild(ctx, l.Log, l.Ring, dir, o.Batch, o.Rounds, progress); err != nil {
		return res, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// measureRebuild rebuilds the projection of the whole log into files of
// dir, rounds times, between a raw read and a raw write of the same
// events, and keeps the best of each.
func measureRebuild(ctx context.Context, log events.Log, ring *events.Keyring, dir string, batch, rounds int, progress io.Writer) (RebuildFigures, error) {
	var res RebuildFigures
	last, err := log.LastSequence(ctx)
	if err != nil {
		return res, err
	}
	res.RebuildEvents, res.Rounds = int(last), rounds

	// The three measurements are interleaved, --rounds times, and the best
	// of each is kept: on a shared machine a burst of other work then
	// slows one round, not one measurement against the others.
	var rows []benchRow
	if _, err := timeFollow(ctx, log, last, func(e events.Envelope) { rows = append(rows, rowOf(e)) }); err != nil {
		return res, err
	}
	fmt.Fprintf(progress, "bench: rebuilding half of the log\n")
	if _, res.PeakHeapHalf, err = timeRebuild(ctx, log, ring, filepath.Join(dir, "half.db"), batch, last/2); err != nil {
		return res, err
	}
	for round := 1; round <= rounds; round++ {
		fmt.Fprintf(progress, "bench: round %d of %d: raw read, raw write and rebuild of %d events\n", round, rounds, last)
		runtime.GC()
		before := processUsage()
		rawRead, err := timeFollow(ctx, log, last, nil)
		if err != nil {
			return res, err
		}
		if rate := float64(last) / rawRead.Seconds(); rate > res.RawReadPerSec {
			res.RawReadPerSec = rate
			res.RawReadSpent = spentSince(before, last, rawRead)
			res.RawReadCPU, res.RawReadCores = res.RawReadSpent.CPU, res.RawReadSpent.Cores
		}
		rawWrite, err := rawInsert(ctx, filepath.Join(dir, fmt.Sprintf("raw-%d.db", round)), rows, batch)
		if err != nil {
			return res, err
		}
		res.RawWritePerSec = max(res.RawWritePerSec, float64(len(rows))/rawWrite.Seconds())
		before = processUsage()
		rebuild, peak, err := timeRebuild(ctx, log, ring, filepath.Join(dir, fmt.Sprintf("rebuild-%d.db", round)), batch, 0)
		if err != nil {
			return res, err
		}
		res.PeakHeap = max(res.PeakHeap, peak)
		if rate := float64(last) / rebuild.Seconds(); rate > res.RebuildPerSec {
			res.RebuildPerSec = rate
			res.RebuildSpent = spentSince(before, last, rebuild)
			res.RebuildCPU, res.RebuildCores = res.RebuildSpent.CPU, res.RebuildSpent.Cores
		}
	}
	rows = nil
	res.RebuildRead = res.RebuildPerSec / res.RawReadPerSec
	res.RebuildWrite = res.RebuildPerSec / res.RawWritePerSec
	return res, nil
}

// newBenchService is the command service on the measured log.
func newBenchService(log events.Log, l *Ledger) *campaign.Service {
	return campaign.NewService(log, l.Vault, campaign.Options{Retries: l.Config.Retries})
}

// perEvent is d per event of n, in microseconds.
func perEvent(d time.Duration, n uint64) float64 {
	return float64(d.Microseconds()) / float64(max(n, 1))
}

// timeFollow reads the log from its first event to last through one
// ordered consumer, handing each event to keep if not nil.
func timeFollow(ctx context.Context, log events.Log, last uint64, keep func(events.Envelope)) (time.Duration, error) {
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := time.Now()
	var d time.Duration
	err := log.Follow(fctx, 0, func(e events.Envelope) error {
		if keep != nil {
			keep(e)
		}
		if e.Sequence >= last {
			d = time.Since(t)
			cancel()
		}
		return nil
	}, nil)
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if !errors.Is(err, context.Canceled) {
		return 0, fmt.Errorf("bench: raw read: %w", err)
	}
	return d, nil
}

// benchRow is one event as the raw write stores it: the columns of the
// projection's events table.
type benchRow struct {
	seq                                        uint64
	campaign, battle, id, typ, actor, cmd, aud string
	prev, hash, payload, when                  string
	version                                    uint64
	schema                                     int
}

func rowOf(e events.Envelope) benchRow {
	return benchRow{seq: e.Sequence, campaign: e.Campaign, battle: e.Battle, id: e.ID, typ: e.Type, actor: e.Actor,
		cmd: e.CommandID, aud: e.Audience, prev: e.PrevHash, hash: events.Hash(e.Raw), payload: string(e.Payload),
		when: e.Time.Format(time.RFC3339Nano), version: e.Version, schema: e.Schema}
}

// rawInsert writes rows into a fresh SQLite file opened as the projection
// opens its own (sqlite.OpenSQL: WAL, synchronous=NORMAL, one connection),
// batch rows per transaction.
func rawInsert(ctx context.Context, path string, rows []benchRow, batch int) (time.Duration, error) {
	db, err := sqlite.OpenSQL(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE events (seq INTEGER PRIMARY KEY, campaign TEXT NOT NULL, battle TEXT NOT NULL,
		version INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, schema INTEGER NOT NULL, time TEXT NOT NULL,
		actor TEXT NOT NULL, command_id TEXT NOT NULL, audience TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
		payload TEXT NOT NULL, UNIQUE (campaign, battle, version))`); err != nil {
		return 0, err
	}
	t := time.Now()
	for i := 0; i < len(rows); i += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, err
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			tx.Rollback()
			return 0, err
		}
		for _, r := range rows[i:min(i+batch, len(rows))] {
			if _, err := st.ExecContext(ctx, r.seq, r.campaign, r.battle, r.version, r.id, r.typ, r.schema, r.when,
				r.actor, r.cmd, r.aud, r.prev, r.hash, r.payload); err != nil {
				tx.Rollback()
				return 0, err
			}
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
	return time.Since(t), nil
}

// timeRebuild builds a fresh projection of log up to until (0: all) at
// path, and samples the heap meanwhile: it returns how far the heap grew
// above what was live before (the embedded server shares this process, so
// its caches count too).
func timeRebuild(ctx context.Context, log events.Log, ring *events.Keyring, path string, batch int, until uint64) (time.Duration, uint64, error) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	stop := make(chan struct{})
	peakc := make(chan uint64)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				peakc <- peak
				return
			case <-tick.C:
			}
		}
	}()
	t := time.Now()
	err := sqlite.Build(ctx, log, path, sqlite.BuildOptions{Keys: ring, Fresh: true, BatchSize: batch, Until: until})
	d := time.Since(t)
	close(stop)
	peak := <-peakc
	if err != nil {
		return 0, 0, err
	}
	return d, peak - min(peak, base), nil
}

// Print writes a bench run's figures as `ledger bench` prints them.
func Print(w io.Writer, r Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	sync := "fsync per write (sync_always)"
	if !r.Sync {
		sync = "no fsync per write"
	}
	fmt.Fprintf(tw, "command path, one battle, embedded server, %s: %d commands, %.0f commands/s, %.0f events/s\n", sync, r.Command.N, r.CommandsPerSec, r.EventsPerSec)
	fmt.Fprintln(tw, "\tn\tp50 ms\tp99 ms\tmax ms")
	line := func(name string, l Latency) {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\n", name, l.N, l.P50, l.P99, l.Max)
	}
	line("command (decode, decide, append+ack)", r.Command)
	line("command + projected", r.Projected)
	for _, name := range sortedNames(r.ByName) {
		line("  "+name, r.ByName[name])
	}
	for _, n := range sortedNames(r.Append) {
		what := "events (atomic batch)"
		if n == "1" {
			what = "event (plain publish)"
		}
		line(fmt.Sprintf("  append of %s %s", n, what), r.Append[n])
	}
	line("  read before deciding", r.Read)
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "synthetic campaign of %d events, best of %d interleaved rounds\tevents/s\tratio\n", r.RebuildEvents, r.Rounds)
	fmt.Fprintf(tw, "rebuild of the SQLite projection\t%.0f\t\n", r.RebuildPerSec)
	fmt.Fprintf(tw, "raw read (ordered consumer, Log.Follow)\t%.0f\trebuild/raw read %.2f\n", r.RawReadPerSec, r.RebuildRead)
	fmt.Fprintf(tw, "raw write (one row per event, SQLite)\t%.0f\trebuild/raw write %.2f\n", r.RawWritePerSec, r.RebuildWrite)
	fmt.Fprintf(tw, "peak heap growth during the rebuild\t%.1f MiB (half the log: %.1f MiB)\t\n", float64(r.PeakHeap)/(1<<20), float64(r.PeakHeapHalf)/(1<<20))
	if r.RebuildCPU > 0 && r.RawReadCPU > 0 {
		// The process's CPU time (all threads, the server's too) per
		// event, and the cores it kept busy: on two cores both runs are
		// bound by the CPU, so the ratio of rates follows the CPU's.
		fmt.Fprintf(tw, "CPU per event, rebuild\t%.1f µs (%.2f cores)\t\n", r.RebuildCPU, r.RebuildCores)
		fmt.Fprintf(tw, "CPU per event, raw read\t%.1f µs (%.2f cores)\traw read/rebuild %.2f\n", r.RawReadCPU, r.RawReadCores, r.RawReadCPU/r.RebuildCPU)
		fmt.Fprintf(tw, "  of which in the kernel, rebuild / raw read\t%.1f / %.1f µs\t\n", r.RebuildSpent.System, r.RawReadSpent.System)
	}
	if r.RebuildSpent.Objects > 0 {
		fmt.Fprintf(tw, "garbage collector's CPU per event, rebuild / raw read\t%.1f / %.1f µs\t\n", r.RebuildSpent.GC, r.RawReadSpent.GC)
		fmt.Fprintf(tw, "heap allocations per event, rebuild / raw read\t%.1f / %.1f (%.0f / %.0f bytes)\t\n",
			r.RebuildSpent.Objects, r.RawReadSpent.Objects, r.RebuildSpent.Bytes, r.RawReadSpent.Bytes)
	}
	fmt.Fprintf(tw, "bench took %.1fs\n", r.Seconds)
	return tw.Flush()
}

func sortedNames[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
