package jetstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// EmbeddedOptions configures an in-process NATS server with JetStream.
type EmbeddedOptions struct {
	// DataDir is the ledger's data folder; JetStream keeps its files in
	// DataDir/nats. Required.
	DataDir string
	// NoSyncAlways turns off the fsync after every write. The zero value
	// keeps it on, so an acknowledged event survives a power loss; turning it
	// off trades that guarantee for latency (the server then syncs every
	// two minutes).
	NoSyncAlways bool
	// Listen is an optional loopback address ("127.0.0.1:4222"; port 0 picks
	// a free one) on which the server also accepts TCP clients, so that
	// operators can run `nats stream info` against it as the read-only user
	// UserTools (ToolsUsage). Empty: no port at all, only in-process
	// connections. Non-loopback hosts are refused.
	Listen string
	// AuthDir is where the users' passwords are kept (LoadCredentials);
	// default DataDir/nats-auth. The servers of one cluster share it.
	AuthDir string
	// NetworkUsers lets every user connect over TCP. By default (false) only
	// UserTools may, and every other user only in-process, so that a
	// listening port opens nothing but reading. A cluster node (Cluster set)
	// always allows it: its clients are on the network. Tests that run
	// several processes against one server set it too.
	NetworkUsers bool
	// ServerName names the server (defaults to one chosen by nats-server).
	// Required, and unique, when Cluster is set.
	ServerName string
	// Cluster, when set, makes this server one node of a JetStream cluster.
	Cluster *ClusterOptions
	// Logger receives the server's log; nil keeps the server silent.
	Logger server.Logger
	// ReadyTimeout bounds the wait for the server to accept connections
	// (default 10s).
	ReadyTimeout time.Duration
}

// ClusterOptions joins an embedded server to other servers over routes.
type ClusterOptions struct {
	// Name is the cluster's name, the same on every node.
	Name string
	// Host and Port are where this node listens for routes from the others.
	Host string
	Port int
	// Routes are the other nodes' route URLs ("nats://127.0.0.1:6223").
	Routes []string
}

// Embedded is a NATS server with JetStream running inside this process.
type Embedded struct {
	srv   *server.Server
	opts  *server.Options
	creds *Credentials
}

// StartEmbedded starts an in-process NATS server with JetStream storing its
// files under opts.DataDir, and waits until it accepts connections. The
// server always runs with the accounts, users and permissions of
// config/nats/accounts.conf (config.NATSAccounts), the cluster's, with
// passwords generated and kept in opts.AuthDir: no client gets in without
// one. The server leaves the process's signals alone (the program handles
// shutdown).
func StartEmbedded(opts EmbeddedOptions) (*Embedded, error) {
	so, err := serverOptions(opts)
	if err != nil {
		return nil, err
	}
	authDir := opts.AuthDir
	if authDir == "" {
		authDir = filepath.Join(opts.DataDir, AuthDirName)
	}
	creds, err := LoadCredentials(authDir)
	if err != nil {
		return nil, err
	}
	ao, err := accountOptions(creds, opts.NetworkUsers || opts.Cluster != nil)
	if err != nil {
		return nil, err
	}
	so.Accounts, so.Users, so.SystemAccount = ao.Accounts, ao.Users, ao.SystemAccount
	srv, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("jetstream: new server: %w", err)
	}
	if opts.Logger != nil {
		srv.SetLoggerV2(opts.Logger, false, false, false)
	}
	go srv.Start()
	wait := opts.ReadyTimeout
	if wait <= 0 {
		wait = 10 * time.Second
	}
	if !srv.ReadyForConnections(wait) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("jetstream: server not ready after %s", wait)
	}
	return &Embedded{srv: srv, opts: so, creds: creds}, nil
}

func serverOptions(opts EmbeddedOptions) (*server.Options, error) {
	if opts.DataDir == "" {
		return nil, errors.New("jetstream: embedded server needs a data folder")
	}
	so := &server.Options{
		ServerName: opts.ServerName,
		JetStream:  true,
		StoreDir:   filepath.Join(opts.DataDir, "nats"),
		SyncAlways: !opts.NoSyncAlways,
		NoSigs:     true,
		NoLog:      opts.Logger == nil,
		DontListen: opts.Listen == "",
	}
	if opts.Listen != "" {
		host, port, err := loopbackHostPort(opts.Listen)
		if err != nil {
			return nil, err
		}
		so.Host, so.Port = host, port
	}
	if c := opts.Cluster; c != nil {
		if opts.ServerName == "" || c.Name == "" {
			return nil, errors.New("jetstream: a clustered server needs a server name and a cluster name")
		}
		so.Cluster = server.ClusterOpts{Name: c.Name, Host: c.Host, Port: c.Port}
		if len(c.Routes) > 0 {
			so.Routes = server.RoutesFromStr(strings.Join(c.Routes, ","))
			if len(so.Routes) != len(c.Routes) {
				return nil, fmt.Errorf("jetstream: routes %q: not all are URLs", c.Routes)
			}
		}
	}
	return so, nil
}

// loopbackHostPort splits a listen address and checks that it is loopback.
// Port 0 becomes nats-server's "random port".
func loopbackHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("jetstream: listen address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("jetstream: listen address %q: bad port", addr)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", 0, fmt.Errorf("jetstream: listen address %q: only loopback addresses are allowed for the embedded server", addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	return host, port, nil
}

// Connect returns the ledger's own connection to the embedded server, as
// UserLedger, in-process (not through TCP).
func (e *Embedded) Connect() (*nats.Conn, error) { return e.ConnectAs(UserLedger) }

// ConnectAdmin returns an in-process connection as UserAdmin, which may
// create the stream and the vault and update their configuration
// (Provision). It never reaches the network: the admin user may only
// connect in-process (unless NetworkUsers).
func (e *Embedded) ConnectAdmin() (*nats.Conn, error) { return e.ConnectAs(UserAdmin) }

// ConnectAs returns an in-process connection as user, with the inbox prefix
// the user must use and any further options.
func (e *Embedded) ConnectAs(user string, more ...nats.Option) (*nats.Conn, error) {
	co := e.ClientOptions(user)
	opts := []nats.Option{nats.InProcessServer(e.srv), nats.Name("ledger-embedded-" + user), nats.UserInfo(co.User, co.Password)}
	if co.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(co.InboxPrefix))
	}
	opts = append(opts, more...)
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return nil, fmt.Errorf("jetstream: connect in-process as %s: %w", user, err)
	}
	return nc, nil
}

// ClientOptions returns what a client needs to connect as user: name,
// password and inbox prefix (Connect takes them).
func (e *Embedded) ClientOptions(user string) ConnectOptions {
	co := ConnectOptions{Name: "ledger-" + user, User: user, Password: e.creds.Password(user)}
	switch user {
	case UserTools:
		co.InboxPrefix = ToolsInboxPrefix
	case UserAdmin:
		co.InboxPrefix = AdminInboxPrefix
	}
	return co
}

// Provision creates the ledger stream and the vault, or brings their
// configuration up to date, through an in-process connection as UserAdmin
// (see the package function Provision), and returns what it changed.
func (e *Embedded) Provision(ctx context.Context, cfg Config, vcfg VaultConfig) ([]string, error) {
	nc, err := e.ConnectAdmin()
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	return Provision(ctx, js, cfg, vcfg)
}

// Credentials returns the users' passwords and where they are kept.
func (e *Embedded) Credentials() *Credentials { return e.creds }

// ClientURL returns the server's TCP client URL, or "" when it does not
// listen (EmbeddedOptions.Listen empty).
func (e *Embedded) ClientURL() string {
	if e.opts.DontListen {
		return ""
	}
	return e.srv.ClientURL()
}

// Server exposes the underlying nats-server, for tests and diagnostics.
func (e *Embedded) Server() *server.Server { return e.srv }

// StoreDir is the folder the server keeps its JetStream files in.
func (e *Embedded) StoreDir() string { return e.opts.StoreDir }

// StoreFault says what keeps the server's JetStream from storing, nil when
// nothing does: JetStream stopped, or a stream (or consumer) that hit a
// write error. nats-server keeps a stream's first write error (a full disk,
// a failed fsync) and refuses or ignores every later write to it until the
// stream is loaded again, even once the disk works: RestartJetStream does
// that.
func (e *Embedded) StoreFault() error {
	if !e.srv.JetStreamEnabled() {
		return errors.New("JetStream is stopped on the embedded NATS server")
	}
	var h *server.HealthStatus
	// nats-server's health check first asks whether the server is ready
	// for connections, waiting 1 ms; an in-process server (no listener)
	// races a 1 ms timer against its long-closed start-up channel there,
	// and on a busy machine the timer can win: "failed to be ready for
	// connections after 1ms: startup did not complete", with the store
	// not looked at. Seen in CI as a full disk reported twice (a false
	// fault, then a second report of the real one). Such an answer is
	// asked again, up to three times, and only a lasting one counts.
	for try := 0; ; try++ {
		h = e.srv.Healthz(&server.HealthzOptions{Details: true})
		if h == nil || len(h.Errors) == 0 {
			return nil
		}
		if try == 2 || !onlyConnectionErrors(h.Errors) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	why := make([]string, 0, len(h.Errors))
	for _, he := range h.Errors {
		why = append(why, he.Error)
	}
	return errors.New(strings.Join(why, "; "))
}

// onlyConnectionErrors says whether every error of a health check is about
// the server's readiness for connections, not its store.
func onlyConnectionErrors(errs []server.HealthzError) bool {
	for _, he := range errs {
		if he.Type != server.HealthzErrorConn {
			return false
		}
	}
	return true
}

// RestartJetStream stops JetStream and starts it again on the same store,
// with the same limits: its streams and consumers are loaded again from
// their files, forgetting the write errors they kept. Client connections
// stay up; a request in flight meanwhile fails (a few milliseconds) and
// ordered consumers start again by themselves. A clustered server is not
// restarted this way (it would leave its meta group): it returns an error.
func (e *Embedded) RestartJetStream() error {
	if e.srv.JetStreamIsClustered() {
		return errors.New("jetstream: a clustered server's JetStream is not restarted in process; restart the server")
	}
	var cfg server.JetStreamConfig
	if c := e.srv.JetStreamConfig(); c != nil {
		cfg = *c
	}
	// EnableJetStream adds the "jetstream" folder to the store folder it
	// is given, as the server did at start.
	cfg.StoreDir = e.opts.StoreDir
	if err := e.srv.ShutdownJetStream(); err != nil {
		return fmt.Errorf("jetstream: stop: %w", err)
	}
	if err := e.srv.EnableJetStream(&cfg); err != nil {
		return fmt.Errorf("jetstream: start again: %w", err)
	}
	return nil
}

// Shutdown stops the server and waits until it has stopped. Calling it
// twice is harmless.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// ConnectOptions authenticates a connection to an external NATS server. At
// most one of CredsFile, User/Password and Token is normally set.
type ConnectOptions struct {
	// Name identifies the connection in the server's monitoring.
	Name string
	// CredsFile is a NATS credentials file (JWT and NKey seed).
	CredsFile string
	// User and Password authenticate with a user name and password.
	User, Password string
	// Token authenticates with a token.
	Token string
	// CAFile is a PEM file of the CA that signed the server's certificate,
	// when it is not one the system trusts.
	CAFile string
	// InboxPrefix replaces nats.go's _INBOX for replies: the users that may
	// not listen on _INBOX.> need theirs (ToolsInboxPrefix,
	// AdminInboxPrefix).
	InboxPrefix string
	// Timeout bounds the initial connection (default 5s).
	Timeout time.Duration
}

// Connect connects to an external NATS server (or cluster: url may list
// several servers separated by commas). The connection reconnects forever:
// the ledger is a long-running service and the server may restart.
func Connect(url string, opts ConnectOptions) (*nats.Conn, error) {
	name := opts.Name
	if name == "" {
		name = "ledger"
	}
	no := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	if opts.Timeout > 0 {
		no = append(no, nats.Timeout(opts.Timeout))
	}
	if opts.CredsFile != "" {
		no = append(no, nats.UserCredentials(opts.CredsFile))
	}
	if opts.User != "" || opts.Password != "" {
		no = append(no, nats.UserInfo(opts.User, opts.Password))
	}
	if opts.Token != "" {
		no = append(no, nats.Token(opts.Token))
	}
	if opts.CAFile != "" {
		no = append(no, nats.RootCAs(opts.CAFile))
	}
	if opts.InboxPrefix != "" {
		no = append(no, nats.CustomInboxPrefix(opts.InboxPrefix))
	}
	nc, err := nats.Connect(url, no...)
	if err != nil {
		return nil, fmt.Errorf("jetstream: connect %s: %w", url, err)
	}
	return nc, nil
}
