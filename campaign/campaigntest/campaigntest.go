// Package campaigntest opens a ledger for a test: a log and a vault (on an
// embedded NATS server with JetStream, or in memory), fixed dice
// (internal/dicetest), optional signing keys, and the campaign.Service on
// them; and runs commands through it. Everything it starts is stopped by
// tb.Cleanup.
//
// Only test code imports this package (the ledger binary never does:
// cmd/ledger's dependency test checks it). Package campaign's own tests
// cannot import it, as it imports campaign.
package campaigntest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/keys"
	"github.com/clubledger/ledger/rules"
)

// Options choose the ledger Open opens. The zero value is the ledger on a
// fresh embedded JetStream server, unsigned, with the test's fixed dice.
type Options struct {
	// Memory puts the log and the vault in memory (events/memlog), without
	// a server: for what stands above the log.
	Memory bool
	// Log, when set, is the log the ledger appends to (the test's own: a
	// wrapper of memlog.New that injects a fault, or a log another ledger
	// of the test already wrote); the vault is then in memory.
	Log events.Log
	// JetStream configures the JetStream log (not with Memory or Log).
	JetStream jetstream.Config
	// Keys makes a key file in a temporary folder (keys.Create): the vault
	// is sealed with its key, and the service signs every event with it
	// and verifies what it reads by its keyring, as the served ledger does.
	Keys bool
	// Service are the service's options. Entropy defaults to the test's
	// fixed dice (dicetest.Entropy); with Keys, Signer and Keys default to
	// the key file's.
	Service campaign.Options
}

// Ledger is a ledger opened for a test.
type Ledger struct {
	// Log is the log the service appends to.
	Log events.Log
	// Vault is the vault as opened, not sealed: on JetStream a
	// *jetstream.Vault, in memory a *memlog.Vault. With Options.Keys the
	// service keeps its values sealed in it.
	Vault events.Vault
	// Conn is the connection to the embedded server, as the ledger user
	// (nil in memory): for writing behind the service's back.
	Conn *nats.Conn
	// Keys is the key file (nil without Options.Keys).
	Keys *keys.Keys
	// Service is the campaign service on Log and Vault.
	Service *campaign.Service
}

// Open opens a ledger for tb as opts say, failing the test if it cannot.
func Open(tb testing.TB, opts Options) *Ledger {
	tb.Helper()
	l := &Ledger{}
	switch {
	case opts.Log != nil:
		l.Log, l.Vault = opts.Log, memlog.NewVault()
	case opts.Memory:
		l.Log, l.Vault = memlog.New(), memlog.NewVault()
	default:
		l.Conn = jstest.RunServer(tb)
		l.Log = jstest.OpenLog(tb, l.Conn, opts.JetStream)
		l.Vault = jstest.OpenVault(tb, l.Conn, jetstream.VaultConfig{})
	}
	vault := l.Vault
	so := opts.Service
	if so.Entropy == nil {
		so.Entropy = dicetest.Entropy(tb)
	}
	if opts.Keys {
		k, err := keys.Create(filepath.Join(tb.TempDir(), keys.DefaultFile), 1, nil)
		if err != nil {
			tb.Fatalf("campaigntest: %v", err)
		}
		sealed, err := k.SealVault(l.Vault)
		if err != nil {
			tb.Fatalf("campaigntest: %v", err)
		}
		l.Keys, vault = k, sealed
		if so.Signer == nil {
			so.Signer = k.Signer
		}
		if so.Keys == nil {
			so.Keys = k.Keyring()
		}
	}
	l.Service = campaign.NewService(l.Log, vault, so)
	return l
}

// Read returns the events of the stream key, failing the test if the log
// does not answer.
func (l *Ledger) Read(tb testing.TB, key events.Key) []events.Envelope {
	tb.Helper()
	evs, err := l.Log.Read(context.Background(), key, 0)
	if err != nil {
		tb.Fatalf("campaigntest: read %s: %v", key, err)
	}
	return evs
}

// Do runs req through svc and returns its outcome. A refused command fails
// the test with the refusal's words (its rule, code and message), any
// other error with the error.
func Do(tb testing.TB, svc *campaign.Service, req campaign.Request) campaign.Outcome {
	tb.Helper()
	out, err := svc.Execute(context.Background(), req)
	if err != nil {
		var r *rules.Refusal
		if errors.As(err, &r) {
			tb.Fatalf("%s %s refused (%s): %v", req.ID, req.Name, r.Code, err)
		}
		tb.Fatalf("%s %s: %v", req.ID, req.Name, err)
	}
	return out
}

// Try runs req through svc and returns what it answers, for a test that
// expects a refusal (rules.Refusal, errors.As) or another error.
func Try(svc *campaign.Service, req campaign.Request) (campaign.Outcome, error) {
	return svc.Execute(context.Background(), req)
}

// Body is v as a command's JSON body, failing the test if it does not
// encode.
func Body(tb testing.TB, v any) json.RawMessage {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("campaigntest: body: %v", err)
	}
	return b
}
