package audit_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// strangerKey returns a signer that is not the ledger's.
func strangerKey(tb testing.TB, b byte) *events.Signer {
	tb.Helper()
	s, err := events.NewSigner(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize)))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// forgeAfter appends to evs one event, chained correctly after the last,
// signed by s (nil: unsigned), as someone with write access to NATS would:
// a second battle.scored giving a side 100 points.
func forgeAfter(tb testing.TB, evs []events.Envelope, s *events.Signer) []events.Envelope {
	tb.Helper()
	last := evs[len(evs)-1]
	f := []events.Envelope{{ID: last.Campaign + "/" + last.Battle + "/forged/0", Campaign: last.Campaign, Battle: last.Battle,
		Type: rules.EvBattleScored, Schema: 1, Time: last.Time, Actor: "umpire", CommandID: "forged", Audience: events.AudienceAll,
		Payload: json.RawMessage(`{"turn":2,"sides":[{"side":"french","points":100}]}`)}}
	if err := events.ChainSigned(&last, f, s); err != nil {
		tb.Fatal(err)
	}
	f[0].Sequence = last.Sequence + 1
	return append(cloneEnvs(evs), f[0])
}

// TestForgedEventIsNamed: an event appended with NATS write access but
// without the ledger's key, chained correctly (so the chain passes), is
// named as not signed by the ledger: by the live audit, by the export's,
// and by the Python audit of docs/audit.md.
func TestForgedEventIsNamed(t *testing.T) {
	evs := playFirstBattle(t)
	ring := firstBattleKeys(t).Keyring()
	for name, s := range map[string]*events.Signer{"unsigned": nil, "another key": strangerKey(t, 9)} {
		forged := forgeAfter(t, evs, s)
		v := forged[len(forged)-1].Version
		live := audit.Verify(forged, audit.Options{Key: firstBattleKey, Keys: ring})
		x := readExport(t, exportBytes(t, forged, false))
		for where, rep := range map[string]*audit.Report{"live": live, "export": x.Verify()} {
			f := firstFailure(t, rep, audit.CheckSignatures)
			if f.Version != v || f.ID != forged[len(forged)-1].ID || !strings.Contains(f.Message, "not signed by the ledger") {
				t.Errorf("%s, %s: %s", name, where, f)
			}
			if c, _ := rep.Check(audit.CheckChain); c.Status != audit.Pass {
				t.Errorf("%s, %s: the forgery is not chained correctly: %s", name, where, findings(c))
			}
			if err := rep.Err(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("v%d", v)) {
				t.Errorf("%s, %s: error %v", name, where, err)
			}
		}
	}
	// A forger who rewrites the whole battle with a key of their own: the
	// export names that key as its first, so only the ledger's keys (live)
	// or the fingerprint of the key the auditor trusts show it.
	rewritten := rechainWith(t, evs, strangerKey(t, 9))
	if f := firstFailure(t, audit.Verify(rewritten, audit.Options{Keys: ring}), audit.CheckSignatures); f.Version != 1 || !strings.Contains(f.Message, "not one of the ledger's") {
		t.Errorf("rewritten, live: %s", f)
	}
	x := readExport(t, exportBytes(t, rewritten, false))
	if rep := x.Verify(); rep.Failed() || rep.Signers[0].Fingerprint != strangerKey(t, 9).Fingerprint() {
		t.Errorf("rewritten, export without a trusted key: %v %+v", rep.Err(), rep.Signers)
	}
	trust := firstBattleKeys(t).Signer.Fingerprint()
	if f := firstFailure(t, x.VerifyWith(audit.Options{Trust: trust}), audit.CheckSignatures); !strings.Contains(f.Message, "you trust key "+trust) {
		t.Errorf("rewritten, export with the trusted key: %s", f)
	}
	if rep := readExport(t, exportBytes(t, evs, false)).VerifyWith(audit.Options{Trust: trust}); rep.Failed() {
		t.Errorf("the real export against the trusted key: %v", rep.Err())
	}
}

// TestFlipEveryByte flips every byte of a real exported battle, one at a
// time: each flip in hashed or signed data, or in the structure that
// carries them (field names, the header), is caught, and named: the event
// on its line, or the header. Only the values the format calls
// informational (seq, exported_at, signed_from) may change unnoticed. The
// battle is the first battle up to its first move (every kind of line:
// the ruleset, armies, dice commitment, players' seeds, a roll, an order,
// a move): some 25,000 bytes, each flip reading and auditing the whole
// file (about 40 s on two busy cores; -short flips every seventh byte).
// TestFlipAnyByte flips bytes of every event of the whole battle.
func TestFlipEveryByte(t *testing.T) {
	all := playFirstBattle(t)
	evs := all[:find(t, all, rules.EvUnitMoved, nil)+1]
	file := exportBytes(t, evs, false)
	informational := map[int]bool{}
	for _, field := range []string{`"seq":`, `"exported_at":"`, `"signed_from":`} {
		for at := 0; ; {
			i := bytes.Index(file[at:], []byte(field))
			if i < 0 {
				break
			}
			j := at + i + len(field)
			for ; file[j] != ',' && file[j] != '"' && file[j] != '}'; j++ {
				informational[j] = true
			}
			at = j
		}
	}
	lineOf := make([]int, len(file)) // 0: the header, k: event k's line
	for i, n := 0, 0; i < len(file); i++ {
		lineOf[i] = n
		if file[i] == '\n' {
			n++
		}
	}
	// check flips one byte and says what is wrong, if anything.
	check := func(at int) string {
		bad := slices.Clone(file)
		bad[at] ^= 0x01
		where := lineOf[at]
		show := fmt.Sprintf("byte %d (line %d, %q)", at, where+1, file[max(0, at-20):min(len(file), at+20)])
		x, err := audit.ReadExport(bytes.NewReader(bad))
		if err != nil {
			var fe *audit.FormatError
			if !errors.As(err, &fe) || (where > 0 && fe.Version != uint64(where)) || (where == 0 && fe.Line != 1 && !strings.Contains(fe.Reason, "the header declares")) {
				return fmt.Sprintf("%s: %v does not name it", show, err)
			}
			return ""
		}
		rep := x.Verify()
		fails := rep.Failures()
		named := false
		for _, f := range fails {
			named = named || f.Version == uint64(where)
		}
		if len(fails) == 0 || (where > 0 && !named) {
			return fmt.Sprintf("%s flipped: %v", show, rep.Err())
		}
		return ""
	}
	start := time.Now()
	var places []int
	for at := range file {
		if !informational[at] && (!testing.Short() || at%7 == 0) {
			places = append(places, at)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	problems := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(places); i += workers {
				if p := check(places[i]); p != "" && len(problems[w]) < 5 {
					problems[w] = append(problems[w], p)
				}
			}
		}()
	}
	wg.Wait()
	for _, ps := range problems {
		for _, p := range ps {
			t.Error(p)
		}
	}
	t.Logf("%d bytes of a %d-event export flipped one at a time, each caught and named (%d informational bytes left out) in %s",
		len(places), len(evs), len(file)-len(places), time.Since(start).Round(time.Millisecond))
}

// TestHashAndHeadRequired: an export line without its hash, and a header
// without its head, fail the audit.
func TestHashAndHeadRequired(t *testing.T) {
	evs := playFirstBattle(t)
	file := exportBytes(t, evs, false)
	lines := bytes.SplitAfter(file, []byte("\n"))
	noHash := slices.Clone(lines)
	h := events.Hash(evs[4].Raw)
	noHash[5] = bytes.Replace(noHash[5], []byte(`"hash":"`+h+`",`), nil, 1)
	rep := readExport(t, bytes.Join(noHash, nil)).Verify()
	if f := firstFailure(t, rep, audit.CheckChain); f.Version != 5 || !strings.Contains(f.Message, "records no hash") {
		t.Errorf("no hash: %s", f)
	}
	noHead := slices.Clone(lines)
	noHead[0] = bytes.Replace(noHead[0], []byte(`"head":"`+events.Hash(evs[len(evs)-1].Raw)+`"`), []byte(`"head":""`), 1)
	rep = readExport(t, bytes.Join(noHead, nil)).Verify()
	if f := firstFailure(t, rep, audit.CheckChain); !strings.Contains(f.Message, "records no head") {
		t.Errorf("no head: %s", f)
	}
}

// TestKeptHeads: a head someone kept is found in the chain that extends
// it; a clean cut of the tail passes on its own (the rolls pending, as in
// a battle in progress) but not against a head kept from beyond the cut.
func TestKeptHeads(t *testing.T) {
	evs := playFirstBattle(t)
	mid := events.Hash(evs[11].Raw)
	rep := readExport(t, exportBytes(t, evs, false)).VerifyWith(audit.Options{Heads: []string{mid[:16], mid}})
	checkStatus(t, rep, nil)
	if len(rep.KeptHeads) != 2 || !rep.KeptHeads[0].Found || rep.KeptHeads[0].Version != 12 {
		t.Errorf("kept heads: %+v", rep.KeptHeads)
	}
	if c, _ := rep.Check(audit.CheckHeads); !strings.Contains(c.Summary, fmt.Sprintf("2 of 2 kept heads in the chain (v12, v12 of %d)", len(evs))) {
		t.Errorf("summary: %s", c.Summary)
	}
	rev := find(t, evs, rules.EvDiceRevealed, nil)
	cut := readExport(t, exportBytes(t, evs[:rev], false))
	if rep := cut.Verify(); rep.Failed() {
		t.Fatalf("the cut export on its own: %v", rep.Err())
	}
	kept := events.Hash(evs[len(evs)-1].Raw)
	for _, rep := range []*audit.Report{cut.VerifyWith(audit.Options{Heads: []string{kept}}), audit.Verify(evs[:rev], audit.Options{Heads: []string{kept}})} {
		f := firstFailure(t, rep, audit.CheckHeads)
		if f.Version != uint64(rev) || !strings.Contains(f.Message, "is the hash of no event of this chain") {
			t.Errorf("cut: %s", f)
		}
	}
	if f := firstFailure(t, audit.Verify(evs, audit.Options{Heads: []string{"zz"}}), audit.CheckHeads); !strings.Contains(f.Message, "at least 16") {
		t.Errorf("bad head: %s", f)
	}
}

// TestOldUnsignedLogStillAudits: a battle written before the ledger signed
// (no signer, no sig) audits as before, its events counted as unsigned;
// so does its export in the old format. Against a key file that signs
// from before them, the same events are named.
func TestOldUnsignedLogStillAudits(t *testing.T) {
	old := rechainWith(t, playFirstBattle(t), nil)
	ring := events.NewKeyring(old[len(old)-1].Sequence+1, events.TrustedKey{Key: firstBattleKeys(t).Signer.KeyHex()})
	rep := audit.Verify(old, audit.Options{Keys: ring})
	checkStatus(t, rep, nil)
	if c, _ := rep.Check(audit.CheckSignatures); rep.Unsigned != len(old) || !strings.Contains(c.Summary, "none signed") {
		t.Errorf("unsigned: %d, %s", rep.Unsigned, c.Summary)
	}
	// The same file as an older ledger wrote it (ledger-export-v1).
	v2 := exportBytes(t, old, false)
	header, rest, _ := bytes.Cut(v2, []byte("\n"))
	var m map[string]any
	if err := json.Unmarshal(header, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "keys")
	delete(m, "signed_from")
	m["format"] = audit.FormatV1
	h, _ := json.Marshal(m)
	x := readExport(t, append(append(h, '\n'), rest...))
	if rep := x.Verify(); rep.Failed() || rep.Unsigned != len(old) {
		t.Errorf("v1 export: %v, %d unsigned", rep.Err(), rep.Unsigned)
	}
	rep = audit.Verify(old, audit.Options{Keys: firstBattleKeys(t).Keyring()})
	if f := firstFailure(t, rep, audit.CheckSignatures); f.Version != 1 || !strings.Contains(f.Message, "carries no signature") {
		t.Errorf("against a key that signs from sequence 1: %s", f)
	}
}

// TestKeyChangeInExport: a battle whose events span a change of the
// ledger's key verifies from its export alone, the header carrying the
// change signed by the old key; without it, or with a change the new key
// signed itself, the new key's events are not the ledger's.
func TestKeyChangeInExport(t *testing.T) {
	evs := playFirstBattle(t)
	k1, k2 := firstBattleKeys(t).Signer, strangerKey(t, 10)
	split := 12
	mixed := rechainWith(t, evs[:split], k1)
	tail := cloneEnvs(evs[split:])
	for i := range tail {
		tail[i].Raw = nil
	}
	if err := events.ChainSigned(&mixed[split-1], tail, k2); err != nil {
		t.Fatal(err)
	}
	mixed = append(mixed, tail...)
	change := func(by *events.Signer) events.Envelope {
		p, _ := json.Marshal(events.KeyChanged{From: k1.KeyHex(), To: k2.KeyHex()})
		e := []events.Envelope{{ID: "demo-1809/key-change/0", Campaign: "demo-1809", Type: events.KeyChangedType, Schema: 1,
			Actor: "operator", CommandID: "key-change", Audience: events.AudienceAll, Payload: p}}
		if err := events.ChainSigned(nil, e, by); err != nil {
			t.Fatal(err)
		}
		return e[0]
	}
	write := func(changes ...events.Envelope) *audit.Export {
		var buf bytes.Buffer
		if err := audit.WriteExport(&buf, audit.Meta{ExportedAt: exportTime, KeyChanges: changes}, mixed); err != nil {
			t.Fatal(err)
		}
		return readExport(t, buf.Bytes())
	}
	x := write(change(k1))
	rep := x.VerifyWith(audit.Options{Trust: k1.Fingerprint()})
	checkStatus(t, rep, nil)
	if len(rep.Signers) != 2 || rep.Signers[1].Trust != audit.TrustKeyChange || rep.Signers[1].Events != len(evs)-split {
		t.Errorf("signers: %+v", rep.Signers)
	}
	// Written again from what was read: the same file.
	var again bytes.Buffer
	if err := audit.WriteExport(&again, x.Meta, x.Events); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), exportBytesMeta(t, mixed, audit.Meta{ExportedAt: exportTime, KeyChanges: []events.Envelope{change(k1)}})) {
		t.Error("re-export of a key change differs")
	}
	for name, x := range map[string]*audit.Export{"no change": write(), "self-endorsed": write(change(k2))} {
		named := 0
		for _, f := range x.Verify().Failures() {
			if f.Version > uint64(split) && strings.Contains(f.Message, "not signed by the ledger: it is signed by key "+k2.Fingerprint()+", which is not one of the ledger's") {
				named++
			}
		}
		if named != len(evs)-split {
			t.Errorf("%s: %d of the new key's %d events named", name, named, len(evs)-split)
		}
	}
	// An event signed by the old key after the new one took over.
	back := rechainWith(t, mixed[:len(mixed)-1], nil)[:0]
	back = append(back, mixed[:len(mixed)-1]...)
	last := cloneEnvs(mixed[len(mixed)-1:])
	last[0].Raw = nil
	if err := events.ChainSigned(&back[len(back)-1], last, k1); err != nil {
		t.Fatal(err)
	}
	last[0].Sequence = back[len(back)-1].Sequence + 1
	rep = audit.Verify(append(back, last[0]), audit.Options{Keys: events.NewKeyring(0, events.TrustedKey{Key: k1.KeyHex()}, events.TrustedKey{Key: k2.KeyHex()})})
	if f := firstFailure(t, rep, audit.CheckSignatures); f.Version != uint64(len(mixed)) || !strings.Contains(f.Message, "had replaced it") {
		t.Errorf("old key after the new: %s", f)
	}
}

func exportBytesMeta(tb testing.TB, evs []events.Envelope, m audit.Meta) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := audit.WriteExport(&buf, m, evs); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestNoTokenHashes: nothing the audit or the export gives out carries the
// token hashes of the campaign's people, not even in part.
func TestNoTokenHashes(t *testing.T) {
	ctx := context.Background()
	l := campaigntest.Open(t, campaigntest.Options{Keys: true})
	sc, err := campaign.LoadScenario("../../examples/first-battle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Play(ctx, l.Service, campaign.Operator("umpire"), nil); err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for _, e := range l.Read(t, events.Key{Campaign: "demo-1809"}) {
		var p campaign.PlayerAdded
		if e.Type == campaign.EvPlayerAdded && json.Unmarshal(e.Payload, &p) == nil {
			hashes = append(hashes, p.TokenHash)
		}
	}
	if len(hashes) < 2 {
		t.Fatalf("the scenario adds its players, with tokens: %v", hashes)
	}
	evs := l.Read(t, firstBattleKey)
	file := exportBytes(t, evs, true)
	rep, _ := json.Marshal(readExport(t, file).Verify())
	live, _ := json.Marshal(audit.Verify(evs, audit.Options{Keys: l.Keys.Keyring()}))
	for _, h := range hashes {
		for name, b := range map[string][]byte{"export": file, "report": rep, "live report": live} {
			if bytes.Contains(b, []byte(h[:8])) {
				t.Errorf("the %s carries token hash %s…", name, h[:8])
			}
		}
	}
	// A campaign stream is not a battle: it is not exported.
	if err := audit.WriteExport(&bytes.Buffer{}, audit.Meta{}, l.Read(t, events.Key{Campaign: "demo-1809"})); err == nil {
		t.Error("a campaign stream was exported")
	}
}
