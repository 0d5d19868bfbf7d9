// Package jstest starts embedded NATS servers with JetStream for tests: a
// single server on a temporary folder, or a cluster of servers in one process
// on loopback ports. Like the program's, they run with the users and
// permissions of config/nats/accounts.conf; connections are the ledger
// user's unless a test asks for another. Everything started is stopped by
// t.Cleanup.
package jstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
)

// RunEmbedded starts a single embedded server storing in a temporary folder,
// without any TCP port, and shuts it down when the test ends. SyncAlways
// stays on, as in production.
func RunEmbedded(tb testing.TB) *jetstream.Embedded {
	tb.Helper()
	e, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("jstest: start server: %v", err)
	}
	tb.Cleanup(e.Shutdown)
	return e
}

// RunServer starts a single embedded server (RunEmbedded) and returns an
// in-process connection to it as the ledger user, closed when the test
// ends.
func RunServer(tb testing.TB) *nats.Conn {
	tb.Helper()
	e := RunEmbedded(tb)
	nc, err := e.Connect()
	if err != nil {
		tb.Fatalf("jstest: %v", err)
	}
	tb.Cleanup(nc.Close)
	return nc
}

// JetStream returns the JetStream client of nc.
func JetStream(tb testing.TB, nc *nats.Conn) natsjs.JetStream {
	tb.Helper()
	js, err := natsjs.New(nc)
	if err != nil {
		tb.Fatalf("jstest: jetstream client: %v", err)
	}
	return js
}

// OpenLog opens the ledger log on nc's server with cfg, waiting up to 30s
// for a cluster to be ready (Open itself gives up after a few seconds with
// events.ErrUnavailable; OpenLog tries again).
func OpenLog(tb testing.TB, nc *nats.Conn, cfg jetstream.Config) *jetstream.Log {
	tb.Helper()
	var l *jetstream.Log
	retryUnavailable(tb, func(ctx context.Context) error {
		var err error
		l, err = jetstream.Open(ctx, JetStream(tb, nc), cfg)
		return err
	})
	return l
}

// OpenVault opens the vault on nc's server with cfg, waiting up to 30s for
// a cluster to be ready.
func OpenVault(tb testing.TB, nc *nats.Conn, cfg jetstream.VaultConfig) *jetstream.Vault {
	tb.Helper()
	var v *jetstream.Vault
	retryUnavailable(tb, func(ctx context.Context) error {
		var err error
		v, err = jetstream.OpenVault(ctx, JetStream(tb, nc), cfg)
		return err
	})
	return v
}

func retryUnavailable(tb testing.TB, f func(context.Context) error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		err := f(ctx)
		if err == nil {
			return
		}
		if !errors.Is(err, events.ErrUnavailable) || ctx.Err() != nil {
			tb.Fatalf("jstest: %v", err)
		}
	}
}

// NewLog returns the ledger log, with the default configuration, on a fresh
// single embedded server: what most other packages' tests need.
func NewLog(tb testing.TB) *jetstream.Log {
	tb.Helper()
	return OpenLog(tb, RunServer(tb), jetstream.Config{})
}

// CheckFor calls f every interval until it returns nil, and fails the test
// with f's last error if that has not happened within total.
func CheckFor(tb testing.TB, total, interval time.Duration, f func() error) {
	tb.Helper()
	deadline := time.Now().Add(total)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("jstest: still failing after %s: %v", total, err)
		}
		<-time.After(interval)
	}
}

// Cluster is a JetStream cluster of servers in this process, listening for
// clients and routes on loopback ports.
type Cluster struct {
	tb    testing.TB
	nodes []*node
	creds *jetstream.Credentials
}

type node struct {
	opts jetstream.EmbeddedOptions
	url  string
	emb  *jetstream.Embedded // nil while shut down
}

// RunCluster starts n servers forming one JetStream cluster, waits until
// they have elected a meta leader and are current, and shuts them down when
// the test ends. Each server keeps its own temporary store folder across
// Shutdown and Restart.
func RunCluster(tb testing.TB, n int) *Cluster {
	tb.Helper()
	if n < 1 {
		tb.Fatalf("jstest: cluster of %d servers", n)
	}
	ports := freePorts(tb, 2*n)
	authDir := tb.TempDir()
	creds, err := jetstream.LoadCredentials(authDir)
	if err != nil {
		tb.Fatalf("jstest: %v", err)
	}
	c := &Cluster{tb: tb, creds: creds}
	routes := make([]string, n)
	for i := range n {
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", ports[2*i+1])
	}
	for i := range n {
		var others []string
		for j := range n {
			if j != i {
				others = append(others, routes[j])
			}
		}
		c.nodes = append(c.nodes, &node{
			url: fmt.Sprintf("nats://127.0.0.1:%d", ports[2*i]),
			opts: jetstream.EmbeddedOptions{
				DataDir:    tb.TempDir(),
				AuthDir:    authDir,
				Listen:     fmt.Sprintf("127.0.0.1:%d", ports[2*i]),
				ServerName: fmt.Sprintf("S-%d", i+1),
				Cluster: &jetstream.ClusterOptions{
					Name: "ledger-test", Host: "127.0.0.1", Port: ports[2*i+1], Routes: others,
				},
			},
		})
	}
	tb.Cleanup(func() {
		for i := range c.nodes {
			c.Shutdown(i)
		}
	})
	for i := range c.nodes {
		c.start(i)
	}
	c.WaitReady()
	return c
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago.
func freePorts(tb testing.TB, n int) []int {
	tb.Helper()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("jstest: free port: %v", err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

func (c *Cluster) start(i int) {
	c.tb.Helper()
	e, err := jetstream.StartEmbedded(c.nodes[i].opts)
	if err != nil {
		c.tb.Fatalf("jstest: start server %d: %v", i, err)
	}
	c.nodes[i].emb = e
}

// Size returns the number of servers.
func (c *Cluster) Size() int { return len(c.nodes) }

// Server returns server i, or nil while it is shut down.
func (c *Cluster) Server(i int) *server.Server {
	if c.nodes[i].emb == nil {
		return nil
	}
	return c.nodes[i].emb.Server()
}

// URL returns server i's client URL.
func (c *Cluster) URL(i int) string { return c.nodes[i].url }

// Credentials returns the users' passwords, the same on every server.
func (c *Cluster) Credentials() *jetstream.Credentials { return c.creds }

// Connect connects to the cluster as the ledger user, trying server first
// (any index, -1 for a random one) before the others, reconnecting quickly
// when its server goes away. The connection is closed when the test ends.
func (c *Cluster) Connect(tb testing.TB, first int) *nats.Conn {
	tb.Helper()
	return c.ConnectAs(tb, jetstream.UserLedger, first)
}

// ConnectAs is Connect as another user (with the inbox prefix it must use).
func (c *Cluster) ConnectAs(tb testing.TB, user string, first int) *nats.Conn {
	tb.Helper()
	urls := make([]string, 0, len(c.nodes))
	opts := []nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(20 * time.Millisecond), nats.Timeout(2 * time.Second),
		nats.UserInfo(user, c.creds.Password(user))}
	switch user {
	case jetstream.UserTools:
		opts = append(opts, nats.CustomInboxPrefix(jetstream.ToolsInboxPrefix))
	case jetstream.UserAdmin:
		opts = append(opts, nats.CustomInboxPrefix(jetstream.AdminInboxPrefix))
	}
	if first >= 0 {
		urls = append(urls, c.nodes[first].url)
		opts = append(opts, nats.DontRandomize())
	}
	for j, n := range c.nodes {
		if j != first {
			urls = append(urls, n.url)
		}
	}
	nc, err := nats.Connect(strings.Join(urls, ","), opts...)
	if err != nil {
		tb.Fatalf("jstest: connect to the cluster: %v", err)
	}
	tb.Cleanup(nc.Close)
	return nc
}

// Shutdown stops server i and waits until it has stopped. Its store folder
// stays for Restart.
func (c *Cluster) Shutdown(i int) {
	if e := c.nodes[i].emb; e != nil {
		e.Shutdown()
		c.nodes[i].emb = nil
	}
}

// Restart starts server i again on its store folder and ports, and waits
// until the cluster is current again.
func (c *Cluster) Restart(i int) {
	c.tb.Helper()
	if c.nodes[i].emb != nil {
		c.tb.Fatalf("jstest: server %d is running", i)
	}
	c.start(i)
	c.WaitReady()
}

// WaitReady waits until the running servers agree on a JetStream meta
// leader and all are current.
func (c *Cluster) WaitReady() {
	c.tb.Helper()
	CheckFor(c.tb, 20*time.Second, 25*time.Millisecond, func() error {
		leaders := 0
		for i, n := range c.nodes {
			if n.emb == nil {
				continue
			}
			s := n.emb.Server()
			if !s.JetStreamIsCurrent() {
				return fmt.Errorf("server %d is not current", i)
			}
			if s.JetStreamIsLeader() {
				leaders++
			}
		}
		if leaders != 1 {
			return fmt.Errorf("%d meta leaders", leaders)
		}
		return nil
	})
}

// Account is the NATS account the ledger's streams live in
// (config/nats/accounts.conf).
const Account = "LEDGER"

// StreamLeader returns the index of the server leading stream (in the
// ledger's account), or -1 if none does right now.
func (c *Cluster) StreamLeader(stream string) int {
	for i, n := range c.nodes {
		if n.emb != nil && n.emb.Server().JetStreamIsStreamLeader(Account, stream) {
			return i
		}
	}
	return -1
}

// WaitStreamLeader waits until stream has a leader and returns its index.
func (c *Cluster) WaitStreamLeader(stream string) int {
	c.tb.Helper()
	leader := -1
	CheckFor(c.tb, 20*time.Second, 25*time.Millisecond, func() error {
		if leader = c.StreamLeader(stream); leader < 0 {
			return fmt.Errorf("stream %s has no leader", stream)
		}
		return nil
	})
	return leader
}
