package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/projections/projtest"
)

// The start-up of `ledger serve` (Serve) on a large ledger whose
// projection is current: what a restarted server costs before it answers.

// StartupResult is what starting a server on a large ledger took.
type StartupResult struct {
	// Events is the log's length; Battles the battles the fill added
	// (ended but for the last few, as in a long-running league).
	Events  uint64 `json:"events"`
	Battles int    `json:"filled_battles"`
	// FillSeconds wrote the log (projtest.Fill: decided by the rules,
	// appended in large atomic batches); CatchUpSeconds is how long the
	// projection then took to hold it all.
	FillSeconds    float64 `json:"fill_seconds"`
	CatchUpSeconds float64 `json:"catch_up_seconds"`
	// WindowS is the stream's duplicate window (nats.duplicate_window):
	// a start within it of many appends is slower, as nats-server reads
	// every message appended in the window again to rebuild its index of
	// message ids (stream.rebuildDedupe) before the stream is ready.
	WindowS float64 `json:"duplicate_window_s"`
	// lastAppend is when the fill's last append was acknowledged.
	lastAppend time.Time
	// Starts are the start-ups timed, one after the other.
	Starts []Startup `json:"starts"`
	// Worst is the slowest start-up to the first answer.
	WorstMS  float64 `json:"worst_ms"`
	MedianMS float64 `json:"median_ms"`
	TargetMS float64 `json:"target_ms"`
}

// Startup is one start of Serve.
type Startup struct {
	// ServeMS: Serve returned (the lock, the embedded server and its
	// stream recovered, the projection opened and caught up, listening).
	ServeMS float64 `json:"serve_ms"`
	// AnswerMS: the first answer to GET /api/campaigns (read from the
	// projection) arrived, counted from the start.
	AnswerMS float64 `json:"answer_ms"`
	// Lag is how far the projection was behind the log once serving;
	// CachedBattles the battles whose state the projector held: neither
	// grows with the log when nothing is replayed.
	Lag           uint64 `json:"lag"`
	CachedBattles int    `json:"cached_battles"`
	// SinceAppendS is how long after the fill's last append the start
	// began: within the duplicate window (WindowS) nats-server reads the
	// messages appended in it again before it is ready.
	SinceAppendS float64 `json:"since_last_append_s"`
}

// fillTo appends synthetic battles to a's log until it holds n events,
// and brings a's projection up to date in batches, as a server's start
// does (a's projector must not be running: following the log it would
// apply the fill's events in small batches).
func fillTo(ctx context.Context, a *Ledger, n int, camp string, res *StartupResult, progress io.Writer) error {
	last, err := a.Log.LastSequence(ctx)
	if err != nil {
		return err
	}
	t := time.Now()
	for pass := 1; int(last) < n; pass++ {
		need := n - int(last)
		fmt.Fprintf(progress, "bench: filling the log to %d events (%d more)\n", n, need)
		st, err := projtest.Fill(ctx, a.Log, projtest.FillOptions{Events: need, Campaign: fmt.Sprintf("%s%d", camp, pass), Signer: a.Signer})
		if err != nil {
			return fmt.Errorf("bench: fill: %w", err)
		}
		res.Battles += st.Battles
		if last, err = a.Log.LastSequence(ctx); err != nil {
			return err
		}
	}
	res.FillSeconds = time.Since(t).Seconds()
	res.lastAppend = time.Now()
	fmt.Fprintf(progress, "bench: bringing the projection up to date with all %d events\n", last)
	t = time.Now()
	if err := a.CatchUp(ctx); err != nil {
		return fmt.Errorf("bench: the projection did not catch up: %w", err)
	}
	res.CatchUpSeconds = time.Since(t).Seconds()
	res.Events = last
	return nil
}

// serveBench serves cfg through op for the bench, with an admin token of
// its own.
func serveBench(ctx context.Context, op Opener, cfg config.Config) (*Served, string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", err
	}
	admin := "bench-" + hex.EncodeToString(b[:])
	s, err := op.Serve(ctx, cfg, admin)
	return s, admin, err
}

// runStartup starts Serve on cfg's folder o.Starts times and times each
// start until the first answer. It leaves the last server running when
// keep is true, and returns it with the function that stops it.
func runStartup(ctx context.Context, op Opener, cfg config.Config, o LeagueOptions, res *StartupResult, keep bool, progress io.Writer) (*Served, string, func() error, error) {
	res.TargetMS = 2000
	res.WindowS = cfg.NATS.DuplicateWindow.Seconds()
	if res.lastAppend.IsZero() {
		res.lastAppend = time.Now()
	}
	if wait := time.Until(res.lastAppend.Add(cfg.NATS.DuplicateWindow + time.Second)); o.StartAfterWindow && wait > 0 {
		fmt.Fprintf(progress, "bench: waiting %s, until the stream's duplicate window has passed since the last append\n", wait.Round(time.Second))
		select {
		case <-ctx.Done():
			return nil, "", nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	fmt.Fprintf(progress, "bench: starting `ledger serve` %d times on %d events\n", o.Starts, res.Events)
	hc := &http.Client{Timeout: 30 * time.Second}
	for i := 1; i <= o.Starts; i++ {
		sctx, stop := context.WithCancel(ctx)
		t := time.Now()
		s, admin, err := serveBench(sctx, op, cfg)
		if err != nil {
			stop()
			return nil, "", nil, fmt.Errorf("bench: serve: %w", err)
		}
		st := Startup{ServeMS: ms(time.Since(t)), SinceAppendS: t.Sub(res.lastAppend).Seconds()}
		end := func() error {
			stop()
			return s.Wait()
		}
		req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/campaigns", nil)
		if err != nil {
			end()
			return nil, "", nil, err
		}
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := hc.Do(req)
		if err != nil {
			end()
			return nil, "", nil, fmt.Errorf("bench: the first answer: %w", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		st.AnswerMS = ms(time.Since(t))
		if resp.StatusCode != http.StatusOK {
			end()
			return nil, "", nil, fmt.Errorf("bench: the first answer: %s", resp.Status)
		}
		st.CachedBattles = s.Ledger.DB.CachedBattles()
		last, err := s.Ledger.Log.LastSequence(ctx)
		if err == nil {
			var cp uint64
			cp, err = s.Ledger.DB.Checkpoint(ctx)
			st.Lag = last - min(last, cp)
		}
		if err != nil {
			end()
			return nil, "", nil, err
		}
		res.Starts = append(res.Starts, st)
		if i == o.Starts && keep {
			res.summarise()
			return s, admin, end, nil
		}
		if err := end(); err != nil {
			return nil, "", nil, fmt.Errorf("bench: serve stopped: %w", err)
		}
	}
	res.summarise()
	return nil, "", nil, nil
}

func (r *StartupResult) summarise() {
	var a []float64
	for _, s := range r.Starts {
		a = append(a, s.AnswerMS)
	}
	slices.Sort(a)
	if len(a) > 0 {
		r.WorstMS, r.MedianMS = a[len(a)-1], a[len(a)/2]
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
