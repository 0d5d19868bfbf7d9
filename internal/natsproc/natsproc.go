//go:build unix

// Package natsproc runs the compose cluster without a container engine: three
// real nats-server processes, built from the version in go.mod, started from
// exactly the configuration files docker-compose.yml mounts
// (config/nats/nats-{1,2,3}.conf, which include accounts.conf), on loopback
// ports, with the same users. Tests that need a fault a process must really
// suffer (kill -9) use it; scripts/cluster.sh does the same for people.
//
// Only what cannot be the same outside compose is overridden, with
// nats-server's own flags (Args lists them):
//
//	--addr 127.0.0.1 --port P        client listen (compose: 0.0.0.0:4222, published on 127.0.0.1)
//	--http_port H                    monitoring port (compose: 8222 on every node); the
//	                                 host stays the file's 0.0.0.0: nats-server has no flag for it
//	--cluster nats://127.0.0.1:C     route listen (compose: 0.0.0.0:6222)
//	--routes nats-route://127.0.0.1:C2,nats-route://127.0.0.1:C3
//	                                 the other two nodes (compose: by host name)
//	--store_dir DIR                  JetStream's files (compose: /data/jetstream on a volume)
//
// Users, permissions, accounts, JetStream and its sync_interval, the cluster
// name and no_advertise are the files' own. Passwords come from the
// environment variables the files read, as in compose.
//
// It is built on Unix only (process groups, kill -9): the tests that use it
// need Linux or macOS.
package natsproc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// RequireEnv, set to 1, turns the skip of a test that cannot build the
// nats-server binary into a failure (CI sets it).
const RequireEnv = "LEDGER_REQUIRE_CLUSTER"

// Nodes are the compose services running nats-server, and their files.
var Nodes = []string{"nats-1", "nats-2", "nats-3"}

// PasswordVars are the variables config/nats/accounts.conf reads.
var PasswordVars = []string{"LEDGER_NATS_PASSWORD", "TOOLS_NATS_PASSWORD", "ADMIN_NATS_PASSWORD", "SYS_NATS_PASSWORD"}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// Binary builds nats-server at the version go.mod requires (the one the
// program embeds, server.VERSION), once per process, into a folder of the
// system's temporary folder shared by later runs, and returns its path.
// `go build` works offline from the module cache.
func Binary() (string, error) {
	buildOnce.Do(func() { buildBin, buildErr = build() })
	return buildBin, buildErr
}

func build() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("ledger-natsproc-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "nats-server-v"+server.VERSION)
	if out, err := exec.Command(bin, "--version").Output(); err == nil && strings.Contains(string(out), "v"+server.VERSION) {
		return bin, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, "github.com/nats-io/nats-server/v2")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("go build github.com/nats-io/nats-server/v2: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// moduleRoot is the folder of this repository's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the ledger's module")
	}
	return filepath.Dir(mod), nil
}

// Require returns the nats-server binary, or skips the test saying why it
// cannot be built (fails it when LEDGER_REQUIRE_CLUSTER=1).
func Require(tb testing.TB) string {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatalf("natsproc: cannot build nats-server (%s=1 requires the cluster tests): %v", RequireEnv, err)
		}
		tb.Skipf("natsproc: cannot build nats-server, the real-process cluster tests are skipped (%s=1 makes this a failure): %v", RequireEnv, err)
	}
	return bin
}

// Node is one nats-server process.
type Node struct {
	Name                              string // the compose service and server_name: nats-1
	ClientPort, ClusterPort, HTTPPort int
	StoreDir                          string
	LogFile                           string

	cmd  *exec.Cmd
	done chan struct{}
}

// ClientURL is the node's client URL.
func (n *Node) ClientURL() string { return fmt.Sprintf("nats://127.0.0.1:%d", n.ClientPort) }

// Running reports whether the process runs.
func (n *Node) Running() bool {
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// Cluster is three nats-server processes from config/nats/.
type Cluster struct {
	Bin     string
	ConfDir string
	Dir     string
	// Env holds the passwords, by variable (PasswordVars).
	Env   map[string]string
	Nodes []*Node
}

// Options configure Start.
type Options struct {
	// ConfDir is config/nats (default: found from the module root).
	ConfDir string
	// Dir holds the nodes' stores and logs (required).
	Dir string
	// Passwords by variable; missing ones are generated.
	Passwords map[string]string
}

// Start starts the three nodes and waits until the cluster has a JetStream
// meta leader (the ledger's user can ask for its account info).
func Start(ctx context.Context, bin string, opts Options) (*Cluster, error) {
	if opts.ConfDir == "" {
		root, err := moduleRoot()
		if err != nil {
			return nil, err
		}
		opts.ConfDir = filepath.Join(root, "config", "nats")
	}
	c := &Cluster{Bin: bin, ConfDir: opts.ConfDir, Dir: opts.Dir, Env: map[string]string{}}
	for _, v := range PasswordVars {
		pw := opts.Passwords[v]
		if pw == "" {
			b := make([]byte, 24)
			if _, err := rand.Read(b); err != nil {
				return nil, err
			}
			pw = "pw" + hex.EncodeToString(b)
		}
		c.Env[v] = pw
	}
	ports, err := freePorts(3 * len(Nodes))
	if err != nil {
		return nil, err
	}
	for i, name := range Nodes {
		n := &Node{Name: name, ClientPort: ports[3*i], ClusterPort: ports[3*i+1], HTTPPort: ports[3*i+2],
			StoreDir: filepath.Join(opts.Dir, name, "jetstream"), LogFile: filepath.Join(opts.Dir, name+".log")}
		if err := os.MkdirAll(n.StoreDir, 0o700); err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
	}
	for i := range c.Nodes {
		if err := c.startNode(i); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.WaitReady(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartT is Start for a test: the binary from Require, the files in a
// temporary folder, everything killed when the test ends.
func StartT(tb testing.TB) *Cluster {
	tb.Helper()
	bin := Require(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Start(ctx, bin, Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("natsproc: %v", err)
	}
	tb.Cleanup(func() {
		c.Stop()
		if tb.Failed() {
			for _, n := range c.Nodes {
				if b, err := os.ReadFile(n.LogFile); err == nil {
					lines := strings.Split(strings.TrimSpace(string(b)), "\n")
					if len(lines) > 30 {
						lines = lines[len(lines)-30:]
					}
					tb.Logf("natsproc: last lines of %s:\n%s", n.LogFile, strings.Join(lines, "\n"))
				}
			}
		}
	})
	return c
}

func freePorts(n int) ([]int, error) {
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
			return nil, err
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// Args returns node i's command line (without the binary): the compose
// command, `--config <file>`, and the overrides the package documents.
func (c *Cluster) Args(i int) []string {
	n := c.Nodes[i]
	var routes []string
	for j, o := range c.Nodes {
		if j != i {
			routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", o.ClusterPort))
		}
	}
	return []string{
		"--config", filepath.Join(c.ConfDir, n.Name+".conf"),
		"--addr", "127.0.0.1", "--port", fmt.Sprint(n.ClientPort),
		"--http_port", fmt.Sprint(n.HTTPPort),
		"--cluster", fmt.Sprintf("nats://127.0.0.1:%d", n.ClusterPort),
		"--routes", strings.Join(routes, ","),
		"--store_dir", n.StoreDir,
	}
}

func (c *Cluster) startNode(i int) error {
	n := c.Nodes[i]
	logf, err := os.OpenFile(n.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.Bin, c.Args(i)...)
	cmd.Env = os.Environ()
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: a Ctrl-C at the terminal reaches the test,
	// which kills the nodes itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("natsproc: start %s: %w", n.Name, err)
	}
	n.cmd, n.done = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(n.done)
	}()
	// Up when its monitoring port answers that JetStream is enabled (the
	// compose health check).
	deadline := time.Now().Add(20 * time.Second)
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz?js-enabled-only=true", n.HTTPPort)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if !n.Running() {
			return fmt.Errorf("natsproc: %s exited at start (see %s)", n.Name, n.LogFile)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("natsproc: %s not healthy after 20s (see %s)", n.Name, n.LogFile)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill sends node i SIGKILL (kill -9) and waits until it is gone.
func (c *Cluster) Kill(i int) {
	n := c.Nodes[i]
	if !n.Running() {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.done
}

// Restart starts node i again, on its ports and store.
func (c *Cluster) Restart(i int) error {
	if c.Nodes[i].Running() {
		return fmt.Errorf("natsproc: %s is running", c.Nodes[i].Name)
	}
	return c.startNode(i)
}

// Stop kills every node.
func (c *Cluster) Stop() {
	for i := range c.Nodes {
		c.Kill(i)
	}
}

// URL is every node's client URL, comma-separated (LEDGER_NATS_URL).
func (c *Cluster) URL() string {
	var urls []string
	for _, n := range c.Nodes {
		urls = append(urls, n.ClientURL())
	}
	return strings.Join(urls, ",")
}

// Password returns user's password (ledger, tools, admin, sys).
func (c *Cluster) Password(user string) string {
	return c.Env[strings.ToUpper(user)+"_NATS_PASSWORD"]
}

// Connect connects to all nodes as user, with the inbox prefix the tools and
// admin users must use, reconnecting quickly and forever.
func (c *Cluster) Connect(user string, more ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name("natsproc-" + user), nats.UserInfo(user, c.Password(user)),
		nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond), nats.Timeout(2 * time.Second)}
	switch user {
	case "tools":
		opts = append(opts, nats.CustomInboxPrefix("_INBOX_tools"))
	case "admin":
		opts = append(opts, nats.CustomInboxPrefix("_INBOX_admin"))
	}
	return nats.Connect(c.URL(), append(opts, more...)...)
}

// WaitReady waits until the running nodes answer JetStream requests: the
// ledger user's account info succeeds, which needs a meta leader.
func (c *Cluster) WaitReady(ctx context.Context) error {
	nc, err := c.Connect("ledger")
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		return err
	}
	for {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := js.AccountInfo(actx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("natsproc: cluster not ready: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StreamLeader returns the index of the node leading stream, asked through
// js (any user that may read the stream's info).
func (c *Cluster) StreamLeader(ctx context.Context, js natsjs.JetStream, stream string) (int, error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return -1, err
	}
	ci := s.CachedInfo().Cluster
	if ci == nil || ci.Leader == "" {
		return -1, fmt.Errorf("stream %s has no leader", stream)
	}
	for i, n := range c.Nodes {
		if n.Name == ci.Leader {
			return i, nil
		}
	}
	return -1, fmt.Errorf("stream %s led by unknown server %q", stream, ci.Leader)
}
