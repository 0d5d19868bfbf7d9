// Package keys keeps the ledger's two secrets outside NATS, in one
// owner-only file: the Ed25519 key that signs every event (events.Signer,
// docs/audit.md) and the key that seals the vault (events.SealedVault).
// Whoever can write to NATS but cannot read this file can neither sign an
// event as the ledger nor read a sealed value.
//
// The file is made at the ledger's first start (Open with a Create
// function), in the data folder by default (DefaultFile), mode 0600. It is
// JSON:
//
//	{"format":"ledger-keys-v1",
//	 "signing":"<hex Ed25519 seed>","created":"…","signed_from":1,
//	 "retired":[{"key":"<hex public key>","retired_at":1234}],
//	 "imported":[{"key":"<hex public key>","campaign":"c","battle":"b"}],
//	 "vault":"<hex 32 bytes>"}
//
// signed_from is the first log sequence the ledger signed: events before it
// were written by a ledger without a key and read as unsigned (legacy).
// retired lists the public keys a rotation replaced, oldest first, with
// the log sequence at which each was replaced: the ledger still trusts
// their signatures on the events before. imported lists other ledgers' keys
// and the battle imported from each (ledger import): trusted for that
// battle only.
package keys

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/clubledger/ledger/events"
)

// DefaultFile is the key file's name in the data folder.
const DefaultFile = "ledger.key"

// Format names the file's layout.
const Format = "ledger-keys-v1"

// Retired is a signing key a rotation replaced.
type Retired struct {
	// Key is the hex public key.
	Key string `json:"key"`
	// RetiredAt is the log sequence at which it was replaced.
	RetiredAt uint64 `json:"retired_at"`
	// At is when (informational).
	At time.Time `json:"at"`
}

// Imported is another ledger's key, trusted for one battle imported from it.
type Imported struct {
	Key      string `json:"key"`
	Campaign string `json:"campaign"`
	Battle   string `json:"battle"`
}

// file is the key file's JSON.
type file struct {
	Format     string     `json:"format"`
	Signing    string     `json:"signing"`
	Created    time.Time  `json:"created"`
	SignedFrom uint64     `json:"signed_from"`
	Retired    []Retired  `json:"retired"`
	Imported   []Imported `json:"imported,omitempty"`
	Vault      string     `json:"vault"`
}

// Keys is a loaded key file.
type Keys struct {
	// Path is the file.
	Path string
	// Signer signs the events the ledger appends.
	Signer *events.Signer
	// Vault is the vault's sealing key (events.NewSealedVault).
	Vault []byte
	// SignedFrom is the first log sequence that must be signed.
	SignedFrom uint64
	// Retired are the replaced signing keys, oldest first.
	Retired []Retired
	// Imported are other ledgers' keys, each for a battle imported from it.
	Imported []Imported
	// Created is when the file was made.
	Created time.Time
}

// Keyring returns the keys whose signatures are the ledger's: the retired
// ones (each until it was replaced) and the current one.
func (k *Keys) Keyring() *events.Keyring {
	ts := make([]events.TrustedKey, 0, len(k.Retired)+1)
	for _, r := range k.Retired {
		ts = append(ts, events.TrustedKey{Key: r.Key, RetiredAt: r.RetiredAt})
	}
	ts = append(ts, events.TrustedKey{Key: k.Signer.KeyHex()})
	ring := events.NewKeyring(k.SignedFrom, ts...)
	for _, im := range k.Imported {
		ring.Add(events.TrustedKey{Key: im.Key, Streams: []events.Key{{Campaign: im.Campaign, Battle: im.Battle}}})
	}
	return ring
}

// SealVault returns v sealed with the file's vault key.
func (k *Keys) SealVault(v events.Vault) (*events.SealedVault, error) {
	return events.NewSealedVault(v, k.Vault)
}

// ErrNoFile is returned (wrapped) by Load when the file does not exist.
var ErrNoFile = errors.New("keys: no key file")

// Load reads the key file at path. It refuses a file that others than its
// owner may read or write (the key would no longer be the ledger's alone).
func Load(path string) (*Keys, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoFile, path)
	}
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("keys: %s is a folder, not a key file", path)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("keys: %s may be read or written by others than its owner (mode %04o): run chmod 600 %s, and if others could read it, rotate the signing key with ledger keys rotate (docs/audit.md, \"A key change\")", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("keys: %s is not a key file: %w", path, err)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("keys: %s: format %q, this program reads %q", path, f.Format, Format)
	}
	seed, err := hex.DecodeString(f.Signing)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("keys: %s: the signing key is not %d hex bytes", path, ed25519.SeedSize)
	}
	vault, err := hex.DecodeString(f.Vault)
	if err != nil || len(vault) != events.VaultKeySize {
		return nil, fmt.Errorf("keys: %s: the vault key is not %d hex bytes", path, events.VaultKeySize)
	}
	s, err := events.NewSigner(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		return nil, err
	}
	return &Keys{Path: path, Signer: s, Vault: vault, SignedFrom: f.SignedFrom, Retired: f.Retired, Imported: f.Imported, Created: f.Created}, nil
}

// Create makes a new key file at path (refusing to replace one), owner-only,
// with fresh keys from rand (crypto/rand when nil): signedFrom is the first
// log sequence the new key signs (the log's last sequence + 1).
func Create(path string, signedFrom uint64, random io.Reader) (*Keys, error) {
	if random == nil {
		random = rand.Reader
	}
	seed := make([]byte, ed25519.SeedSize)
	vault := make([]byte, events.VaultKeySize)
	if _, err := io.ReadFull(random, seed); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if _, err := io.ReadFull(random, vault); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	f := file{Format: Format, Signing: hex.EncodeToString(seed), Created: time.Now().UTC().Truncate(time.Second),
		SignedFrom: signedFrom, Retired: []Retired{}, Vault: hex.EncodeToString(vault)}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keys: create %s: %w", path, err)
	}
	if err := writeFile(out, f); err != nil {
		os.Remove(path)
		return nil, err
	}
	return Load(path)
}

// Open loads the key file at path, or, when there is none, asks first for
// the first log sequence the new key will sign and creates it: the ledger's
// first start. created says which happened.
func Open(path string, first func() (uint64, error)) (k *Keys, created bool, err error) {
	k, err = Load(path)
	if !errors.Is(err, ErrNoFile) {
		return k, false, err
	}
	from, err := first()
	if err != nil {
		return nil, false, err
	}
	k, err = Create(path, from, nil)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it meanwhile: use that one.
		k, err = Load(path)
		return k, false, err
	}
	return k, err == nil, err
}

func writeFile(out *os.File, f file) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		out.Close()
		return err
	}
	if _, err := out.Write(append(b, '\n')); err != nil {
		out.Close()
		return fmt.Errorf("keys: write %s: %w", out.Name(), err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("keys: sync %s: %w", out.Name(), err)
	}
	return out.Close()
}

// Rotate replaces the signing key with a fresh one (from rand; crypto/rand
// when nil) and records the old one as retired at log sequence retiredAt.
// It returns the old signer, which signs the key change events
// (events.KeyChangedType) that tell the log, and the new keys. The file is
// replaced atomically; the vault key stays.
func (k *Keys) Rotate(retiredAt uint64, random io.Reader) (old *events.Signer, next *Keys, err error) {
	if random == nil {
		random = rand.Reader
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(random, seed); err != nil {
		return nil, nil, fmt.Errorf("keys: %w", err)
	}
	retired := append(append([]Retired(nil), k.Retired...), Retired{Key: k.Signer.KeyHex(), RetiredAt: retiredAt, At: time.Now().UTC().Truncate(time.Second)})
	f := k.file()
	f.Signing, f.Retired = hex.EncodeToString(seed), retired
	if err := replaceFile(k.Path, f); err != nil {
		return nil, nil, err
	}
	next, err = Load(k.Path)
	if err != nil {
		return nil, nil, err
	}
	return k.Signer, next, nil
}

// NextPath is where a rotation keeps the new signing key's seed (hex,
// owner-only) between recording the key change in the log and writing the
// key file: a rotation interrupted between the two records the same key
// when run again.
func (k *Keys) NextPath() string { return k.Path + ".next" }

// Next returns the signing key a rotation moves to: the one an interrupted
// rotation left in NextPath, else a fresh one (from random; crypto/rand
// when nil), written there first.
func (k *Keys) Next(random io.Reader) (*events.Signer, error) {
	path := k.NextPath()
	raw, err := os.ReadFile(path)
	if err == nil {
		if st, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0) {
			return nil, fmt.Errorf("keys: %s may be read by others than its owner: delete it (no key change was recorded with it yet unless ledger keys rotate said so) and run ledger keys rotate again", path)
		}
		seed, err := hex.DecodeString(string(trimSpace(raw)))
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("keys: %s does not hold a signing key; delete it and run ledger keys rotate again", path)
		}
		return events.NewSigner(ed25519.NewKeyFromSeed(seed))
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if random == nil {
		random = rand.Reader
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(random, seed); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	_, werr := out.WriteString(hex.EncodeToString(seed) + "\n")
	if err := errors.Join(werr, out.Sync(), out.Close()); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("keys: write %s: %w", path, err)
	}
	return events.NewSigner(ed25519.NewKeyFromSeed(seed))
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// RotateTo is Rotate to next (Next): the key file holds next as its
// signing key and k's as retired at log sequence retiredAt, and NextPath is
// removed.
func (k *Keys) RotateTo(retiredAt uint64, next *events.Signer) (*Keys, error) {
	if next.KeyHex() == k.Signer.KeyHex() {
		return nil, errors.New("keys: rotate: the new key is the current one")
	}
	_, nk, err := k.Rotate(retiredAt, bytes.NewReader(next.Seed()))
	if err != nil {
		return nil, err
	}
	if err := os.Remove(k.NextPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keys: %w", err)
	}
	return nk, nil
}

// Import trusts another ledger's key for one battle imported from it
// (ledger import, after its export passed the audit), and records it in
// the file.
func (k *Keys) Import(keyHex string, battle events.Key) error {
	if b, err := hex.DecodeString(keyHex); err != nil || len(b) != ed25519.PublicKeySize {
		return fmt.Errorf("keys: import: %q is not a hex Ed25519 public key", keyHex)
	}
	im := Imported{Key: keyHex, Campaign: battle.Campaign, Battle: battle.Battle}
	for _, have := range k.Imported {
		if have == im {
			return nil
		}
	}
	f := k.file()
	f.Imported = append(f.Imported, im)
	if err := replaceFile(k.Path, f); err != nil {
		return err
	}
	k.Imported = f.Imported
	return nil
}

// file is what k writes back.
func (k *Keys) file() file {
	return file{Format: Format, Signing: hex.EncodeToString(k.Signer.Seed()), Created: k.Created, SignedFrom: k.SignedFrom,
		Retired: append([]Retired{}, k.Retired...), Imported: append([]Imported(nil), k.Imported...), Vault: hex.EncodeToString(k.Vault)}
}

// replaceFile writes f over path atomically, owner-only.
func replaceFile(path string, f file) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ledger-key-*")
	if err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("keys: %w", err)
	}
	if err := writeFile(tmp, f); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("keys: %w", err)
	}
	return nil
}

// errStop ends a Follow once it has what it came for.
var errStop = errors.New("stop")

// FirstSequence is Open's question at the first start against log: the
// first log sequence the new key will sign (the last one + 1). It refuses
// when the log's last event is already signed: the log belongs to a ledger
// that has a key, and a new one would not be trusted by it (with several
// ledger processes on one log, give each the same key file).
func FirstSequence(ctx context.Context, log events.Log, path string) (uint64, error) {
	last, err := log.LastSequence(ctx)
	if err != nil || last == 0 {
		return last + 1, err
	}
	var signer string
	err = log.Follow(ctx, last-1, func(e events.Envelope) error {
		signer = e.Signer
		return errStop
	}, nil)
	if err != nil && !errors.Is(err, errStop) {
		return 0, fmt.Errorf("keys: read the log's last event: %w", err)
	}
	if signer != "" {
		return 0, fmt.Errorf("keys: there is no key file at %s, but the log is signed by key %s: copy that ledger's key file here (or set keys.file to it); a new key would not be the ledger's", path, events.Fingerprint(signer))
	}
	return last + 1, nil
}
