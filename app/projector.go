package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
)

// Projector keeps a projection up to date with the log while a server
// runs (projections.Run with Follow), and tells those who wait when it
// holds a given event: a command answers once the projection includes it,
// so that the caller's next query sees it.
type Projector struct {
	log  events.Log
	proj projections.Projection
	lg   *slog.Logger

	mu     sync.Mutex
	seq    uint64
	closed bool
	err    error         // why it stopped, when it did
	stall  error         // why it waits for its disk, while it does
	again  func()        // ends the current following, to follow again
	ch     chan struct{} // closed and replaced at every change
	done   chan struct{}

	// behindAt and behindSince: the checkpoint Watch last saw behind the
	// log, and since when (zero: not behind); refollowed: when Watch last
	// made it follow again; movedAt: when the checkpoint last moved;
	// waiters: the Waits for an event not yet projected, waitFrom: since
	// when there have been some.
	behindAt                                   uint64
	behindSince, refollowed, movedAt, waitFrom time.Time
	waiters                                    int
}

// NewProjector returns a projector of proj from log; Run starts it.
func NewProjector(log events.Log, proj projections.Projection, logger *slog.Logger) *Projector {
	if logger == nil {
		logger = slog.Default()
	}
	return &Projector{log: log, proj: proj, lg: logger, ch: make(chan struct{}), done: make(chan struct{})}
}

// Run follows the log from the projection's checkpoint until ctx ends (or
// the projection fails: then it stops, and Err says why).
func (p *Projector) Run(ctx context.Context) {
	defer close(p.done)
	defer p.close(nil)
	cp, err := p.proj.Checkpoint(ctx)
	if err != nil {
		p.close(fmt.Errorf("projection checkpoint: %w", err))
		return
	}
	p.set(cp)
	wctx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go p.watchdog(wctx)
	// waiting is set while the projector waits for its disk: said once in
	// the log when it starts, once when it ends. retry is the pause before
	// following again after a failure of the log's.
	var waiting bool
	retry := time.Second
	for {
		rctx, again := context.WithCancel(ctx)
		p.mu.Lock()
		p.again = again
		p.mu.Unlock()
		err = projections.Run(rctx, p.log, p.proj, projections.RunOptions{
			Follow: true,
			OnProgress: func(pr projections.Progress) {
				if waiting {
					waiting = false
					p.stalled(nil)
					p.lg.Info("projector: the projection's disk takes writes again; the projection is catching up")
				}
				p.set(pr.Sequence)
				retry = time.Second
			},
		})
		// Asked to follow again (Refollow), before again() below ends rctx
		// itself: whatever else ended the run is handled after.
		refollow := rctx.Err() != nil
		again()
		if ctx.Err() != nil {
			return
		}
		if refollow {
			// Refollow: follow again from the checkpoint, at once.
			continue
		}
		var failed *projections.ProjectionError
		switch {
		case errors.Is(err, projections.ErrStorage):
			// The projection's disk is full or failed a write: nothing
			// was applied, and the same events apply once it writes.
			p.stalled(err)
			if !waiting {
				waiting = true
				p.lg.Error("projector: the projection cannot be written (free space on the data folder's disk, or check it); trying again every second", "err", err)
			}
		case errors.As(err, &failed):
			// The projection itself failed: following again would fail
			// the same way. Stopped, it says why (/readyz, status).
			p.lg.Error("projector stopped", "err", err)
			p.close(err)
			return
		case errors.Is(err, events.ErrUnavailable):
			// The log cannot answer for now (no quorum, a leader being
			// elected): follow again from the checkpoint once it can.
			p.lg.Warn("projector: the log is unavailable; following again shortly", "err", err)
			retry = time.Second
		default:
			// Following the log failed otherwise (a consumer lost, the
			// connection broken): the log is whole, so follow it again
			// from the checkpoint, less often while it keeps failing. A
			// projection that stands still meanwhile is 503 at /readyz.
			p.lg.Warn("projector: following the log failed; following again", "err", err, "in", retry)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
		if !errors.Is(err, events.ErrUnavailable) && !errors.Is(err, projections.ErrStorage) {
			retry = min(2*retry, 30*time.Second)
		}
	}
}

// Done is closed once Run has returned.
func (p *Projector) Done() <-chan struct{} { return p.done }

// Checkpoint is the last event the projection is known to hold.
func (p *Projector) Checkpoint() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq
}

// Err says why the projector stopped, or nil while it runs.
func (p *Projector) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Status says whether the projector runs, and why it stopped when it did
// (Status.ProjectorState).
func (p *Projector) Status() ProjectorState {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.err != nil:
		return ProjectorState{State: ProjectorStopped, Why: p.err.Error()}
	case p.closed:
		return ProjectorState{State: ProjectorStopped}
	}
	return ProjectorState{State: ProjectorRunning}
}

// String says the state in a sentence: "running", "stopped", or "stopped:
// why" (Status.Projector, kept for older clients).
func (s ProjectorState) String() string {
	if s.Why != "" {
		return s.State + ": " + s.Why
	}
	return s.State
}

func (p *Projector) set(seq uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq > p.seq {
		p.seq, p.movedAt = seq, time.Now()
		if p.closed {
			return
		}
		close(p.ch)
		p.ch = make(chan struct{})
	}
}

func (p *Projector) close(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil && p.err == nil {
		p.err = err
	}
	if !p.closed {
		p.closed = true
		close(p.ch)
	}
}

func (p *Projector) stalled(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stall = err
	if err != nil && !p.closed {
		// Those waiting learn at once that it will not come soon.
		close(p.ch)
		p.ch = make(chan struct{})
	}
}

// Stalled says why the projector cannot write the projection now (its
// disk is full or failed a write: projections.ErrStorage), nil when it
// can. It tries again every second and catches up by itself.
func (p *Projector) Stalled() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stall
}

// Refollow makes the projector follow the log again from its checkpoint at
// once: the store behind the log was restarted (its consumers are gone),
// and waiting for the follower to notice would hold commands up for
// seconds.
func (p *Projector) Refollow() {
	p.mu.Lock()
	again := p.again
	p.mu.Unlock()
	if again != nil {
		again()
	}
}

// StuckAfter is how long Watch lets the projection stay behind the log
// without moving before it follows the log again: as long as a command
// waits for the projection before it answers anyway.
const StuckAfter = 5 * time.Second

// StillAfter is how long the projection may stay behind the log without
// moving before a readiness check says so: a projector that follows moves
// within milliseconds of an append.
const StillAfter = 2 * time.Second

// Watch is told the log's last sequence (a readiness check reads it; the
// projector's own watchdog does every WatchEvery) and
// says how long the projection has stood still while behind it (or while a
// command waits for an event it has not projected), 0 when it is not
// behind. From StuckAfter on,
// Watch makes the projector follow the log again (Refollow), at most once
// every StuckAfter: a
// following whose consumer was lost with a server of the cluster may
// deliver nothing and report no error (seen after a leader's kill: every
// command of the serve whose connection was on the killed server waited
// the full 5 s for its projection, for as long as that server was down).
func (p *Projector) Watch(last uint64) time.Duration {
	now := time.Now()
	p.mu.Lock()
	if (p.seq >= last && p.waiters == 0) || p.closed || p.stall != nil {
		p.behindSince = time.Time{}
		p.mu.Unlock()
		return 0
	}
	if p.behindSince.IsZero() || p.seq != p.behindAt {
		p.behindAt, p.behindSince = p.seq, now
	}
	// Behind since Watch first saw it, or since a command began waiting
	// for an event not yet projected, whichever is earlier; standing
	// still since then, or since it last moved.
	start := p.behindSince
	if p.waiters > 0 && p.waitFrom.Before(start) {
		start = p.waitFrom
	}
	if p.movedAt.After(start) {
		start = p.movedAt
	}
	d, again, seq := now.Sub(start), p.again, p.seq
	refollow := d >= StuckAfter && again != nil && now.Sub(p.refollowed) >= StuckAfter
	if refollow {
		p.refollowed = now
	}
	p.mu.Unlock()
	if refollow {
		p.lg.Warn("projector: the projection has not moved while behind the log; following the log again", "checkpoint", seq, "log", last, "for", d.Round(time.Millisecond))
		again()
	}
	return d
}

// WatchEvery is how often the projector checks on itself (watchdog).
const WatchEvery = time.Second

// watchdog is Watch run by the projector itself, every WatchEvery until ctx
// ends, with the log's last sequence: a following that stands still behind
// the log (or behind a command waiting for its event) is made to follow
// again from StuckAfter on, whether or not anyone asks the server's
// readiness. When the log does not answer (no leader yet), a command
// waiting for its projection still counts.
func (p *Projector) watchdog(ctx context.Context) {
	t := time.NewTicker(WatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lctx, cancel := context.WithTimeout(ctx, WatchEvery)
		last, err := p.log.LastSequence(lctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.mu.Lock()
			waited := p.waiters > 0
			p.mu.Unlock()
			if !waited {
				continue
			}
			last = 0 // behind only the waiting command's event
		}
		p.Watch(last)
	}
}

// ErrProjectorStopped is Wait's answer once the projector has stopped.
var ErrProjectorStopped = errors.New("app: the projector has stopped")

// Wait returns once the projection holds seq, the projector stopped or
// waits for its disk (Stalled), or ctx ended.
func (p *Projector) Wait(ctx context.Context, seq uint64) error {
	for waiting := false; ; {
		p.mu.Lock()
		reached, closed, stall, ch := p.seq >= seq, p.closed, p.stall, p.ch
		if !reached && !waiting {
			// Counted for Watch while it waits.
			waiting = true
			if p.waiters++; p.waiters == 1 {
				p.waitFrom = time.Now()
			}
			defer func() {
				p.mu.Lock()
				p.waiters--
				p.mu.Unlock()
			}()
		}
		p.mu.Unlock()
		if reached {
			return nil
		}
		if closed {
			return ErrProjectorStopped
		}
		if stall != nil {
			return stall
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitFor is Wait bounded by d: what a command waits for the projection
// before it answers anyway.
func (p *Projector) WaitFor(d time.Duration) func(ctx context.Context, seq uint64) error {
	return func(ctx context.Context, seq uint64) error {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return p.Wait(ctx, seq)
	}
}
