package events

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// testSigner returns a signer whose key is fixed by seed byte b.
func testSigner(t testing.TB, b byte) *Signer {
	t.Helper()
	s, err := NewSigner(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// withSeq gives events log sequences from first on, as a store would.
func withSeq(evs []Envelope, first uint64) []Envelope {
	for i := range evs {
		evs[i].Sequence = first + uint64(i)
	}
	return evs
}

func TestSignedChain(t *testing.T) {
	s := testSigner(t, 1)
	evs := batch(4)
	if err := ChainSigned(nil, evs, s); err != nil {
		t.Fatal(err)
	}
	withSeq(evs, 1)
	if err := VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
	ring := NewKeyring(1, TrustedKey{Key: s.KeyHex()})
	for i := range evs {
		e := &evs[i]
		// The stored form is the envelope's own encoding, signature last.
		if re, err := e.Encode(); err != nil || !bytes.Equal(re, e.Raw) {
			t.Fatalf("v%d: stored %s, encodes to %s (%v)", e.Version, e.Raw, re, err)
		}
		if !bytes.HasSuffix(e.Raw, []byte(`","sig":"`+e.Sig+`"}`)) || e.Signer != s.KeyHex() {
			t.Fatalf("v%d: %s", e.Version, e.Raw)
		}
		d, err := Decode(e.Raw)
		if err != nil || d.Sig != e.Sig || d.Signer != e.Signer {
			t.Fatalf("decode: %+v %v", d, err)
		}
		a, err := ring.Check(e)
		if err != nil || a.Key != s.KeyHex() || a.Legacy {
			t.Fatalf("v%d: %+v %v", e.Version, a, err)
		}
		if a.String() != "signed "+s.Fingerprint() {
			t.Fatalf("authorship reads %q", a)
		}
	}
	// Verified all at once, the same.
	bad := append(append([]Envelope(nil), evs...), Envelope{Raw: []byte(`{"id":"x"}`)})
	for i, v := range VerifySignatures(bad) {
		want := verifyOne(&bad[i])
		if v.Key != want.Key || (v.Err == nil) != (want.Err == nil) {
			t.Fatalf("event %d: %+v, one by one %+v", i, v, want)
		}
	}
	// The next event's prev_hash covers the signature of the one before.
	if evs[1].PrevHash != Hash(evs[0].Raw) {
		t.Fatal("prev_hash does not cover the signed bytes")
	}
}

// TestEveryByteOfASignedEventIsCovered: changing any one byte of a signed
// event's stored form makes it unsigned or not verify; never still signed.
func TestEveryByteOfASignedEventIsCovered(t *testing.T) {
	s := testSigner(t, 1)
	evs := batch(1)
	if err := ChainSigned(nil, evs, s); err != nil {
		t.Fatal(err)
	}
	ring := NewKeyring(0, TrustedKey{Key: s.KeyHex()})
	raw := evs[0].Raw
	for i := range raw {
		for _, flip := range []byte{0x01, 0x20, 0x80} {
			b := bytes.Clone(raw)
			b[i] ^= flip
			e := Envelope{Raw: b, Version: 1, ID: evs[0].ID, Sequence: 1}
			if a, err := ring.Check(&e); err == nil {
				t.Fatalf("byte %d (%q) ^ %#x: still %s", i, raw[i], flip, a)
			}
		}
	}
}

// TestOldUnsignedEventsStillRead: an event stored before signing (bytes as
// an old ledger wrote them) decodes and encodes to the same bytes, and is
// a legacy event below SignedFrom, not signed by the ledger above it.
func TestOldUnsignedEventsStillRead(t *testing.T) {
	old := `{"id":"c1/b1/cmd/0","campaign":"c1","battle":"b1","version":1,"type":"battle.created","schema":1,"time":"2026-11-29T12:00:00Z","actor":"umpire","command_id":"cmd","audience":"all","prev_hash":"","payload":{"n":1}}`
	e, err := Decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if re, _ := e.Encode(); string(re) != old {
		t.Fatalf("re-encoded as %s", re)
	}
	ring := NewKeyring(10, TrustedKey{Key: testSigner(t, 1).KeyHex()})
	e.Sequence = 9
	if a, err := ring.Check(&e); err != nil || !a.Legacy || a.String() != "unsigned (before signing)" {
		t.Fatalf("legacy: %+v %v", a, err)
	}
	e.Sequence = 10
	var ns *NotSignedError
	if _, err := ring.Check(&e); !errors.As(err, &ns) || !strings.Contains(err.Error(), "carries no signature") || ns.Version != 1 {
		t.Fatalf("unsigned after signing began: %v", err)
	}
}

// TestForgedEventsAreNamed: an event chained correctly after the ledger's
// but signed with another key, unsigned, or naming the ledger's key over
// another key's signature, is not the ledger's.
func TestForgedEventsAreNamed(t *testing.T) {
	ledger, forger := testSigner(t, 1), testSigner(t, 2)
	ring := NewKeyring(1, TrustedKey{Key: ledger.KeyHex()})
	good := batch(2)
	if err := ChainSigned(nil, good, ledger); err != nil {
		t.Fatal(err)
	}
	forge := func(s *Signer) Envelope {
		b := batch(3)[2:]
		if err := ChainSigned(&good[1], b, s); err != nil {
			t.Fatal(err)
		}
		b[0].Sequence = 3
		if err := VerifyChain(append(append([]Envelope(nil), good...), b[0])); err != nil {
			t.Fatalf("the forgery is not chained: %v", err)
		}
		return b[0]
	}
	other := forge(forger)
	unsigned := forge(nil)
	swapped := forge(forger)
	swapped.Raw = bytes.Replace(swapped.Raw, []byte(forger.KeyHex()), []byte(ledger.KeyHex()), 1)
	for want, e := range map[string]Envelope{
		"which is not one of the ledger's": other,
		"carries no signature":             unsigned,
		"does not verify":                  swapped,
	} {
		_, err := ring.Check(&e)
		var ns *NotSignedError
		if !errors.As(err, &ns) || !strings.Contains(err.Error(), want) || ns.Version != 3 || ns.Seq != 3 {
			t.Errorf("%s: %v", want, err)
		}
	}
}

// TestKeyChange: the ledger's key changes by an event signed by the old
// key; a change signed by anyone else, or by the new key itself, is
// refused, and a replaced key signs nothing new.
func TestKeyChange(t *testing.T) {
	k1, k2, k3 := testSigner(t, 1), testSigner(t, 2), testSigner(t, 3)
	change := func(from, to, by *Signer, seq uint64) Envelope {
		p, _ := json.Marshal(KeyChanged{From: from.KeyHex(), To: to.KeyHex()})
		e := []Envelope{{ID: "c1/rotate/0", Campaign: "c1", Type: KeyChangedType, Schema: 1, Actor: "operator", CommandID: "rotate", Audience: AudienceAll, Payload: p}}
		if err := ChainSigned(nil, e, by); err != nil {
			t.Fatal(err)
		}
		e[0].Sequence = seq
		return e[0]
	}
	ring := NewKeyring(1, TrustedKey{Key: k1.KeyHex()})
	for name, e := range map[string]Envelope{
		"signed by the new key": change(k1, k2, k2, 5),
		"by a stranger":         change(k3, k2, k3, 5),
	} {
		if err := ring.Learn(&e); err == nil {
			t.Errorf("%s: learnt", name)
		}
	}
	if _, ok := ring.Trusts(k2.KeyHex()); ok {
		t.Fatal("a refused change was learnt")
	}
	ok := change(k1, k2, k1, 5)
	if err := ring.Learn(&ok); err != nil {
		t.Fatal(err)
	}
	again := change(k1, k2, k1, 9) // the same change on another campaign's stream
	if err := ring.Learn(&again); err != nil {
		t.Fatal(err)
	}
	if a, err := ring.Check(&again); err != nil || a.Key != k1.KeyHex() {
		t.Fatalf("the replaced key's own change: %v", err)
	}
	late := change(k1, k3, k1, 12)
	if err := ring.Learn(&late); err == nil || !strings.Contains(err.Error(), "already replaced at log sequence 5") {
		t.Fatalf("a replaced key endorsed another: %v", err)
	}
	evs := batch(2)
	if err := ChainSigned(nil, evs[:1], k1); err != nil {
		t.Fatal(err)
	}
	if err := ChainSigned(&evs[0], evs[1:], k2); err != nil {
		t.Fatal(err)
	}
	evs[0].Sequence, evs[1].Sequence = 4, 6
	for i := range evs {
		if _, err := ring.Check(&evs[i]); err != nil {
			t.Fatalf("v%d: %v", i+1, err)
		}
	}
	// An event after the change signed with the old key is refused.
	evs[0].Sequence = 7
	if _, err := ring.Check(&evs[0]); err == nil || !strings.Contains(err.Error(), "replaced at log sequence 5") {
		t.Fatalf("old key after the change: %v", err)
	}
}

// TestKeyTrustedForSomeStreams: another ledger's key, trusted for the
// battle imported from it, signs nothing else here.
func TestKeyTrustedForSomeStreams(t *testing.T) {
	ours, theirs := testSigner(t, 1), testSigner(t, 2)
	imported := Key{Campaign: "c1", Battle: "b1"}
	ring := NewKeyring(0, TrustedKey{Key: ours.KeyHex()})
	ring.Add(TrustedKey{Key: theirs.KeyHex(), Streams: []Key{imported}})
	evs := batch(1) // c1/b1
	if err := ChainSigned(nil, evs, theirs); err != nil {
		t.Fatal(err)
	}
	evs[0].Sequence = 1
	if _, err := ring.Check(&evs[0]); err != nil {
		t.Fatalf("the imported battle: %v", err)
	}
	other := batch(1)
	other[0].Battle, other[0].ID = "b2", "c1/b2/cmd/a"
	if err := ChainSigned(nil, other, theirs); err != nil {
		t.Fatal(err)
	}
	other[0].Sequence = 2
	if _, err := ring.Check(&other[0]); err == nil || !strings.Contains(err.Error(), "only for the battles imported from it (c1/b1)") {
		t.Fatalf("another battle: %v", err)
	}
	ring.Add(TrustedKey{Key: theirs.KeyHex(), Streams: []Key{{Campaign: "c1", Battle: "b2"}}})
	if _, err := ring.Check(&other[0]); err != nil {
		t.Fatalf("after a second import: %v", err)
	}
	if got := ring.Keys(); len(got) != 2 || len(got[1].Streams) != 2 {
		t.Fatalf("keys: %+v", got)
	}
}
