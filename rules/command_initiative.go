package rules

import (
	"math"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// initiativeUnit checks what both initiative commands check: the phasing
// side's command phase, its own unit on the table, and initiative still open
// (C.1: all initiative orders come before any general's order).
func initiativeUnit(s *State, id string) (*Unit, UnitTurn, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, UnitTurn{}, r
	}
	u := s.Units[id]
	if u == nil {
		return nil, UnitTurn{}, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", id)
	}
	if u.Side != s.Phasing || s.Phase != PhaseCommand {
		return nil, UnitTurn{}, refuse("T.2", "not_command_phase", "initiative is taken in the command phase of the phasing side; it is turn %d, the %s phase of %s, and %s is of %s", s.Turn, s.Phase, s.Phasing, u.ID, u.Side).with("turn", s.Turn)
	}
	if !u.active() {
		return nil, UnitTurn{}, refuse("T.4", "unit_inactive", "unit %s is %s and cannot act", u.ID, u.Status)
	}
	ut := s.TurnBook.peekUnit(u.ID)
	switch {
	case s.TurnBook.InitiativeClosed:
		return nil, ut, refuse("C.1", "initiative_closed", "a general has given an order this turn: all initiative orders come before any general's order (C.1, C.15)")
	case ut.Initiative:
		return nil, ut, refuse("C.15", "already_taken", "unit %s has already taken initiative this turn", u.ID)
	case ut.Declined:
		return nil, ut, refuse("C.15", "declined", "unit %s declined initiative this turn and waits for its general", u.ID)
	}
	return u, ut, nil
}

// decideInitiative judges initiative.take (C.15): automatic, no roll, one
// action of the declared kind, only with an enemy unit within the ruleset's
// range, measured base edge to base edge.
func decideInitiative(s *State, c *TakeInitiative) ([]Event, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	u, _, r := initiativeUnit(s, c.Unit)
	if r != nil {
		return nil, r
	}
	switch c.Content.Action {
	case ActionMove, ActionCharge:
	case ActionFormation:
		if c.Content.Formation != "" && !rs.UnitTypes[u.Type].HasFormation(c.Content.Formation) {
			return nil, refuse("C.16", "unknown_formation", "unit %s (%s) cannot form %q (%s)", u.ID, u.Type, c.Content.Formation, strings.Join(rs.UnitTypes[u.Type].Formations, ", "))
		}
	default:
		return nil, refuse("C.15", "bad_action", "an initiative order is one action: move, formation or charge, not %q", c.Content.Action)
	}
	if c.Content.Action == ActionCharge && c.Content.Target != "" {
		if t := s.Units[c.Content.Target]; t == nil || t.Side == u.Side || !t.active() {
			return nil, refuse("C.9", "bad_target", "charge target %q is not an enemy unit on the table", c.Content.Target)
		}
	}
	rng := rs.Command.Initiative.Range.For(m)
	e := s.nearestEnemy(u)
	d := math.Inf(1)
	if e != nil {
		d = geom.Distance(u.Base, e.Base)
	}
	if d > rng+geom.Eps {
		r := refuse("C.15", "no_enemy_near", "initiative needs an enemy unit within %s of unit %s; the nearest is %s away", fmtLen(rng, m), u.ID, fmtMeasured(d, rng, m)).with("range", rng)
		if e != nil {
			r.with("distance", d)
		}
		return nil, r
	}
	return []Event{&InitiativeTaken{Turn: s.Turn, Unit: u.ID, Content: c.Content, Actions: rs.Command.Initiative.Actions,
		Enemy: e.ID, Distance: round6(d), Range: rng}}, nil
}

// decideDecline judges initiative.decline (C.15): the unit waits for its
// general; it may take no initiative afterwards this turn.
func decideDecline(s *State, c *DeclineInitiative) ([]Event, *Refusal) {
	u, _, r := initiativeUnit(s, c.Unit)
	if r != nil {
		return nil, r
	}
	return []Event{&InitiativeDeclined{Turn: s.Turn, Unit: u.ID}}, nil
}
