package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
)

// `ledger bench --league`: the figures a league asks of the ledger, each
// beside its target and the limit it cannot beat, measured in one run on
// one ledger (docs/performance.md).

// LeagueParts are the parts of a league run, in the order they run.
var LeagueParts = []string{"load", "timeline", "audit", "memory", "startup", "live", "rebuild"}

// LeagueOptions are the sizes of a league run.
type LeagueOptions struct {
	Battles     int           // battles played at once, one table each
	PerCampaign int           // battles per campaign
	Turns       int           // side turns each battle plays
	Pace        time.Duration // a table's pause between commands
	LimitFor    time.Duration // how long each limit measurement appends

	TimelineEvents int // events of the long battle
	Samples        int // events of it shown at random

	Hot, Others, PerOther int           // live subscribers
	LiveCommands          int           // commands each followed battle plays
	LivePace              time.Duration // a followed table's pause between commands

	MemoryEvents  uint64 // events of the battle the memory part grows
	MemoryBattles int    // battles the memory part touches once
	MemProfile    string // where the memory part writes a heap profile at its end

	Events int // the log's length for start-up and rebuild
	Starts int // start-ups timed
	// StartAfterWindow waits, before the start-ups, until the stream's
	// duplicate window has passed since the fill's last append.
	StartAfterWindow bool

	Parts    map[string]bool
	Replicas int

	Batch, Rounds int
	NoSync        bool
	Dir           string
	Keep          bool
}

// LeagueResult is what `ledger bench --league` prints.
type LeagueResult struct {
	Machine  string          `json:"machine"`
	Server   string          `json:"server"`
	Load     *LoadResult     `json:"load,omitempty"`
	Timeline *TimelineResult `json:"timeline,omitempty"`
	Audit    *AuditResult    `json:"audit,omitempty"`
	Memory   *MemoryResult   `json:"memory,omitempty"`
	Startup  *StartupResult  `json:"startup,omitempty"`
	Live     *LiveResult     `json:"live,omitempty"`
	Rebuild  *LeagueRebuild  `json:"rebuild,omitempty"`
	// Stopped are the streams the projection stopped (an event it could
	// not admit: unsigned, out of its chain), with why; none is expected.
	Stopped  []string `json:"stopped_streams,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	Seconds  float64  `json:"seconds"`
}

// LeagueRebuild is the rebuild against the raw ordered read, with its
// target.
type LeagueRebuild struct {
	RebuildFigures
	Target float64 `json:"target_rebuild_over_raw_read"`
}

// RunLeague runs the parts of o (`ledger bench --league`) on one fresh
// ledger in a temporary folder (or, with base.NATS.URL, on that cluster's
// stream, with a fresh data folder for the projection), opened and served
// by op.
func RunLeague(ctx context.Context, op Opener, base config.Config, o LeagueOptions, progress io.Writer) (LeagueResult, error) {
	start := time.Now()
	res := LeagueResult{}
	dir, err := os.MkdirTemp(o.Dir, "ledger-league-")
	if err != nil {
		return res, err
	}
	if o.Keep {
		fmt.Fprintf(progress, "bench: the ledger is kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	cfg := base
	cfg.DataDir = dir
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.HTTP.TLSCert, cfg.HTTP.TLSKey = "", ""
	cfg.NATS.Listen = ""
	if o.Replicas > 0 {
		cfg.NATS.Replicas = o.Replicas
	}
	subs := o.Hot + o.Others*o.PerOther
	cfg.HTTP.Streams = max(cfg.HTTP.Streams, subs+16)
	if cfg.Embedded() {
		cfg.NATS.SyncAlways = !o.NoSync
		res.Server = "embedded NATS server, no fsync per write"
		if cfg.NATS.SyncAlways {
			res.Server = "embedded NATS server, fsync per write (sync_always)"
		}
	} else {
		res.Server = fmt.Sprintf("NATS at %s, stream %s with %d replicas", cfg.NATS.URL, cfg.NATS.Stream, max(1, cfg.NATS.Replicas))
	}
	// Ids no earlier run on the same cluster used.
	tag := "lg" + strconv.FormatInt(time.Now().UnixMilli()%(36*36*36*36*36*36), 36)

	warnings := &benchLog{}
	a, err := op.Open(ctx, cfg, OpenOptions{What: "bench --league", Logger: slog.New(warnings)})
	if err != nil {
		return res, err
	}
	bg, stopProjector := context.WithCancel(context.WithoutCancel(ctx))
	projector := a.NewProjector(slog.New(warnings))
	go projector.Run(bg)
	stopProjecting := func() {
		stopProjector()
		<-projector.Done()
	}
	closeLedger := func() error {
		if a == nil {
			return nil
		}
		stopProjecting()
		err := a.Close()
		a = nil
		return err
	}
	defer closeLedger()

	if o.Parts["load"] {
		if res.Load, err = runLoad(ctx, a, projector, o, tag, warnings, progress); err != nil {
			return res, err
		}
	}
	if o.Parts["timeline"] || o.Parts["audit"] {
		key, p, cmds, err := longBattle(ctx, a.Door, tag+"-long", uint64(o.TimelineEvents), progress)
		if err != nil {
			return res, err
		}
		viewer := p.players["red"]
		if o.Parts["timeline"] {
			fmt.Fprintf(progress, "bench: showing %d events of it at random\n", o.Samples)
			if res.Timeline, err = runTimeline(ctx, viewer, key, o.Samples, cmds); err != nil {
				return res, err
			}
		}
		if o.Parts["audit"] {
			fmt.Fprintf(progress, "bench: auditing it\n")
			if res.Audit, err = runAudit(ctx, viewer, a.Log, key, max(3, o.Rounds)); err != nil {
				return res, err
			}
		}
	}
	if o.Parts["memory"] {
		if res.Memory, err = runMemory(ctx, a, o, tag, progress); err != nil {
			return res, err
		}
	}
	var st StartupResult
	if o.Parts["startup"] || o.Parts["rebuild"] {
		stopProjecting()
		if err := fillTo(ctx, a, o.Events, tag+"-synth", &st, progress); err != nil {
			return res, err
		}
	}
	stopped, err := a.DB.Stopped(ctx)
	if err != nil {
		return res, err
	}
	for _, st := range stopped {
		res.Stopped = append(res.Stopped, fmt.Sprintf("%s at %d: %s", events.Key{Campaign: st.Campaign, Battle: st.Battle}, st.Sequence, st.Reason))
	}
	if err := closeLedger(); err != nil {
		return res, err
	}
	var served *Served
	stopServed := func() error { return nil }
	if o.Parts["startup"] {
		if served, _, stopServed, err = runStartup(ctx, op, cfg, o, &st, o.Parts["live"], progress); err != nil {
			return res, err
		}
		res.Startup = &st
	}
	if o.Parts["live"] {
		if served == nil {
			sctx, stop := context.WithCancel(ctx)
			if served, _, err = serveBench(sctx, op, cfg); err != nil {
				stop()
				return res, err
			}
			s := served
			stopServed = func() error {
				stop()
				return s.Wait()
			}
		}
		res.Live, err = runLive(ctx, served, o, tag, progress)
		if serr := stopServed(); err == nil {
			err = serr
		}
		if err != nil {
			return res, err
		}
	} else if served != nil {
		if err := stopServed(); err != nil {
			return res, err
		}
	}
	if o.Parts["rebuild"] {
		a2, err := op.Open(ctx, cfg, OpenOptions{What: "bench --league"})
		if err != nil {
			return res, err
		}
		rb, err := measureRebuild(ctx, a2.Log, a2.Ring, dir, o.Batch, o.Rounds, progress)
		a2.Close()
		if err != nil {
			return res, err
		}
		res.Rebuild = &LeagueRebuild{RebuildFigures: rb, Target: 0.7}
	}
	res.Warnings = warnings.summary()
	res.Seconds = time.Since(start).Seconds()
	res.Machine = machine()
	return res, nil
}

// machine says what the figures were measured on.
func machine() string {
	s := fmt.Sprintf("%d CPUs, %s/%s, %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				s += ", " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			s += ", load average " + f[0] + " at the end"
		}
	}
	return s
}

// verdict says whether got meets a target (below it when under, else at
// least it).
func verdict(got, target float64, under bool) string {
	if (under && got < target) || (!under && got >= target) {
		return "met"
	}
	return "MISSED"
}

// PrintLeague writes a league run's figures as `ledger bench --league`
// prints them.
func PrintLeague(w io.Writer, r LeagueResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "league bench: %s; %s\n", r.Server, r.Machine)
	line := func(name string, l Latency, extra string) {
		fmt.Fprintf(tw, "  %s\t%d\t%.2f\t%.2f\t%.2f\t%s\n", name, l.N, l.P50, l.P99, l.Max, extra)
	}
	if l := r.Load; l != nil {
		fmt.Fprintf(tw, "\nload: %d battles played at once in %d campaigns, %d side turns each, tables pausing %.0f ms between commands\n",
			l.Battles, l.Campaigns, l.Turns, l.PaceMS)
		fmt.Fprintf(tw, "  aggregate\t%d commands, %d events in %.1f s\t%.0f commands/s\t%.0f events/s\n", l.Commands, l.Events, l.Seconds, l.CommandsPerSec, l.EventsPerSec)
		fmt.Fprintf(tw, "  limit: one synced append after the other (1 event)\t%d appends\t%.0f appends/s\tcommands/s / limit %.2f\tevents/s / limit %.2f\n",
			l.Limit.Single.N, l.Limit.Single.PerSec, l.RatioSingle, l.EventsRatio)
		fmt.Fprintf(tw, "  limit: one atomic batch of 2 events after the other\t%d appends\t%.0f appends/s\t\n", l.Limit.Batch.N, l.Limit.Batch.PerSec)
		fmt.Fprintf(tw, "  limit: %d appends at once (1 event each)\t%d appends\t%.0f appends/s\tcommands/s / limit %.2f\n",
			l.Limit.Writers, l.Limit.Parallel.N, l.Limit.Parallel.PerSec, l.RatioParallel)
		fmt.Fprintf(tw, "  limit: this mix's appends one after the other (%.0f%% atomic batches)\t\t%.0f commands/s\tcommands/s / limit %.2f\n",
			100*l.Multi, l.MixLimit, l.RatioMix)
		fmt.Fprintf(tw, "  every command in the log once\t%d of %d acknowledged\tmissing %d, duplicated %d, moved %d, unacknowledged %d (and %d battle.added)\n",
			l.Once.InLogOnce, l.Once.Acknowledged, l.Once.Missing, l.Once.Duplicated, l.Once.Moved, l.Once.Unacknowledged, l.Once.Companions)
		fmt.Fprintf(tw, "  commands sent again after a fault\t%d\tfailed tables %d\tanswered before projected %d, projection current %.2f s after the last command\n",
			l.Retried, l.Failed, l.Unprojected, l.CatchUpSeconds)
		for _, e := range l.Errors {
			fmt.Fprintf(tw, "    %s\n", e)
		}
		fmt.Fprintf(tw, "  command through the door\tn\tp50 ms\tp99 ms\tmax ms\tp50 / one synced append (p50 %.2f ms)\n", l.Limit.Single.Latency.P50)
		ratio := func(x Latency) string {
			if l.Limit.Single.Latency.P50 <= 0 {
				return ""
			}
			return fmt.Sprintf("%.1f", x.P50/l.Limit.Single.Latency.P50)
		}
		line("all", l.All, ratio(l.All))
		for _, k := range sortedNames(l.ByKind) {
			line("  "+k, l.ByKind[k], ratio(l.ByKind[k]))
		}
		line("limit: one synced append", l.Limit.Single.Latency, "")
		line("limit: atomic batch of 2", l.Limit.Batch.Latency, "")
	}
	if t := r.Timeline; t != nil {
		fmt.Fprintf(tw, "\ntimeline: any event of a battle of %d events (%d commands) shown to a player: state (Replay) and picture (Picture), %d at random\n",
			t.Events, t.Commands, t.Samples)
		fmt.Fprintf(tw, "  \tn\tp50 ms\tp99 ms\tmax ms\t\n")
		line("shown (both)", t.Shown, fmt.Sprintf("target p99 < %.0f ms: %s", t.TargetMS, verdict(t.Shown.P99, t.TargetMS, true)))
		line("  state (Replay)", t.Replay, "")
		line("  picture (Picture)", t.Picture, "")
		fmt.Fprintf(tw, "  first look (timeline read from the log and folded)\t%.2f ms\t\n", t.ColdMS)
	}
	if a := r.Audit; a != nil {
		fmt.Fprintf(tw, "\naudit: the same battle, %d events, best of %d rounds\n", a.Events, a.Rounds)
		fmt.Fprintf(tw, "  audited (through the door)\t%.0f events/s\taudit / raw read %.2f\n", a.AuditPerSec, a.Ratio)
		fmt.Fprintf(tw, "  raw read of the stream (the limit)\t%.0f events/s\t\n", a.RawReadPerSec)
	}
	if m := r.Memory; m != nil {
		printMemory(tw, m)
	}
	if s := r.Startup; s != nil {
		fmt.Fprintf(tw, "\nstart-up: `ledger serve` on %d events, projection current (fill %.0f s, catch-up %.1f s)\n", s.Events, s.FillSeconds, s.CatchUpSeconds)
		for i, st := range s.Starts {
			fmt.Fprintf(tw, "  start %d\tserving %.0f ms\tfirst answer %.0f ms\tprojection lag %d, battles in memory %d; %.0f s after the last append\n", i+1, st.ServeMS, st.AnswerMS, st.Lag, st.CachedBattles, st.SinceAppendS)
		}
		if len(s.Starts) > 0 && s.Starts[0].SinceAppendS < s.WindowS {
			fmt.Fprintf(tw, "  \tstarted within the stream's %.0f s duplicate window of the fill's appends: nats-server reads every message appended in it again (its de-duplication index) before it is ready; --start-after-window times a start after it\n", s.WindowS)
		}
		fmt.Fprintf(tw, "  first answer\tmedian %.0f ms\tworst %.0f ms\ttarget < %.0f ms: %s\n", s.MedianMS, s.WorstMS, s.TargetMS, verdict(s.WorstMS, s.TargetMS, true))
	}
	if l := r.Live; l != nil {
		fmt.Fprintf(tw, "\nlive: %d SSE subscribers (%d on one battle, %d on each of %d others); %d commands, %d events in %.1f s, tables pausing %.0f ms\n",
			l.Subscribers, l.Hot, l.PerOther, l.Others, l.Commands, l.Events, l.Seconds, l.PaceMS)
		fmt.Fprintf(tw, "  deliveries\t%d of %d\tmissing %d\treconnects %d\n", l.Delivered, l.Expected, l.Missing, l.Reconnects)
		fmt.Fprintf(tw, "  \tn\tp50 ms\tp99 ms\tmax ms\t\n")
		line("from the log to every subscriber", l.FromLog, fmt.Sprintf("target p99 < %.0f ms: %s", l.TargetMS, verdict(l.FromLog.P99, l.TargetMS, true)))
		line("  the busy battle", l.HotFromLog, "")
		line("  the others", l.OthersFromLog, "")
		line("from the command sent", l.FromSent, "")
	}
	if b := r.Rebuild; b != nil {
		fmt.Fprintf(tw, "\nrebuild: %d events, best of %d interleaved rounds\tevents/s\tratio\n", b.RebuildEvents, b.Rounds)
		fmt.Fprintf(tw, "  rebuild of the SQLite projection\t%.0f\trebuild / raw read %.2f, target at least %.1f: %s\n", b.RebuildPerSec, b.RebuildRead, b.Target, verdict(b.RebuildRead, b.Target, false))
		fmt.Fprintf(tw, "  raw read (ordered consumer, the limit)\t%.0f\t\n", b.RawReadPerSec)
		fmt.Fprintf(tw, "  raw write (one row per event)\t%.0f\trebuild / raw write %.2f\n", b.RawWritePerSec, b.RebuildWrite)
		fmt.Fprintf(tw, "  peak heap growth\t%.1f MiB (half the log: %.1f MiB)\t\n", float64(b.PeakHeap)/(1<<20), float64(b.PeakHeapHalf)/(1<<20))
	}
	for _, s := range r.Stopped {
		fmt.Fprintf(tw, "STOPPED stream of the projection: %s\n", s)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(tw, "warning from the ledger: %s\n", w)
	}
	fmt.Fprintf(tw, "\nbench took %.1f s\n", r.Seconds)
	return tw.Flush()
}
