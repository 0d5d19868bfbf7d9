package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/internal/bench"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

// `ledger bench`: the command (its flags, their checks, the output). The
// measuring is internal/bench's; the ledgers it measures are wired here
// (benchOpener).

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.benchCommand() })
}

func (c *cli) benchCommand() *cobra.Command {
	var o bench.Options
	var lo bench.LeagueOptions
	var league bool
	var parts, cpuProfile string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the command path and the projection on a synthetic campaign in a temporary ledger",
		Long: `Bench starts a fresh embedded ledger in a temporary folder (your data is not
touched) and measures, in one run on the same machine:

  1. the full command path on one battle: --commands commands of a synthetic
     battle (orders with physical dice, moves, phase ends) through the
     service, one after the other: decode, decide, append with the
     server's ack ("command"), and until the live SQLite projection that
     follows the log has committed the command's events ("projected");
     p50, p99 and max, by command and by number of events per append;
  2. a synthetic campaign of --events events (battles of the same mix,
     interleaved), then, --rounds times in turn (the best of each kept):
       rebuild    the SQLite projection from the first event (events/s),
                  with the peak live heap while rebuilding half and all
       raw read   the same log through one ordered consumer (Log.Follow)
       raw write  one row per event into a SQLite table, one transaction
                  per --batch rows
     and the ratios rebuild/raw read and rebuild/raw write.

With --league it measures instead what a league asks of the ledger, each
figure beside its target and the limit it cannot beat, in one run on one
ledger (--parts chooses; all by default):

  load      --battles battles played at once by simulated tables
            (campaign/loadgen's league mix: players' dice seeds, orders
            with physical and digital dice, moves, fire, casualties,
            phase ends), --per-campaign to a campaign, --turns side turns
            each, every command through the one door (a session of the
            opened ledger, its projector running, as ledger serve runs
            it): aggregate commands/s, p50 and p99 by command; the log's
            raw appends measured before and after (one synced append
            after the other, an atomic batch of 2, 64 at once) and the
            ratios; then that every acknowledged command is in the log
            once
  timeline  a battle of --timeline-events events; --samples of them at
            random shown to a player (state and picture), p99 (target
            under 20 ms)
  audit     that battle audited through the door, against the raw read
            of its stream
  memory    the process's resident memory and heap while one battle
            grows to --memory-events events, then while --memory-battles
            new battles are touched once each (target under 200 MiB for
            both, flat once the caches are full)
  startup   the log filled to --events events (synthetic battles, most
            ended), the projection current; ledger serve (Serve) started
            --starts times, each until its first answer (target under 2 s)
  live      a served ledger: --hot SSE subscribers on one battle and
            --per-other on each of --others more while their tables play
            --live-commands commands; every event to every subscriber,
            p99 (target under 100 ms)
  rebuild   the projection rebuilt from the --events events, against the
            raw ordered read (target at least 0.7), the heap meanwhile

With --nats-url it runs against that cluster (its LEDGER stream and
sealed vault: use a cluster of its own, e.g. scripts/cluster.sh, not a
club's) and a fresh projection in a temporary folder.

docs/performance.md records figures and how to read them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !league {
				// A league's flag given without --league would be ignored
				// while a different benchmark runs: say so instead.
				var alone string
				cmd.Flags().Visit(func(f *pflag.Flag) {
					if alone == "" && strings.HasPrefix(f.Usage, "with --league") {
						alone = f.Name
					}
				})
				if alone != "" {
					return usagef("bench: --%s needs --league", alone)
				}
			}
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			if league {
				return c.runLeagueCommand(cmd, o, lo, parts)
			}
			if o.Commands < 10 || o.Events < 1000 || o.Batch < 1 || o.Rounds < 1 {
				return usagef("bench: --commands at least 10, --events at least 1000, --batch and --rounds at least 1")
			}
			if o.Batch > projections.MaxBatchSize {
				return usagef("bench: --batch at most %d", projections.MaxBatchSize)
			}
			res, err := bench.Run(c.ctx, benchOpener(nil), o, c.stderr)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, res)
			}
			return bench.Print(c.stdout, res)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Commands, "commands", 2000, "commands through the full path, on one battle")
	f.IntVar(&o.Rounds, "rounds", 3, "rounds of raw read, raw write and rebuild, interleaved; the best of each is kept")
	f.IntVar(&o.Events, "events", 50000, "events of the synthetic campaign the projection is rebuilt from")
	f.IntVar(&o.Batch, "batch", sqlite.DefaultBuildBatch, "events per projection transaction (and rows per raw-write transaction)")
	f.BoolVar(&o.NoSync, "no-sync", false, "run the embedded server without an fsync per write (nats.sync_always false)")
	f.StringVar(&o.Dir, "dir", "", "folder for the temporary ledger (default the system's temporary folder)")
	f.BoolVar(&o.Keep, "keep", false, "keep the temporary ledger")

	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	f.StringVar(&lo.MemProfile, "memprofile", "", "with --league: write a heap profile at the end of the memory part to this file (go tool pprof)")
	f.BoolVar(&league, "league", false, "measure what a league asks instead (see above); --events defaults to 1,000,000")
	f.StringVar(&parts, "parts", strings.Join(bench.LeagueParts, ","), "with --league: the parts to run")
	f.IntVar(&lo.Battles, "battles", 1000, "with --league: battles played at once, one simulated table each")
	f.IntVar(&lo.PerCampaign, "per-campaign", 10, "with --league: battles per campaign")
	f.IntVar(&lo.Turns, "turns", 4, "with --league: side turns each battle plays before its umpire ends it")
	f.DurationVar(&lo.Pace, "pace", 0, "with --league: each table's pause between its commands, give or take half (0: time fully compressed)")
	f.DurationVar(&lo.LimitFor, "limit-for", 2*time.Second, "with --league: how long each measurement of the log's raw appends lasts")
	f.IntVar(&lo.TimelineEvents, "timeline-events", 2000, "with --league: events of the battle whose timeline is shown")
	f.Uint64Var(&lo.MemoryEvents, "memory-events", 50000, "with --league: events of the battle the memory part grows")
	f.IntVar(&lo.MemoryBattles, "memory-battles", 1000, "with --league: battles the memory part touches once")
	f.IntVar(&lo.Samples, "samples", 500, "with --league: events of it shown, at random")
	f.IntVar(&lo.Hot, "hot", 200, "with --league: live subscribers on the busiest battle")
	f.IntVar(&lo.Others, "others", 50, "with --league: other battles followed live")
	f.IntVar(&lo.PerOther, "per-other", 4, "with --league: live subscribers on each other battle")
	f.IntVar(&lo.LiveCommands, "live-commands", 60, "with --league: commands each followed battle plays")
	f.DurationVar(&lo.LivePace, "live-pace", 500*time.Millisecond, "with --league: each followed table's pause between commands")
	f.IntVar(&lo.Starts, "starts", 3, "with --league: start-ups of ledger serve timed")
	f.BoolVar(&lo.StartAfterWindow, "start-after-window", false, "with --league: time the start-ups once the stream's duplicate window (nats.duplicate_window) has passed since the fill's last append, not at once")
	f.IntVar(&lo.Replicas, "replicas", 0, "with --league and --nats-url: replicas of the stream (0: the configuration's)")
	return cmd
}

// runLeagueCommand runs `ledger bench --league`.
func (c *cli) runLeagueCommand(cmd *cobra.Command, o bench.Options, lo bench.LeagueOptions, parts string) error {
	var err error
	if lo.Parts, err = parseParts(parts); err != nil {
		return err
	}
	lo.Events = o.Events
	if !cmd.Flags().Changed("events") {
		lo.Events = 1_000_000
	}
	lo.Batch, lo.Rounds, lo.NoSync, lo.Dir, lo.Keep = o.Batch, o.Rounds, o.NoSync, o.Dir, o.Keep
	if err := validateLeague(lo); err != nil {
		return err
	}
	cfg, err := c.config()
	if err != nil {
		return err
	}
	res, err := bench.RunLeague(c.ctx, benchOpener(c.entropy), cfg, lo, c.stderr)
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeJSON(c.stdout, res)
	}
	return bench.PrintLeague(c.stdout, res)
}

// parseParts reads --parts.
func parseParts(s string) (map[string]bool, error) {
	m := map[string]bool{}
	for p := range strings.SplitSeq(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		known := false
		for _, k := range bench.LeagueParts {
			known = known || k == p
		}
		if !known {
			return nil, usagef("bench: --parts: %q is not one of %s", p, strings.Join(bench.LeagueParts, ", "))
		}
		m[p] = true
	}
	if len(m) == 0 {
		return nil, usagef("bench: --parts: name at least one of %s", strings.Join(bench.LeagueParts, ", "))
	}
	return m, nil
}

// validateLeague checks the sizes of a league run.
func validateLeague(o bench.LeagueOptions) error {
	switch {
	case o.Battles < 1 || o.PerCampaign < 1 || o.Turns < 1:
		return usagef("bench: --battles, --per-campaign and --turns at least 1")
	case o.TimelineEvents < 10 || o.Samples < 1:
		return usagef("bench: --timeline-events at least 10, --samples at least 1")
	case o.Hot < 1 || o.Others < 0 || o.PerOther < 1 || o.LiveCommands < 1:
		return usagef("bench: --hot, --per-other and --live-commands at least 1")
	case o.MemoryEvents < 10 || o.MemoryBattles < 1:
		return usagef("bench: --memory-events at least 10, --memory-battles at least 1")
	case o.Events < 1000 || o.Starts < 1 || o.Batch < 1 || o.Rounds < 1:
		return usagef("bench: --events at least 1000; --starts, --batch and --rounds at least 1")
	case o.Batch > projections.MaxBatchSize:
		return usagef("bench: --batch at most %d", projections.MaxBatchSize)
	case o.LimitFor <= 0 || o.Pace < 0 || o.LivePace < 0:
		return usagef("bench: --limit-for above 0; --pace and --live-pace not negative")
	}
	return nil
}

// benchOpener hands the bench the ledger's own wiring: OpenApp and Serve,
// entropy being the service's source of secret dice seeds (nil: the
// operating system's).
func benchOpener(entropy io.Reader) bench.Opener {
	return bench.Opener{
		Open: func(ctx context.Context, cfg config.Config, o bench.OpenOptions) (*bench.Ledger, error) {
			a, err := OpenApp(ctx, cfg, AppOptions{Entropy: entropy, What: o.What, Logger: o.Logger})
			if err != nil {
				return nil, err
			}
			l := benchLedger(a)
			l.NewProjector = func(logger *slog.Logger) *app.Projector {
				a.projector = app.NewProjector(a.Log, a.DB, logger)
				return a.projector
			}
			l.Close = a.Close
			return l, nil
		},
		Serve: func(ctx context.Context, cfg config.Config, admin string) (*bench.Served, error) {
			s, err := Serve(ctx, cfg, ServeOptions{AdminToken: admin, Logger: slog.New(slog.DiscardHandler), Entropy: entropy})
			if err != nil {
				return nil, err
			}
			return &bench.Served{URL: s.URL, Ledger: benchLedger(s.App), Wait: s.Wait}, nil
		},
	}
}

// benchLedger is what the bench drives of an opened App.
func benchLedger(a *App) *bench.Ledger {
	return &bench.Ledger{Config: a.Config, Log: a.Log, Vault: a.Vault, Signer: a.Keys.Signer, Ring: a.Ring, DB: a.DB,
		Service: a.Service, Door: a.Ledger, CatchUp: func(ctx context.Context) error { return a.CatchUp(ctx, nil) }}
}
