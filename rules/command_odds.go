package rules

import (
	"slices"
)

// OddsOutcome is one outcome of an order roll and its exact probability:
// Ways of the Total equally likely rolls (Ways/Total, e.g. 6/36).
type OddsOutcome struct {
	// Outcome is "failed", "blunder" or "actions" for an ordinary order;
	// "success", "failed" or "blunder" for "Follow me!" and "Steady!".
	Outcome string `json:"outcome"`
	// Actions granted to each unit (C.3; C.13 on success).
	Actions     int     `json:"actions"`
	Ways        int     `json:"ways"`
	Total       int     `json:"total"`
	Fraction    string  `json:"fraction"` // "6/36", not reduced
	Probability float64 `json:"probability"`
}

// OddsResult is what an order would risk, before it is given: the general's
// rating, every C.7 modifier with its reason, the effective rating and each
// outcome's exact probability over every roll of the order dice.
type OddsResult struct {
	General    string        `json:"general"`
	Units      []string      `json:"units"`
	Special    string        `json:"special,omitempty"`
	Dice       string        `json:"dice"` // "2D6"
	BaseRating int           `json:"base_rating"`
	Modifiers  []Modifier    `json:"modifiers"`
	Effective  int           `json:"effective_rating"`
	Outcomes   []OddsOutcome `json:"outcomes"`
}

// Odds says, for a proposed order.give, the exact chance of each outcome:
// for an ordinary order failure, blunder and each number of actions C.3 can
// grant; for "Follow me!" and "Steady!" success, failure and blunder. It
// enumerates every face combination of the ruleset's order roll (36 for
// 2D6) and reads each with the very code Decide uses (planOrder for the
// checks and modifiers, orderPlan.resolve for C.3, C.5, C.13, C.14), so the
// two cannot disagree. An order Decide would refuse gives the same *Refusal.
// It is pure and changes nothing.
func Odds(s *State, cmd *GiveOrder) (OddsResult, error) {
	if s == nil || s.Ruleset == nil || s.Status == StatusNew {
		return OddsResult{}, refuse(RuleBattle, "no_battle", "no battle has been created yet")
	}
	if cmd == nil {
		return OddsResult{}, refuse(RuleInput, "no_command", "no command")
	}
	if s.Status == StatusEnded {
		return OddsResult{}, refuse("T.5", "battle_ended", "the battle has ended (%s)", s.EndReason)
	}
	p, r := planOrder(s, cmd)
	if r != nil {
		return OddsResult{}, r
	}
	rs := s.Ruleset
	spec := rs.Command.OrderRoll
	res := OddsResult{General: p.g.ID, Units: slices.Clone(cmd.Units), Special: cmd.Special, Dice: spec.String(),
		BaseRating: p.g.Rating, Modifiers: slices.Clone(p.mods), Effective: p.eff}
	if res.Modifiers == nil {
		res.Modifiers = []Modifier{}
	}
	res.Outcomes = orderOutcomes(rs, p)
	return res, nil
}
