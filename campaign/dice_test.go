package campaign_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// diceBattle creates campaign c1 with its people (marie for red; karl and
// lena for blue; ump, the umpire), each authenticated by the token
// player.add issued, and battle b1 (the default ruleset: ledger-dice-v3)
// started, red to give orders.
func diceBattle(t *testing.T, svc *campaign.Service) map[string]campaign.Principal {
	t.Helper()
	ctx := context.Background()
	exec(t, svc, "create", campaign.CmdCreate, "", map[string]any{"name": "C1", "sides": []map[string]string{
		{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	people := map[string]campaign.Principal{}
	for _, p := range []struct{ id, role, side string }{
		{"marie", campaign.RolePlayer, "red"}, {"karl", campaign.RolePlayer, "blue"},
		{"lena", campaign.RolePlayer, "blue"}, {"ump", campaign.RoleUmpire, ""},
	} {
		out := exec(t, svc, "add-"+p.id, campaign.CmdPlayerAdd, "", map[string]string{"player": p.id, "role": p.role, "side": p.side})
		who, err := svc.Authenticate(ctx, "c1", out.Token)
		if err != nil || who.Player != p.id {
			t.Fatalf("%s's token: %+v %v", p.id, who, err)
		}
		people[p.id] = who
	}
	exec(t, svc, "battle", "battle.create", "b1", map[string]any{"name": "B1", "measurement": "in",
		"table": map[string]float64{"width": 72, "depth": 48}, "first_side": "red"})
	// Red has four brigades of one unit each, so that four generals may
	// each give an order in one command phase whatever the dice (a general
	// who fails gives no more orders, C.4; the C-in-C's failure would end
	// everyone's, C.11, so he gives none).
	for _, side := range []struct {
		id       string
		y        float64
		face     float64
		brigades int
	}{{"red", 10, 0, 4}, {"blue", 38, 180, 1}} {
		var brigades []map[string]any
		for i := 1; i <= side.brigades; i++ {
			x := float64(4 + 14*i)
			brigades = append(brigades, map[string]any{
				"id": fmt.Sprintf("%s-%d", side.id, i), "name": fmt.Sprintf("Brigade %d", i), "order": "attack",
				"general": map[string]any{"id": fmt.Sprintf("%s-gen%d", side.id, i), "name": "G", "rating": 8, "position": map[string]float64{"x": x, "y": side.y - 2}},
				"units": []map[string]any{{"id": fmt.Sprintf("%s-inf%d", side.id, i), "type": "infantry",
					"position": map[string]float64{"x": x, "y": side.y}, "facing": side.face}},
			})
		}
		exec(t, svc, "deploy-"+side.id, "army.deploy", "b1", map[string]any{
			"side":     side.id,
			"c_in_c":   map[string]any{"id": side.id + "-cinc", "name": "C", "rating": 9, "position": map[string]float64{"x": 36, "y": side.y - 6}},
			"brigades": brigades,
		})
	}
	exec(t, svc, "start", "battle.start", "b1", map[string]any{})
	return people
}

// give runs a battle command of b1 as p, entered for forWho ("" : p's
// own), with a nonce from p's device ("" : none).
func give(t *testing.T, svc *campaign.Service, p campaign.Principal, forWho, id, name string, b any, nonce string) (campaign.Outcome, error) {
	t.Helper()
	return svc.Execute(context.Background(), campaign.Request{ID: id, Principal: p, For: forWho, Campaign: "c1", Battle: "b1",
		Name: name, Body: body(t, b), Nonce: nonce})
}

// order is an order.give body: red's general of brigade n moves its unit.
func order(n int) map[string]any {
	return map[string]any{"general": fmt.Sprintf("red-gen%d", n), "units": []string{fmt.Sprintf("red-inf%d", n)}, "content": map[string]string{"action": "move"}}
}

// rollsOf returns the dice.rolled events of an outcome, decoded.
func rollsOf(t *testing.T, out campaign.Outcome) []rules.DiceRolled {
	t.Helper()
	var rs []rules.DiceRolled
	for _, e := range out.Events {
		if e.Type == rules.EvDiceRolled {
			var r rules.DiceRolled
			if err := json.Unmarshal(e.Payload, &r); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		t.Fatalf("%s rolled no dice", out.Events[0].CommandID)
	}
	return rs
}

// TestOnlyThePlayerNamedAddsTheirSeed: a dice seed is added by the player
// it names, or entered for them by the umpire (recorded with both names),
// and only before the period's first digital roll. Everything else is
// refused and appends nothing. Through the service, with the people's own
// tokens.
func TestOnlyThePlayerNamedAddsTheirSeed(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	who := diceBattle(t, svc)
	seed := func(player, s string) map[string]string { return map[string]string{"player": player, "seed": s} }
	forbidden := func(what string, out campaign.Outcome, err error) {
		t.Helper()
		var f *campaign.Forbidden
		if !errors.As(err, &f) {
			t.Fatalf("%s: want forbidden, got %v %+v", what, err, out)
		}
	}
	before := lastSeq(t, l.log)
	out, err := give(t, svc, who["marie"], "", "m-karl", rules.CmdDiceAddSeed, seed("karl", "chosen for karl"), "")
	forbidden("marie adds karl's seed", out, err)
	out, err = give(t, svc, who["ump"], "", "u-marie", rules.CmdDiceAddSeed, seed("marie", "chosen for marie"), "")
	forbidden("the umpire adds marie's seed as marie, not entered for her", out, err)
	out, err = give(t, svc, who["ump"], "karl", "u-for-karl-as-marie", rules.CmdDiceAddSeed, seed("marie", "x"), "")
	forbidden("the umpire, entering for karl, adds marie's seed", out, err)
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("refused seeds appended %d events", after-before)
	}

	own, err := give(t, svc, who["marie"], "", "m-own", rules.CmdDiceAddSeed, seed("marie", "vive l'empereur"), "")
	if err != nil {
		t.Fatal(err)
	}
	if e := own.Events[0]; e.Type != rules.EvDiceSeedAdded || e.Actor != "marie" || e.OnBehalfOf != "" {
		t.Fatalf("marie's own seed recorded as %+v", e)
	}
	entered, err := give(t, svc, who["ump"], "karl", "u-karl", rules.CmdDiceAddSeed, seed("karl", "Aspern bleibt"), "")
	if err != nil {
		t.Fatal(err)
	}
	if e := entered.Events[0]; e.Type != rules.EvDiceSeedAdded || e.Actor != "ump" || e.OnBehalfOf != "karl" {
		t.Fatalf("karl's seed entered by the umpire recorded as %+v", e)
	}
	var r *rules.Refusal
	if _, err := give(t, svc, who["marie"], "", "m-again", rules.CmdDiceAddSeed, seed("marie", "again"), ""); !errors.As(err, &r) || r.Code != "seed_given" {
		t.Fatalf("marie's second seed: %v", err)
	}

	// The first digital roll closes the period to seeds: lena's own, and
	// one the umpire enters for her, are refused.
	if _, err := give(t, svc, who["marie"], "", "m-order", rules.CmdOrderGive, order(1), "00112233445566778899aabbccddeeff"); err != nil {
		t.Fatal(err)
	}
	before = lastSeq(t, l.log)
	for _, c := range []struct {
		by   campaign.Principal
		for_ string
	}{{who["lena"], ""}, {who["ump"], "lena"}} {
		_, err := give(t, svc, c.by, c.for_, "late-"+c.by.Player, rules.CmdDiceAddSeed, seed("lena", "too late"), "")
		if !errors.As(err, &r) || r.Rule != "dice" || r.Code != "period_rolled" {
			t.Fatalf("lena's seed after the first roll, by %s: %v", c.by.Player, err)
		}
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("late seeds appended %d events", after-before)
	}

	// The audit lists each seed with who entered it.
	evs, err := l.log.Read(context.Background(), b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Verify(evs, audit.Options{})
	if len(rep.Periods) != 1 || fmt.Sprint(rep.Periods[0].Seeds) != fmt.Sprint([]audit.PlayerSeed{
		{Player: "marie", Seed: "vive l'empereur", EnteredBy: "marie", Version: own.Events[0].Version},
		{Player: "karl", Seed: "Aspern bleibt", EnteredBy: "ump", Version: entered.Events[0].Version},
	}) {
		t.Fatalf("the audit's seeds: %+v", rep.Periods)
	}
}

// TestUmpireCannotSteerAPlayersRoll grinds as the umpire who runs the
// ledger and so holds the period's secret seed (it reads it from the
// vault): before marie's order it enters a seed for karl, who is absent,
// and spends two rolls on orders of its own, sent with nonces from its own
// device. Marie's roll is still exactly what the seed, the recorded seeds,
// its counter and her device's nonce give (ledger-dice-v3); everything
// the umpire chose or knew leaves it open (over other nonces it takes
// other values), and the nonces the umpire sent are not mixed in, neither
// into its own rolls nor into the one it enters for marie. A retry of
// marie's command with another nonce answers the recorded roll. After the
// reveal the audit recomputes every roll, counts marie's roll as the one
// with a player's nonce, and charges the rest to the umpire, the one it
// entered for marie shown apart.
func TestUmpireCannotSteerAPlayersRoll(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	who := diceBattle(t, svc)
	ctx := context.Background()
	raw, err := l.vault.Get(ctx, "dice.c1.b1.battle")
	if err != nil {
		t.Fatal(err)
	}
	seed, err := dice.ParseSeed(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	umpNonce := "f00dfeedf00dfeedf00dfeedf00dfeed"
	marieNonce := "5EB63BBBE01EEED093CB22BB8F5ACDC3" // her device's, sent in upper case

	// The umpire's choices.
	if _, err := give(t, svc, who["marie"], "", "m-seed", rules.CmdDiceAddSeed, map[string]string{"player": "marie", "seed": "vive l'empereur"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := give(t, svc, who["ump"], "karl", "u-karl-seed", rules.CmdDiceAddSeed, map[string]string{"player": "karl", "seed": "grind-07"}, umpNonce); err != nil {
		t.Fatal(err)
	}
	var spent []rules.DiceRolled
	for _, n := range []int{2, 3} {
		out, err := give(t, svc, who["ump"], "", fmt.Sprintf("u-spend-%d", n), rules.CmdOrderGive, order(n), umpNonce)
		if err != nil {
			t.Fatal(err)
		}
		spent = append(spent, rollsOf(t, out)...)
	}
	enteredOut, err := give(t, svc, who["ump"], "marie", "u-for-marie", rules.CmdOrderGive, order(4), umpNonce)
	if err != nil {
		t.Fatal(err)
	}
	spent = append(spent, rollsOf(t, enteredOut)...)

	// Marie's own order, with her device's nonce.
	out, err := give(t, svc, who["marie"], "", "page-marie-1", rules.CmdOrderGive, order(1), marieNonce)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := svc.State(ctx, b1)
	if err != nil {
		t.Fatal(err)
	}
	in := dice.Input{Seed: seed, PlayerSeeds: st.Dice.PlayerSeeds, Battle: "c1/b1", Period: "battle"}
	if len(in.PlayerSeeds) != 2 {
		t.Fatalf("player seeds %v", in.PlayerSeeds)
	}
	nonce, _ := dice.ParseNonce(marieNonce)
	for _, r := range rollsOf(t, out) {
		if r.CommandID != "" || r.Scheme != dice.SchemeV3 || r.Nonce != strings.ToLower(marieNonce) || r.Source != rules.SourceDigital {
			t.Fatalf("marie's roll records %+v", r)
		}
		want, err := dice.RollV3(in, r.Counter, nonce, r.Count, r.Sides)
		if err != nil || !slices.Equal(want, r.Values) {
			t.Fatalf("marie's roll %d is %v; the seed, her counter and her nonce give %v (%v)", r.Counter, r.Values, want, err)
		}
		// All the umpire chose and knew, without her nonce, leaves the
		// roll open: over 64 other nonces it takes more than one value.
		seen := map[string]bool{}
		for i := range 64 {
			other := sha256.Sum256([]byte(fmt.Sprintf("another device %d", i)))
			v, err := dice.RollV3(in, r.Counter, other[:16], r.Count, r.Sides)
			if err != nil {
				t.Fatal(err)
			}
			seen[fmt.Sprint(v)] = true
		}
		if len(seen) < 2 {
			t.Fatalf("roll %d takes one value whatever marie's nonce: %v", r.Counter, seen)
		}
	}
	if first := rollsOf(t, out)[0].Counter; first != uint64(len(spent))+1 {
		t.Fatalf("marie's roll took counter %d after %d rolls spent", first, len(spent))
	}
	// The umpire's device's nonce is in none of its rolls.
	for _, r := range spent {
		want, err := dice.RollV3(in, r.Counter, nil, r.Count, r.Sides)
		if r.Nonce != "" || r.CommandID != "" || err != nil || !slices.Equal(want, r.Values) {
			t.Fatalf("a roll the umpire made records %+v; without a nonce it is %v (%v)", r, want, err)
		}
	}

	// A retry of marie's command id, with another nonce: the recorded roll.
	again, err := give(t, svc, who["marie"], "", "page-marie-1", rules.CmdOrderGive, order(1), "00000000000000000000000000000001")
	if err != nil || !again.Duplicate || fmt.Sprint(rollsOf(t, again)) != fmt.Sprint(rollsOf(t, out)) {
		t.Fatalf("the retry: %v duplicate=%v", err, again.Duplicate)
	}

	// After the reveal, the audit recomputes every roll and counts apart.
	if _, err := give(t, svc, who["ump"], "", "end", rules.CmdBattleEnd, map[string]string{"reason": "agreed"}, ""); err != nil {
		t.Fatal(err)
	}
	evs, err := l.log.Read(ctx, b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Verify(evs, audit.Options{})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	mine := len(rollsOf(t, out))
	total := mine + len(spent)
	if rep.Periods[0].Recomputed != total || rep.Periods[0].Scheme != dice.SchemeV3 {
		t.Fatalf("the audit recomputed %d of %d rolls (%s)", rep.Periods[0].Recomputed, total, rep.Periods[0].Scheme)
	}
	counts := map[string][2]int{}
	for _, p := range rep.Players {
		counts[p.Player] = [2]int{p.NonceRolls, p.NoNonceRolls}
	}
	entered := len(rollsOf(t, enteredOut))
	if counts["marie"] != [2]int{mine, 0} || counts["ump"] != [2]int{0, len(spent)} {
		t.Fatalf("rolls with and without a player's nonce: %v", counts)
	}
	c, _ := rep.Check(audit.CheckNonces)
	want := fmt.Sprintf("%d with a player's nonce (marie %d), %d without (ump %d, ump for marie %d)", mine, mine, len(spent), len(spent)-entered, entered)
	if c.Status != audit.Pass || c.Summary != want {
		t.Fatalf("nonces check: %s %q, want %q", c.Status, c.Summary, want)
	}
}

// TestNonceMustBeHex: a malformed nonce is refused, naming the field, and
// nothing is appended.
func TestNonceMustBeHex(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	who := diceBattle(t, svc)
	before := lastSeq(t, l.log)
	for _, n := range []string{"not hex at all!!", "0011", strings.Repeat("ab", 33), "0011223344556677889"} {
		_, err := give(t, svc, who["marie"], "", "m-bad", rules.CmdOrderGive, order(1), n)
		var bad *campaign.InvalidInput
		if !errors.As(err, &bad) || bad.Field != "nonce" {
			t.Errorf("nonce %q: %v", n, err)
		}
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("bad nonces appended %d events", after-before)
	}
}

// TestCommandIDIsNotAnInput: the id of a command, which whoever sends it
// chooses freely, is not an input of its rolls. Two ledgers in the same
// state (the same harness entropy, so the same sealed seed, the same
// players' seeds and counters) are sent the same commands under other ids:
// an order the umpire enters for marie (with its own device's nonce, which
// is not mixed in), one of its own, and marie's own sent without a nonce.
// Every roll is the same on both, and records the scheme that derived it
// (ledger-dice-v3), no command id. Grinding ids offline gives the seed
// holder nothing to choose from.
func TestCommandIDIsNotAnInput(t *testing.T) {
	var got [2][]rules.DiceRolled
	var schemes [2][]string
	for i, try := range []string{"try-1", "try-2"} {
		l := openLedger(t, jetstream.Config{})
		svc := l.service()
		who := diceBattle(t, svc)
		for _, c := range []struct {
			by    campaign.Principal
			for_  string
			id    string
			n     int
			nonce string
		}{
			{who["ump"], "marie", "u-for-marie-" + try, 1, "f00dfeedf00dfeedf00dfeedf00dfeed"},
			{who["ump"], "", "u-own-" + try, 2, ""},
			{who["marie"], "", "m-no-nonce-" + try, 3, ""},
		} {
			out, err := give(t, svc, c.by, c.for_, c.id, rules.CmdOrderGive, order(c.n), c.nonce)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = append(got[i], rollsOf(t, out)...)
			for _, e := range out.Events {
				if e.Type == rules.EvDiceRolled {
					var m map[string]any
					if err := json.Unmarshal(e.Payload, &m); err != nil {
						t.Fatal(err)
					}
					schemes[i] = append(schemes[i], fmt.Sprint(m["scheme"]))
				}
			}
		}
	}
	if len(got[0]) < 3 || len(got[0]) != len(got[1]) {
		t.Fatalf("rolls: %d and %d", len(got[0]), len(got[1]))
	}
	for j := range got[0] {
		a, b := got[0][j], got[1][j]
		if a.Counter != b.Counter || !slices.Equal(a.Values, b.Values) {
			t.Errorf("roll %d: %v under the first ids, roll %d: %v under the second: the command id is an input", a.Counter, a.Values, b.Counter, b.Values)
		}
		if a.CommandID != "" || a.Nonce != "" || schemes[0][j] != "ledger-dice-v3" {
			t.Errorf("roll %d records command id %q, nonce %q, scheme %s", a.Counter, a.CommandID, a.Nonce, schemes[0][j])
		}
	}
}
