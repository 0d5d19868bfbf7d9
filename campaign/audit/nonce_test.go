package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// noncedKey is the battle playNoncedBattle plays.
var noncedKey = events.Key{Campaign: "club", Battle: "raab"}

// nonced is a battle played with player nonces, and the ledger it lives in.
type nonced struct {
	l   *campaigntest.Ledger
	evs []events.Envelope
	// rolls counts the digital rolls by the person whose command each
	// settles: [with a player's nonce, without].
	rolls map[string][2]int
}

// playNoncedBattle plays a battle as club night does with the page: each
// person with their own token; every command a player sends carries a nonce
// from their device; the umpire gives orders of its own and enters one for
// karl, sending its device's nonce too (the ledger leaves those out). Seeds
// rotate per turn, so there are two periods, each with players' seeds (one
// entered by the umpire for karl); the battle ends, every seed revealed. By
// ledger-dice-v1 (scheme) the same commands mix in no nonce at all.
func playNoncedBattle(tb testing.TB, scheme string) nonced {
	tb.Helper()
	l := campaigntest.Open(tb, campaigntest.Options{Keys: true})
	ctx := context.Background()
	op := campaign.Operator("")
	n := 0
	do := func(p campaign.Principal, forWho, name string, b any, nonce string) campaign.Outcome {
		tb.Helper()
		n++
		battle := noncedKey.Battle
		if name == campaign.CmdCreate || name == campaign.CmdPlayerAdd {
			battle = ""
		}
		return campaigntest.Do(tb, l.Service, campaign.Request{ID: fmt.Sprintf("%s-%d", p.Player, n), Principal: p, For: forWho,
			Campaign: noncedKey.Campaign, Battle: battle, Name: name, Body: campaigntest.Body(tb, b), Nonce: nonce})
	}
	device := func(who string) string {
		return fmt.Sprintf("%x", fmt.Sprintf("%-16.16s", who+" device "+fmt.Sprint(n)))
	}

	do(op, "", campaign.CmdCreate, map[string]any{"name": "Club", "sides": []map[string]string{{"id": "french", "name": "French"}, {"id": "austrians", "name": "Austrians"}}}, "")
	who := map[string]campaign.Principal{}
	for _, p := range []struct{ id, role, side string }{{"marie", campaign.RolePlayer, "french"}, {"karl", campaign.RolePlayer, "austrians"}, {"ump", campaign.RoleUmpire, ""}} {
		out := do(op, "", campaign.CmdPlayerAdd, map[string]string{"player": p.id, "role": p.role, "side": p.side}, "")
		pr, err := l.Service.Authenticate(ctx, noncedKey.Campaign, out.Token)
		if err != nil {
			tb.Fatal(err)
		}
		who[p.id] = pr
	}
	do(op, "", rules.CmdBattleCreate, map[string]any{"name": "Raab", "measurement": "in", "table": map[string]float64{"width": 72, "depth": 48},
		"first_side": "french", "turn_limit": 6, "ruleset": "dice: {scheme: " + scheme + ", seed_period: turn}\n"}, "")
	// One unit per brigade: each general gives one order whatever the
	// dice (a general who fails gives no more, C.4).
	for _, side := range []struct {
		id       string
		y, face  float64
		brigades int
	}{{"french", 10, 0, 3}, {"austrians", 38, 180, 2}} {
		var brigades []map[string]any
		for i := 1; i <= side.brigades; i++ {
			x := float64(6 + 14*i)
			brigades = append(brigades, map[string]any{
				"id": fmt.Sprintf("%s-%d", side.id, i), "name": "B", "order": "attack",
				"general": map[string]any{"id": fmt.Sprintf("%s-gen%d", side.id, i), "name": "G", "rating": 8, "position": map[string]float64{"x": x, "y": side.y - 2}},
				"units": []map[string]any{{"id": fmt.Sprintf("%s-inf%d", side.id, i), "type": "infantry",
					"position": map[string]float64{"x": x, "y": side.y}, "facing": side.face}},
			})
		}
		do(op, "", rules.CmdArmyDeploy, map[string]any{"side": side.id,
			"c_in_c":   map[string]any{"id": side.id + "-cinc", "name": "C", "rating": 9, "position": map[string]float64{"x": 36, "y": side.y - 6}},
			"brigades": brigades}, "")
	}
	do(op, "", rules.CmdBattleStart, map[string]any{}, "")
	order := func(side string, i int) map[string]any {
		return map[string]any{"general": fmt.Sprintf("%s-gen%d", side, i), "units": []string{fmt.Sprintf("%s-inf%d", side, i)}, "content": map[string]string{"action": "move"}}
	}
	rolls := map[string][2]int{}
	count := func(whose string, out campaign.Outcome) {
		for _, e := range out.Events {
			if e.Type != rules.EvDiceRolled {
				continue
			}
			var r rules.DiceRolled
			if err := json.Unmarshal(e.Payload, &r); err != nil {
				tb.Fatal(err)
			}
			c := rolls[whose]
			if r.Nonce != "" {
				c[0]++
			} else {
				c[1]++
			}
			rolls[whose] = c
		}
	}

	// Turn 1, period "1": the French.
	do(who["marie"], "", rules.CmdDiceAddSeed, map[string]string{"player": "marie", "seed": "vive l'empereur 1809"}, "")
	do(who["ump"], "karl", rules.CmdDiceAddSeed, map[string]string{"player": "karl", "seed": "said at the table"}, "")
	count("marie", do(who["marie"], "", rules.CmdOrderGive, order("french", 1), device("marie")))
	count("marie", do(who["marie"], "", rules.CmdOrderGive, order("french", 2), device("marie")))
	count("ump", do(who["ump"], "", rules.CmdOrderGive, order("french", 3), device("ump")))
	for range 3 {
		do(who["marie"], "", rules.CmdPhaseEnd, map[string]string{"side": "french"}, "")
	}
	// Turn 2, period "2": the Austrians.
	do(who["karl"], "", rules.CmdDiceAddSeed, map[string]string{"player": "karl", "seed": "Aspern bleibt"}, "")
	count("karl", do(who["karl"], "", rules.CmdOrderGive, order("austrians", 1), device("karl")))
	count("karl", do(who["ump"], "karl", rules.CmdOrderGive, order("austrians", 2), device("ump")))
	do(who["ump"], "", rules.CmdBattleEnd, map[string]string{"reason": "agreed"}, "")
	return nonced{l: l, evs: l.Read(tb, noncedKey), rolls: rolls}
}

// TestAuditOfANoncedBattle: the audit of a battle played with player
// nonces recomputes every digital roll, live and from an export, by
// ledger-dice-v3 with each roll's nonce, and counts apart the rolls with a
// player's nonce (the player's) and those without (charged to who entered
// them). A nonce changed in the log (re-signed by whoever holds the key) is
// named; so are a nonce recorded on a command the umpire entered, a command
// id recorded on a v3 roll, and a roll that records another scheme.
func TestAuditOfANoncedBattle(t *testing.T) {
	b := playNoncedBattle(t, dice.Scheme)
	ring := b.l.Keys.Keyring()
	live := audit.Verify(b.evs, audit.Options{Keys: ring})
	checkStatus(t, live, nil)
	x := readExport(t, exportBytes(t, b.evs, false))
	rep := x.Verify()
	checkStatus(t, rep, nil)

	digital := digitalRolls(t, b.evs)
	if b.rolls["marie"] != [2]int{digital - sumRolls(b.rolls["karl"]) - sumRolls(b.rolls["ump"]), 0} || b.rolls["karl"][0] == 0 || b.rolls["karl"][1] == 0 || b.rolls["ump"][0] != 0 {
		t.Fatalf("the battle's rolls: %v", b.rolls)
	}
	for _, r := range []*audit.Report{live, rep} {
		recomputed := 0
		for _, p := range r.Periods {
			if p.Scheme != dice.SchemeV3 || !p.Verified {
				t.Errorf("period %+v", p)
			}
			recomputed += p.Recomputed
		}
		if len(r.Periods) != 2 || recomputed != digital {
			t.Errorf("%d periods, %d of %d digital rolls recomputed", len(r.Periods), recomputed, digital)
		}
		// karl's roll entered by the umpire is charged to the umpire.
		charged := map[string][2]int{"marie": b.rolls["marie"], "karl": {b.rolls["karl"][0], 0}, "ump": {0, b.rolls["ump"][1] + b.rolls["karl"][1]}}
		for _, p := range r.Players {
			if got, want := [2]int{p.NonceRolls, p.NoNonceRolls}, charged[p.Player]; got != want {
				t.Errorf("%s: %v rolls with and without a player's nonce, want %v", p.Player, got, want)
			}
		}
		c, _ := r.Check(audit.CheckNonces)
		want := fmt.Sprintf("%d with a player's nonce (karl %d, marie %d), %d without (ump %d, ump for karl %d)",
			b.rolls["karl"][0]+b.rolls["marie"][0], b.rolls["karl"][0], b.rolls["marie"][0], b.rolls["karl"][1]+b.rolls["ump"][1], b.rolls["ump"][1], b.rolls["karl"][1])
		if c.Summary != want || c.Checked != digital {
			t.Errorf("nonces: %q (%d checked), want %q", c.Summary, c.Checked, want)
		}
	}

	// Forgeries by whoever holds the key: every one is named.
	roll := func(e events.Envelope) rules.DiceRolled {
		var r rules.DiceRolled
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	playerRoll := find(t, b.evs, rules.EvDiceRolled, func(e events.Envelope) bool { return roll(e).Nonce != "" })
	entered := find(t, b.evs, rules.EvDiceRolled, func(e events.Envelope) bool { return e.OnBehalfOf == "karl" })
	for _, c := range []struct {
		name   string
		at     int
		change func(*rules.DiceRolled)
		check  string
		says   string
	}{
		{"another nonce", playerRoll, func(r *rules.DiceRolled) { r.Nonce = otherNonce(t, b.evs, playerRoll) }, audit.CheckRolls, "does not recompute"},
		{"a nonce on a command entered for karl", entered, func(r *rules.DiceRolled) { r.Nonce = "00112233445566778899aabbccddeeff" }, audit.CheckNonces, "ump entered the command for karl"},
		{"a command id on a v3 roll", entered, func(r *rules.DiceRolled) { r.CommandID = "u-ground-17" }, audit.CheckNonces, "mixes in no command id"},
		{"another scheme", entered, func(r *rules.DiceRolled) { r.Scheme = "ledger-dice-v2" }, audit.CheckRolls, `records scheme "ledger-dice-v2"`},
		{"an upper-case nonce", playerRoll, func(r *rules.DiceRolled) { r.Nonce = strings.ToUpper(r.Nonce) }, audit.CheckNonces, "lowercase hex"},
	} {
		evs := cloneEnvs(b.evs)
		edit(t, &evs[c.at], c.change)
		forged := rechainWith(t, evs, b.l.Keys.Signer)
		r := audit.Verify(forged, audit.Options{Keys: ring})
		f := firstFailure(t, r, c.check)
		if f.Version != forged[c.at].Version || !strings.Contains(f.Message, c.says) {
			t.Errorf("%s: %s", c.name, f)
		}
		if s, _ := r.Check(audit.CheckSignatures); s.Status != audit.Pass {
			t.Errorf("%s: the forgery is signed by the key holder, yet %s", c.name, findings(s))
		}
	}
}

// TestAuditOfAV1Battle: a battle begun with ledger-dice-v1 (its ruleset
// says so) is played and verified by it to the end: no roll mixes a nonce,
// and the audit recomputes every one by v1.
func TestAuditOfAV1Battle(t *testing.T) {
	b := playNoncedBattle(t, dice.SchemeV1)
	rep := readExport(t, exportBytes(t, b.evs, false)).Verify()
	checkStatus(t, rep, nil)
	recomputed := 0
	for _, p := range rep.Periods {
		if p.Scheme != dice.SchemeV1 {
			t.Errorf("period %+v", p)
		}
		recomputed += p.Recomputed
	}
	digital := digitalRolls(t, b.evs)
	if recomputed != digital || b.rolls["marie"][0]+b.rolls["karl"][0] != 0 {
		t.Errorf("%d of %d recomputed; rolls %v", recomputed, digital, b.rolls)
	}
	c, _ := rep.Check(audit.CheckNonces)
	if want := fmt.Sprintf("ledger-dice-v1 rolls: %d, no nonces", digital); c.Summary != want {
		t.Errorf("nonces: %q, want %q", c.Summary, want)
	}
	// A nonce written into a v1 roll is named.
	i := find(t, b.evs, rules.EvDiceRolled, nil)
	evs := cloneEnvs(b.evs)
	edit(t, &evs[i], func(r *rules.DiceRolled) { r.Nonce = "00112233445566778899aabbccddeeff" })
	if f := firstFailure(t, audit.Verify(rechainWith(t, evs, b.l.Keys.Signer), audit.Options{Keys: b.l.Keys.Keyring()}), audit.CheckNonces); !strings.Contains(f.Message, "mixes in neither") {
		t.Errorf("a nonce on a v1 roll: %s", f)
	}
}

func sumRolls(c [2]int) int { return c[0] + c[1] }

// v2Export is a battle exported by the ledger before ledger-dice-v3
// (commit bfa2851: playNoncedBattle by ledger-dice-v2, seeds per turn):
// every digital roll mixes in its command id, the umpire's own and the one
// it entered for karl without a nonce.
const v2Export = "testdata/raab-v2.jsonl"

// TestOldV2EventsStillVerify: the events a ledger wrote by ledger-dice-v2
// are verified by the scheme their commitments record, as they were
// written: every roll recomputes with its command id and nonce, and no
// check fails. The ledger no longer makes such rolls; it must still read
// them.
func TestOldV2EventsStillVerify(t *testing.T) {
	b, err := os.ReadFile(v2Export)
	if err != nil {
		t.Fatal(err)
	}
	rep := readExport(t, b).Verify()
	checkStatus(t, rep, nil)
	digital, recomputed := 0, 0
	for _, p := range rep.Periods {
		if p.Scheme != dice.SchemeV2 || !p.Verified {
			t.Errorf("period %+v", p)
		}
		digital += p.DigitalRolls
		recomputed += p.Recomputed
	}
	if len(rep.Periods) != 2 || digital != 5 || recomputed != digital {
		t.Fatalf("%d periods, %d of %d digital rolls recomputed", len(rep.Periods), recomputed, digital)
	}
}

// TestEnteredRollsChargedToWhoEnteredThem: a digital roll without a
// player's nonce (the umpire's own, the one it entered for karl) was
// computable by whoever held the seed, and whoever entered the command
// chose when to spend it: the audit charges it to the one who entered it,
// not to the player it was for, and says so ("ump for karl"); the players'
// statistics likewise. A roll with the nonce of the player's own device is
// the player's.
func TestEnteredRollsChargedToWhoEnteredThem(t *testing.T) {
	b := playNoncedBattle(t, dice.Scheme)
	rep := readExport(t, exportBytes(t, b.evs, false)).Verify()
	checkStatus(t, rep, nil)
	// b.rolls counts karl's entered roll for karl: [with, without].
	entered := b.rolls["karl"][1]
	if entered != 1 {
		t.Fatalf("the battle's rolls: %v", b.rolls)
	}
	stats := map[string][2]int{}
	for _, p := range rep.Players {
		stats[p.Player] = [2]int{p.NonceRolls, p.NoNonceRolls}
	}
	if stats["karl"] != [2]int{b.rolls["karl"][0], 0} || stats["marie"] != b.rolls["marie"] || stats["ump"] != [2]int{0, b.rolls["ump"][1] + entered} {
		t.Errorf("with and without a player's nonce, charged: %v (played %v)", stats, b.rolls)
	}
	c, _ := rep.Check(audit.CheckNonces)
	with := b.rolls["karl"][0] + b.rolls["marie"][0]
	want := fmt.Sprintf("%d with a player's nonce (karl %d, marie %d), %d without (ump %d, ump for karl %d)",
		with, b.rolls["karl"][0], b.rolls["marie"][0], b.rolls["ump"][1]+entered, b.rolls["ump"][1], entered)
	if c.Summary != want {
		t.Errorf("nonces: %q, want %q", c.Summary, want)
	}
}

// TestAV2BattleRollsByV3: a battle begun under ledger-dice-v2 (its ruleset
// and commitments say so) makes its rolls by ledger-dice-v3, each roll
// recording it, and audits clean. A roll that goes back to v2 after a v3
// roll (the key holder choosing, roll by roll, the scheme whose command id
// it can grind) is named; so is a v3 roll in a v1 battle.
func TestAV2BattleRollsByV3(t *testing.T) {
	b := playNoncedBattle(t, dice.SchemeV2)
	ring := b.l.Keys.Keyring()
	rep := audit.Verify(b.evs, audit.Options{Keys: ring})
	checkStatus(t, rep, nil)
	last := -1
	for i, e := range b.evs {
		if e.Type != rules.EvDiceRolled {
			continue
		}
		var r rules.DiceRolled
		decodePayload(t, e, &r)
		if r.Source == rules.SourceDigital && (r.Scheme != dice.SchemeV3 || r.CommandID != "") {
			t.Errorf("roll %d: scheme %q, command id %q", r.Counter, r.Scheme, r.CommandID)
		}
		last = i
	}
	for _, p := range rep.Periods {
		if p.Scheme != dice.SchemeV2 || p.Recomputed != p.DigitalRolls {
			t.Errorf("period %+v", p)
		}
	}
	evs := cloneEnvs(b.evs)
	edit(t, &evs[last], func(r *rules.DiceRolled) { r.Scheme, r.CommandID = "", evs[last].CommandID })
	forged := rechainWith(t, evs, b.l.Keys.Signer)
	if f := firstFailure(t, audit.Verify(forged, audit.Options{Keys: ring}), audit.CheckRolls); f.Version != forged[last].Version || !strings.Contains(f.Message, "do not go back") {
		t.Errorf("a v2 roll after v3: %s", f)
	}

	v1 := playNoncedBattle(t, dice.SchemeV1)
	i := find(t, v1.evs, rules.EvDiceRolled, nil)
	evs = cloneEnvs(v1.evs)
	edit(t, &evs[i], func(r *rules.DiceRolled) { r.Scheme = dice.SchemeV3 })
	forged = rechainWith(t, evs, v1.l.Keys.Signer)
	if f := firstFailure(t, audit.Verify(forged, audit.Options{Keys: v1.l.Keys.Keyring()}), audit.CheckRolls); !strings.Contains(f.Message, "which a battle keeps to its end") {
		t.Errorf("a v3 roll in a v1 battle: %s", f)
	}
}
