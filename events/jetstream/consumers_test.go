package jetstream_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

// TestNoConsumerStays is issue 25, item 6: the tools user could create a
// durable consumer on LEDGER, which stays on the stream for ever and which
// it cannot delete, and the stream guard did not look at consumers. The
// documented reading (docs/deploy.md: `nats stream view`) itself makes a
// durable consumer, asking to be dropped an hour after its last use, so the
// stream's consumer limit, not the tools' permissions, bounds them all.
//
// On the embedded server as `ledger serve --nats-listen` starts it: tools,
// over TCP, is refused the legacy durable create, a durable name on the
// unnamed create and a consumer asking to be kept a day; a durable consumer
// asking nothing is given the stream's hour; it still reads the log with
// an ordered consumer and with a pager made as the nats CLI makes it. The
// guard (Check) names none of these nor the ledger's own ordered consumer.
// With the limit lifted behind the ledger's back, consumers that last are
// made; the guard names the lifted limit and each of them with the command
// that removes it; Provision (every start of the embedded server) removes
// them, says so and puts the limit back, and the guard names nothing. No
// event is lost on the way.
// provisioned starts an embedded server (listening on listen, if set) with
// the ledger's stream and vault provisioned, connects as the ledger, and
// opens both; the test ends them.
func provisioned(t *testing.T, listen string) (*jetstream.Embedded, *nats.Conn, *jetstream.Log) {
	t.Helper()
	e, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: t.TempDir(), Listen: listen})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	cfg, vcfg := jetstream.Config{}, jetstream.VaultConfig{}
	if _, err := e.Provision(ctxT(t), cfg, vcfg); err != nil {
		t.Fatal(err)
	}
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	l := jstest.OpenLog(t, nc, cfg)
	jstest.OpenVault(t, nc, vcfg)
	return e, nc, l
}

func TestNoConsumerStays(t *testing.T) {
	e, nc, l := provisioned(t, "127.0.0.1:0")
	ctx := ctxT(t)
	cfg, vcfg := jetstream.Config{}, jetstream.VaultConfig{}
	appendN(t, l, events.Key{Campaign: "c1", Battle: "b1"}, nil, 3, "cmd")
	ljs := jstest.JetStream(t, nc)

	// The ledger follows the log, as its projections do: its own ordered
	// consumer, which the guard must not name.
	fctx, stop := context.WithCancel(ctx)
	caught := make(chan struct{})
	followed := make(chan error, 1)
	go func() {
		followed <- l.Follow(fctx, 0, func(events.Envelope) error { return nil }, func() { close(caught) })
	}()
	t.Cleanup(func() { stop(); <-followed })
	select {
	case <-caught:
	case err := <-followed:
		t.Fatalf("follow: %v", err)
	case <-ctx.Done():
		t.Fatal("the ledger's follow did not catch up")
	}

	// Tools, over TCP, as docs/deploy.md says.
	co := e.ClientOptions(jetstream.UserTools)
	tools, err := jstest.Dial(t, "tools", e.ClientURL(), nats.UserInfo(co.User, co.Password), nats.CustomInboxPrefix(jetstream.ToolsInboxPrefix))
	if err != nil {
		t.Fatal(err)
	}
	durable := func(name, more string) []byte {
		return []byte(`{"stream_name":"LEDGER","config":{"durable_name":"` + name + `","ack_policy":"explicit","deliver_policy":"all"` + more + `}}`)
	}
	if r, err := tools.Request("$JS.API.CONSUMER.DURABLE.CREATE.LEDGER.keep", nil, durable("keep", "")); err != nil || !r.Permission {
		t.Errorf("tools: the legacy durable create: %v %v, want refused by the permissions", r, err)
	}
	if r, err := tools.Request("$JS.API.CONSUMER.CREATE.LEDGER", nil, durable("keep", "")); err != nil || r.API == nil || !strings.Contains(r.API.Description, "durable") {
		t.Errorf("tools: a durable name on the unnamed create: %v %v, want refused by the server", r, err)
	}
	day := `,"inactive_threshold":86400000000000`
	if r, err := tools.Request("$JS.API.CONSUMER.CREATE.LEDGER.keep", nil, durable("keep", day)); err != nil || r.API == nil || !strings.Contains(strings.ToLower(r.API.Description), "inactive threshold") {
		t.Errorf("tools: a durable consumer kept a day: %v %v, want refused by the server for the stream's limit", r, err)
	}
	tjs := jstest.JetStream(t, tools.NC)
	c, err := tjs.CreateConsumer(ctx, "LEDGER", natsjs.ConsumerConfig{Durable: "keep", AckPolicy: natsjs.AckExplicitPolicy})
	if err != nil {
		t.Fatalf("tools: a durable consumer asking nothing: %v", err)
	}
	if got := c.CachedInfo().Config.InactiveThreshold; got != jetstream.ConsumerIdle {
		t.Fatalf("tools: a durable consumer asking nothing is kept %s after its last use, want the stream's limit %s", got, jetstream.ConsumerIdle)
	}
	// Reading: an ordered consumer, and the pager of `nats stream view`
	// (nats-io/jsm.go StreamPager: durable, an hour, memory, one replica,
	// acknowledged as it pages).
	oc, err := tjs.OrderedConsumer(ctx, "LEDGER", natsjs.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pager, err := tjs.CreateConsumer(ctx, "LEDGER", natsjs.ConsumerConfig{
		Durable: "stream_pager_1", Description: "JSM Stream Pager", InactiveThreshold: time.Hour,
		MemoryStorage: true, Replicas: 1, AckPolicy: natsjs.AckExplicitPolicy, DeliverPolicy: natsjs.DeliverAllPolicy,
	})
	if err != nil {
		t.Fatalf("tools: the pager of nats stream view: %v", err)
	}
	for _, r := range []struct {
		name string
		c    natsjs.Consumer
	}{{"ordered consumer", oc}, {"pager", pager}} {
		b, err := r.c.Fetch(3, natsjs.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range b.Messages() {
			if r.name == "pager" {
				if err := m.Ack(); err != nil {
					t.Fatal(err)
				}
			}
			n++
		}
		if n != 3 {
			t.Fatalf("tools: %s read %d of 3 events (%v)", r.name, n, b.Error())
		}
	}

	names := func() []string {
		t.Helper()
		st, err := ljs.Stream(ctx, "LEDGER")
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		l := st.ListConsumers(ctx)
		for ci := range l.Info() {
			n = append(n, ci.Name)
		}
		if err := l.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// (An ordered consumer replaces its consumer after a fetch; the tools
	// cannot delete the one it replaces, which the server drops 5 minutes
	// after its last use.)
	if n := names(); len(n) < 4 || !slices.Contains(n, "keep") || !slices.Contains(n, "stream_pager_1") {
		t.Fatalf("consumers on LEDGER: %q, want the ledger's, the tools' ordered ones, keep and the pager", n)
	}
	if f, err := jetstream.Check(ctx, ljs, cfg, vcfg); err != nil || len(f) != 0 {
		t.Fatalf("the guard with no lasting consumer on the stream: %q %v", f, err)
	}

	// Behind the ledger's back, the limit is lifted (as the administrator,
	// who may change the configuration) and lasting consumers are made
	// (with the ledger's credentials, which allow a consumer create).
	admin, err := e.ConnectAdmin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	ajs := jstest.JetStream(t, admin)
	sc, err := cfg.StreamConfig()
	if err != nil {
		t.Fatal(err)
	}
	lifted := sc
	lifted.ConsumerLimits = natsjs.StreamConsumerLimits{}
	if _, err := ajs.UpdateStream(ctx, lifted); err != nil {
		t.Fatal(err)
	}
	if _, err := ljs.CreateConsumer(ctx, "LEDGER", natsjs.ConsumerConfig{Durable: "forever", AckPolicy: natsjs.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	if _, err := ljs.CreateConsumer(ctx, "LEDGER", natsjs.ConsumerConfig{Name: "linger", AckPolicy: natsjs.AckNonePolicy, InactiveThreshold: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	f, err := jetstream.Check(ctx, ljs, cfg, vcfg)
	if err != nil || len(f) != 3 {
		t.Fatalf("the guard with the limit lifted and two lasting consumers: %q %v, want 3 findings", f, err)
	}
	for i, want := range [][]string{
		{"stream LEDGER: consumer_limits.inactive_threshold is 0s, so a consumer can be kept on the stream for ever (the ledger needs 1h0m0s", "administrator"},
		{"stream LEDGER: consumer forever is durable and kept for ever", "removes no event", "nats --user admin --inbox-prefix _INBOX_admin consumer rm LEDGER forever -f"},
		{"stream LEDGER: consumer linger is kept 24h0m0s after its last use (the limit is 1h0m0s)", "consumer rm LEDGER linger -f"},
	} {
		found := false
		for _, got := range f {
			ok := strings.HasPrefix(got, want[0])
			for _, w := range want[1:] {
				ok = ok && strings.Contains(got, w)
			}
			found = found || ok
		}
		if !found {
			t.Errorf("finding %d: none starts %q and says %q: %q", i, want[0], want[1:], f)
		}
	}
	// Provision (every start of the embedded server, as the administrator)
	// removes them, says so, and puts the limit back.
	changes, err := e.Provision(ctx, cfg, vcfg)
	if err != nil || len(changes) != 3 ||
		!strings.HasPrefix(changes[0], "removed consumer forever of stream LEDGER: it is durable and kept for ever") ||
		!strings.HasPrefix(changes[1], "removed consumer linger of stream LEDGER: it is kept 24h0m0s after its last use") ||
		changes[2] != "updated the configuration of stream LEDGER" {
		t.Fatalf("provision over two lasting consumers: %q %v", changes, err)
	}
	if n := names(); slices.Contains(n, "forever") || slices.Contains(n, "linger") || !slices.Contains(n, "keep") || !slices.Contains(n, "stream_pager_1") {
		t.Fatalf("consumers after provision: %q", n)
	}
	if st, err := ajs.Stream(ctx, "LEDGER"); err != nil || st.CachedInfo().Config.ConsumerLimits.InactiveThreshold != jetstream.ConsumerIdle {
		t.Fatalf("the consumer limit after provision: %v", err)
	}
	// Provision again changes nothing.
	if changes, err := e.Provision(ctx, cfg, vcfg); err != nil || len(changes) != 0 {
		t.Fatalf("provision again: %q %v", changes, err)
	}
	if f, err := jetstream.Check(ctx, ljs, cfg, vcfg); err != nil || len(f) != 0 {
		t.Fatalf("the guard after: %q %v", f, err)
	}
	if st, err := ljs.Stream(ctx, "LEDGER"); err != nil || st.CachedInfo().State.Msgs != 3 {
		t.Fatalf("the stream after: %v", err)
	}
}

// TestGuardListsConsumersApart: the readiness probe's Guard reads both
// configurations at every Check, but gives the consumers of its last
// listing, made again in the background (a cluster with a server down
// lists them in up to 4 s, and a probe that listed them itself took its
// whole 2 s, issue 24). A lifted limit is named at the next Check; a
// lasting consumer made since the last listing is named once a listing
// has run again, without a Check waiting for it.
func TestGuardListsConsumersApart(t *testing.T) {
	e, nc, _ := provisioned(t, "")
	ctx := ctxT(t)
	cfg, vcfg := jetstream.Config{}, jetstream.VaultConfig{}
	ljs := jstest.JetStream(t, nc)
	g := jetstream.NewGuard(ljs, cfg, vcfg)
	if f, err := g.Check(ctx); err != nil || len(f) != 0 {
		t.Fatalf("the first check: %q %v", f, err)
	}

	admin, err := e.ConnectAdmin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	sc, err := cfg.StreamConfig()
	if err != nil {
		t.Fatal(err)
	}
	lifted := sc
	lifted.ConsumerLimits = natsjs.StreamConsumerLimits{}
	if _, err := jstest.JetStream(t, admin).UpdateStream(ctx, lifted); err != nil {
		t.Fatal(err)
	}
	if _, err := ljs.CreateConsumer(ctx, "LEDGER", natsjs.ConsumerConfig{Durable: "forever", AckPolicy: natsjs.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	forever := func(f []string) bool {
		return slices.ContainsFunc(f, func(s string) bool { return strings.Contains(s, "consumer forever is durable") })
	}
	f, err := g.Check(ctx)
	if err != nil || len(f) != 1 || !strings.Contains(f[0], "consumer_limits.inactive_threshold is 0s") {
		t.Fatalf("the next check names the lifted limit only (the consumers listed %s ago are given): %q %v", jetstream.ConsumersEvery, f, err)
	}
	jetstream.SetGuardEvery(g, 0)
	for {
		f, err = g.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if forever(f) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the background listing never named the lasting consumer: %q", f)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if len(f) != 2 {
		t.Fatalf("with the listing done: %q, want the limit and the consumer", f)
	}
}
