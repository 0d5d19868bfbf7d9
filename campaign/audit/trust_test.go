package audit_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// withHeader rewrites the header line of an export file with f.
func withHeader(tb testing.TB, file []byte, f func(map[string]any)) []byte {
	tb.Helper()
	header, rest, _ := bytes.Cut(file, []byte("\n"))
	var m map[string]any
	if err := json.Unmarshal(header, &m); err != nil {
		tb.Fatal(err)
	}
	f(m)
	h, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return append(append(h, '\n'), rest...)
}

// unsignedRescore is the forgery of issue 25: the first battle's score
// changed to 100-0, every signature stripped, the chain stamped again, and
// the real key kept in the header with signed_from set so high that every
// event reads as stored before the ledger signed.
func unsignedRescore(t *testing.T) []byte {
	t.Helper()
	evs := playFirstBattle(t)
	i := find(t, evs, rules.EvBattleScored, nil)
	edit(t, &evs[i], func(s *rules.BattleScored) {
		for j := range s.Sides {
			s.Sides[j].Points = 0
		}
		s.Sides[0].Points = 100
	})
	forged := rechainWith(t, evs, nil)
	real := firstBattleKeys(t).Signer.KeyHex()
	return withHeader(t, exportBytes(t, forged, false), func(m map[string]any) {
		m["keys"] = []map[string]string{{"key": real}}
		m["signed_from"] = 1000000000
	})
}

// TestHeaderExcusesNothing: an export whose every signature was stripped,
// with the real key in its header and signed_from set past its events,
// fails the audit against the key the auditor trusts, each event named;
// audited with no key at all it does not fail (nothing says whose it is)
// but its author is reported as not proven.
func TestHeaderExcusesNothing(t *testing.T) {
	file := unsignedRescore(t)
	x := readExport(t, file)
	fp := firstBattleKeys(t).Signer.Fingerprint()
	rep := x.VerifyWith(audit.Options{Trust: fp})
	f := firstFailure(t, rep, audit.CheckSignatures)
	if f.Version != 1 || !strings.Contains(f.Message, "no event after it is signed by the key you trust") {
		t.Errorf("with --key: %s", f)
	}
	if c, _ := rep.Check(audit.CheckSignatures); len(c.Findings) != len(x.Events) {
		t.Errorf("with --key: %d of %d unsigned events named", len(c.Findings), len(x.Events))
	}
	if rep.Authorship.Proven || rep.Authorship.Anchor != audit.AnchorTrustedKey {
		t.Errorf("with --key: authorship %+v", rep.Authorship)
	}

	// No trust anchor: the checks pass, the author is not proven.
	rep = x.Verify()
	if rep.Failed() {
		t.Errorf("without a key: %v", rep.Err())
	}
	if a := rep.Authorship; a.Proven || a.Anchor != "" || a.Unbound != len(x.Events) {
		t.Errorf("without a key: authorship %+v", a)
	}

	// The genuine export: proven by the trusted key, and not without it.
	genuine := readExport(t, exportBytes(t, playFirstBattle(t), false))
	rep = genuine.VerifyWith(audit.Options{Trust: fp})
	checkStatus(t, rep, nil)
	if a := rep.Authorship; !a.Proven || a.Anchor != audit.AnchorTrustedKey || a.Key != fp || a.Unbound != 0 {
		t.Errorf("genuine with --key: authorship %+v", a)
	}
	if a := genuine.Verify().Authorship; a.Proven || a.Key != fp {
		t.Errorf("genuine without a key: authorship %+v", a)
	}
}

// TestUnsignedPrefixBoundBySignedEvent: a battle whose first events were
// stored before the ledger signed, and the rest signed, is proven against
// the trusted key: the first signed event binds every event before it
// through the hash chain. A kept head of a signed event anchors the same
// way; the events after it must then be signed.
func TestUnsignedPrefixBoundBySignedEvent(t *testing.T) {
	evs := playFirstBattle(t)
	k := firstBattleKeys(t).Signer
	split := 10
	mixed := rechainWith(t, evs[:split], nil)
	tail := cloneEnvs(evs[split:])
	for i := range tail {
		tail[i].Raw = nil
	}
	if err := events.ChainSigned(&mixed[split-1], tail, k); err != nil {
		t.Fatal(err)
	}
	mixed = append(mixed, tail...)
	x := readExport(t, exportBytes(t, mixed, false))
	rep := x.VerifyWith(audit.Options{Trust: k.Fingerprint()})
	checkStatus(t, rep, nil)
	if a := rep.Authorship; !a.Proven || a.Unbound != 0 || rep.Unsigned != split {
		t.Errorf("unsigned prefix: authorship %+v, %d unsigned", a, rep.Unsigned)
	}

	// A kept head of a signed event anchors the key, no --key given; a
	// kept head of an unsigned event anchors none.
	rep = x.VerifyWith(audit.Options{Heads: []string{events.Hash(mixed[split+2].Raw)}})
	if a := rep.Authorship; !a.Proven || a.Anchor != audit.AnchorKeptHead {
		t.Errorf("kept head of a signed event: authorship %+v", a)
	}
	old := rechainWith(t, evs, nil)
	rep = readExport(t, exportBytes(t, old, false)).VerifyWith(audit.Options{Heads: []string{events.Hash(old[split].Raw)}})
	if a := rep.Authorship; a.Proven || a.Anchor != "" || a.Unbound != len(old)-split-1 {
		t.Errorf("kept head of an unsigned event: authorship %+v", a)
	}
}

// TestTrustedKeyDoesNotVouchForItsPredecessor: a header that puts a key of
// the forger's before the trusted one, with a key change from it to the
// trusted key, does not make the forger's key trusted.
func TestTrustedKeyDoesNotVouchForItsPredecessor(t *testing.T) {
	evs := playFirstBattle(t)
	real, forger := firstBattleKeys(t).Signer, strangerKey(t, 11)
	forged := rechainWith(t, evs, forger)
	p, _ := json.Marshal(events.KeyChanged{From: forger.KeyHex(), To: real.KeyHex()})
	ch := []events.Envelope{{ID: "demo-1809/key-change/0", Campaign: "demo-1809", Type: events.KeyChangedType, Schema: 1,
		Actor: "operator", CommandID: "key-change", Audience: events.AudienceAll, Payload: p}}
	if err := events.ChainSigned(nil, ch, forger); err != nil {
		t.Fatal(err)
	}
	x := readExport(t, exportBytesMeta(t, forged, audit.Meta{ExportedAt: exportTime, KeyChanges: ch}))
	rep := x.VerifyWith(audit.Options{Trust: real.Fingerprint()})
	f := firstFailure(t, rep, audit.CheckSignatures)
	if f.Version != 1 || !strings.Contains(f.Message, "not one of the ledger's") {
		t.Errorf("forger's key before the trusted one: %s", f)
	}
	if rep.Authorship.Proven {
		t.Errorf("authorship %+v", rep.Authorship)
	}
}
