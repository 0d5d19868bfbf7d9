package events

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
)

// The ledger signs every event it appends with its Ed25519 key
// (docs/principles.md principle 5: authorship, not only order). The signature is a
// member of the stored JSON itself, the last one:
//
//	{"id":…,"prev_hash":…,"payload":{…},"signer":"<hex public key>","sig":"<base64>"}
//
// It covers SignatureContext followed by the stored bytes without the
// trailing `,"sig":"…"` member, that is the same JSON ending after
// "signer". The hash chain still runs over the stored bytes, signature
// included: prev_hash binds the signature of the event before, and an
// export that keeps the stored bytes keeps everything needed to verify
// both. Events stored before the ledger signed have neither member and
// read as before (Keyring.SignedFrom says from where every event must be
// signed).

// SignatureContext prefixes the bytes an event's signature covers, so that
// the ledger's key can never be made to sign anything else that verifies
// as an event.
const SignatureContext = "ledger-event-v1\n"

// sigMember opens the signature, the stored JSON's last member.
const sigMember = `,"sig":"`

// Signer signs events with one Ed25519 private key.
type Signer struct {
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
	hex  string
}

// NewSigner returns a signer for priv.
func NewSigner(priv ed25519.PrivateKey) (*Signer, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("events: signing key of %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	pub := priv.Public().(ed25519.PublicKey)
	return &Signer{priv: priv, pub: pub, hex: hex.EncodeToString(pub)}, nil
}

// Seed returns the private key's seed, for whoever keeps it (package keys).
func (s *Signer) Seed() []byte { return s.priv.Seed() }

// Public returns the signer's public key.
func (s *Signer) Public() ed25519.PublicKey { return s.pub }

// KeyHex returns the public key as events carry it in "signer".
func (s *Signer) KeyHex() string { return s.hex }

// Fingerprint returns the short form of the public key people compare.
func (s *Signer) Fingerprint() string { return Fingerprint(s.hex) }

// Fingerprint shortens a hex public key to the 16 hex digits reports show
// ("key 3f9a1c0b7d2e4a68").
func Fingerprint(keyHex string) string {
	if len(keyHex) > 16 {
		return keyHex[:16]
	}
	return keyHex
}

// Sign stamps e with the signer's key and signature and sets its Raw to the
// signed stored form. Every other field must already be final (Chain sets
// version and prev_hash first).
func (s *Signer) Sign(e *Envelope) error {
	e.Signer, e.Sig = s.hex, ""
	unsigned, err := e.Encode()
	if err != nil {
		return err
	}
	sig := ed25519.Sign(s.priv, signedMessage(unsigned))
	e.Sig = base64.StdEncoding.EncodeToString(sig)
	raw := make([]byte, 0, len(unsigned)+len(sigMember)+len(e.Sig)+2)
	raw = append(raw, unsigned[:len(unsigned)-1]...)
	raw = append(raw, sigMember...)
	raw = append(raw, e.Sig...)
	raw = append(raw, '"', '}')
	e.Raw = raw
	return nil
}

func signedMessage(unsigned []byte) []byte {
	m := make([]byte, 0, len(SignatureContext)+len(unsigned))
	m = append(m, SignatureContext...)
	return append(m, unsigned...)
}

// ErrUnsigned is returned for stored bytes that carry no signature.
var ErrUnsigned = errors.New("the event carries no signature")

// splitSignature returns the bytes a stored event's signature covers (the
// stored bytes without their trailing sig member) and the signature's
// base64 text, or ok false when the bytes do not end with a signature.
func splitSignature(raw []byte) (unsigned []byte, sig string, ok bool) {
	if !bytes.HasSuffix(raw, []byte(`"}`)) {
		return nil, "", false
	}
	i := bytes.LastIndex(raw, []byte(sigMember))
	if i < 0 {
		return nil, "", false
	}
	sig = string(raw[i+len(sigMember) : len(raw)-2])
	unsigned = make([]byte, 0, i+1)
	unsigned = append(unsigned, raw[:i]...)
	return append(unsigned, '}'), sig, true
}

// SignatureError says why a stored event's signature does not hold:
// Reason, printed from Words.
type SignatureError struct {
	Reason string
	Words  Words
}

func (e *SignatureError) Error() string { return e.Reason }

// signatureError is a SignatureError printed from format and args.
func signatureError(format string, args ...any) *SignatureError {
	w := Words{Format: format, Args: args}
	return &SignatureError{Reason: w.String(), Words: w}
}

// VerifySignature checks a stored event's signature against the key it
// names in "signer" and returns that key (hex). It says nothing about
// whose key that is: Keyring.Check does. Errors: ErrUnsigned, or a
// *SignatureError naming what does not hold.
func VerifySignature(raw []byte) (keyHex string, err error) {
	sum := sha256.Sum256(raw)
	if k, ok := verified.get(sum); ok {
		return k, nil
	}
	keyHex, err = verifySignature(raw)
	if err == nil {
		verified.put(sum, keyHex)
	}
	return keyHex, err
}

func verifySignature(raw []byte) (keyHex string, err error) {
	unsigned, sigText, ok := splitSignature(raw)
	if !ok {
		return "", ErrUnsigned
	}
	sig, err := base64.StdEncoding.DecodeString(sigText)
	if err != nil || len(sig) != ed25519.SignatureSize || base64.StdEncoding.EncodeToString(sig) != sigText {
		return "", signatureError("its sig member is not a base64 Ed25519 signature")
	}
	e, err := Decode(raw)
	if err != nil {
		return "", signatureError("its stored bytes are not an event: %v", err)
	}
	if e.Sig != sigText {
		return "", signatureError("its last member is not its signature")
	}
	pub, err := hex.DecodeString(e.Signer)
	if err != nil || len(pub) != ed25519.PublicKeySize || hex.EncodeToString(pub) != e.Signer {
		return "", signatureError("its signer %q is not a hex Ed25519 public key", e.Signer)
	}
	if !ed25519.Verify(pub, signedMessage(unsigned), sig) {
		return e.Signer, signatureError("its signature does not verify under the key it names (%s): its bytes were changed after signing, or it was never signed with that key", Fingerprint(e.Signer))
	}
	return e.Signer, nil
}

// verified remembers the stored events whose signature held, by the
// SHA-256 of their bytes: the same bytes verify the same way, and an
// Ed25519 verification costs about a hundred times the hash. The audit of
// a battle served again and again (the page, the API) then verifies only
// what is new.
var verified = &sigCache{m: map[[32]byte]string{}}

// maxVerified bounds the cache (about 100 bytes an entry).
const maxVerified = 1 << 16

type sigCache struct {
	mu sync.Mutex
	m  map[[32]byte]string
}

func (c *sigCache) get(h [32]byte) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[h]
	return k, ok
}

func (c *sigCache) put(h [32]byte, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxVerified {
		n := 0
		for k := range c.m { // drop a quarter, whichever
			delete(c.m, k)
			if n++; n >= maxVerified/4 {
				break
			}
		}
	}
	c.m[h] = key
}
