package jetstream_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

// bareServer starts a nats-server with JetStream and no users at all, not
// the ledger's: what an attacker who got past the permissions could do, or
// a server someone else set up. It returns an in-process connection.
func bareServer(t *testing.T) *nats.Conn {
	t.Helper()
	s, err := server.NewServer(&server.Options{JetStream: true, StoreDir: t.TempDir(), DontListen: true, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	nc, err := nats.Connect("", nats.InProcessServer(s))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// TestGuard changes the stream's and the vault's configuration behind the
// ledger's back, each way that would let the server drop messages, and
// checks that Open, OpenVault, Check and Provision all refuse, naming what
// changed.
func TestGuard(t *testing.T) {
	nc := bareServer(t)
	js := jstest.JetStream(t, nc)
	ctx := ctxT(t)
	cfg, vcfg := jetstream.Config{}, jetstream.VaultConfig{}
	if f, err := jetstream.Check(ctx, js, cfg, vcfg); err != nil || len(f) != 2 || !strings.Contains(f[0], "does not exist") {
		t.Fatalf("check before anything exists: %q %v", f, err)
	}
	for _, c := range []struct {
		vault  bool
		change func(*natsjs.StreamConfig)
		want   string
	}{
		{false, func(c *natsjs.StreamConfig) { c.MaxMsgsPerSubject = 5 }, "stream LEDGER: max_msgs_per_subject is 5"},
		{false, func(c *natsjs.StreamConfig) { c.MaxAge = time.Hour }, "stream LEDGER: max_age is 1h0m0s"},
		{false, func(c *natsjs.StreamConfig) { c.MaxMsgs = 100 }, "stream LEDGER: max_msgs is 100"},
		{false, func(c *natsjs.StreamConfig) { c.MaxBytes = 1 << 20 }, "stream LEDGER: max_bytes is 1048576"},
		{false, func(c *natsjs.StreamConfig) { c.MaxMsgSize = 1024 }, "stream LEDGER: max_msg_size is 1024"},
		{false, func(c *natsjs.StreamConfig) { c.AllowMsgTTL = true }, "stream LEDGER: allow_msg_ttl is on"},
		{false, func(c *natsjs.StreamConfig) { c.Retention = natsjs.InterestPolicy }, "stream LEDGER: retention is Interest"},
		{true, func(c *natsjs.StreamConfig) { c.MaxMsgsPerSubject = 1 }, "vault stream KV_LEDGER_SEALED: max_msgs_per_subject is 1"},
		{true, func(c *natsjs.StreamConfig) { c.MaxAge = time.Hour }, "vault stream KV_LEDGER_SEALED: max_age is 1h0m0s"},
	} {
		// A bare server deletes a whole stream (deny_delete protects
		// messages, not the stream: the users' permissions do that).
		for _, name := range []string{"LEDGER", "KV_LEDGER_SEALED"} {
			if err := js.DeleteStream(ctx, name); err != nil && !errors.Is(err, natsjs.ErrStreamNotFound) {
				t.Fatal(err)
			}
		}
		jstest.OpenLog(t, nc, cfg)
		jstest.OpenVault(t, nc, vcfg)
		name := "LEDGER"
		if c.vault {
			name = "KV_LEDGER_SEALED"
		}
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		sc := s.CachedInfo().Config
		c.change(&sc)
		if _, err := js.UpdateStream(ctx, sc); err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		var err1 error
		if c.vault {
			_, err1 = jetstream.OpenVault(ctx, js, vcfg)
		} else {
			_, err1 = jetstream.Open(ctx, js, cfg)
		}
		var ge *jetstream.GuardError
		if !errors.As(err1, &ge) || !errors.Is(err1, jetstream.ErrGuard) || len(ge.Findings) != 1 || !strings.HasPrefix(ge.Findings[0], c.want) {
			t.Errorf("open after %s: %v", c.want, err1)
		}
		if f, err := jetstream.Check(ctx, js, cfg, vcfg); err != nil || len(f) != 1 || !strings.HasPrefix(f[0], c.want) {
			t.Errorf("check after %s: %q %v", c.want, f, err)
		}
		if _, err := jetstream.Provision(ctx, js, cfg, vcfg); !errors.As(err, &ge) {
			t.Errorf("provision after %s repaired it silently: %v", c.want, err)
		}
	}
}

// TestProvisionTakesOverOldVault opens, as the administrator does at start,
// a vault made by a ledger from before the stream guard (a key-value bucket
// keeping one message per name, purgeable): it becomes append-only, keeps
// its values, and the ledger's user may then open it.
func TestProvisionTakesOverOldVault(t *testing.T) {
	e := jstest.RunEmbedded(t)
	admin, err := e.ConnectAdmin()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := ctxT(t)
	// What the ledger's OpenVault made before: nats.go's key-value bucket.
	// (The administrator may create it; only the ledger writes to it.)
	if _, err := jstest.JetStream(t, admin).CreateKeyValue(ctx, natsjs.KeyValueConfig{
		Bucket: "LEDGER_SEALED", History: 1, Storage: natsjs.FileStorage, Replicas: 1,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := jstest.JetStream(t, nc).Publish(ctx, "$KV.LEDGER_SEALED.dice.c1.b1.seed.1", []byte("old seed")); err != nil {
		t.Fatal(err)
	}
	_, err = jetstream.OpenVault(ctx, jstest.JetStream(t, nc), jetstream.VaultConfig{})
	var ge *jetstream.GuardError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "deny_purge is off") {
		t.Fatalf("the ledger opened the old vault as it was: %v", err)
	}
	changes, err := e.Provision(ctx, jetstream.Config{}, jetstream.VaultConfig{})
	if err != nil || len(changes) != 2 || !strings.Contains(changes[1], "made vault stream KV_LEDGER_SEALED append-only") {
		t.Fatalf("provision: %q %v", changes, err)
	}
	v := jstest.OpenVault(t, nc, jetstream.VaultConfig{})
	if got, err := v.Get(ctx, "dice.c1.b1.seed.1"); err != nil || string(got) != "old seed" {
		t.Fatalf("the old value: %q %v", got, err)
	}
	if names, err := v.Names(ctx); err != nil || len(names) != 1 || names[0] != "dice.c1.b1.seed.1" {
		t.Fatalf("names: %q %v", names, err)
	}
}

// TestVaultFirstValueWins writes a second value under a sealed name behind
// the vault's back, as a client holding the ledger's credentials could: the
// vault still answers the first, and refuses a Put of the second.
func TestVaultFirstValueWins(t *testing.T) {
	nc := jstest.RunServer(t)
	v := jstest.OpenVault(t, nc, jetstream.VaultConfig{})
	ctx := ctxT(t)
	if err := v.Put(ctx, "orders.c1.b1.flank", []byte("first")); err != nil {
		t.Fatal(err)
	}
	js := jstest.JetStream(t, nc)
	if _, err := js.Publish(ctx, "$KV.LEDGER_SEALED.orders.c1.b1.flank", []byte("forged")); err != nil {
		t.Fatal(err)
	}
	del := &nats.Msg{Subject: "$KV.LEDGER_SEALED.orders.c1.b1.flank", Header: nats.Header{"KV-Operation": []string{"DEL"}}}
	if _, err := js.PublishMsg(ctx, del); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Get(ctx, "orders.c1.b1.flank"); err != nil || string(got) != "first" {
		t.Fatalf("get: %q %v", got, err)
	}
	if err := v.Put(ctx, "orders.c1.b1.flank", []byte("forged")); err == nil {
		t.Fatal("put of the forged value accepted")
	}
	// A delete marker written before the value: the name is damaged, said so.
	if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: "$KV.LEDGER_SEALED.dice.c1.b2", Header: nats.Header{"KV-Operation": []string{"DEL"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(ctx, "dice.c1.b2"); err == nil || errors.Is(err, events.ErrNotFound) || !strings.Contains(err.Error(), "DEL marker") {
		t.Fatalf("get of a name whose first message is a marker: %v", err)
	}

}
