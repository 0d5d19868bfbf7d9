package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.projectionsCommand() })
}

func (c *cli) projectionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "projections",
		Short: "Look after the SQLite projection: status, rebuild from the log, verify against a rebuild",
		Long: `The SQLite projection is derived from the event log and can always be rebuilt
from it (docs/projections.md). Every batch of events and the log sequence it
reaches (the checkpoint) commit in one transaction, so an interrupted
projector resumes without losing or repeating an event.`,
	}
	cmd.AddCommand(c.projectionsStatusCommand(), c.projectionsRebuildCommand(), c.projectionsVerifyCommand())
	return cmd
}

func (c *cli) projectionsStatusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the projection's file, its checkpoint, how far the log is ahead, and the projector",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			st, err := api.Status(c.ctx)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, st)
			}
			w := c.words()
			fmt.Fprintln(c.stdout, w.t("projections.status", "db", orDash(st.DB), "checkpoint", st.Checkpoint, "last", st.LastSequence, "lag", st.Lag))
			if p := st.ProjectorState; p != nil {
				fmt.Fprintln(c.stdout, w.t("projections.projector", "state", w.term("projector", p.State), "why", p.Why))
			}
			if st.Log != "ok" {
				fmt.Fprintln(c.stdout, w.t("projections.log", "error", st.Log))
			}
			for _, g := range st.Guard {
				fmt.Fprintln(c.stdout, w.t("projections.guard", "finding", g))
			}
			for _, s := range st.Stopped {
				fmt.Fprintln(c.stdout, w.t("projections.stopped", "error", s.Error()))
			}
			return nil
		},
	}
}

func (c *cli) projectionsRebuildCommand() *cobra.Command {
	var fresh bool
	var batch int
	cmd := &cobra.Command{
		Use:   "rebuild",
		Short: "Rebuild the projection from the first event, aside, and swap it in",
		Long: `Rebuild projects the whole log into a new file beside the live one
(<db>.rebuild), then swaps it in: it renames the new file over the live one
and removes the live one's -wal and -shm. Queries see the old projection
until that moment and the new one after it, never a half-built one.

An interrupted rebuild (killed, Ctrl-C) leaves its file; the next rebuild
resumes it from its checkpoint. --fresh starts it over.

When ledger serve owns the data folder, the server rebuilds its own
projection without stopping (built aside, caught up to the live checkpoint
under its projector's lock, swapped in): see docs/projections.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, a, release, err := c.connect()
			if err != nil {
				return err
			}
			defer release()
			// The same door whoever owns the folder: this process (with
			// its progress), or the server, which rebuilds its own.
			bar := newProgressReporter(c.stderr, "rebuild", c.words())
			if a == nil {
				// The server's door answers once, at the end: say so
				// rather than stay silent for minutes.
				fmt.Fprintln(c.stderr, c.words().t("projections.server_rebuilding"))
			}
			r, err := api.RebuildProjection(c.ctx, app.RebuildOptions{
				Fresh: fresh, Batch: batch, Progress: bar.update,
				Resuming: func(file string, seq uint64) {
					fmt.Fprintln(c.stderr, c.words().t("projections.resuming", "file", file, "seq", seq))
				},
			})
			bar.finish()
			if err != nil {
				return c.serverRebuildStopped(a, err)
			}
			if a == nil && r.ResumedFrom > 0 {
				// As this process says it before it starts (Resuming).
				fmt.Fprintln(c.stderr, c.words().t("projections.server_resumed", "seq", r.ResumedFrom))
			}
			if c.output == "json" {
				return writeJSON(c.stdout, r)
			}
			if a == nil {
				fmt.Fprintln(c.stdout, c.words().t("projections.server_rebuilt", "checkpoint", r.Checkpoint, "events", r.Events, "seconds", r.Seconds, "rate", math.Round(r.EventsPerSecond)))
				return nil
			}
			fmt.Fprintln(c.stdout, c.words().t("projections.rebuilt", "db", r.Path, "checkpoint", r.Checkpoint, "events", r.Events, "seconds", r.Seconds, "rate", math.Round(r.EventsPerSecond)))
			return nil
		},
	}
	cmd.Flags().BoolVar(&fresh, "fresh", false, "discard an interrupted rebuild instead of resuming it")
	cmd.Flags().IntVar(&batch, "batch", sqlite.DefaultBuildBatch, "events applied per transaction")
	return cmd
}

func (c *cli) projectionsVerifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Rebuild into a scratch file and compare it with the live projection, table by table (exit 4 on a difference)",
		Long: `Verify brings the live projection up to the log's end, rebuilds the log
into a scratch file up to the same checkpoint, and compares the two table by
table (row counts and a hash of every row). A difference means the live
projection was changed outside the projector, or the projector is not
deterministic: rebuild it (ledger projections rebuild) and report a bug.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, a, release, err := c.connect()
			if err != nil {
				return err
			}
			defer release()
			w := c.words()
			bar := newProgressReporter(c.stderr, "verify", w)
			v, err := api.VerifyProjection(c.ctx, app.VerifyOptions{Progress: bar.update})
			bar.finish()
			if err != nil {
				return damagedCheck(err, c.lang())
			}
			if c.output == "json" {
				if err := writeJSON(c.stdout, v); err != nil {
					return err
				}
			} else if len(v.Rows) > 0 {
				tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, w.t("projections.verify_head"))
				for _, r := range v.Rows {
					res := w.t("projections.same")
					if !r.Same {
						res = w.t("projections.differs")
					}
					fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.Table, r.Rows, r.Rebuilt, res)
				}
				tw.Flush()
			}
			if len(v.Differences) > 0 {
				return &checkError{msg: w.t("projections.differ", "checkpoint", v.Checkpoint, "n", len(v.Differences), "tables", strings.Join(v.Differences, ", "))}
			}
			if c.output != "json" {
				fmt.Fprintf(c.stdout, "\n%s\n", w.t("projections.equal", "checkpoint", v.Checkpoint, "n", v.Tables))
			}
			if d := a.damagedAtOpen(); d != nil && c.shared == nil {
				// This command's own open found the file damaged (SQLite's
				// quick check), moved it aside and rebuilt it: what was
				// to be verified failed, though the rebuilt one is sound.
				return &checkError{msg: w.t("projections.damaged", "db", d.Path, "reason", d.Reason, "moved", d.MovedTo, "checkpoint", v.Checkpoint)}
			}
			return nil
		},
	}
}

// serverRebuildStopped is err, or, when this command asked a server (a ==
// nil) for a rebuild and was itself stopped (Ctrl-C) before the server
// answered, the door's interrupted rebuild in words: the server's rebuild
// stops with the request and keeps its file, and running it again resumes
// it; how far it got is the server's to know, so the words do not name a
// log sequence. An answer the server did give (its own interrupted
// rebuild, with the sequence) passes as it is.
func (c *cli) serverRebuildStopped(a *App, err error) error {
	var ae *app.Error
	if a != nil || c.ctx.Err() == nil || !errors.Is(err, c.ctx.Err()) || errors.As(err, &ae) {
		return err
	}
	return &app.Error{Kind: app.KindInterrupted, Code: "rebuild_interrupted", Lang: c.lang(),
		Message: c.words().t("projections.server_interrupted")}
}

// damagedCheck makes a damaged projection file, found by verify here or
// named by the server's door, a failed check (exit 4) in words; other
// errors pass as they are.
func damagedCheck(err error, lang string) error {
	var ae *app.Error
	if errors.As(err, &ae) && ae.Kind == app.KindDamaged {
		return &checkError{msg: ae.Message}
	}
	if errors.Is(err, projections.ErrDamaged) {
		return &checkError{msg: app.Classify(err, messages(), lang, i18n.Vars{}).Message}
	}
	return err
}

// damagedAtOpen is what opening the projection did with a damaged file,
// nil when it was sound or the server has it (a == nil).
func (a *App) damagedAtOpen() *sqlite.Damaged {
	if a == nil {
		return nil
	}
	return a.DB.Damaged()
}

// progressReporter shows a long run's progress: a bar with the count, the
// rate and the time left on a terminal; elsewhere a plain line every few
// seconds and one at the end, so logs stay readable. Both say the rate and
// the time left in the CLI's language (words: "132 события/с, осталось
// 2 мин 34 с").
type progressReporter struct {
	w     io.Writer
	label string
	bar   *progressbar.ProgressBar
	tty   bool
	last  time.Time
	p     projections.Progress
	// shown is the progress last printed as a line.
	shown projections.Progress
	// words say the lines in the CLI's language.
	words words
	// est estimates the time left from the progress seen.
	est leftEstimate
	// now is the clock (time.Now; a test's own).
	now func() time.Time
}

func newProgressReporter(w io.Writer, label string, words words) *progressReporter {
	r := &progressReporter{w: w, label: label, words: words, now: time.Now}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r.tty = true
	}
	return r
}

func (r *progressReporter) update(p projections.Progress) {
	r.p = p
	now := r.now()
	r.est.observe(p, now)
	if r.tty {
		// The bar runs over log sequences: a resumed run starts part way.
		// It shows the count; the rate and the time left are the line's
		// words, at its end (the bar's own would be English and its time
		// left the wild one of the first events).
		if r.bar == nil {
			r.bar = progressbar.NewOptions64(int64(p.Target),
				progressbar.OptionSetWriter(r.w),
				progressbar.OptionSetDescription(r.words.term("progress", r.label)),
				progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(false),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionFullWidth(),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(r.w) }),
			)
		}
		if now.Sub(r.since(p)) >= time.Second {
			r.last = now
			r.bar.Describe(r.text(true, now))
		}
		r.bar.Set64(int64(p.Sequence))
		return
	}
	if now.Sub(r.since(p)) >= 2*time.Second {
		r.last = now
		r.line()
	}
}

// since is when the progress was last said, or the run started: the first
// line comes after its first seconds, not its first events, whose rate
// (a batch in a millisecond: "382263 events/s") says nothing.
func (r *progressReporter) since(p projections.Progress) time.Time {
	if r.last.Before(p.Start) {
		return p.Start
	}
	return r.last
}

func (r *progressReporter) line() {
	r.shown = r.p
	fmt.Fprintln(r.w, r.text(false, r.now()))
}

// text says the progress: the run's label, where it is, the events
// applied, their rate over the run, and the time left once there is enough
// to estimate it from (leftEstimate); for the bar (which shows the count)
// only the label, the rate and the time left.
func (r *progressReporter) text(bar bool, now time.Time) string {
	p := r.p
	rate := 0.0
	if el := now.Sub(p.Start); el > 0 {
		rate = float64(p.Applied) / el.Seconds()
	}
	left := ""
	if d, ok := r.est.left(p); ok {
		left = r.words.duration(d)
	}
	// A whole rate, so that its noun agrees with the number said.
	label := r.words.term("progress", r.label)
	if bar {
		return r.words.t("projections.progress_bar", "label", label, "rate", math.Round(rate), "left", left)
	}
	return r.words.t("projections.progress", "label", label, "seq", p.Sequence, "target", p.Target,
		"applied", p.Applied, "rate", math.Round(rate), "left", left)
}

func (r *progressReporter) finish() {
	if r.bar != nil {
		r.bar.Finish()
		return
	}
	if !r.tty && !r.p.Start.IsZero() && r.shown != r.p {
		r.line()
	}
}

// The time left is not said until the run has gone on for leftAfter and
// done leftAfterShare of its log sequences: the first events' rate (the
// first batch, a cold cache) says nothing of the rest's, and an estimate
// from them was wild ("3h12m" for a run of two minutes). From then on it
// is the sequences left over a rate smoothed over about rateSmoothing (an
// exponential moving average of the rate between updates, started from
// the run's average so far), so one slow or fast batch does not make it
// jump.
const (
	leftAfter      = 5 * time.Second
	leftAfterShare = 0.01
	rateSmoothing  = 20 * time.Second
	// rateSampleMin is the shortest time between two samples of the rate.
	rateSampleMin = 500 * time.Millisecond
)

// leftEstimate estimates a run's time left from its progress.
type leftEstimate struct {
	// from is the log sequence the run started after (as first seen).
	from    uint64
	started bool
	// rate is the smoothed rate in log sequences a second, 0 until
	// there is enough to estimate from; seq and at are its last sample.
	rate float64
	seq  uint64
	at   time.Time
}

// observe takes a progress seen at now.
func (e *leftEstimate) observe(p projections.Progress, now time.Time) {
	if !e.started {
		e.started = true
		e.from = p.Sequence - min(p.Applied, p.Sequence)
	}
	if p.Sequence < e.seq || p.Target <= e.from {
		return
	}
	if e.rate == 0 {
		el := now.Sub(p.Start)
		done := float64(p.Sequence-e.from) / float64(p.Target-e.from)
		if el < leftAfter || done < leftAfterShare || p.Sequence == e.from {
			return
		}
		e.rate = float64(p.Sequence-e.from) / el.Seconds()
		e.seq, e.at = p.Sequence, now
		return
	}
	dt := now.Sub(e.at)
	if dt < rateSampleMin {
		return
	}
	rate := float64(p.Sequence-e.seq) / dt.Seconds()
	a := 1 - math.Exp(-dt.Seconds()/rateSmoothing.Seconds())
	e.rate += a * (rate - e.rate)
	e.seq, e.at = p.Sequence, now
}

// left is the time left at p, and whether there is an estimate: none
// before there is enough to estimate from, nor once the run is done.
func (e *leftEstimate) left(p projections.Progress) (time.Duration, bool) {
	if e.rate <= 0 || p.Sequence >= p.Target {
		return 0, false
	}
	d := time.Duration(float64(p.Target-p.Sequence) / e.rate * float64(time.Second))
	return max(d.Round(time.Second), time.Second), true
}
