package campaign_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/keys"
)

// signedLedger is a ledger whose service signs with a key file's key,
// verifies what it reads and seals its vault.
func signedLedger(t *testing.T) (ledger, *keys.Keys, func(*keys.Keys) *campaign.Service) {
	t.Helper()
	l := openLedger(t, jetstream.Config{})
	k, err := keys.Create(filepath.Join(t.TempDir(), keys.DefaultFile), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := func(k *keys.Keys) *campaign.Service {
		v, err := k.SealVault(l.vault)
		if err != nil {
			t.Fatal(err)
		}
		return campaign.NewService(l.log, v, campaign.Options{Entropy: l.entropy, Signer: k.Signer, Keys: k.Keyring()})
	}
	return l, k, svc
}

// TestServiceSignsVerifiesAndSeals: every event the service appends is
// signed by the ledger's key; the dice seed sits sealed in the vault and
// is still revealed at the end; an event put on the battle's subject by
// someone with NATS write access and no key, chained correctly, stops the
// battle: the service names it and appends nothing on top of it.
func TestServiceSignsVerifiesAndSeals(t *testing.T) {
	ctx := context.Background()
	l, k, newSvc := signedLedger(t)
	svc := newSvc(k)
	started(t, svc)
	ring := k.Keyring()
	evs, err := l.log.Read(ctx, b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if a, err := ring.Check(&evs[i]); err != nil || a.Key != k.Signer.KeyHex() {
			t.Fatalf("v%d: %v", evs[i].Version, err)
		}
	}
	// The vault holds the seed sealed: its committed hex is nowhere in it.
	raw, err := l.vault.Get(ctx, "dice.c1.b1.battle")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte("LSV1")) {
		t.Fatalf("the vault holds %q", raw)
	}
	end := exec(t, svc, "end", "battle.end", "b1", map[string]string{"reason": "agreed"})
	var seed string
	for _, e := range end.Events {
		if e.Type == "dice.revealed" {
			var p struct{ Seed string }
			json.Unmarshal(e.Payload, &p)
			seed = p.Seed
		}
	}
	if len(seed) != 64 || bytes.Contains(raw, []byte(seed)) {
		t.Fatalf("revealed seed %q; sealed bytes %x", seed, raw)
	}

	// A forged event, chained correctly after the last one, signed with
	// another key; then one unsigned.
	other, err := keys.Create(filepath.Join(t.TempDir(), "other.key"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, forger := range []*events.Signer{other.Signer, nil} {
		l2, k2, newSvc2 := signedLedger(t)
		svc2 := newSvc2(k2)
		started(t, svc2)
		all, err := l2.log.Read(ctx, b1, 0)
		if err != nil {
			t.Fatal(err)
		}
		last := all[len(all)-1]
		forged := []events.Envelope{{ID: "c1/b1/forged/0", Campaign: "c1", Battle: "b1", Type: "battle.ended", Schema: 1,
			Actor: "umpire", CommandID: "forged", Audience: events.AudienceAll, Payload: json.RawMessage(`{"turn":1,"reason":"forged"}`)}}
		if err := events.ChainSigned(&last, forged, forger); err != nil {
			t.Fatal(err)
		}
		if err := l2.log.Append(ctx, b1, last.Sequence, forged); err != nil {
			t.Fatal(err)
		}
		before := lastSeq(t, l2.log)
		// A fresh service (nothing cached) and the running one alike.
		for _, s := range []*campaign.Service{newSvc2(k2), svc2} {
			_, err = s.Execute(ctx, campaign.Request{ID: "next", Principal: campaign.Operator(""), Campaign: "c1", Battle: "b1", Name: "phase.end", Body: json.RawMessage(`{"side":"red"}`)})
			var ns *events.NotSignedError
			if !errors.As(err, &ns) || ns.ID != "c1/b1/forged/0" || !strings.Contains(err.Error(), "not signed by the ledger") {
				t.Fatalf("forged by %v: %v", forger, err)
			}
		}
		if lastSeq(t, l2.log) != before {
			t.Fatal("the service appended on top of a forged event")
		}
	}
}

// TestChangeKey: a key change is recorded on each campaign's stream,
// signed by the old key; the new key signs from then on and a keyring
// that trusted the old key learns the new one from the log.
func TestChangeKey(t *testing.T) {
	ctx := context.Background()
	l, k, newSvc := signedLedger(t)
	svc := newSvc(k)
	started(t, svc)
	old, next, err := k.Rotate(lastSeq(t, l.log), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.ChangeKey(ctx, []string{"c1"}, next.Signer); err != nil {
		t.Fatal(err)
	}
	if err := svc.ChangeKey(ctx, []string{"c1"}, next.Signer); err != nil {
		t.Fatalf("again: %v", err)
	}
	camp, err := l.log.Read(ctx, events.Key{Campaign: "c1"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var changes []events.Envelope
	for _, e := range camp {
		if e.Type == events.KeyChangedType {
			changes = append(changes, e)
		}
	}
	if len(changes) != 1 || changes[0].Signer != old.KeyHex() {
		t.Fatalf("key changes on the campaign stream: %d", len(changes))
	}
	// Whoever trusted only the old key learns the new one from the log.
	ring := events.NewKeyring(1, events.TrustedKey{Key: old.KeyHex()})
	if err := ring.Learn(&changes[0]); err != nil {
		t.Fatal(err)
	}
	svc2 := newSvc(next)
	exec(t, svc2, "after", "phase.end", "b1", map[string]string{"side": "red"})
	evs, err := l.log.Read(ctx, b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	lastEv := evs[len(evs)-1]
	if lastEv.Signer != next.Signer.KeyHex() || evs[0].Signer != old.KeyHex() {
		t.Fatal("signers before and after the change")
	}
	for _, r := range []*events.Keyring{ring, next.Keyring()} {
		for i := range evs {
			if _, err := r.Check(&evs[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := svc2.ChangeKey(ctx, []string{"c1"}, next.Signer); err == nil {
		t.Fatal("a change to the current key")
	}
}
