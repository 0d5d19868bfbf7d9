package jetstream_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

// TestDoorEmbedded replays the attacks of issue 14 against the embedded
// server started as `ledger serve --nats-listen` starts it, through a real
// TCP connection to its listening port: no anonymous client, no user but
// the read-only tools gets in, and the tools user reads LEDGER and can do
// nothing else. The ledger's own user, in-process, cannot change, delete or
// purge anything either. Afterwards the stream and the vault are intact.
func TestDoorEmbedded(t *testing.T) {
	dir := t.TempDir()
	e, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	url := e.ClientURL()
	ctx := ctxT(t)

	// The passwords: generated, kept owner-only in the data folder.
	auth := filepath.Join(dir, jetstream.AuthDirName)
	if st, err := os.Stat(auth); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("credentials folder %s: %v %v, want mode 0700", auth, st.Mode(), err)
	}
	for _, u := range []string{jetstream.UserLedger, jetstream.UserTools, jetstream.UserAdmin, jetstream.UserSys} {
		f := e.Credentials().PasswordFile(u)
		st, err := os.Stat(f)
		if err != nil || st.Mode().Perm() != 0o600 || filepath.Dir(f) != auth {
			t.Fatalf("password of %s: %s %v %v, want mode 0600 in %s", u, f, st.Mode(), err, auth)
		}
		if len(e.Credentials().Password(u)) < 40 {
			t.Fatalf("password of %s is short", u)
		}
	}

	// The ledger's start: the administrator, in-process, makes the stream
	// and the vault; the ledger's user opens them and writes.
	cfg, vcfg := jetstream.Config{}, jetstream.VaultConfig{}
	if changes, err := e.Provision(ctx, cfg, vcfg); err != nil || len(changes) != 2 {
		t.Fatalf("provision: %v %v", changes, err)
	}
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	l := jstest.OpenLog(t, nc, cfg)
	v := jstest.OpenVault(t, nc, vcfg)
	key := events.Key{Campaign: "c1", Battle: "b1"}
	appendN(t, l, key, nil, 3, "cmd")
	if err := v.Put(ctx, "dice.c1.b1.seed.1", []byte("the seed nobody may read")); err != nil {
		t.Fatal(err)
	}

	// Nobody gets in anonymously, and no user but tools over the network.
	if nc, err := nats.Connect(url, nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Fatal("an anonymous client was let in")
	} else if !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("anonymous: %v, want an authorization violation", err)
	}
	for _, u := range []string{jetstream.UserLedger, jetstream.UserAdmin, jetstream.UserSys} {
		co := e.ClientOptions(u)
		if _, err := jstest.Dial(t, u, url, nats.UserInfo(co.User, co.Password)); !errors.Is(err, nats.ErrAuthorization) {
			t.Errorf("%s over TCP with its password: %v, want an authorization violation", u, err)
		}
	}
	if _, err := jstest.Dial(t, "tools", url, nats.UserInfo(jetstream.UserTools, "wrong-password-xyz")); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("tools with a wrong password: %v", err)
	}

	// The tools user reads LEDGER, as ToolsUsage says.
	usage := e.ToolsUsage()
	for _, want := range []string{url, "NATS_USER=tools", e.Credentials().PasswordFile(jetstream.UserTools), "--inbox-prefix _INBOX_tools", "stream view LEDGER"} {
		if !strings.Contains(usage, want) {
			t.Errorf("ToolsUsage lacks %q:\n%s", want, usage)
		}
	}
	co := e.ClientOptions(jetstream.UserTools)
	tools, err := jstest.Dial(t, "tools", url, nats.UserInfo(co.User, co.Password), nats.CustomInboxPrefix(jetstream.ToolsInboxPrefix))
	if err != nil {
		t.Fatalf("tools over TCP: %v", err)
	}
	tjs := jstest.JetStream(t, tools.NC)
	ts, err := tjs.Stream(ctx, "LEDGER")
	if err != nil || ts.CachedInfo().State.Msgs != 3 {
		t.Fatalf("tools: stream info: %v", err)
	}
	if m, err := ts.GetMsg(ctx, 1); err != nil || !bytes.Contains(m.Data, []byte(`"cmd-0"`)) {
		t.Fatalf("tools: get message 1: %v", err)
	}
	oc, err := tjs.OrderedConsumer(ctx, "LEDGER", natsjs.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := oc.Fetch(3, natsjs.FetchMaxWait(5*time.Second)); err != nil {
		t.Fatal(err)
	} else {
		n := 0
		for range b.Messages() {
			n++
		}
		if n != 3 {
			t.Fatalf("tools: ordered consumer read %d of 3 events (%v)", n, b.Error())
		}
	}

	// Every attack, as tools over TCP and as the ledger and the
	// administrator in-process.
	attacks := jstest.Attacks(t, cfg, vcfg, "dice.c1.b1.seed.1")
	jstest.Replay(t, tools, attacks, false)
	if err := tools.Subscribe("_INBOX.>"); err != nil {
		t.Error(err)
	}
	if err := tools.Subscribe("$KV.>"); err != nil {
		t.Error(err)
	}
	if r, err := tools.Request("ledger.battle.c1.b1", nil, []byte(`{"forged":true}`)); err != nil {
		t.Errorf("tools: publish an event: %v", err)
	} else if !r.Permission {
		t.Errorf("tools: publish an event: %s", r)
	}
	ledger := &jstest.Attacker{Name: "ledger"}
	if ledger.NC, err = e.ConnectAs(jetstream.UserLedger, ledger.Options()...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ledger.NC.Close)
	jstest.Replay(t, ledger, attacks, true)
	admin := &jstest.Attacker{Name: "admin"}
	if admin.NC, err = e.ConnectAs(jetstream.UserAdmin, admin.Options()...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.NC.Close)
	var adminAttacks []jstest.Attack
	for _, a := range attacks {
		if !strings.Contains(a.Subject, ".UPDATE.") && !strings.Contains(a.Subject, ".CREATE.LEDGER") {
			adminAttacks = append(adminAttacks, a) // the administrator may change configurations
		}
	}
	jstest.Replay(t, admin, adminAttacks, false)

	// Nothing happened.
	checkIntact(t, nc, cfg, vcfg, 3)
	if got, err := v.Get(ctx, "dice.c1.b1.seed.1"); err != nil || string(got) != "the seed nobody may read" {
		t.Fatalf("the sealed value after the attacks: %q %v", got, err)
	}
}

// checkIntact checks that the guard finds nothing and LEDGER holds msgs
// messages.
func checkIntact(t *testing.T, nc *nats.Conn, cfg jetstream.Config, vcfg jetstream.VaultConfig, msgs uint64) {
	t.Helper()
	ctx := ctxT(t)
	js := jstest.JetStream(t, nc)
	findings, err := jetstream.Check(ctx, js, cfg, vcfg)
	if err != nil || len(findings) > 0 {
		t.Fatalf("after the attacks the guard finds %q (%v)", findings, err)
	}
	s, err := js.Stream(ctx, "LEDGER")
	if err != nil {
		t.Fatal(err)
	}
	if st := s.CachedInfo().State; st.Msgs != msgs || st.FirstSeq != 1 {
		t.Fatalf("after the attacks LEDGER holds %d messages from %d, want %d from 1", st.Msgs, st.FirstSeq, msgs)
	}
}
