package jetstream_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

func TestVault(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc := jstest.RunServer(t)
	v, err := jetstream.OpenVault(ctx, jstest.JetStream(t, nc), jetstream.VaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	testVault(t, v)

	// Reopening keeps what was sealed.
	v2, err := jetstream.OpenVault(ctx, jstest.JetStream(t, nc), jetstream.VaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := v2.Get(ctx, "dice.c1.b1.seed.1"); err != nil || string(got) != "s3cr3t" {
		t.Fatalf("after reopening: %q, %v", got, err)
	}
	if _, err := jetstream.OpenVault(ctx, jstest.JetStream(t, nc), jetstream.VaultConfig{Replicas: 9}); err == nil {
		t.Fatal("OpenVault accepted 9 replicas")
	}
}

// testVault checks the events.Vault contract on v.
func testVault(t *testing.T, v events.Vault) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const name = "dice.c1.b1.seed.1"
	if _, err := v.Get(ctx, name); !errors.Is(err, events.ErrNotFound) {
		t.Fatalf("get before put: %v, want ErrNotFound", err)
	}
	if err := v.Put(ctx, name, []byte("s3cr3t")); err != nil {
		t.Fatal(err)
	}
	got, err := v.Get(ctx, name)
	if err != nil || string(got) != "s3cr3t" {
		t.Fatalf("get: %q, %v", got, err)
	}
	// The same value again: a retried command.
	if err := v.Put(ctx, name, []byte("s3cr3t")); err != nil {
		t.Fatalf("put of the same value again: %v", err)
	}
	// A different value: refused, and the sealed value stays.
	err = v.Put(ctx, name, []byte("other"))
	if err == nil {
		t.Fatal("put of a different value accepted")
	}
	if errors.Is(err, events.ErrNotFound) {
		t.Fatalf("refusal reported as not found: %v", err)
	}
	if got, err := v.Get(ctx, name); err != nil || string(got) != "s3cr3t" {
		t.Fatalf("after the refused put: %q, %v", got, err)
	}
	// Names are independent; an empty value is a value.
	if err := v.Put(ctx, "orders.c1.b1.flank.red", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Get(ctx, "orders.c1.b1.flank.red"); err != nil || len(got) != 0 {
		t.Fatalf("empty value: %q, %v", got, err)
	}
	if err := v.Put(ctx, "orders.c1.b1.flank.red", []byte("x")); err == nil {
		t.Fatal("overwrote an empty sealed value")
	}
	if _, err := v.Get(ctx, "dice.c1.b1.seed.2"); !errors.Is(err, events.ErrNotFound) {
		t.Fatalf("get of another name: %v, want ErrNotFound", err)
	}
	if err := v.Put(ctx, "bad name*", []byte("x")); err == nil {
		t.Fatal("put accepted an invalid name")
	}
}
