package jetstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
)

// kvOperationHeader marks a KV delete or purge.
const kvOperationHeader = "KV-Operation"

// DefaultVaultBucket is the KV bucket the vault keeps sealed values in.
const DefaultVaultBucket = "LEDGER_SEALED"

// VaultConfig describes the vault's bucket.
type VaultConfig struct {
	// Bucket is the KV bucket name (default DefaultVaultBucket).
	Bucket string
	// Replicas is how many servers keep each value (default 1); use the
	// log's.
	Replicas int
}

// Vault keeps sealed values in a JetStream key-value bucket, apart from the
// log. A name is written once: Put never overwrites a different value.
type Vault struct {
	kv     natsjs.KeyValue
	js     natsjs.JetStream
	bucket string
}

var _ events.Vault = (*Vault)(nil)

// OpenVault creates the vault's bucket, or updates its configuration, and
// returns the vault. Like Open, it retries while a cluster is not ready.
func OpenVault(ctx context.Context, js natsjs.JetStream, cfg VaultConfig) (*Vault, error) {
	if cfg.Bucket == "" {
		cfg.Bucket = DefaultVaultBucket
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Replicas < 1 || cfg.Replicas > 5 {
		return nil, fmt.Errorf("jetstream: vault replicas %d: want 1 to 5", cfg.Replicas)
	}
	var kv natsjs.KeyValue
	err := retryAdmin(ctx, func(ctx context.Context) error {
		var err error
		kv, err = js.CreateOrUpdateKeyValue(ctx, natsjs.KeyValueConfig{
			Bucket:      cfg.Bucket,
			Description: "campaign ledger sealed values (written once)",
			History:     1,
			Storage:     natsjs.FileStorage,
			Replicas:    cfg.Replicas,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("jetstream: open vault %s: %w", cfg.Bucket, err)
	}
	return &Vault{kv: kv, js: js, bucket: cfg.Bucket}, nil
}

// Put stores value under name, once. Putting the same value again succeeds
// (a retried command); a different value is refused.
func (v *Vault) Put(ctx context.Context, name string, value []byte) error {
	_, err := v.kv.Create(ctx, name, value)
	if err == nil {
		return nil
	}
	if !errors.Is(err, natsjs.ErrKeyExists) {
		return fmt.Errorf("jetstream: vault put %s: %w", name, err)
	}
	old, err := v.get(ctx, name)
	if err != nil {
		return fmt.Errorf("jetstream: vault put %s: read the sealed value: %w", name, err)
	}
	if !bytes.Equal(old, value) {
		return fmt.Errorf("jetstream: vault put %s: already sealed with a different value", name)
	}
	return nil
}

// Get returns the value under name, or an error wrapping events.ErrNotFound.
func (v *Vault) Get(ctx context.Context, name string) ([]byte, error) {
	val, err := v.get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("jetstream: vault get %s: %w", name, err)
	}
	return val, nil
}

// get reads name with a direct get, which any replica may answer. A replica
// lagging behind the leader may not have a fresh value yet, so "not found"
// is confirmed with the leader before it is believed; the leader also
// answers when no replica serves direct gets yet.
func (v *Vault) get(ctx context.Context, name string) ([]byte, error) {
	e, err := v.kv.Get(ctx, name)
	if err == nil {
		return e.Value(), nil
	}
	if !errors.Is(err, natsjs.ErrKeyNotFound) && !errors.Is(err, nats.ErrNoResponders) {
		return nil, err
	}
	_, hdr, data, err := leaderGet(ctx, v.js, "KV_"+v.bucket, leaderGetRequest{LastFor: "$KV." + v.bucket + "." + name})
	switch {
	case errors.Is(err, errNoMessage):
		return nil, events.ErrNotFound
	case err != nil:
		return nil, err
	case hdr.Get(kvOperationHeader) != "":
		// A delete or purge marker left by an operator's tool.
		return nil, events.ErrNotFound
	}
	return data, nil
}
