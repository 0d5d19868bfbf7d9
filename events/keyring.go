package events

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// KeyChangedType is the event of a change of the ledger's signing key. It
// is appended to each campaign's own stream, signed by the old key, and
// names the new one: whoever trusts the old key can trust the new one from
// it, and an export carries it (docs/audit.md).
const KeyChangedType = "ledger.key_changed"

// KeyChanged is the payload of KeyChangedType: From (hex public key) signs
// the event, To signs from then on.
type KeyChanged struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// RegisterTypes registers the event types the events package defines
// itself (KeyChangedType) in r, beside the domain's.
func RegisterTypes(r *Registry) {
	r.Register(KeyChangedType, 1, "the ledger's signing key changed: signed by the old key (from), it names the new one (to)")
}

// TrustedKey is one of the ledger's signing keys.
type TrustedKey struct {
	// Key is the hex Ed25519 public key.
	Key string `json:"key"`
	// RetiredAt, when not 0, is the log sequence at which the key was
	// replaced: an event after it signed with this key is refused, but for
	// the key changes it signs itself.
	RetiredAt uint64 `json:"retired_at,omitempty"`
	// Streams, when not empty, are the only streams the key is trusted
	// for: another ledger's key, for the battles imported from it.
	Streams []Key `json:"streams,omitempty"`
}

// Keyring is the set of keys whose signatures are the ledger's: the
// current one and those it replaced. Live, it comes from the key file,
// outside NATS (package keys); for an export, from the export's header,
// each key after the first endorsed by a KeyChangedType event signed by
// the one before. It is safe for concurrent use.
type Keyring struct {
	mu sync.RWMutex
	// signedFrom is the first log sequence that must be signed: events
	// stored before the ledger had a key read as unsigned, legacy events.
	signedFrom uint64
	keys       []TrustedKey
}

// NewKeyring returns a keyring of keys (oldest first) for a log signed from
// sequence signedFrom on (1, or 0: every event).
func NewKeyring(signedFrom uint64, keys ...TrustedKey) *Keyring {
	return &Keyring{signedFrom: signedFrom, keys: slices.Clone(keys)}
}

// SignedFrom returns the first log sequence that must be signed.
func (k *Keyring) SignedFrom() uint64 {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.signedFrom
}

// Keys returns the trusted keys, oldest first.
func (k *Keyring) Keys() []TrustedKey {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return slices.Clone(k.keys)
}

// Add trusts t as well (a battle imported from another ledger): a key
// already trusted for some streams is trusted for t's too.
func (k *Keyring) Add(t TrustedKey) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i := range k.keys {
		if k.keys[i].Key != t.Key {
			continue
		}
		if len(k.keys[i].Streams) > 0 {
			if len(t.Streams) == 0 {
				k.keys[i].Streams = nil
			} else {
				for _, s := range t.Streams {
					if !slices.Contains(k.keys[i].Streams, s) {
						k.keys[i].Streams = append(k.keys[i].Streams, s)
					}
				}
			}
		}
		return
	}
	t.Streams = slices.Clone(t.Streams)
	k.keys = append(k.keys, t)
}

// Trusts returns the trusted key with the given hex, if it is one.
func (k *Keyring) Trusts(keyHex string) (TrustedKey, bool) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, t := range k.keys {
		if t.Key == keyHex {
			return t, true
		}
	}
	return TrustedKey{}, false
}

// NotSignedError is an event the ledger did not sign: no signature where
// one is required, a signature that does not verify, or one by a key that
// is not the ledger's.
type NotSignedError struct {
	Version uint64
	ID      string
	Seq     uint64
	// Reason says why, printed from Words.
	Reason string
	Words  Words
}

func (e *NotSignedError) Error() string { return e.Sentence().String() }

// Sentence is the error's words: its format and values, the reason as its
// own Words (as Reason when it has none).
func (e *NotSignedError) Sentence() Words {
	var reason any = e.Reason
	if e.Words.Format != "" {
		reason = e.Words
	}
	return Words{Format: "event v%d (%s, log sequence %d) is not signed by the ledger: %s", Args: []any{e.Version, e.ID, e.Seq, reason}}
}

// Authorship is who signed one event, as Check found it.
type Authorship struct {
	// Key is the hex public key that signed the event; empty when unsigned.
	Key string `json:"key,omitempty"`
	// Legacy marks an unsigned event stored before the ledger signed.
	Legacy bool `json:"legacy,omitempty"`
	// Imported marks a key that is not this ledger's: another ledger's,
	// trusted only for the battles imported from it (TrustedKey.Streams).
	Imported bool `json:"imported,omitempty"`
}

// ImportedSuffix follows "signed <fingerprint>" in Authorship.String for an
// event signed by another ledger's key (an imported battle).
const ImportedSuffix = " (another ledger's key: an imported battle)"

// String says it in a few words: "signed 3f9a1c0b7d2e4a68", "signed
// 3f9a1c0b7d2e4a68 (another ledger's key: an imported battle)" or
// "unsigned (before signing)".
func (a Authorship) String() string {
	if a.Key == "" {
		return "unsigned (before signing)"
	}
	if a.Imported {
		return "signed " + Fingerprint(a.Key) + ImportedSuffix
	}
	return "signed " + Fingerprint(a.Key)
}

// Check says whether e (its stored bytes Raw and its log sequence) was
// signed by the ledger. An unsigned event is accepted as legacy when its
// sequence is below SignedFrom; otherwise it fails with *NotSignedError.
func (k *Keyring) Check(e *Envelope) (Authorship, error) {
	return k.Admit(e, verifyOne(e))
}

// Admit is Check with the signature already verified (VerifySignatures).
func (k *Keyring) Admit(e *Envelope, v Verified) (Authorship, error) {
	fail := func(format string, args ...any) (Authorship, error) {
		w := Words{Format: format, Args: args}
		return Authorship{}, &NotSignedError{Version: e.Version, ID: e.ID, Seq: e.Sequence, Reason: w.String(), Words: w}
	}
	if len(e.Raw) == 0 {
		return fail("it has no stored bytes to verify")
	}
	if errors.Is(v.Err, ErrUnsigned) {
		if from := k.SignedFrom(); e.Sequence > 0 && e.Sequence < from {
			return Authorship{Legacy: true}, nil
		}
		return fail("it carries no signature, and every event from log sequence %d on is signed", k.SignedFrom())
	}
	if v.Err != nil {
		return fail("%v", v.Err)
	}
	t, ok := k.Trusts(v.Key)
	if !ok {
		return fail("it is signed by key %s, which is not one of the ledger's (%s)", Fingerprint(v.Key), k.fingerprints())
	}
	if len(t.Streams) > 0 && !slices.Contains(t.Streams, e.Key()) {
		return fail("it is signed by key %s, which the ledger trusts only for the battles imported from it (%s)", Fingerprint(v.Key), keyList(t.Streams))
	}
	if t.RetiredAt > 0 && e.Sequence > t.RetiredAt && e.Type != KeyChangedType {
		return fail("it is signed by key %s, which was replaced at log sequence %d", Fingerprint(v.Key), t.RetiredAt)
	}
	return Authorship{Key: v.Key, Imported: len(t.Streams) > 0}, nil
}

// Verified is a stored event's signature as VerifySignature found it.
type Verified struct {
	// Key is the hex public key that signed it, when the signature holds.
	Key string
	// Err is nil, ErrUnsigned or a *SignatureError.
	Err error
}

func verifyOne(e *Envelope) Verified {
	if len(e.Raw) == 0 {
		return Verified{Err: ErrUnsigned}
	}
	k, err := VerifySignature(e.Raw)
	if err != nil {
		k = ""
	}
	return Verified{Key: k, Err: err}
}

// VerifySignatures verifies the signatures of evs (their stored bytes) on
// every processor at once: an Ed25519 verification costs about a hundred
// times a SHA-256 of the event, and a rebuild or an audit checks them all.
func VerifySignatures(evs []Envelope) []Verified {
	out := make([]Verified, len(evs))
	workers := min(runtime.GOMAXPROCS(0), len(evs)/16+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(evs); i += workers {
				out[i] = verifyOne(&evs[i])
			}
		}()
	}
	wg.Wait()
	return out
}

func keyList(ks []Key) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, ", ")
}

func (k *Keyring) fingerprints() string {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if len(k.keys) == 0 {
		return "none known"
	}
	var fs []string
	for _, t := range k.keys {
		if len(t.Streams) == 0 {
			fs = append(fs, Fingerprint(t.Key))
		}
	}
	return strings.Join(fs, ", ")
}

// ParseKeyChange reads a KeyChangedType event's payload and checks that
// both keys are hex Ed25519 public keys.
func ParseKeyChange(e *Envelope) (KeyChanged, error) {
	if e.Type != KeyChangedType {
		return KeyChanged{}, wordsError("event %s is a %s, not a %s", e.ID, e.Type, KeyChangedType)
	}
	var c KeyChanged
	if err := json.Unmarshal(e.Payload, &c); err != nil {
		return KeyChanged{}, wordsError("key change %s: %s", e.ID, err)
	}
	for _, h := range []string{c.From, c.To} {
		if b, err := hex.DecodeString(h); err != nil || len(b) != 32 || hex.EncodeToString(b) != h {
			return KeyChanged{}, wordsError("key change %s: %q is not a hex Ed25519 public key", e.ID, h)
		}
	}
	if c.From == c.To {
		return KeyChanged{}, wordsError("key change %s: from and to are the same key", e.ID)
	}
	return c, nil
}

// Learn takes a key change into the keyring: e must be a KeyChangedType
// event signed by its From key, which the keyring trusts and which is not
// retired before e. Its To key is trusted from then on, and From is retired
// at e's sequence. Learning the same change again (it is on every
// campaign's stream) changes nothing.
func (k *Keyring) Learn(e *Envelope) error {
	c, err := ParseKeyChange(e)
	if err != nil {
		return err
	}
	signer, err := VerifySignature(e.Raw)
	if err != nil {
		return wordsError("key change %s: %s", e.ID, err)
	}
	if signer != c.From {
		return wordsError("key change %s: signed by %s, not by the key it replaces (%s)", e.ID, Fingerprint(signer), Fingerprint(c.From))
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	from := slices.IndexFunc(k.keys, func(t TrustedKey) bool { return t.Key == c.From })
	if from < 0 {
		return wordsError("key change %s: the key it replaces, %s, is not one of the ledger's", e.ID, Fingerprint(c.From))
	}
	if slices.ContainsFunc(k.keys, func(t TrustedKey) bool { return t.Key == c.To }) {
		return nil
	}
	if r := k.keys[from].RetiredAt; r > 0 && e.Sequence > r {
		return wordsError("key change %s: key %s was already replaced at log sequence %d and endorses no other", e.ID, Fingerprint(c.From), r)
	}
	if k.keys[from].RetiredAt == 0 && e.Sequence > 0 {
		k.keys[from].RetiredAt = e.Sequence
	}
	k.keys = append(k.keys, TrustedKey{Key: c.To, Streams: slices.Clone(k.keys[from].Streams)})
	return nil
}
