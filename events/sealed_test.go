package events_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

// TestSealedVault runs the sealed vault over the real JetStream vault:
// the bucket holds ciphertext bound to its name, the vault's write-once
// rule holds through the sealing, and a value copied under another name,
// altered, sealed with another key or planted in clear does not open.
func TestSealedVault(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc := jstest.RunServer(t)
	js := jstest.JetStream(t, nc)
	inner, err := jetstream.OpenVault(ctx, js, jetstream.VaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{7}, events.VaultKeySize)
	v, err := events.NewSealedVault(inner, key)
	if err != nil {
		t.Fatal(err)
	}
	seed := []byte("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
	if err := v.Put(ctx, "dice.c1.b1.battle", seed); err != nil {
		t.Fatal(err)
	}
	// Reading the bucket itself (the JetStream vault under the sealing,
	// which stores what it is given) gives ciphertext, not the seed.
	stored, err := inner.Get(ctx, "dice.c1.b1.battle")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stored, seed) || bytes.Contains(stored, seed[:16]) || !bytes.HasPrefix(stored, []byte("LSV1")) {
		t.Fatalf("the bucket holds %q", stored)
	}
	if got, err := v.Get(ctx, "dice.c1.b1.battle"); err != nil || !bytes.Equal(got, seed) {
		t.Fatalf("get: %q %v", got, err)
	}
	// Write once, through the sealing: the same value again is fine (a
	// retried command), another is refused.
	if err := v.Put(ctx, "dice.c1.b1.battle", seed); err != nil {
		t.Fatalf("the same value again: %v", err)
	}
	if err := v.Put(ctx, "dice.c1.b1.battle", []byte("another")); err == nil {
		t.Fatal("a sealed value was replaced")
	}
	if _, err := v.Get(ctx, "dice.c1.b1.none"); !errors.Is(err, events.ErrNotFound) {
		t.Fatalf("missing name: %v", err)
	}
	// Copied under another name: the name is the additional data.
	if err := inner.Put(ctx, "dice.c1.b2.battle", stored); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(ctx, "dice.c1.b2.battle"); err == nil || !strings.Contains(err.Error(), "sealed under another name") {
		t.Fatalf("copied value: %v", err)
	}
	// Altered: every byte after the magic.
	for i := 4; i < len(stored); i++ {
		b := bytes.Clone(stored)
		b[i] ^= 1
		if got, err := v.Open("dice.c1.b1.battle", b); err == nil {
			t.Fatalf("byte %d flipped still opens: %q", i, got)
		}
	}
	// Another key: named as such.
	other, _ := events.NewSealedVault(inner, bytes.Repeat([]byte{8}, events.VaultKeySize))
	if _, err := other.Get(ctx, "dice.c1.b1.battle"); err == nil || !strings.Contains(err.Error(), "sealed with vault key "+v.KeyID()) {
		t.Fatalf("other key: %v", err)
	}
	// Planted in clear by someone with write access and no key.
	if err := inner.Put(ctx, "dice.c1.b1.2", []byte("0000")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(ctx, "dice.c1.b1.2"); !errors.Is(err, events.ErrPlain) {
		t.Fatalf("value in clear: %v", err)
	}
	v.ReadPlain = true
	if got, err := v.Get(ctx, "dice.c1.b1.2"); err != nil || string(got) != "0000" {
		t.Fatalf("value in clear with ReadPlain: %q %v", got, err)
	}
	if _, err := events.NewSealedVault(inner, key[:16]); err == nil {
		t.Fatal("a 16-byte key was accepted")
	}
}
