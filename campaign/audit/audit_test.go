package audit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// seedA is test seed A of docs/dice.md: a valid seed, not the battle's.
const seedA = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

func TestFirstBattlePasses(t *testing.T) {
	evs := playFirstBattle(t)
	live := audit.Verify(evs, audit.Options{Key: firstBattleKey, Keys: firstBattleKeys(t).Keyring()})
	checkStatus(t, live, nil)
	if err := live.Err(); err != nil {
		t.Fatal(err)
	}
	x := readExport(t, exportBytes(t, evs, false))
	rep := x.Verify()
	checkStatus(t, rep, nil)
	if !rep.Ended || rep.Events != len(evs) || rep.Head != events.Hash(evs[len(evs)-1].Raw) {
		t.Errorf("report: ended %v, %d events, head %s", rep.Ended, rep.Events, rep.Head)
	}
	if len(rep.Periods) != 1 {
		t.Fatalf("periods: %+v", rep.Periods)
	}
	p := rep.Periods[0]
	// The figures are the log's own counts, whatever the digital dice
	// showed (a 6+6 rolls the blunder table once more).
	tally := tallyRolls(t, evs)
	digital := tally["marie"].digital + tally["karl"].digital + tally["umpire"].digital
	if p.Period != "battle" || !p.Verified || p.DigitalRolls != digital || p.Recomputed != digital || len(p.Seeds) != 2 {
		t.Errorf("period: %+v", p)
	}
	// Every event signed by the ledger's key: the live audit trusts it
	// from the key file, the export's from its header.
	key := firstBattleKeys(t).Signer.KeyHex()
	if len(live.Signers) != 1 || live.Signers[0].Key != key || live.Signers[0].Trust != audit.TrustKeyFile || live.Signers[0].Events != len(evs) ||
		len(rep.Signers) != 1 || rep.Signers[0].Key != key || rep.Signers[0].Trust != audit.TrustExportHeader {
		t.Errorf("signers: live %+v, export %+v", live.Signers, rep.Signers)
	}
	// The live audit and the export's say the same, but for what the
	// trust rests on: the live ledger's key file proves the author, an
	// export's header alone does not.
	if !live.Authorship.Proven || live.Authorship.Anchor != audit.AnchorKeyFile || rep.Authorship.Proven || rep.Authorship.Anchor != "" {
		t.Errorf("authorship: live %+v, export %+v", live.Authorship, rep.Authorship)
	}
	live.Signers[0].Trust, rep.Signers[0].Trust = "", ""
	live.Authorship, rep.Authorship = audit.Authorship{}, audit.Authorship{}
	lj, _ := json.Marshal(live)
	xj, _ := json.Marshal(rep)
	if !bytes.Equal(lj, xj) {
		t.Errorf("live and export audits differ:\n%s\n%s", lj, xj)
	}
	// Players: marie entered two physical rolls; the scenario's steps are
	// entered for their players by the umpire, without a device nonce, so
	// the digital rolls of marie's and karl's orders (and the blunder
	// table's after a 6+6) are charged to the umpire, entered for them.
	stats := map[string]audit.PlayerStats{}
	for _, p := range rep.Players {
		stats[p.Player] = p
	}
	m, k, u := tally["marie"], tally["karl"], tally["umpire"]
	if s := stats["marie"]; s.Rolls != m.rolls || s.PhysicalRolls != 2 || m.physical != 2 || s.DigitalRolls != 0 || s.EnteredByOthers == 0 || s.Orders != 3 {
		t.Errorf("marie: %+v, want %+v", s, m)
	}
	if s := stats["karl"]; s.Rolls != 0 || k.rolls != 0 || s.EnteredByOthers == 0 || s.Orders != 1 {
		t.Errorf("karl: %+v, want %+v", s, k)
	}
	s := stats["umpire"]
	if s.DigitalRolls != u.digital || s.DigitalDice != u.digitalDice || u.digitalDice < 4 || s.NoNonceRolls != u.digital || len(s.EnteredFor) != 2 {
		t.Errorf("umpire: %+v, want %+v", s, u)
	}
	for _, e := range s.EnteredFor {
		if want := "entered by umpire for " + e.For + ", no device nonce"; e.By != "umpire" || e.Note != want || e.Rolls != stats[e.For].EnteredByOthers {
			t.Errorf("umpire entered %+v, want the note %q", e, want)
		}
	}
	if rep.All.Dice != m.dice+k.dice+u.dice || rep.All.Orders != 4 {
		t.Errorf("all: %+v", rep.All)
	}
	// karl's one order against 7 (digital dice, so its outcome varies from
	// run to run): failed 14/36, blunder 1/36 (C.3, C.5).
	observed := 0
	for _, o := range stats["karl"].Outcomes {
		observed += o.Observed
		switch {
		case o.Outcome == rules.OutcomeFailed && !near(o.Expected, 14.0/36):
			t.Errorf("karl failed: %+v", o)
		case o.Outcome == rules.OutcomeBlunder && !near(o.Expected, 1.0/36):
			t.Errorf("karl blunder: %+v", o)
		}
	}
	if observed != 1 {
		t.Errorf("karl: %d outcomes observed for one order", observed)
	}
	var total float64
	for _, o := range rep.All.Outcomes {
		total += o.Expected
	}
	if !near(total, 4) {
		t.Errorf("expected outcomes of 4 orders sum to %v", total)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestExportKeepsStoredBytes(t *testing.T) {
	evs := playFirstBattle(t)
	b := exportBytes(t, evs, false)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != len(evs)+1 {
		t.Fatalf("%d lines for %d events", len(lines), len(evs))
	}
	var meta audit.Meta
	if err := json.Unmarshal([]byte(lines[0]), &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Format != "ledger-export-v2" || len(meta.Keys) != 1 || meta.Keys[0].Key != firstBattleKeys(t).Signer.KeyHex() || meta.SignedFrom != evs[0].Sequence || meta.Campaign != "demo-1809" || meta.Battle != "eggmuhl" || meta.Events != len(evs) ||
		meta.Scheme != dice.Scheme || meta.Head != events.Hash(evs[len(evs)-1].Raw) || !meta.ExportedAt.Equal(exportTime) {
		t.Errorf("header: %+v", meta)
	}
	x := readExport(t, b)
	for i, e := range x.Events {
		if !bytes.Equal(e.Raw, evs[i].Raw) || e.Sequence != evs[i].Sequence || e.ID != evs[i].ID || x.Hashes[i] != events.Hash(evs[i].Raw) {
			t.Fatalf("event %d does not round-trip", i+1)
		}
	}
	// Writing what was read gives the same file.
	var again bytes.Buffer
	if err := audit.WriteExport(&again, x.Meta, x.Events); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), b) {
		t.Error("re-export differs")
	}
	// Not an export, truncated, and padded files are refused as such.
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"format":    bytes.Replace(b, []byte("ledger-export-v2"), []byte("ledger-export-v9"), 1),
		"unknown":   bytes.Replace(b, []byte(`"umpire":`), []byte(`"umpyre":`), 1),
		"truncated": []byte(strings.Join(lines[:len(lines)-1], "\n")),
		"padded":    append(slices.Clone(b), []byte(lines[len(lines)-1]+"\n")...),
		"not json":  []byte(lines[0] + "\n{oops\n"),
	} {
		var fe *audit.FormatError
		if _, err := audit.ReadExport(bytes.NewReader(bad)); !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a FormatError", name, err)
		}
	}
}

// TestFlipAnyByte flips one byte of every event of a real exported battle,
// at several places of its stored bytes, and of its line's hash: each time
// the audit fails and names that event.
func TestFlipAnyByte(t *testing.T) {
	evs := playFirstBattle(t)
	file := exportBytes(t, evs, false)
	lines := bytes.SplitAfter(file, []byte("\n"))
	flips := 0
	for i := range evs {
		line := lines[i+1]
		rawAt := bytes.Index(line, []byte(`"raw":"`)) + len(`"raw":"`)
		hashAt := bytes.Index(line, []byte(`"hash":"`)) + len(`"hash":"`)
		var places []int
		for j := rawAt; j < len(line)-2; j++ {
			if c := line[j]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				places = append(places, j)
			}
		}
		pick := []int{hashAt + 5}
		for k := 0; k < len(places); k += max(1, len(places)/7) {
			pick = append(pick, places[k])
		}
		pick = append(pick, places[len(places)-1])
		for _, at := range pick {
			flips++
			bad := slices.Clone(file)
			off := len(bytes.Join(lines[:i+1], nil)) + at
			bad[off] ^= 0x01
			version := uint64(i + 1)
			x, err := audit.ReadExport(bytes.NewReader(bad))
			if err != nil {
				var fe *audit.FormatError
				if !errors.As(err, &fe) || fe.Version != version {
					t.Errorf("event %d, byte %d: read error %v does not name the event", version, at, err)
				}
				continue
			}
			rep := x.Verify()
			fails := rep.Failures()
			if len(fails) == 0 {
				t.Errorf("event %d (%s), byte %d flipped (%q): the audit passed", version, evs[i].Type, at, line[max(0, at-10):at+10])
				continue
			}
			if fails[0].Check != audit.CheckChain || fails[0].Version != version {
				t.Errorf("event %d, byte %d flipped: first failure %s, want the chain naming v%d", version, at, fails[0], version)
			}
			if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "v"+itoa(version)) {
				t.Errorf("event %d: error %v does not name it", version, err)
			}
		}
	}
	t.Logf("%d single-byte flips over %d events, each caught and named", flips, len(evs))
}

func itoa(v uint64) string { b, _ := json.Marshal(v); return string(b) }

// TestFlipWithoutExportHashes: on the live log (no per-line hashes), a
// changed event shows at the next event's prev_hash, which names both, and
// a changed last event against a noted head hash.
func TestFlipWithoutExportHashes(t *testing.T) {
	evs := playFirstBattle(t)
	head := events.Hash(evs[len(evs)-1].Raw)
	for _, i := range []int{0, 9, len(evs) - 1} {
		bad := cloneEnvs(evs)
		bad[i].Raw[len(bad[i].Raw)/2] ^= 0x01
		rep := audit.Verify(bad, audit.Options{Head: head})
		// Either the changed bytes no longer decode (named at once), or its
		// own prev_hash no longer matches, or the next event's prev_hash
		// names it, or (the last) the head does.
		f := firstFailure(t, rep, audit.CheckChain)
		switch {
		case f.Version == uint64(i+1) && strings.Contains(f.Message, "not an event"):
		case f.Version == uint64(i+1) && strings.Contains(f.Message, "prev_hash") && strings.Contains(f.Message, "one of the two was altered"):
			// The flip landed in the event's own prev_hash.
		case f.Version == uint64(i+2) && strings.Contains(f.Message, evs[i].ID):
		case i == len(evs)-1 && f.Version == uint64(i+1) && strings.Contains(f.Message, "head"):
		default:
			t.Errorf("event %d changed: %s", i+1, f)
		}
	}
}

func TestWrongRevealedSeed(t *testing.T) {
	evs := playFirstBattle(t)
	i := find(t, evs, rules.EvDiceRevealed, nil)
	edit(t, &evs[i], func(r *rules.DiceRevealed) { r.Seed = seedA })
	evs = rechain(t, evs)
	rep := readExport(t, exportBytes(t, evs, false)).Verify()
	f := firstFailure(t, rep, audit.CheckReveals)
	if f.Version != evs[i].Version || f.Type != rules.EvDiceRevealed || !strings.Contains(f.Message, "does not match the commitment") {
		t.Errorf("reveal finding: %s", f)
	}
	checkStatus(t, rep, map[string]audit.Status{audit.CheckReveals: audit.Fail, audit.CheckRolls: audit.Fail})
	if rep.Err() == nil {
		t.Error("no error")
	}
}

func TestRemovedRoll(t *testing.T) {
	evs := playFirstBattle(t)
	i := find(t, evs, rules.EvDiceRolled, rollCounter(3))
	evs = rechain(t, slices.Delete(evs, i, i+1))
	rep := readExport(t, exportBytes(t, evs, false)).Verify()
	f := firstFailure(t, rep, audit.CheckCounters)
	next := evs[find(t, evs, rules.EvDiceRolled, rollCounter(4))]
	if f.Version != next.Version || f.Counter != 4 || !strings.Contains(f.Message, "roll 3 missing") {
		t.Errorf("counter finding: %s", f)
	}
	// The order that read roll 3 now cites a roll that is not there.
	if f := firstFailure(t, rep, audit.CheckOrders); !strings.Contains(f.Message, "roll 3, which is not in the log") {
		t.Errorf("order finding: %s", f)
	}
	checkStatus(t, rep, map[string]audit.Status{audit.CheckCounters: audit.Fail, audit.CheckOrders: audit.Fail})
}

func TestRepeatedRoll(t *testing.T) {
	evs := playFirstBattle(t)
	i := find(t, evs, rules.EvDiceRolled, rollCounter(4))
	again := evs[i]
	again.Raw = nil
	evs = rechain(t, slices.Insert(evs, i+1, again))
	rep := audit.Verify(evs, audit.Options{})
	f := firstFailure(t, rep, audit.CheckCounters)
	if f.Version != uint64(i+2) || !strings.Contains(f.Message, "repeated") {
		t.Errorf("finding: %s", f)
	}
	if f := firstFailure(t, rep, audit.CheckOrders); !strings.Contains(f.Message, "no decision reads it") {
		t.Errorf("the second roll 4 is never read: %s", f)
	}
}

// TestTamperedDigitalRoll changes a digital roll and makes the order that
// read it agree, and re-chains: the chain and the orders pass, and only the
// recomputation from the revealed seed catches it.
func TestTamperedDigitalRoll(t *testing.T) {
	evs := playFirstBattle(t)
	// Vukassovich's order roll: the battle's last roll that is not on the
	// blunder table (its counter depends on how many blunders came before).
	i := -1
	for k, e := range evs {
		if e.Type == rules.EvDiceRolled && !strings.Contains(string(e.Payload), `"purpose":"blunder:`) {
			i = k
		}
	}
	var recorded []int
	var counter uint64
	var forged []int
	edit(t, &evs[i], func(r *rules.DiceRolled) {
		// Other faces than those recorded, whatever they were.
		recorded, counter = r.Values, r.Counter
		forged = []int{r.Values[1]%6 + 1, r.Values[0]}
		r.Values = forged
	})
	j := find(t, evs, rules.EvOrderResolved, func(e events.Envelope) bool { return e.Version > evs[i].Version })
	edit(t, &evs[j], func(o *rules.OrderResolved) {
		o.Values, o.Total = forged, forged[0]+forged[1]
		o.Outcome, o.Actions = rules.DefaultRuleset().Command.Resolve(o.Values, o.Effective)
		o.GeneralDone = false
	})
	// A 6+6 on the original roll rolled the blunder table once more: the
	// order now reads as no blunder, so that roll is discarded and the
	// orders check fails too, whatever else.
	blundered := false
	for _, e := range evs {
		blundered = blundered || e.CommandID == evs[i].CommandID && e.Type == rules.EvDiceRolled && strings.Contains(string(e.Payload), `"purpose":"blunder:`)
	}
	evs = rechain(t, evs)
	rep := readExport(t, exportBytes(t, evs, false)).Verify()
	want := map[string]audit.Status{audit.CheckRolls: audit.Fail}
	if blundered {
		want[audit.CheckOrders] = audit.Fail
	}
	checkStatus(t, rep, want)
	f := firstFailure(t, rep, audit.CheckRolls)
	if f.Version != evs[i].Version || f.Counter != counter || !slices.Equal(f.Recorded, forged) || !slices.Equal(f.Expected, recorded) {
		t.Errorf("finding: %s", f)
	}
}

func TestOrderNotAsRuled(t *testing.T) {
	evs := playFirstBattle(t)
	j := find(t, evs, rules.EvOrderResolved, nil)
	edit(t, &evs[j], func(o *rules.OrderResolved) { o.Actions = 3 })
	k := find(t, evs, rules.EvOrderResolved, func(e events.Envelope) bool { return e.Version > evs[j].Version })
	edit(t, &evs[k], func(o *rules.OrderResolved) { o.Effective++ })
	rep := audit.Verify(rechain(t, evs), audit.Options{})
	checkStatus(t, rep, map[string]audit.Status{audit.CheckOrders: audit.Fail})
	c, _ := rep.Check(audit.CheckOrders)
	if len(c.Findings) < 2 || c.Findings[0].Version != uint64(j+1) || !strings.Contains(c.Findings[0].Message, "actions (2)") ||
		c.Findings[1].Version != uint64(k+1) || !strings.Contains(c.Findings[1].Message, "C.7") {
		t.Errorf("findings:\n%s", findings(c))
	}
}

// TestSeedAfterFirstRoll moves a player's seed after the period's first
// digital roll: the seed check names it, and the roll no longer recomputes
// unless, by chance, the dice without that seed show the same faces.
func TestSeedAfterFirstRoll(t *testing.T) {
	evs := playFirstBattle(t)
	s := find(t, evs, rules.EvDiceSeedAdded, func(e events.Envelope) bool { return e.Author() == "karl" })
	seed := evs[s]
	evs = slices.Delete(evs, s, s+1)
	r := find(t, evs, rules.EvDiceRolled, rollCounter(3))
	evs = rechain(t, slices.Insert(evs, r+1, seed))
	rep := audit.Verify(evs, audit.Options{})
	f := firstFailure(t, rep, audit.CheckSeedTiming)
	if f.Version != uint64(r+2) || f.Type != rules.EvDiceSeedAdded || !strings.Contains(f.Message, "after its first digital roll (counter 3") {
		t.Errorf("finding: %s", f)
	}
	// Roll 3 recomputed from the seeds added before it (marie's alone):
	// the rolls check fails exactly when those faces differ from the
	// recorded ones, whatever the dice showed.
	var roll rules.DiceRolled
	decodePayload(t, evs[r], &roll)
	without := recompute(t, evs, r, roll.Nonce)
	rolls := audit.Fail
	if slices.Equal(without, roll.Values) {
		rolls = audit.Pass
	}
	checkStatus(t, rep, map[string]audit.Status{audit.CheckSeedTiming: audit.Fail, audit.CheckRolls: rolls})
}

// recompute derives the faces of the roll evs[at] again, with nonce (hex)
// in place of the one it records, from the revealed seed and the players'
// seeds added before it.
func recompute(tb testing.TB, evs []events.Envelope, at int, nonceHex string) []int {
	tb.Helper()
	var roll rules.DiceRolled
	decodePayload(tb, evs[at], &roll)
	var revealed rules.DiceRevealed
	decodePayload(tb, evs[find(tb, evs, rules.EvDiceRevealed, nil)], &revealed)
	secret, err := dice.ParseSeed(revealed.Seed)
	if err != nil {
		tb.Fatal(err)
	}
	players := map[string]string{}
	for _, e := range evs[:at] {
		if e.Type == rules.EvDiceSeedAdded {
			var a rules.DiceSeedAdded
			decodePayload(tb, e, &a)
			players[a.Player] = a.Seed
		}
	}
	var committed rules.DiceCommitted
	decodePayload(tb, evs[find(tb, evs, rules.EvDiceCommitted, nil)], &committed)
	nonce, err := dice.ParseNonce(nonceHex)
	if err != nil {
		tb.Fatal(err)
	}
	scheme := committed.Scheme
	if roll.Scheme != "" {
		scheme = roll.Scheme
	}
	draw := dice.Draw{Counter: roll.Counter}
	switch scheme {
	case dice.SchemeV2:
		draw.Command, draw.Nonce = roll.CommandID, nonce
	case dice.SchemeV3:
		draw.Nonce = nonce
	}
	faces, err := dice.Derive(scheme, dice.Input{Seed: secret, PlayerSeeds: players, Battle: evs[at].Key().String(), Period: roll.Period}, draw, roll.Count, roll.Sides)
	if err != nil {
		tb.Fatal(err)
	}
	return faces
}

// otherNonce returns a nonce for the nonced roll evs[at] under which its
// dice show other faces than it records: a forgery the rolls check must
// catch whatever the dice showed (with the zero nonce, or any one fixed
// nonce, the faces can come out the same by chance).
func otherNonce(tb testing.TB, evs []events.Envelope, at int) string {
	tb.Helper()
	var roll rules.DiceRolled
	decodePayload(tb, evs[at], &roll)
	if got := recompute(tb, evs, at, roll.Nonce); !slices.Equal(got, roll.Values) {
		tb.Fatalf("roll %d recomputes to %v, records %v", roll.Counter, got, roll.Values)
	}
	for i := range 256 {
		nonce := strings.Repeat(fmt.Sprintf("%02x", i), len(roll.Nonce)/2)
		if nonce != roll.Nonce && !slices.Equal(recompute(tb, evs, at, nonce), roll.Values) {
			return nonce
		}
	}
	tb.Fatalf("no nonce of 256 changes roll %d's faces %v", roll.Counter, roll.Values)
	return ""
}

// decodePayload reads an event's payload into v.
func decodePayload(tb testing.TB, e events.Envelope, v any) {
	tb.Helper()
	if err := json.Unmarshal(e.Payload, v); err != nil {
		tb.Fatal(err)
	}
}

// TestUnrevealed: while the battle is in progress its digital rolls are
// pending, not failed; a battle that ended without its reveal fails.
func TestUnrevealed(t *testing.T) {
	evs := playFirstBattle(t)
	rev := find(t, evs, rules.EvDiceRevealed, nil)
	inProgress := evs[:rev]
	rep := readExport(t, exportBytes(t, inProgress, false)).Verify()
	checkStatus(t, rep, map[string]audit.Status{audit.CheckRolls: audit.Pending, audit.CheckReveals: audit.Pending})
	if err := rep.Err(); err != nil {
		t.Errorf("in progress: %v", err)
	}
	c, _ := rep.Check(audit.CheckRolls)
	if len(c.Findings) != 1 || !strings.Contains(c.Findings[0].Message, "unverifiable until the reveal") {
		t.Errorf("rolls:\n%s", findings(c))
	}

	ended := rechain(t, slices.Delete(cloneEnvs(evs), rev, rev+1))
	rep = audit.Verify(ended, audit.Options{})
	checkStatus(t, rep, map[string]audit.Status{audit.CheckRolls: audit.Fail, audit.CheckReveals: audit.Fail})
	if f := firstFailure(t, rep, audit.CheckRolls); !strings.Contains(f.Message, "ended") {
		t.Errorf("finding: %s", f)
	}
}

// TestHiddenEvents: an event not for all is exported as its hash only,
// unless for the umpire; the chain still verifies through it.
func TestHiddenEvents(t *testing.T) {
	evs := playFirstBattle(t)
	i := find(t, evs, rules.EvUnitMoved, nil)
	evs[i].Audience = events.SideAudience("french")
	evs = rechain(t, evs)
	secret := string(evs[i].Payload)

	players := exportBytes(t, evs, false)
	if bytes.Contains(players, []byte(strings.ReplaceAll(secret, `"`, `\"`))) {
		t.Fatal("the hidden event's payload is in the players' export")
	}
	x := readExport(t, players)
	if x.Meta.Withheld != 1 || x.Meta.Umpire {
		t.Errorf("header: %+v", x.Meta)
	}
	rep := x.Verify()
	checkStatus(t, rep, nil)
	if len(rep.Withheld) != 1 || rep.Withheld[0].Version != evs[i].Version || rep.Withheld[0].Type != rules.EvUnitMoved {
		t.Errorf("withheld: %+v", rep.Withheld)
	}
	// Its recorded hash is still bound by the next event's prev_hash.
	lines := bytes.SplitAfter(players, []byte("\n"))
	lines[i+1] = bytes.Replace(lines[i+1], []byte(x.Hashes[i][:8]), []byte("00000000"), 1)
	rep = readExport(t, bytes.Join(lines, nil)).Verify()
	if f := firstFailure(t, rep, audit.CheckChain); f.Version != evs[i].Version+1 {
		t.Errorf("altered withheld hash: %s", f)
	}

	// A hidden roll and the hidden decision that read it: the roll still
	// takes its counter, so the next one is no gap.
	hid := cloneEnvs(playFirstBattle(t))
	r := find(t, hid, rules.EvDiceRolled, rollCounter(1))
	hid[r].Audience, hid[r+1].Audience = "umpire", "umpire"
	rep = readExport(t, exportBytes(t, rechain(t, hid), false)).Verify()
	checkStatus(t, rep, nil)
	visible := 0
	for _, c := range tallyRolls(t, hid) {
		visible += c.rolls
	}
	if len(rep.Withheld) != 2 || rep.All.Rolls != visible-1 {
		t.Errorf("hidden roll: %d withheld, %d rolls", len(rep.Withheld), rep.All.Rolls)
	}

	umpire := readExport(t, exportBytes(t, evs, true))
	if umpire.Meta.Withheld != 0 || !bytes.Equal(umpire.Events[i].Raw, evs[i].Raw) {
		t.Errorf("umpire export: %+v", umpire.Meta)
	}
	checkStatus(t, umpire.Verify(), nil)
}

func TestOtherBattleSpliced(t *testing.T) {
	evs := playFirstBattle(t)
	evs[3].Battle = "aspern"
	rep := audit.Verify(rechain(t, evs), audit.Options{Key: firstBattleKey})
	if f := firstFailure(t, rep, audit.CheckChain); f.Version != 4 || !strings.Contains(f.Message, "belongs to demo-1809/aspern") {
		t.Errorf("finding: %s", f)
	}
}
