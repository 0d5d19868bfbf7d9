package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/config"
	ledgerjs "github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/metrics"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/web"
)

func init() {
	extraCommands = append(extraCommands,
		func(c *cli) *cobra.Command { return c.serveCommand() },
		func(c *cli) *cobra.Command { return c.playerCommand() },
	)
}

// The SQLite projection is what the door reads.
var _ app.ReadModel = (*sqlite.DB)(nil)

// ServeOptions tune Serve beyond the configuration.
type ServeOptions struct {
	// AdminToken is the server-level admin credential ("" for none).
	AdminToken string
	// Logger receives the server's log (default: text to stderr).
	Logger *slog.Logger
	// ShutdownTimeout bounds the graceful shutdown. Default 30s.
	ShutdownTimeout time.Duration
	// Entropy is the service's entropy source (AppOptions.Entropy).
	Entropy io.Reader
}

// Served is a running `ledger serve`: its address, and Wait for its end.
type Served struct {
	// Addr is the address the HTTP server listens on (the real port when
	// the configuration said :0).
	Addr string
	// URL is the base URL: http:// or https:// and Addr.
	URL string
	// Door is the local door's socket.
	Door string
	// Reach are the addresses other machines (the tablets) reach it at:
	// the listening address, or, listening on every address, this
	// machine's own addresses.
	Reach []string
	// App is the ledger the server runs on.
	App *App

	web  *web.Server
	done chan struct{}
	err  error
}

// Wait blocks until the server has shut down (its context ended) and
// returns what went wrong, if anything.
func (s *Served) Wait() error {
	<-s.done
	return s.err
}

// Serve starts the ledger's HTTP server on cfg (embedded NATS and SQLite
// by default): it takes the data folder's lock (refusing, with the holder
// named, when another process has it), opens the App, catches the
// projection up, listens on cfg.HTTP.Addr (HTTPS when a certificate and
// key are set) and on the folder's local door (a Unix socket the CLI uses),
// and runs until ctx ends. Then it shuts down gracefully: new commands get
// 503, commands in flight finish, live streams close, the projector
// applies what the log holds and stops with its checkpoint committed, and
// the App closes. Tests call it with config set directly and HTTP on
// 127.0.0.1:0.
func Serve(ctx context.Context, cfg config.Config, opts ServeOptions) (*Served, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 30 * time.Second
	}
	if err := cfg.Validate(); err != nil {
		return nil, configInvalid(err)
	}
	// The folder's intent first, held for as long as this server lives: a
	// CLI command that sees it waits for this server's door instead of
	// taking the folder. Then the folder's lock, once the CLI command that
	// holds it (a short one) has finished.
	intent, err := takeIntent(cfg.DataDir, "serve")
	if err != nil {
		var held *HeldError
		if errors.As(err, &held) {
			return nil, said(err, rules.Words{Format: "%s: one ledger serve per data folder; stop it, or give this one another --data", Args: []any{held.Words()}})
		}
		return nil, err
	}
	keepIntent := false
	defer func() {
		if !keepIntent {
			intent.release()
		}
	}()
	lock, err := waitFolder(ctx, cfg.DataDir, "serve", serveLockWait, func(holder string) {
		opts.Logger.Info("waiting for the data folder", "data", cfg.DataDir, "held_by", holder, "up_to", serveLockWait.String())
	})
	if err != nil {
		var held *HeldError
		if errors.As(err, &held) {
			return nil, said(err, rules.Words{Format: "%s, still after %d s: one ledger serve per data folder; stop it, or give this one another --data", Args: []any{held.Words(), int(serveLockWait / time.Second)}})
		}
		return nil, err
	}
	m := metrics.New()
	a, err := OpenApp(ctx, cfg, AppOptions{Entropy: opts.Entropy, Lock: lock, Logger: opts.Logger, Metrics: m})
	if err != nil {
		lock.release()
		return nil, err
	}
	ok := false
	var listeners []net.Listener
	defer func() {
		if !ok {
			for _, ln := range listeners {
				ln.Close()
			}
			a.Close()
		}
	}()
	if err := a.CatchUp(ctx, nil); err != nil {
		return nil, err
	}
	a.projector = app.NewProjector(a.Log, a.DB, opts.Logger)
	srv, err := web.New(web.Options{
		Ledger:     a.Ledger,
		Log:        a.Log,
		Lang:       cfg.Lang,
		AdminToken: opts.AdminToken,
		Logger:     opts.Logger,
		Limits:     web.Limits{StreamsPerCaller: cfg.HTTP.StreamsPerCaller, Streams: cfg.HTTP.Streams},
		Budget:     cfg.HTTP.RequestBudget,
		Throttle:   web.Throttle{Burst: cfg.HTTP.TokenFailuresPerMinute, Every: time.Minute / time.Duration(cfg.HTTP.TokenFailuresPerMinute)},
		TLS:        cfg.HTTP.TLSCert != "",
		Ready:      func(ctx context.Context) web.Readiness { return ready(ctx, a, cfg) },
		Metrics:    m.Handler(),
	})
	if err != nil {
		return nil, err
	}
	m.Gauge("ledger_projection_lag", "How many events of the log the projection has not applied yet.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		last, err := a.Log.LastSequence(ctx)
		if err != nil {
			return -1
		}
		return float64(last - min(last, a.projector.Checkpoint()))
	})
	m.Gauge("ledger_cached_streams", "Streams (battles and campaigns) whose folded state the service holds (cache.streams bounds it).", func() float64 {
		return float64(a.Service.Cached())
	})
	m.Gauge("ledger_timeline_events", "Events the battles' replay timelines hold in all (cache.timeline_events bounds it).", func() float64 {
		_, n := a.Ledger.Timelines()
		return float64(n)
	})
	m.Gauge("ledger_live_streams", "Live streams (server-sent events) open.", func() float64 { return float64(srv.Streams()) })
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return nil, listenProblem(cfg.HTTP.Addr, err)
	}
	listeners = append(listeners, ln)
	scheme := "http"
	if cfg.HTTP.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.HTTP.TLSCert, cfg.HTTP.TLSKey)
		if err != nil {
			return nil, tlsProblem(cfg.HTTP.TLSCert, cfg.HTTP.TLSKey, err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	door, err := listenDoor(cfg)
	if err != nil {
		return nil, err
	}
	listeners = append(listeners, door)
	// The background work (projector, live stream) outlives ctx until the
	// shutdown below has drained the commands.
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	go a.projector.Run(bg)
	if a.store != nil {
		a.store.Restarted = a.projector.Refollow
		go a.store.Run(bg)
	}
	if err := srv.Start(bg); err != nil {
		stopBG()
		return nil, err
	}
	newServer := func(operator string) *http.Server {
		hs := &http.Server{
			Handler:           srv.Handler(),
			ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
			ReadTimeout:       cfg.HTTP.ReadTimeout,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
		}
		if operator != "" {
			hs.ConnContext = func(ctx context.Context, _ net.Conn) context.Context { return web.WithOperator(ctx, operator) }
		}
		return hs
	}
	public, local := newServer(""), newServer("operator")
	s := &Served{Addr: ln.Addr().String(), Door: socketPath(cfg), App: a, web: srv, done: make(chan struct{})}
	s.URL, s.Reach = serveURLs(scheme, ln.Addr())
	served := make(chan error, 2)
	go func() { served <- public.Serve(ln) }()
	go func() { served <- local.Serve(door) }()
	opts.Logger.Info("ledger serving", "url", s.URL, "door", s.Door, "data", cfg.DataDir, "lang", cfg.Lang, "admin_token", opts.AdminToken != "")
	ok = true
	keepIntent = true
	go func() {
		defer close(s.done)
		defer intent.release()
		var errs []error
		select {
		case <-ctx.Done():
		case err := <-served:
			errs = append(errs, fmt.Errorf("http: %w", err))
		}
		sctx, cancel := context.WithTimeout(context.Background(), opts.ShutdownTimeout)
		defer cancel()
		// No new commands, the streams end; then the HTTP servers wait for
		// the requests in flight; then the projector finishes and stops.
		srv.BeginDrain()
		srv.CloseStreams()
		for _, hs := range []*http.Server{public, local} {
			if err := hs.Shutdown(sctx); err != nil {
				errs = append(errs, fmt.Errorf("http: shutdown: %w", err))
			}
		}
		if err := srv.Shutdown(sctx); err != nil {
			errs = append(errs, err)
		}
		if last, err := a.Log.LastSequence(sctx); err == nil {
			// Let the projector reach the log's end: every accepted
			// command is in the projection before it stops.
			_ = a.projector.Wait(sctx, last)
		}
		stopBG()
		select {
		case <-a.projector.Done():
		case <-sctx.Done():
			errs = append(errs, errors.New("shutdown: the projector did not stop in time"))
		}
		if err := a.projector.Err(); err != nil {
			errs = append(errs, err)
		}
		_ = os.Remove(s.Door)
		if err := a.Close(); err != nil {
			errs = append(errs, err)
		}
		opts.Logger.Info("ledger stopped")
		s.err = errors.Join(errs...)
	}()
	return s, nil
}

// ready checks what a server needs to take commands: the log answers
// (within 2 s, its stream led), the stream guard finds nothing wrong (a
// consumer listing a downed server holds up does not count), the projector
// runs, its lag is within http.ready_max_lag events and, when behind the
// log, it has moved within app.StillAfter.
func ready(ctx context.Context, a *App, cfg config.Config) web.Readiness {
	rd := web.Readiness{Ready: true, Checks: map[string]string{}}
	fail := func(check, why string) {
		rd.Ready = false
		rd.Checks[check] = why
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	last, err := a.Log.LastSequence(ctx)
	if err != nil {
		fail("log", "the log does not answer: "+err.Error()+"; check the NATS servers (a quorum of the cluster)")
	} else {
		rd.Checks["log"] = "ok"
	}
	if f := a.store.Current(); f != nil {
		fail("store", f.Error())
	} else if a.store != nil {
		rd.Checks["store"] = "ok"
	}
	if a.guard != nil {
		findings, err := a.guard(ctx)
		unlisted := errors.Is(err, ledgerjs.ErrConsumersUnlisted)
		switch {
		case err != nil && !unlisted:
			fail("stream", "the stream guard could not read the configuration: "+err.Error())
		case len(findings) > 0:
			fail("stream", strings.Join(findings, "; "))
		case unlisted:
			// The configurations are as the ledger needs; only the
			// consumers, which remove no event, were not listed in time (a
			// server of the cluster is down): the node can take commands.
			rd.Checks["stream"] = "ok (" + err.Error() + ")"
		default:
			rd.Checks["stream"] = "ok"
		}
	}
	switch st := a.projector.Status(); {
	case a.projector.Stalled() != nil:
		fail("projection", "the projection cannot be written: "+a.projector.Stalled().Error()+"; free space on the data folder's disk (or check it): it catches up by itself")
	case st.State != app.ProjectorRunning:
		fail("projection", "the projector has "+st.String()+"; see the server's log, then `ledger projections rebuild`")
	case err == nil && last-min(last, a.projector.Checkpoint()) > uint64(cfg.HTTP.ReadyMaxLag):
		fail("projection", fmt.Sprintf("the projection is %d events behind the log (at most %d for ready)", last-a.projector.Checkpoint(), cfg.HTTP.ReadyMaxLag))
	case err == nil && a.projector.Watch(last) >= app.StillAfter:
		// Commands would wait for their projection (up to 5 s each) and
		// reads would be stale; from app.StuckAfter on, Watch makes it
		// follow the log again.
		fail("projection", fmt.Sprintf("the projection has not moved for %s or more while %d events behind the log (its follower lost with a server of the cluster?): commands wait for it, reads are stale",
			app.StillAfter, last-min(last, a.projector.Checkpoint())))
	default:
		rd.Checks["projection"] = "ok"
	}
	return rd
}

func (c *cli) serveCommand() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API and the web page (docs/api.md) until interrupted",
		Long: `Serve runs the ledger as a server: the HTTP JSON API for every command and
query, a live stream of each battle's events, and the web page (battlefield
map with a timeline, event log, dice), on http.addr (default 127.0.0.1:8080;
HTTPS when http.tls_cert and http.tls_key are set). A projector keeps the
SQLite projection up to date as events arrive.

Requests authenticate with the tokens of a campaign's people
(Authorization: Bearer <token>; ledger player add prints one). Set
LEDGER_HTTP_ADMIN_TOKEN (http.admin_token) to let a server-level admin create campaigns over HTTP.
SIGTERM or an interrupt shuts it down gracefully.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := c.config()
			if err != nil {
				return err
			}
			if addr != "" {
				cfg.HTTP.Addr = addr
			}
			logger := slog.New(slog.NewTextHandler(c.stderr, nil))
			s, err := Serve(c.ctx, cfg, ServeOptions{AdminToken: cfg.HTTP.AdminToken, Logger: logger, Entropy: c.entropy})
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, c.words().t("serve.serving", "url", s.URL, "data", cfg.DataDir, "door", s.Door))
			if len(s.Reach) > 0 {
				fmt.Fprintln(c.stdout, c.words().t("serve.reach", "urls", strings.Join(s.Reach, ", ")))
			}
			if usage := s.App.NATSToolsUsage(c.words()); usage != "" {
				fmt.Fprintln(c.stdout, usage)
			}
			return s.Wait()
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "", "listen on this address instead of http.addr")
	return cmd
}

// playerCommand gives people roles in a campaign from the CLI, the local
// umpire: each new token is printed once and stored only as its hash.
func (c *cli) playerCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "player", Short: "Give people roles and tokens in a campaign (umpire, player, reader)"}
	var af commandFlags
	var name, role, side string
	add := &cobra.Command{
		Use:     "add CAMPAIGN PLAYER --role umpire|player|reader [--side SIDE] [--name NAME]",
		Short:   "Add a person to a campaign and print their token, once",
		Example: `  ledger player add demo-1809 marie --role player --side french --name "Marie"`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			body := map[string]any{"player": args[1], "name": name, "role": role}
			if side != "" {
				body["side"] = side
			}
			req, err := af.request(c, campaign.CmdPlayerAdd, args[0], "", body)
			if err != nil {
				return err
			}
			return c.submitToken(req)
		},
	}
	add.Flags().StringVar(&name, "name", "", "the person's name")
	add.Flags().StringVar(&role, "role", campaign.RolePlayer, "umpire, player or reader")
	add.Flags().StringVar(&side, "side", "", "a player's side")
	af.add(add, false)

	var rf commandFlags
	reissue := &cobra.Command{
		Use:   "reissue-token CAMPAIGN PLAYER",
		Short: "Replace a person's token (the old one stops working) and print the new one, once",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := rf.request(c, campaign.CmdTokenReissue, args[0], "", map[string]any{"player": args[1]})
			if err != nil {
				return err
			}
			return c.submitToken(req)
		},
	}
	rf.add(reissue, false)
	cmd.AddCommand(add, reissue)
	return cmd
}

// submitToken runs a command that issues a token and prints it.
func (c *cli) submitToken(cmd app.Command) error {
	api, release, err := c.api()
	if err != nil {
		return err
	}
	defer release()
	res, err := api.Execute(c.ctx, cmd)
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeJSON(c.stdout, res)
	}
	w := c.words()
	if res.Duplicate {
		fmt.Fprintln(c.stdout, w.t("player.token_duplicate"))
		return nil
	}
	var who struct {
		Player string `json:"player"`
	}
	_ = json.Unmarshal(cmd.Body, &who)
	fmt.Fprintln(c.stdout, w.t("player.token", "player", who.Player, "campaign", cmd.Campaign, "token", res.Token))
	return nil
}

// serveURLs is the base URL of a server listening at addr, and the URLs
// other machines reach it at. Listening on every address ("0.0.0.0:8443",
// "[::]:8443"), the base URL is loopback's and the others are this
// machine's non-loopback addresses: "https://[::]:8443" is no address a
// tablet can use.
func serveURLs(scheme string, addr net.Addr) (string, []string) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return scheme + "://" + addr.String(), nil
	}
	port := strconv.Itoa(tcp.Port)
	var reach []string
	if ifaces, err := net.InterfaceAddrs(); err == nil {
		for _, a := range ifaces {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
				continue
			}
			if ipn.IP.To4() == nil && tcp.IP.To4() != nil {
				continue // listening on IPv4 only
			}
			reach = append(reach, scheme+"://"+net.JoinHostPort(ipn.IP.String(), port))
		}
	}
	return scheme + "://" + net.JoinHostPort("127.0.0.1", port), reach
}
