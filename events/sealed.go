package events

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// SealedVault encrypts what it stores in another Vault (docs/principles.md
// principle 6): whoever reads the bucket underneath, with the NATS tools or
// from a backup, gets ciphertext. The key (VaultKeySize random bytes) is
// kept outside NATS, in the ledger's key file (package keys).
//
// A value is sealed with AES-256-GCM. The additional data is the value's
// name, so a ciphertext copied under another name does not open. The nonce
// is synthetic: HMAC-SHA256 over the name and the value, so sealing the same
// value under the same name gives the same bytes, and the inner vault's
// write-once rule (the same value again succeeds, another is refused) holds
// through it. Stored form:
//
//	"LSV1" | key id (8 bytes) | nonce (12) | AES-256-GCM ciphertext and tag
//
// The key id names which vault key sealed a value, so a value sealed with
// another key is named as such, not as damaged.
type SealedVault struct {
	inner    Vault
	aead     cipher.AEAD
	nonceKey []byte
	id       []byte
	// ReadPlain accepts values stored in clear by a ledger that did not
	// seal its vault yet (returned as they are). Off by default: a value in
	// clear could have been planted by someone with write access to the
	// bucket and no key.
	ReadPlain bool
}

var _ Vault = (*SealedVault)(nil)

// VaultKeySize is the size of a vault key.
const VaultKeySize = 32

const (
	sealedMagic  = "LSV1"
	sealedIDSize = 8
	sealedNonce  = 12
	sealedHeader = len(sealedMagic) + sealedIDSize + sealedNonce
	vaultAD      = "ledger-vault-v1\x00"
)

// NewSealedVault returns a vault that seals values with key before storing
// them in inner.
func NewSealedVault(inner Vault, key []byte) (*SealedVault, error) {
	if len(key) != VaultKeySize {
		return nil, fmt.Errorf("events: vault key of %d bytes, want %d", len(key), VaultKeySize)
	}
	derive := func(info string, n int) []byte {
		b, err := hkdf.Key(sha256.New, key, nil, info, n)
		if err != nil {
			panic(err) // only for lengths hkdf cannot give
		}
		return b
	}
	block, err := aes.NewCipher(derive("ledger-vault-v1 seal", 32))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &SealedVault{inner: inner, aead: aead, nonceKey: derive("ledger-vault-v1 nonce", 32), id: derive("ledger-vault-v1 key id", sealedIDSize)}, nil
}

// KeyID returns the hex id of the vault key (not secret), as sealed values
// carry it.
func (v *SealedVault) KeyID() string { return hex.EncodeToString(v.id) }

func (v *SealedVault) ad(name string) []byte { return append([]byte(vaultAD), name...) }

// Seal returns the stored form of value under name.
func (v *SealedVault) Seal(name string, value []byte) []byte {
	m := hmac.New(sha256.New, v.nonceKey)
	fmt.Fprintf(m, "%d:%s", len(name), name)
	m.Write(value)
	nonce := m.Sum(nil)[:sealedNonce]
	out := make([]byte, 0, sealedHeader+len(value)+v.aead.Overhead())
	out = append(out, sealedMagic...)
	out = append(out, v.id...)
	out = append(out, nonce...)
	return v.aead.Seal(out, nonce, value, v.ad(name))
}

// ErrPlain is returned (wrapped) by Get for a value stored in clear.
var ErrPlain = errors.New("events: the sealed value is stored in clear")

// Open returns the value sealed under name in stored.
func (v *SealedVault) Open(name string, stored []byte) ([]byte, error) {
	if !bytes.HasPrefix(stored, []byte(sealedMagic)) {
		if v.ReadPlain {
			return stored, nil
		}
		return nil, fmt.Errorf("events: vault %s: %w (written before the vault was sealed, or by someone without its key): it is not read; a ledger that sealed its values before may read them with ReadPlain", name, ErrPlain)
	}
	if len(stored) < sealedHeader+v.aead.Overhead() {
		return nil, fmt.Errorf("events: vault %s: %d bytes, too short for a sealed value", name, len(stored))
	}
	id := stored[len(sealedMagic) : len(sealedMagic)+sealedIDSize]
	if !bytes.Equal(id, v.id) {
		return nil, fmt.Errorf("events: vault %s was sealed with vault key %x; this ledger's vault key is %s: use the key file it was written with", name, id, v.KeyID())
	}
	nonce := stored[len(sealedMagic)+sealedIDSize : sealedHeader]
	out, err := v.aead.Open(nil, nonce, stored[sealedHeader:], v.ad(name))
	if err != nil {
		return nil, fmt.Errorf("events: vault %s does not open with this ledger's vault key: it was altered, or sealed under another name", name)
	}
	return out, nil
}

// Put seals value and stores it under name in the inner vault (write once:
// the same value again succeeds, another is refused there).
func (v *SealedVault) Put(ctx context.Context, name string, value []byte) error {
	return v.inner.Put(ctx, name, v.Seal(name, value))
}

// Get reads name from the inner vault and opens it. ErrNotFound passes
// through.
func (v *SealedVault) Get(ctx context.Context, name string) ([]byte, error) {
	stored, err := v.inner.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	return v.Open(name, stored)
}
