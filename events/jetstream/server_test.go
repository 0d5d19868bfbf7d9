package jetstream_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

func TestStartEmbeddedRefuses(t *testing.T) {
	for _, o := range []jetstream.EmbeddedOptions{
		{},
		{DataDir: t.TempDir(), Listen: "0.0.0.0:4222"},
		{DataDir: t.TempDir(), Listen: "192.168.1.10:0"},
		{DataDir: t.TempDir(), Listen: "127.0.0.1"},
		{DataDir: t.TempDir(), Listen: "127.0.0.1:99999"},
		{DataDir: t.TempDir(), Cluster: &jetstream.ClusterOptions{Name: "c"}},
	} {
		if e, err := jetstream.StartEmbedded(o); err == nil {
			e.Shutdown()
			t.Errorf("StartEmbedded(%+v) accepted", o)
		} else if !strings.HasPrefix(err.Error(), "jetstream: ") {
			t.Errorf("error without the package prefix: %v", err)
		}
	}
}

// TestEmbeddedDurable checks the server's settings and that acknowledged
// events are still there after a restart on the same data folder.
func TestEmbeddedDurable(t *testing.T) {
	dir := t.TempDir()
	key := events.Key{Campaign: "c1", Battle: "b1"}

	e, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Server().JetStreamConfig().SyncAlways {
		t.Error("SyncAlways is off by default")
	}
	if e.ClientURL() != "" {
		t.Errorf("server listens on %s without being asked", e.ClientURL())
	}
	if !strings.HasPrefix(e.StoreDir(), dir) {
		t.Errorf("store %s is not under the data folder %s", e.StoreDir(), dir)
	}
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	l := jstest.OpenLog(t, nc, jetstream.Config{})
	last := appendN(t, l, key, nil, 5, "cmd")
	nc.Close()
	e.Shutdown()
	e.Shutdown() // harmless

	e, err = jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: dir, NoSyncAlways: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown()
	if e.Server().JetStreamConfig().SyncAlways {
		t.Error("NoSyncAlways left SyncAlways on")
	}
	nc, err = e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l = jstest.OpenLog(t, nc, jetstream.Config{})
	evs, err := l.Read(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 5 || evs[4].Sequence != last.Sequence || string(evs[4].Raw) != string(last.Raw) {
		t.Fatalf("after restart: %d events", len(evs))
	}
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
}

// TestEmbeddedListen checks the optional loopback port: the tools user
// reads through it; with NetworkUsers (tests of several processes) the
// ledger's user writes through it too.
func TestEmbeddedListen(t *testing.T) {
	e, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: t.TempDir(), Listen: "localhost:0", NetworkUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown()
	url := e.ClientURL()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("client URL %q", url)
	}
	nc, err := jetstream.Connect(url, e.ClientOptions(jetstream.UserLedger))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	l := jstest.OpenLog(t, nc, jetstream.Config{})
	appendN(t, l, events.Key{Campaign: "c1"}, nil, 2, "cmd")
	if seq, err := l.LastSequence(context.Background()); err != nil || seq != 2 {
		t.Fatalf("last sequence over TCP: %d, %v", seq, err)
	}
	tools, err := jetstream.Connect(url, e.ClientOptions(jetstream.UserTools))
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	if m, err := tools.Request("$JS.API.STREAM.MSG.GET.LEDGER", []byte(`{"seq":2}`), 5*time.Second); err != nil || !strings.Contains(string(m.Data), `"seq":2`) {
		t.Fatalf("tools: message get: %v", err)
	}
}

// TestConnectAuth checks Connect's user/password and token options against
// an external server that requires them.
func TestConnectAuth(t *testing.T) {
	start := func(o *server.Options) string {
		t.Helper()
		o.Host, o.Port, o.NoLog, o.NoSigs = "127.0.0.1", server.RANDOM_PORT, true, true
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("server not ready")
		}
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		return s.ClientURL()
	}
	userURL := start(&server.Options{Username: "umpire", Password: "dice"})
	tokenURL := start(&server.Options{Authorization: "s3cr3t"})

	ok := func(url string, o jetstream.ConnectOptions) {
		t.Helper()
		nc, err := jetstream.Connect(url, o)
		if err != nil {
			t.Fatalf("connect %+v: %v", o, err)
		}
		nc.Close()
	}
	refused := func(url string, o jetstream.ConnectOptions) {
		t.Helper()
		nc, err := jetstream.Connect(url, o)
		if err == nil {
			nc.Close()
			t.Fatalf("connect %+v accepted", o)
		}
		if !errors.Is(err, nats.ErrAuthorization) || !strings.HasPrefix(err.Error(), "jetstream: connect ") {
			t.Fatalf("connect %+v: %v, want a wrapped authorization error", o, err)
		}
	}
	ok(userURL, jetstream.ConnectOptions{User: "umpire", Password: "dice", Timeout: 2 * time.Second})
	refused(userURL, jetstream.ConnectOptions{User: "umpire", Password: "nope", Timeout: 2 * time.Second})
	ok(tokenURL, jetstream.ConnectOptions{Token: "s3cr3t"})
	refused(tokenURL, jetstream.ConnectOptions{Token: "wrong"})
	if _, err := jetstream.Connect(tokenURL, jetstream.ConnectOptions{CredsFile: "/nonexistent.creds"}); err == nil {
		t.Fatal("connect with a missing credentials file succeeded")
	}
	if _, err := jetstream.Connect(tokenURL, jetstream.ConnectOptions{CAFile: "/nonexistent.pem"}); err == nil {
		t.Fatal("connect with a missing CA file succeeded")
	}
}

// TestStoreFaultIgnoresTheReadinessRace: nats-server's health check of an
// in-process server (no listener) races a 1 ms timer against its start-up
// channel, and on a busy machine it sometimes answers "failed to be ready
// for connections after 1ms: startup did not complete" without looking at
// the store. In CI that made the store watch report a full disk twice
// (TestServeDiskFullRecovers, cmd/ledger). Here eight goroutines keep one
// processor busy while the check runs 20,000 times: StoreFault asks such
// an answer again and reports no fault of a store that has none.
func TestStoreFaultIgnoresTheReadinessRace(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 health checks under contention")
	}
	e, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: t.TempDir(), AuthDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stop := make(chan struct{})
	defer close(stop)
	for range 8 {
		go func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
					if n%1000 == 0 {
						runtime.Gosched()
					}
				}
			}
		}()
	}
	raw := 0
	for i := range 20000 {
		if h := e.Server().Healthz(&server.HealthzOptions{Details: true}); len(h.Errors) > 0 {
			raw++
		}
		if err := e.StoreFault(); err != nil {
			t.Fatalf("check %d: a store fault on a sound store: %v", i, err)
		}
	}
	t.Logf("nats-server's own health check failed %d times of 20,000 here; StoreFault none", raw)
}
