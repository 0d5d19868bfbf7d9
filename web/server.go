package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/i18n"
)

// ReadModel is what the API reads from the projection. The SQLite
// projection (*sqlite.DB, wired in cmd/ledger) implements it; the projector
// feeds the same value as a Projection.
type ReadModel interface {
	projections.Projection
	Battle(ctx context.Context, key events.Key) (projections.BattleView, error)
	Campaign(ctx context.Context, id string) (projections.CampaignView, error)
}

// Options are what a Server needs.
type Options struct {
	// Service runs commands and folds campaign and battle state from the log.
	Service *campaign.Service
	// Log is the event log: the projector and the live stream follow it,
	// replay reads it.
	Log events.Log
	// Read is the projection the queries read and the projector feeds.
	Read ReadModel
	// Lang is the language when the request names none it supports ("en").
	Lang string
	// AdminToken, when not empty, is a server-level credential that may
	// create campaigns and acts as umpire on every campaign. Empty: campaigns
	// are created with the CLI only.
	AdminToken string
	// Rebuild, when set, rebuilds the projection from the log aside and
	// swaps it in under the running projector (POST
	// /api/admin/projections/rebuild, admin token only).
	Rebuild func(ctx context.Context) error
	// Logger receives internal errors (never shown to clients). Default slog.Default().
	Logger *slog.Logger
	// ProjectionWait bounds how long an accepted command waits for the
	// projection to include its events before answering. Default 5s.
	ProjectionWait time.Duration
}

// Server serves the API and the page, and runs the projector and the live
// stream's one follower of the log.
type Server struct {
	opts    Options
	log     *slog.Logger
	cat     *i18n.Catalogue
	mux     *http.ServeMux
	hub     *hub
	tracker *tracker

	commands  gate // admits commands until shutdown
	timelines timelines

	stop     context.CancelFunc // stops the projector and the hub
	done     chan struct{}      // closed when both have returned
	stopOnce sync.Once
	runErr   error
}

// New builds a Server. Call Start before serving and Shutdown at the end.
func New(opts Options) (*Server, error) {
	if opts.Service == nil || opts.Log == nil || opts.Read == nil {
		return nil, errors.New("web: a server needs a service, a log and a read model")
	}
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	if !i18n.Supported(opts.Lang) {
		return nil, fmt.Errorf("web: language %q has no catalogue", opts.Lang)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ProjectionWait <= 0 {
		opts.ProjectionWait = 5 * time.Second
	}
	cat, err := i18n.Load()
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, log: opts.Logger, cat: cat, hub: newHub(), tracker: newTracker(), done: make(chan struct{})}
	s.routes()
	return s, nil
}

// Handler is the HTTP handler: API, stream, page and assets.
func (s *Server) Handler() http.Handler { return s.mux }

// Start catches the projection up with the log and starts, in the
// background, the projector (projections.Run with Follow) and the live
// stream's follower. Both stop at Shutdown or when ctx ends.
func (s *Server) Start(ctx context.Context) error {
	cp, err := s.opts.Read.Checkpoint(ctx)
	if err != nil {
		return fmt.Errorf("web: projection checkpoint: %w", err)
	}
	s.tracker.set(cp)
	last, err := s.opts.Log.LastSequence(ctx)
	if err != nil {
		return fmt.Errorf("web: log: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = cancel
	go func() {
		<-ctx.Done()
		// The caller's context ending is a shutdown without draining.
		s.stopBackground()
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		err := projections.Run(runCtx, s.opts.Log, s.opts.Read, projections.RunOptions{
			Follow:     true,
			OnProgress: func(p projections.Progress) { s.tracker.set(p.Sequence) },
		})
		if err != nil {
			s.log.Error("projector stopped", "err", err)
			s.runErr = err
		}
	}()
	go func() {
		defer wg.Done()
		s.hub.run(runCtx, s.opts.Log, last, s.log)
	}()
	go func() {
		wg.Wait()
		s.tracker.close()
		close(s.done)
	}()
	return nil
}

// BeginDrain makes the server refuse new commands with 503 while queries
// and commands already running go on.
func (s *Server) BeginDrain() { s.commands.close() }

// CloseStreams ends every live stream, so that an http.Server's Shutdown
// does not wait for them.
func (s *Server) CloseStreams() { s.hub.closeAll() }

// Shutdown stops the server in order: no new commands (503), the commands
// in flight finish, live streams end, the projector applies what the log
// holds (its checkpoint committed) and stops. Call it after, or while, the
// HTTP server drains its connections; ctx bounds the wait.
func (s *Server) Shutdown(ctx context.Context) error {
	idle := s.commands.close()
	s.CloseStreams()
	select {
	case <-idle:
	case <-ctx.Done():
		return fmt.Errorf("web: shutdown: commands still running: %w", ctx.Err())
	}
	if s.stop != nil {
		if last, err := s.opts.Log.LastSequence(ctx); err == nil {
			// Let the projector reach the log's end: every accepted
			// command is in the projection before it stops.
			_ = s.tracker.wait(ctx, last)
		}
		s.stopBackground()
		select {
		case <-s.done:
		case <-ctx.Done():
			return fmt.Errorf("web: shutdown: projector still running: %w", ctx.Err())
		}
	}
	return s.runErr
}

func (s *Server) stopBackground() {
	s.stopOnce.Do(func() {
		if s.stop != nil {
			s.stop()
		}
	})
}

// tracker knows the projection's checkpoint and wakes those waiting for it.
type tracker struct {
	mu     sync.Mutex
	seq    uint64
	closed bool
	ch     chan struct{} // closed and replaced at every change
}

func newTracker() *tracker { return &tracker{ch: make(chan struct{})} }

func (t *tracker) set(seq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq > t.seq {
		t.seq = seq
		if t.closed {
			return
		}
		close(t.ch)
		t.ch = make(chan struct{})
	}
}

func (t *tracker) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.closed = true
		close(t.ch)
	}
}

// wait returns once the projection has reached seq, the projector stopped,
// or ctx ended.
func (t *tracker) wait(ctx context.Context, seq uint64) error {
	for {
		t.mu.Lock()
		reached, closed, ch := t.seq >= seq, t.closed, t.ch
		t.mu.Unlock()
		if reached {
			return nil
		}
		if closed {
			return errors.New("web: the projector has stopped")
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
