package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
)

// Options are what a Server needs.
type Options struct {
	// Ledger is the one door every handler calls.
	Ledger *app.Ledger
	// Log is the event log the live streams follow (one follower per
	// server).
	Log events.Log
	// Lang is the language when the request names none it supports ("en").
	Lang string
	// AdminToken, when not empty, is a server-level credential: it acts
	// as the ledger's operator ("admin"): it may open campaigns and has
	// umpire powers on every campaign. Empty: campaigns are opened at the
	// CLI only.
	AdminToken string
	// Logger receives internal errors (never shown to clients). Default slog.Default().
	Logger *slog.Logger
	// Limits bound the live streams.
	Limits Limits
	// Throttle bounds the failed token checks of one client address;
	// fields at 0: DefaultThrottle's.
	Throttle Throttle
	// Budget is the longest one API request may take (but a live stream
	// and the operator's rebuild, verify and backup); past it the work
	// stops and the answer is 503 in words. 0: DefaultBudget.
	Budget time.Duration
	// Ready, when set, says whether the server is ready to take commands:
	// GET /readyz answers 200 or 503 with each check in words.
	Ready func(ctx context.Context) Readiness
	// Metrics, when set, serves the server's figures at GET /metrics (the
	// operator's: the admin token, or the local door).
	Metrics http.Handler
	// TLS says the server is reached over HTTPS (served with a
	// certificate, or behind a proxy that ends TLS): answers then carry
	// Strict-Transport-Security.
	TLS bool
}

// Limits bound what one caller, and all callers together, may hold open.
type Limits struct {
	// StreamsPerCaller bounds the live streams one token (or the
	// operator) may have open at once; over it a new one answers 429.
	StreamsPerCaller int
	// Streams bounds the live streams of the whole server; over it a new
	// one answers 503.
	Streams int
}

// DefaultLimits are the limits when Options.Limits leaves one at 0.
var DefaultLimits = Limits{StreamsPerCaller: 8, Streams: 1000}

// Server serves the API and the page, and runs the live stream's one
// follower of the log.
type Server struct {
	opts Options
	log  *slog.Logger
	cat  *i18n.Catalogue
	mux  http.Handler
	hub  *hub

	throttle *throttle // failed token checks by client address

	commands gate // admits commands until shutdown

	stop     context.CancelFunc // stops the hub
	done     chan struct{}      // closed when it has returned
	stopOnce sync.Once
}

// New builds a Server. Call Start before serving and Shutdown at the end.
func New(opts Options) (*Server, error) {
	if opts.Ledger == nil || opts.Log == nil {
		return nil, errors.New("web: a server needs the ledger's door and its log")
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
	if opts.Limits.StreamsPerCaller <= 0 {
		opts.Limits.StreamsPerCaller = DefaultLimits.StreamsPerCaller
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Limits.Streams <= 0 {
		opts.Limits.Streams = DefaultLimits.Streams
	}
	s := &Server{opts: opts, log: opts.Logger, cat: opts.Ledger.Catalogue(), hub: newHub(opts.Limits), done: make(chan struct{}),
		throttle: newThrottle(opts.Throttle)}
	s.routes()
	return s, nil
}

// Readiness is the answer of GET /readyz.
type Readiness struct {
	Ready bool `json:"ready"`
	// Checks name each check and say how it went ("ok", or what is wrong
	// and what to do).
	Checks map[string]string `json:"checks"`
}

// Streams is how many live streams are open.
func (s *Server) Streams() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.subs)
}

// Throttled is how many client addresses the throttle of failed token
// checks holds (at most Throttle.Addresses).
func (s *Server) Throttled() int { return s.throttle.size() }

// Handler is the HTTP handler: API, stream, page and assets.
func (s *Server) Handler() http.Handler { return s.mux }

// Start starts, in the background, the live stream's follower of the log.
// It stops at Shutdown or when ctx ends.
func (s *Server) Start(ctx context.Context) error {
	last, err := s.opts.Log.LastSequence(ctx)
	if err != nil {
		return fmt.Errorf("web: log: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = cancel
	go func() {
		<-ctx.Done()
		s.stopBackground()
	}()
	go func() {
		defer close(s.done)
		s.hub.run(runCtx, s.opts.Log, last, s.log)
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
// in flight finish, live streams end, the follower stops. Call it after,
// or while, the HTTP server drains its connections; ctx bounds the wait.
func (s *Server) Shutdown(ctx context.Context) error {
	idle := s.commands.close()
	s.CloseStreams()
	select {
	case <-idle:
	case <-ctx.Done():
		return fmt.Errorf("web: shutdown: commands still running: %w", ctx.Err())
	}
	if s.stop != nil {
		s.stopBackground()
		select {
		case <-s.done:
		case <-ctx.Done():
			return fmt.Errorf("web: shutdown: the live stream's follower still running: %w", ctx.Err())
		}
	}
	return nil
}

func (s *Server) stopBackground() {
	s.stopOnce.Do(func() {
		if s.stop != nil {
			s.stop()
		}
	})
}

// operatorKey marks a request that came through the local door.
type operatorKey struct{}

// WithOperator marks a connection's context as the ledger's operator's:
// the local door (a Unix socket only the folder's owner may open) sets it
// on every connection it accepts, so its requests act as the operator,
// named name, without a token.
func WithOperator(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, operatorKey{}, name)
}

// caller is who the request comes from: the operator (through the local
// door, or with the server's admin token), or a person's bearer token.
func (s *Server) caller(r *http.Request) app.Caller {
	c := app.Caller{Lang: s.lang(r)}
	token := bearer(r)
	if name, ok := r.Context().Value(operatorKey{}).(string); ok && name != "" && token == "" {
		c.Operator = name
		return c
	}
	if s.opts.AdminToken != "" && token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.AdminToken)) == 1 {
		c.Operator = "admin"
		return c
	}
	c.Token = token
	return c
}

// session is the ledger as the request's caller sees it.
func (s *Server) session(r *http.Request) *app.Session { return s.opts.Ledger.As(s.caller(r)) }

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func (s *Server) lang(r *http.Request) string {
	return i18n.Negotiate(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"), s.opts.Lang)
}
