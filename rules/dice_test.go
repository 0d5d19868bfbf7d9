package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/dice"
)

// seededSetup is setup with a committed digital dice seed.
func seededSetup(t testing.TB, overlay string, seed dice.Seed) ([]Event, *State) {
	t.Helper()
	s := NewState()
	var all []Event
	body := createBody
	if overlay != "" {
		body = strings.Replace(body, `"turn_limit":4}`, `"turn_limit":4,"ruleset":`+quote(overlay)+`}`, 1)
	}
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleCreate, body), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, redBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, blueBody), nil)...)
	next, reveal := DicePeriods(s, &StartBattle{})
	if next != SeedPeriodBattle && next != "1" || reveal != "" {
		t.Fatalf("DicePeriods at start = %q, %q", next, reveal)
	}
	start := WithDiceCommitment(&StartBattle{}, seed.Commitment())
	all = append(all, mustDecide(t, s, start, nil)...)
	return all, s
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"` }

var testSeed, _ = dice.ParseSeed("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
var otherSeed, _ = dice.ParseSeed("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")

func TestDiceCommittedAtStart(t *testing.T) {
	evs, s := seededSetup(t, "", testSeed)
	c := findEvent[*DiceCommitted](evs)
	if c == nil || c.Period != SeedPeriodBattle || c.Commitment != testSeed.Commitment() || c.Scheme != dice.Scheme {
		t.Fatalf("dice.committed = %+v", c)
	}
	if s.Dice.Period != SeedPeriodBattle || s.Dice.Commitment != testSeed.Commitment() {
		t.Fatalf("dice book %+v", s.Dice)
	}
}

func TestPhysicalOnlyBattleCommitsNothing(t *testing.T) {
	evs, s := setup(t)
	if findEvent[*DiceCommitted](evs) != nil || s.openPeriod() != "" {
		t.Fatal("a battle started without a commitment has no dice period")
	}
	refused(t, s, cmd(t, CmdDiceAddSeed, `{"player":"alice","seed":"x"}`), nil, "dice", "no_period")
}

func TestPlayerSeedsBeforeFirstRollOnly(t *testing.T) {
	_, s := seededSetup(t, "", testSeed)
	evs := mustDecide(t, s, cmd(t, CmdDiceAddSeed, `{"player":"alice","seed":"aigle 7f3c"}`), nil)
	if a := findEvent[*DiceSeedAdded](evs); a == nil || a.Player != "alice" || a.Period != SeedPeriodBattle {
		t.Fatalf("seed_added = %+v", a)
	}
	refused(t, s, cmd(t, CmdDiceAddSeed, `{"player":"alice","seed":"again"}`), nil, "dice", "seed_given")
	refused(t, s, cmd(t, CmdDiceAddSeed, `{"player":"bob","seed":""}`), nil, RuleInput, "bad_seed")
	mustDecide(t, s, cmd(t, CmdDiceAddSeed, `{"player":"bob","seed":"tula samovar"}`), nil)
	// The first digital roll closes the period to new seeds.
	rolled := mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3))
	if d := findEvent[*DiceRolled](rolled); d == nil || d.Period != SeedPeriodBattle {
		t.Fatalf("digital roll does not name its period: %+v", d)
	}
	refused(t, s, cmd(t, CmdDiceAddSeed, `{"player":"carol","seed":"late"}`), nil, "dice", "period_rolled")
}

func TestRevealAtBattleEnd(t *testing.T) {
	_, s := seededSetup(t, "", testSeed)
	end := cmd(t, CmdBattleEnd, `{"reason":"agreed"}`)
	if next, reveal := DicePeriods(s, end); next != "" || reveal != SeedPeriodBattle {
		t.Fatalf("DicePeriods(end) = %q, %q", next, reveal)
	}
	refused(t, s, end, nil, "dice", "no_reveal")
	refused(t, s, WithDiceReveal(cmd(t, CmdBattleEnd, `{"reason":"agreed"}`), otherSeed.Hex()), nil, "dice", "reveal_mismatch")
	evs := mustDecide(t, s, WithDiceReveal(cmd(t, CmdBattleEnd, `{"reason":"agreed"}`), testSeed.Hex()), nil)
	r := findEvent[*DiceRevealed](evs)
	if r == nil || r.Seed != testSeed.Hex() || r.Commitment != testSeed.Commitment() {
		t.Fatalf("dice.revealed = %+v", r)
	}
	if s.Dice.Periods[0].Revealed != testSeed.Hex() || s.openPeriod() != "" {
		t.Fatalf("book after reveal %+v", s.Dice)
	}
}

func TestRevealAtTurnLimit(t *testing.T) {
	_, s := seededSetup(t, "", testSeed)
	for turn := 1; turn <= 4; turn++ {
		for i := 0; i < len(s.Ruleset.Turn.Phases); i++ {
			c := cmd(t, CmdPhaseEnd, `{"side":"`+s.Phasing+`"}`)
			_, reveal := DicePeriods(s, c)
			last := turn == 4 && i == len(s.Ruleset.Turn.Phases)-1
			if (reveal != "") != last {
				t.Fatalf("turn %d phase %d: reveal %q", turn, i, reveal)
			}
			if last {
				refused(t, s, c, nil, "dice", "no_reveal")
				c = WithDiceReveal(c, testSeed.Hex())
			}
			mustDecide(t, s, c, nil)
		}
	}
	if s.Status != StatusEnded || s.Dice.Periods[0].Revealed == "" {
		t.Fatalf("status %s, book %+v", s.Status, s.Dice)
	}
}

func TestSeedPerTurn(t *testing.T) {
	_, s := seededSetup(t, "dice:\n  seed_period: turn\n", testSeed)
	if s.Dice.Period != "1" {
		t.Fatalf("first period %q", s.Dice.Period)
	}
	mustDecide(t, s, cmd(t, CmdPhaseEnd, `{"side":"red"}`), nil) // command -> movement
	mustDecide(t, s, cmd(t, CmdPhaseEnd, `{"side":"red"}`), nil) // movement -> combat
	c := cmd(t, CmdPhaseEnd, `{"side":"red"}`)
	next, reveal := DicePeriods(s, c)
	if next != "2" || reveal != "1" {
		t.Fatalf("DicePeriods at turn end = %q, %q", next, reveal)
	}
	refused(t, s, WithDiceReveal(c, testSeed.Hex()), nil, "dice", "no_commitment")
	c = WithDiceCommitment(WithDiceReveal(cmd(t, CmdPhaseEnd, `{"side":"red"}`), testSeed.Hex()), otherSeed.Commitment())
	evs := mustDecide(t, s, c, nil)
	if findEvent[*DiceRevealed](evs) == nil || findEvent[*DiceCommitted](evs).Period != "2" {
		t.Fatalf("turn end events:\n%s", eventsJSON(t, evs))
	}
	if s.Dice.Period != "2" || s.Dice.Commitment != otherSeed.Commitment() || len(s.Dice.Periods) != 2 {
		t.Fatalf("book %+v", s.Dice)
	}
}

func TestSealedFieldsNotFromJSON(t *testing.T) {
	if _, err := DecodeCommand(CmdBattleStart, []byte(`{"DiceCommitment":"ab"}`)); err == nil {
		t.Fatal("a command body set the service-only commitment")
	}
	if _, err := DecodeCommand(CmdBattleEnd, []byte(`{"reason":"x","DiceReveal":"ab"}`)); err == nil {
		t.Fatal("a command body set the service-only reveal")
	}
}

// noncedDice answers a digital roll of ledger-dice-v2 with what it mixed in.
type noncedDice struct {
	Rolled
}

func (d noncedDice) Roll(req RollRequest) (Rolled, error) {
	r := d.Rolled
	r.Values = make([]int, req.Count)
	for i := range r.Values {
		r.Values[i] = 3
	}
	return r, nil
}

// TestRollRecordsCommandAndNonce: a digital roll records what its source
// mixed in: the command id and the player's nonce (v2), or its scheme and
// the nonce (v3); a physical roll with either, a nonce that is not 16 to 64
// lowercase hex digits of a v2 or v3 roll, a scheme other than v3, or a
// command id on a v3 roll is an impossible answer, and nothing is decided.
func TestRollRecordsCommandAndNonce(t *testing.T) {
	_, s := seededSetup(t, "", testSeed)
	order := func() Command {
		return cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`)
	}
	for _, bad := range []Rolled{
		{Source: SourcePhysical, EnteredBy: "alice", Nonce: "00112233445566778899aabbccddeeff"},
		{Source: SourcePhysical, EnteredBy: "alice", CommandID: "c-1"},
		{Source: SourceDigital, Nonce: "00112233445566778899aabbccddeeff"},
		{Source: SourceDigital, CommandID: "c-1", Nonce: "00112233445566778899AABBCCDDEEFF"},
		{Source: SourceDigital, CommandID: "c-1", Nonce: "0011"},
		{Source: SourceDigital, CommandID: "c-1", Nonce: "00112233445566778"},
		{Source: SourceDigital, Scheme: "ledger-dice-v2", Nonce: "00112233445566778899aabbccddeeff"},
		{Source: SourceDigital, Scheme: "ledger-dice-v3", CommandID: "c-1", Nonce: "00112233445566778899aabbccddeeff"},
		{Source: SourcePhysical, EnteredBy: "alice", Scheme: "ledger-dice-v3"},
	} {
		if _, err := Decide(s, order(), noncedDice{bad}); !errors.Is(err, ErrBadRoll) {
			t.Errorf("%+v: %v, want ErrBadRoll", bad, err)
		}
	}
	evs := mustDecide(t, s, order(), noncedDice{Rolled{Source: SourceDigital, CommandID: "page-1", Nonce: "00112233445566778899aabbccddeeff"}})
	d := findEvent[*DiceRolled](evs)
	if d == nil || d.CommandID != "page-1" || d.Nonce != "00112233445566778899aabbccddeeff" || d.Period != SeedPeriodBattle {
		t.Fatalf("dice.rolled = %+v", d)
	}
	if got := describeDice(d); !strings.Contains(got, "player's nonce 00112233…") {
		t.Errorf("description %q does not show the nonce", got)
	}
	// By ledger-dice-v3 a roll records its scheme and the nonce, no command id.
	evs = mustDecide(t, s, order(), noncedDice{Rolled{Source: SourceDigital, Scheme: "ledger-dice-v3", Nonce: "00112233445566778899aabbccddeeff"}})
	if d := findEvent[*DiceRolled](evs); d == nil || d.Scheme != "ledger-dice-v3" || d.CommandID != "" || d.Nonce != "00112233445566778899aabbccddeeff" {
		t.Fatalf("dice.rolled by v3 = %+v", d)
	}
}

// TestPurposeWords: each kind of roll's purpose, as the rules make it, is
// said in words; a purpose of no known shape is said as it is.
func TestPurposeWords(t *testing.T) {
	for purpose, want := range map[string]string{
		orderPurpose("order", "friant", []string{"33-ligne"}):             "friant's order to 33-ligne",
		orderPurpose("order", "friant", []string{"33-ligne", "48-ligne"}): "friant's order to 33-ligne, 48-ligne",
		orderPurpose("blunder", "friant", []string{"33-ligne"}):           "friant's blunder roll for 33-ligne",
		ResultRetreat + ":hr-3":                                           "the retreat distance of hr-3",
		ResultRout + ":hr-3":                                              "the rout distance of hr-3",
		"flank:french:north":                                              "french's flank march by the north edge",
		"formation_test:33-ligne":                                         "33-ligne's formation test",
		"march_initiative:bde-friant":                                     "brigade bde-friant's march initiative",
		"order_initiative:bde-friant":                                     "brigade bde-friant's order initiative",
		"order:friant":                                                    "order:friant",
		"something:else":                                                  "something:else",
		"":                                                                "",
	} {
		if got := PurposeWords(purpose).String(); got != want {
			t.Errorf("PurposeWords(%q) = %q, want %q", purpose, got, want)
		}
	}
}
