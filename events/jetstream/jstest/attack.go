package jstest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events/jetstream"
)

// Attacker is a client connection that tries what it should not, and
// collects how the server refuses: permission violations arrive
// asynchronously, API refusals as answers.
type Attacker struct {
	// NC is the connection.
	NC *nats.Conn
	// Name says who it is, in failures.
	Name string

	mu   sync.Mutex
	errs []error
}

// AttackerOptions returns the options that make a connection report its
// refusals to a; pass them to nats.Connect, then set a.NC.
func (a *Attacker) Options() []nats.Option {
	return []nats.Option{nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		a.mu.Lock()
		a.errs = append(a.errs, err)
		a.mu.Unlock()
	})}
}

// Dial connects to url as an attacker with opts (user, inbox prefix); it
// returns the server's error when the connection itself is refused.
func Dial(tb testing.TB, name, url string, opts ...nats.Option) (*Attacker, error) {
	tb.Helper()
	a := &Attacker{Name: name}
	nc, err := nats.Connect(url, append(a.Options(), append([]nats.Option{nats.Name(name), nats.MaxReconnects(0)}, opts...)...)...)
	if err != nil {
		return nil, err
	}
	tb.Cleanup(nc.Close)
	a.NC = nc
	return a, nil
}

func (a *Attacker) violated(op, subject string) bool {
	want := fmt.Sprintf("Permissions Violation for %s to %q", op, subject)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, err := range a.errs {
		if strings.Contains(err.Error(), want) {
			return true
		}
	}
	return false
}

// Refusal is how the server refused an attempt.
type Refusal struct {
	// Permission is true when the user's permissions refused it.
	Permission bool
	// API is the JetStream API error that refused it otherwise.
	API *natsjs.APIError
}

func (r Refusal) String() string {
	if r.Permission {
		return "refused by the user's permissions"
	}
	return fmt.Sprintf("refused by the server: %v", r.API)
}

// Request sends body to subject (with headers hdr, may be nil) and returns
// how it was refused, or an error saying it was not: it was answered
// without an error, or neither answered nor refused within 3 s.
func (a *Attacker) Request(subject string, hdr nats.Header, body []byte) (Refusal, error) {
	inbox := a.NC.NewRespInbox()
	sub, err := a.NC.SubscribeSync(inbox)
	if err != nil {
		return Refusal{}, err
	}
	defer sub.Unsubscribe()
	if err := a.NC.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Header: hdr, Data: body}); err != nil {
		return Refusal{}, err
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if a.violated("Publish", subject) {
			return Refusal{Permission: true}, nil
		}
		m, err := sub.NextMsg(20 * time.Millisecond)
		if errors.Is(err, nats.ErrTimeout) {
			continue
		}
		if err != nil {
			return Refusal{}, err
		}
		var resp struct {
			Error *natsjs.APIError `json:"error"`
		}
		if json.Unmarshal(m.Data, &resp) == nil && resp.Error != nil {
			return Refusal{API: resp.Error}, nil
		}
		if st := m.Header.Get("Status"); st != "" && st != "200" {
			return Refusal{}, fmt.Errorf("%s to %s: answered status %s %s (not a refusal)", a.Name, subject, st, m.Header.Get("Description"))
		}
		return Refusal{}, fmt.Errorf("%s to %s: ANSWERED, not refused: %.300s", a.Name, subject, m.Data)
	}
	return Refusal{}, fmt.Errorf("%s to %s: neither answered nor refused within 3s", a.Name, subject)
}

// Subscribe tries to listen on subject and returns nil if the server
// refuses it.
func (a *Attacker) Subscribe(subject string) error {
	sub, err := a.NC.SubscribeSync(subject)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if a.violated("Subscription", subject) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("%s: subscription to %s was not refused", a.Name, subject)
}

// Attack is one of the attacks measured in issue 14, as a raw request.
type Attack struct {
	Name    string
	Subject string
	Header  nats.Header
	Body    []byte
	// VaultRead marks a read of a sealed value: refused to every user but
	// the ledger's.
	VaultRead bool
}

// Attacks returns the attacks on the ledger stream and the vault that no
// user may carry out: delete the stream, give it a limit by an update (or
// by a create naming it, which the server must refuse too), purge it,
// delete a message; read, purge, roll up, reconfigure or delete the vault.
// cfg and vcfg are the configurations the ledger runs with; vaultName is a
// name the vault holds.
func Attacks(tb testing.TB, cfg jetstream.Config, vcfg jetstream.VaultConfig, vaultName string) []Attack {
	tb.Helper()
	sc, err := cfg.StreamConfig()
	if err != nil {
		tb.Fatal(err)
	}
	vsc, err := vcfg.StreamConfig()
	if err != nil {
		tb.Fatal(err)
	}
	limited := sc
	limited.MaxMsgsPerSubject = 5
	ttl := sc
	ttl.AllowMsgTTL = true
	vlimited := vsc
	vlimited.MaxMsgsPerSubject = 1
	js := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	vsubj := "$KV." + strings.TrimPrefix(vsc.Name, "KV_") + "." + vaultName
	rollup := nats.Header{}
	rollup.Set("KV-Operation", "PURGE")
	rollup.Set("Nats-Rollup", "sub")
	return []Attack{
		{Name: "delete the stream", Subject: "$JS.API.STREAM.DELETE." + sc.Name, Body: []byte(`{}`)},
		{Name: "update the stream to max_msgs_per_subject=5", Subject: "$JS.API.STREAM.UPDATE." + sc.Name, Body: js(limited)},
		{Name: "update the stream to allow message TTLs", Subject: "$JS.API.STREAM.UPDATE." + sc.Name, Body: js(ttl)},
		{Name: "create the stream again with max_msgs_per_subject=5", Subject: "$JS.API.STREAM.CREATE." + sc.Name, Body: js(limited)},
		{Name: "purge the stream", Subject: "$JS.API.STREAM.PURGE." + sc.Name, Body: []byte(`{}`)},
		{Name: "purge a battle's subject", Subject: "$JS.API.STREAM.PURGE." + sc.Name, Body: []byte(`{"filter":"ledger.battle.>"}`)},
		{Name: "delete a message", Subject: "$JS.API.STREAM.MSG.DELETE." + sc.Name, Body: []byte(`{"seq":1}`)},
		{Name: "erase a message", Subject: "$JS.API.STREAM.MSG.DELETE." + sc.Name, Body: []byte(`{"seq":1,"no_erase":false}`)},
		{Name: "read the vault by direct get", Subject: "$JS.API.DIRECT.GET." + vsc.Name, Body: []byte(`{"seq":1}`), VaultRead: true},
		{Name: "read the vault's value by subject", Subject: "$JS.API.DIRECT.GET." + vsc.Name + "." + vsubj, VaultRead: true},
		{Name: "read the vault from its leader", Subject: "$JS.API.STREAM.MSG.GET." + vsc.Name, Body: []byte(`{"seq":1}`), VaultRead: true},
		{Name: "read the vault through a consumer", Subject: "$JS.API.CONSUMER.CREATE." + vsc.Name, Body: []byte(`{"stream_name":"` + vsc.Name + `","config":{"ack_policy":"none","deliver_policy":"all"}}`), VaultRead: true},
		{Name: "purge the vault", Subject: "$JS.API.STREAM.PURGE." + vsc.Name, Body: []byte(`{}`)},
		{Name: "delete a sealed value", Subject: "$JS.API.STREAM.MSG.DELETE." + vsc.Name, Body: []byte(`{"seq":1}`)},
		{Name: "delete the vault", Subject: "$JS.API.STREAM.DELETE." + vsc.Name, Body: []byte(`{}`)},
		{Name: "update the vault to one message per name", Subject: "$JS.API.STREAM.UPDATE." + vsc.Name, Body: js(vlimited)},
		{Name: "roll a sealed value up (a KV purge)", Subject: vsubj, Header: rollup, Body: nil},
		// A consumer that stays on the stream for ever, which only the
		// administrator could remove (issue 25, item 6): the legacy durable
		// create, a durable name on the unnamed create, and a consumer asking
		// to be kept a day after its last use (the stream's limit is an hour).
		{Name: "create a durable consumer (durable create)", Subject: "$JS.API.CONSUMER.DURABLE.CREATE." + sc.Name + ".intruder", Body: durable(sc.Name, "intruder", "")},
		{Name: "create a durable consumer (unnamed create)", Subject: "$JS.API.CONSUMER.CREATE." + sc.Name, Body: durable(sc.Name, "intruder", "")},
		{Name: "create a durable consumer kept a day (named create)", Subject: "$JS.API.CONSUMER.CREATE." + sc.Name + ".intruder", Body: durable(sc.Name, "intruder", `,"inactive_threshold":86400000000000`)},
		{Name: "create a consumer kept a day (named create)", Subject: "$JS.API.CONSUMER.CREATE." + sc.Name + ".lingerer", Body: []byte(`{"stream_name":"` + sc.Name + `","config":{"name":"lingerer","ack_policy":"none","deliver_policy":"all","inactive_threshold":86400000000000}}`)},
	}
}

// durable is the body of a request creating the durable consumer name on
// stream, with more fields of its configuration (",..." or "").
func durable(stream, name, more string) []byte {
	return []byte(`{"stream_name":"` + stream + `","config":{"durable_name":"` + name + `","ack_policy":"explicit","deliver_policy":"all"` + more + `}}`)
}

// Replay tries every attack as a and fails the test for each one the
// server carries out. allowVaultRead lets the vault reads through (the
// ledger's own user reads sealed values; the test does not try them).
func Replay(tb testing.TB, a *Attacker, attacks []Attack, allowVaultRead bool) {
	tb.Helper()
	for _, at := range attacks {
		if at.VaultRead && allowVaultRead {
			continue
		}
		r, err := a.Request(at.Subject, at.Header, at.Body)
		if err != nil {
			tb.Errorf("%s: %s: %v", a.Name, at.Name, err)
			continue
		}
		tb.Logf("%s: %s: %s", a.Name, at.Name, r)
	}
}
