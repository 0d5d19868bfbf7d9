package rules

import (
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// decideReform judges unit.reform (C.16): a formation change takes the
// ruleset's whole action(s); limbering and unlimbering are free for types
// with free_limbering. The command point (the middle of the front edge)
// stays where it is, the unit may pivot on it, and the new base takes the
// ruleset's size for the new formation (a base deployed with a size of its
// own takes the ruleset's size too). The new base must be on the table
// (K.3), clear of friends (K.1) and at least the gap from enemies (C.9, K.2).
// A failed unit may not reform, not even under C.12 (a move, not a
// formation change).
func decideReform(s *State, c *ReformUnit) ([]Event, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	u, ut, r := actingUnit(s, c.Unit)
	if r != nil {
		if r.Code == "unit_failed" && ut.FailedMoves > 0 {
			return nil, refuse("C.12", "no_formation_change", "unit %s failed its order: C.12 allows it one move, not a formation change", c.Unit)
		}
		return nil, r
	}
	t := rs.UnitTypes[u.Type]
	if !t.HasFormation(c.Formation) {
		return nil, refuse("C.16", "unknown_formation", "unit %s (%s) cannot form %q (%s)", u.ID, u.Type, c.Formation, strings.Join(t.Formations, ", "))
	}
	facing := u.Base.Facing
	if c.Facing != nil {
		if !finite(*c.Facing) {
			return nil, refuse(RuleInput, "bad_facing", "facing is not a number")
		}
		facing = geom.NormDeg(*c.Facing)
	}
	if c.Formation == u.Formation && facing == u.Base.Facing {
		return nil, refuse(RuleInput, "no_change", "unit %s is already in %s facing %g", u.ID, u.Formation, u.Base.Facing)
	}
	if ut.Initiative {
		if ut.InitiativeAction != ActionFormation {
			return nil, refuse("C.15", "wrong_action", "unit %s took initiative to %s, not to change formation", u.ID, ut.InitiativeAction)
		}
		if ut.InitiativeFormation != "" && ut.InitiativeFormation != c.Formation {
			return nil, refuse("C.15", "wrong_action", "unit %s took initiative to form %s, not %s", u.ID, ut.InitiativeFormation, c.Formation)
		}
	}
	cost := rs.Command.FormationChangeActions
	free := t.FreeLimbering && slices.Contains(rs.Command.LimberingFormations, u.Formation) && slices.Contains(rs.Command.LimberingFormations, c.Formation) && u.Formation != c.Formation
	if free {
		cost = 0
	}
	if ut.ActionsLeft < cost {
		return nil, refuse("C.16", "no_actions_left", "a formation change takes %s; unit %s has %s left this turn", plural(cost, "whole action", "whole actions"), u.ID, plural(ut.ActionsLeft, "action", "actions")).
			with("actions_left", ut.ActionsLeft, "cost", cost)
	}
	size := t.BaseFor(c.Formation)
	to := geom.Base{Facing: facing, Width: size.Width.For(m), Depth: size.Depth.For(m)}
	cp := u.Base.FrontCenter()
	to.Center = cp.Sub(geom.Heading(facing).Scale(to.Depth / 2))
	if !s.Table.Contains(to) {
		return nil, refuse("K.3", "off_table", "unit %s in %s would not stand wholly on the %gx%g table", u.ID, c.Formation, s.Table.Width, s.Table.Depth).with("x", to.Center.X, "y", to.Center.Y)
	}
	gap := rs.Contact.Gap.For(m)
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if id == u.ID || !o.active() {
			continue
		}
		d := geom.Distance(to, o.Base)
		if o.Side == u.Side {
			if d <= geom.ContactTolerance && geom.Distance(u.Base, o.Base) > geom.ContactTolerance {
				return nil, refuse("K.1", "friend_contact", "unit %s in %s would touch or overlap friendly unit %s", u.ID, c.Formation, o.ID).with("distance", d)
			}
			continue
		}
		if d < gap-geom.Eps && d < geom.Distance(u.Base, o.Base)-geom.Eps {
			return nil, refuse("C.9", "enemy_too_close", "unit %s in %s would stand %s from enemy unit %s; a unit not charging keeps %s from the enemy (K.2)", u.ID, c.Formation, fmtMeasured(d, gap, m), o.ID, fmtLen(gap, m)).
				with("distance", d, "gap", gap)
		}
	}
	return []Event{&UnitReformed{Turn: s.Turn, Unit: u.ID, FromFormation: u.Formation, ToFormation: c.Formation,
		From: u.Base, To: to, ActionsUsed: cost, Free: free}}, nil
}
