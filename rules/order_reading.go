package rules

import (
	"fmt"
	"slices"
)

// The reading of an order roll and the odds of its outcomes, from the
// effective rating alone, for whoever checks orders after the fact (the
// audit, campaign/audit): the very code Decide and Odds use, so that an
// audit can never read a roll otherwise than the decision did.

// ReadOrderRoll reads one order roll against an effective rating as Decide
// does (orderPlan.resolve): C.3 and C.5 for an ordinary order; for "Follow
// me!" and "Steady!" (C.13, C.14) success when the roll is at most the
// rating, the blunder roll still a blunder. An unknown special is an error.
func ReadOrderRoll(rs *Ruleset, special string, values []int, effective int) (outcome string, actions int, err error) {
	if err := knownSpecial(special); err != nil {
		return "", 0, err
	}
	outcome, actions = (&orderPlan{special: special, eff: effective}).resolve(rs, values)
	return outcome, actions, nil
}

// OrderOdds returns the exact probability of each outcome of an order with
// the given special and effective rating, as Odds lists them: every face
// combination of the ruleset's order roll (36 for 2D6) read by
// ReadOrderRoll.
func OrderOdds(rs *Ruleset, special string, effective int) ([]OddsOutcome, error) {
	if err := knownSpecial(special); err != nil {
		return nil, err
	}
	return orderOutcomes(rs, &orderPlan{special: special, eff: effective}), nil
}

func knownSpecial(special string) error {
	switch special {
	case "", SpecialFollowMe, SpecialSteady:
		return nil
	}
	return &WordsError{Words: words("special order %q is not one the rules know", special)}
}

// orderOutcomes enumerates every face combination of the order roll, reads
// each for p, and lists every possible outcome, even at 0 ways, in a fixed
// order. Odds and OrderOdds share it.
func orderOutcomes(rs *Ruleset, p *orderPlan) []OddsOutcome {
	spec := rs.Command.OrderRoll
	type key struct {
		outcome string
		actions int
	}
	ways := map[key]int{}
	total := 0
	faces := make([]int, spec.Count)
	for i := range faces {
		faces[i] = 1
	}
	for {
		o, a := p.resolve(rs, faces)
		ways[key{o, a}]++
		total++
		i := 0
		for i < len(faces) && faces[i] == spec.Sides {
			faces[i] = 1
			i++
		}
		if i == len(faces) {
			break
		}
		faces[i]++
	}
	var order []key
	if p.special == "" {
		order = []key{{OutcomeFailed, 0}, {OutcomeBlunder, 0}}
		var acts []int
		for _, b := range rs.Command.Results {
			if !slices.Contains(acts, b.Actions) {
				acts = append(acts, b.Actions)
			}
		}
		slices.Sort(acts)
		for _, a := range acts {
			order = append(order, key{OutcomeActions, a})
		}
	} else {
		succ := rs.Command.Steady.Actions
		if p.special == SpecialFollowMe {
			succ = rs.Command.FollowMe.Actions
		}
		order = []key{{OutcomeSuccess, succ}, {OutcomeFailed, 0}, {OutcomeBlunder, 0}}
	}
	out := make([]OddsOutcome, 0, len(order))
	for _, k := range order {
		n := ways[k]
		out = append(out, OddsOutcome{Outcome: k.outcome, Actions: k.actions, Ways: n, Total: total,
			Fraction: fmt.Sprintf("%d/%d", n, total), Probability: float64(n) / float64(total)})
	}
	return out
}
