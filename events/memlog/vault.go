package memlog

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/clubledger/ledger/events"
)

// Vault is an events.Vault in memory, for tests beside Log: a name is
// put once (again only with the same value), never changed.
type Vault struct {
	mu     sync.Mutex
	values map[string][]byte
}

var _ events.Vault = (*Vault)(nil)

// NewVault returns an empty vault.
func NewVault() *Vault { return &Vault{values: map[string][]byte{}} }

// Put stores value under name; a second Put of the name is refused unless
// the value is the same.
func (v *Vault) Put(ctx context.Context, name string, value []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("memlog: vault: an empty name")
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if have, ok := v.values[name]; ok {
		if bytes.Equal(have, value) {
			return nil
		}
		return fmt.Errorf("memlog: vault: %s holds another value: a sealed value never changes", name)
	}
	v.values[name] = append([]byte(nil), value...)
	return nil
}

// Get returns the value under name, or events.ErrNotFound.
func (v *Vault) Get(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	b, ok := v.values[name]
	if !ok {
		return nil, fmt.Errorf("memlog: vault: %s: %w", name, events.ErrNotFound)
	}
	return append([]byte(nil), b...), nil
}
