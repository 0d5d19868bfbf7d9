package campaign

import (
	"fmt"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// DiceInput is how a command's dice arrive: values thrown on the table and
// entered by hand (physical), or nothing, in which case the ledger's digital
// source rolls them.
type DiceInput struct {
	// Values are physical dice in the order the command consumes them.
	Values []int `json:"values,omitempty" yaml:"values,omitempty"`
	// EnteredBy is who typed them in; defaults to the command's actor.
	EnteredBy string `json:"entered_by,omitempty" yaml:"entered_by,omitempty"`
}

// physicalDice hands out entered values in order and refuses to invent one.
type physicalDice struct {
	values []int
	used   int
	by     string
}

func (p *physicalDice) Roll(req rules.RollRequest) (rules.Rolled, error) {
	if p.used+req.Count > len(p.values) {
		// The shortfall: what this roll needs beyond the values left.
		short := p.used + req.Count - len(p.values)
		return rules.Rolled{}, rules.Refuse("dice", "dice.missing",
			"%s needs %d more %s; %d entered, %d used so far", req.Purpose, short, plural(short, "die", "dice"), len(p.values), p.used).
			WithNumbers(map[string]float64{"needed": float64(short), "entered": float64(len(p.values)), "used": float64(p.used)})
	}
	vals := append([]int(nil), p.values[p.used:p.used+req.Count]...)
	for _, v := range vals {
		if v < 1 || v > req.Sides {
			return rules.Rolled{}, rules.Refuse("dice", "dice.out_of_range",
				"%s: a D%d shows 1 to %d, not %d", req.Purpose, req.Sides, req.Sides, v).
				WithNumbers(map[string]float64{"value": float64(v), "sides": float64(req.Sides)})
		}
	}
	p.used += req.Count
	return rules.Rolled{Values: vals, Source: "physical", EnteredBy: p.by}, nil
}

// leftover refuses a command that was given more dice than it used: an
// unused value is a sign the wrong dice were entered.
func (p *physicalDice) leftover() error {
	if p.used == len(p.values) {
		return nil
	}
	return rules.Refuse("dice", "dice.unused",
		"%d %s entered but the command used %d", len(p.values), plural(len(p.values), "die", "dice"), p.used).
		WithNumbers(map[string]float64{"entered": float64(len(p.values)), "used": float64(p.used)})
}

// digitalDice derives rolls from the battle's committed secret seed by the
// scheme of the roll (docs/dice.md); the same inputs give the same values on
// any machine. By ledger-dice-v3 (every new roll of a v2 or v3 period,
// dice.RollScheme) a roll mixes in, besides the seed, the battle, the
// period, the players' seeds and the counter, only the nonce the device of
// the player whose own command it is sent with it: never the command's id,
// which whoever sends the command chooses freely (by ledger-dice-v2 the seed
// holder could try ids offline and send the one giving the roll it wanted).
type digitalDice struct {
	scheme string // the scheme the roll is derived by: v1 or v3
	in     dice.Input
	nonce  string // v3: the player's nonce, lowercase hex; "" for none
}

func (d *digitalDice) Roll(req rules.RollRequest) (rules.Rolled, error) {
	switch d.scheme {
	case dice.SchemeV1:
		vals, err := dice.Roll(d.in, req.Counter, req.Count, req.Sides)
		if err != nil {
			return rules.Rolled{}, fmt.Errorf("digital dice: %w", err)
		}
		return rules.Rolled{Values: vals, Source: rules.SourceDigital}, nil
	case dice.SchemeV3:
		nonce, err := dice.ParseNonce(d.nonce)
		if err != nil {
			return rules.Rolled{}, fmt.Errorf("digital dice: %w", err)
		}
		vals, err := dice.RollV3(d.in, req.Counter, nonce, req.Count, req.Sides)
		if err != nil {
			return rules.Rolled{}, fmt.Errorf("digital dice: %w", err)
		}
		return rules.Rolled{Values: vals, Source: rules.SourceDigital, Scheme: dice.SchemeV3, Nonce: d.nonce}, nil
	}
	return rules.Rolled{}, fmt.Errorf("digital dice: this program makes no roll by scheme %q", d.scheme)
}

// playerNonce returns the nonce a command's digital dice mix in: the one
// its request carries when the command is a player's own (given by that
// player, not entered for them), lowercase; "" otherwise. A nonce sent with
// the umpire's or the operator's command, or with one they enter for a
// player, comes from their own device: mixed in, it would hand whoever
// holds the period's seed and sends the command a free choice of the roll,
// so it is left out and the roll is counted as one without a player's
// nonce (docs/dice.md). A malformed nonce is refused whoever sends it.
func playerNonce(req call) (string, error) {
	if req.Nonce == "" {
		return "", nil
	}
	if _, err := dice.ParseNonce(req.Nonce); err != nil {
		return "", Invalid("nonce", "%d to %d hex digits of fresh randomness from the device", 2*dice.MinNonce, 2*dice.MaxNonce)
	}
	if req.as.Role != RolePlayer || req.as.Player != req.Principal.Player {
		return "", nil
	}
	return strings.ToLower(req.Nonce), nil
}

// dryRunDice stops a dry run at its first digital roll: showing a roll
// before the command counts would let a player try until the dice suit.
type dryRunDice struct{}

func (dryRunDice) Roll(req rules.RollRequest) (rules.Rolled, error) {
	return rules.Rolled{}, &NeedsDice{Purpose: req.Purpose}
}

// noDice is used where a command must not roll at all.
type noDice struct{}

func (noDice) Roll(req rules.RollRequest) (rules.Rolled, error) {
	return rules.Rolled{}, rules.Refuse("dice", "dice.unavailable", "%s needs dice, but no dice source is open for this battle yet", req.Purpose)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
