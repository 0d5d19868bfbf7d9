package rules

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// decideReform judges unit.reform. In the command phase it is the C.16
// formation change: the ruleset's whole action(s), free limbering for
// types with free_limbering. In the movement phase it is a unit disordered
// since its side last moved re-forming (M.8), or, under the movement_table
// option, a formation change paid with the M.4 fraction of its normal move.
// Either way the command point (the middle of the front edge) stays where it
// is, the unit may pivot on it, and the new base takes the ruleset's size for
// the new formation; it must be on the table and clear of impassable terrain
// (K.3), clear of friends (K.1), at least the gap from enemies (C.9, K.2),
// and must not turn flank or rear to a formed close-order enemy (M.10). Near
// such an enemy the change needs the formation test first (M.9), in the
// phases the ruleset names. A failed unit may not reform, not even under
// C.12 (a move, not a formation change).
func decideReform(s *State, c *ReformUnit, dice Dice) ([]Event, *Refusal, error) {
	if s.Status == StatusInProgress && s.Phase == PhaseMovement {
		return decideMovementReform(s, c, dice)
	}
	u, ut, r := actingUnit(s, c.Unit)
	if r != nil {
		if r.Code == "unit_failed" && ut.FailedMoves > 0 {
			return nil, refuse("C.12", "no_formation_change", "unit %s failed its order: C.12 allows it one move, not a formation change", c.Unit), nil
		}
		return nil, r, nil
	}
	ev, r := reformWithActions(s, u, ut, c)
	if r != nil {
		return nil, r, nil
	}
	return formationTest(s, u, c.Formation, ev, CmdUnitReform, dice)
}

// reformWithActions judges a formation change paid with actions of this
// turn's order or initiative (C.16): the new base (reformBase), the
// initiative's declared action, the cost (free limbering for types with
// free_limbering), the actions left, and the new base's place
// (checkReformed). It returns the change, not yet tested (M.9).
func reformWithActions(s *State, u *Unit, ut UnitTurn, c *ReformUnit) (*UnitReformed, *Refusal) {
	rs := s.Ruleset
	t := rs.UnitTypes[u.Type]
	to, r := reformBase(s, u, c)
	if r != nil {
		return nil, r
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
	if r := checkReformed(s, u, c.Formation, to); r != nil {
		return nil, r
	}
	return &UnitReformed{Turn: s.Turn, Unit: u.ID, FromFormation: u.Formation, ToFormation: c.Formation,
		From: u.Base, To: to, ActionsUsed: cost, Free: free}, nil
}

// reformBase checks the formation asked for and returns the new base: the
// command point stays, the unit may pivot on it.
func reformBase(s *State, u *Unit, c *ReformUnit) (geom.Base, *Refusal) {
	m := s.Measurement
	t := s.Ruleset.UnitTypes[u.Type]
	if !t.HasFormation(c.Formation) {
		return geom.Base{}, refuse("C.16", "unknown_formation", "unit %s (%s) cannot form %q (%s)", u.ID, u.Type, c.Formation, strings.Join(t.Formations, ", "))
	}
	facing := u.Base.Facing
	if c.Facing != nil {
		if !finite(*c.Facing) {
			return geom.Base{}, refuse(RuleInput, "bad_facing", "facing is not a number")
		}
		facing = geom.NormDeg(*c.Facing)
	}
	if c.Formation == u.Formation && facing == u.Base.Facing && !(u.Status == UnitDisordered && s.Phase == PhaseMovement) {
		return geom.Base{}, refuse(RuleInput, "no_change", "unit %s is already in %s facing %g", u.ID, u.Formation, u.Base.Facing)
	}
	size := t.BaseFor(c.Formation)
	to := geom.Base{Facing: facing, Width: size.Width.For(m), Depth: size.Depth.For(m)}
	cp := u.Base.FrontCenter()
	to.Center = cp.Sub(geom.Heading(facing).Scale(to.Depth / 2))
	return to, nil
}

// checkReformed judges the new base of a formation change: K.3 (table,
// impassable terrain), K.1 (a friend it was not already touching), the gap
// to enemies it was not already inside (C.9/K.2), M.7 in the movement phase,
// M.10 when it pivots, and F.8 (no nearer the edge of an enemy flank march).
func checkReformed(s *State, u *Unit, formation string, to geom.Base) *Refusal {
	rs, m := s.Ruleset, s.Measurement
	mc := checkFor(s)
	if !s.Table.Contains(to) {
		return refuse("K.3", "off_table", "unit %s in %s would not stand wholly on the %gx%g table", u.ID, formation, s.Table.Width, s.Table.Depth).with("x", to.Center.X, "y", to.Center.Y)
	}
	for _, i := range geom.Overlapping(to, s.Terrain, geom.Impassable) {
		return refuse("K.3", "impassable", "unit %s in %s would stand on impassable terrain %q", u.ID, formation, s.Terrain[i].Name)
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
				return refuse("K.1", "friend_contact", "unit %s in %s would touch or overlap friendly unit %s", u.ID, formation, o.ID).with("distance", d)
			}
			continue
		}
		if mc.movement && d <= geom.ContactTolerance && geom.Distance(u.Base, o.Base) > geom.ContactTolerance {
			return refuse("M.7", "enemy_contact", "unit %s in %s would come into base contact with enemy unit %s: no contact with the enemy in the movement phase", u.ID, formation, o.ID).with("distance", d)
		}
		if d < gap-geom.Eps && d < geom.Distance(u.Base, o.Base)-geom.Eps {
			return refuse(mc.enemyRule, "enemy_too_close", "unit %s in %s would stand %s from enemy unit %s; a unit not charging keeps %s from the enemy (K.2)", u.ID, formation, fmtMeasured(d, gap, m), o.ID, fmtLen(gap, m)).
				with("distance", d, "gap", gap)
		}
	}
	if to.Facing != u.Base.Facing && !exemptFromFlankRule(s, u) {
		if r := checkFlankExposure(s, u, u.Base, to); r != nil {
			return r
		}
	}
	// F.8: the new base may not reach nearer an enemy flank march's edge.
	return s.flankCourseRefusal(u, []pose{{Base: to, Where: words("in %s", formation)}})
}

// formationTest takes the M.9 test before the change ev when a formed
// close-order enemy is within the ruleset's distance and the phase is one
// the ruleset tests in: a recorded roll of at least pass_at_least passes and
// the change is made; a failure is recorded, costs what the change would
// have cost, and the unit stays as it was.
func formationTest(s *State, u *Unit, formation string, ev *UnitReformed, command string, dice Dice) ([]Event, *Refusal, error) {
	ft := s.Ruleset.Movement.FormationTest
	if !slices.Contains(ft.Phases, s.Phase) {
		return []Event{ev}, nil, nil
	}
	lim := ft.Distance.For(s.Measurement)
	near, nearID := math.Inf(1), ""
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if o.Side == u.Side || !formedCloseOrder(s, o) {
			continue
		}
		if d := geom.Distance(u.Base, o.Base); d <= lim+geom.Eps && d < near {
			near, nearID = d, id
		}
	}
	if nearID == "" {
		return []Event{ev}, nil, nil
	}
	counter := s.RollCounter + 1
	purpose := "formation_test:" + u.ID
	rolled, err := roll(dice, RollRequest{Counter: counter, Purpose: purpose, Count: ft.Dice.Count, Sides: ft.Dice.Sides})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", command, err)
	}
	total := sum(rolled.Values)
	test := &FormationTested{Turn: s.Turn, Unit: u.ID, Formation: formation, Enemy: nearID, Distance: round6(near),
		Roll: RollRecord{Counter: counter, Values: rolled.Values, Total: total}, PassAtLeast: ft.PassAtLeast, Passed: total >= ft.PassAtLeast}
	evs := []Event{newDiceRolled(s, counter, purpose, ft.Dice, rolled, command), test}
	if !test.Passed {
		test.ActionsUsed, test.MovementUsed = ev.ActionsUsed, ev.MovementUsed
		return evs, nil, nil
	}
	return append(evs, ev), nil, nil
}

// decideMovementReform judges unit.reform in the movement phase: a unit
// disordered since its side last moved re-forms (M.8), and under the
// movement_table option any unit may change formation for the M.4 fraction
// of its normal move (half after firing, M.5), if it did not act in the
// command phase (T.3) and has that much of its move left (M.6).
func decideMovementReform(s *State, c *ReformUnit, dice Dice) ([]Event, *Refusal, error) {
	mv := s.Ruleset.Movement
	u, ut, r := movementUnit(s, c.Unit)
	if r != nil {
		return nil, r, nil
	}
	reorder := u.Status == UnitDisordered
	if reorder && !disorderedSinceLastMove(s, u) {
		return nil, refuse("M.8", "disordered_earlier", "unit %s was disordered in turn %d (%s phase): only units disordered since their side's last movement phase re-form in this one", u.ID, u.DisorderedTurn, u.DisorderedPhase).
			with("disordered_turn", u.DisorderedTurn), nil
	}
	movementTable := s.Ruleset.Turn.OrdinaryMoves == MovesMovementTable
	if !reorder && !movementTable {
		if ut.Marched == 0 {
			return nil, refuse("T.7", "changes_are_actions", "under the command_actions option formation changes are command-phase actions (C.16); in the movement phase a unit re-forms if disordered this turn (M.8), or deploys after its tactical march (M.14)"), nil
		}
		return deployAfterMarch(s, u, ut, c, dice)
	}
	if !reorder {
		if acted, _ := actedInCommandPhase(ut); acted {
			return nil, refuse("T.3", "acted_in_command_phase", "unit %s took actions in the command phase and does not change formation again in the movement phase", u.ID), nil
		}
	}
	to, r := reformBase(s, u, c)
	if r != nil {
		return nil, r, nil
	}
	frac := mv.FormationChange.Fraction(u.Formation, c.Formation)
	if reorder {
		frac = mv.FormationChange.ReformDisordered
		if c.Formation != u.Formation {
			frac = math.Max(frac, mv.FormationChange.Fraction(u.Formation, c.Formation))
		}
	}
	budget, rule := movementBudget(s, ut)
	if movementTable && ut.MovementUsed+frac > budget+geom.Eps {
		if rule == "M.3" {
			rule = "M.4"
		}
		return nil, refuse(rule, "no_movement_left", "forming %s from %s takes %.2f of the unit's move (M.4); unit %s has used %.2f of %.2f", c.Formation, u.Formation, frac, u.ID, ut.MovementUsed, budget).
			with("fraction", frac, "used", ut.MovementUsed, "budget", budget), nil
	}
	if r := checkReformed(s, u, c.Formation, to); r != nil {
		return nil, r, nil
	}
	ev := &UnitReformed{Turn: s.Turn, Unit: u.ID, FromFormation: u.Formation, ToFormation: c.Formation,
		From: u.Base, To: to, Phase: PhaseMovement, MovementUsed: round6(frac), Reordered: reorder}
	return formationTest(s, u, c.Formation, ev, CmdUnitReform, dice)
}

// deployAfterMarch judges unit.reform in the movement phase, under the
// command_actions option, of a unit that has made its tactical march this
// turn: the formation change combined with the march (M.14, "march to the
// hill and deploy into line"). The change is the C.16 action it would be
// in the command phase, paid with an action the unit's order (or
// initiative) granted this turn and it has not spent: a unit without one
// does not deploy. Like any change it may need the formation test (M.9).
func deployAfterMarch(s *State, u *Unit, ut UnitTurn, c *ReformUnit, dice Dice) ([]Event, *Refusal, error) {
	if r := orderRefusal(u, ut); r != nil {
		return nil, r.wrap("%s; a deployment after a tactical march is a formation change paid with an action of the unit's order (C.16, M.14)", r.copy()), nil
	}
	ev, r := reformWithActions(s, u, ut, c)
	if r != nil {
		return nil, r, nil
	}
	ev.Phase, ev.AfterMarch = PhaseMovement, true
	return formationTest(s, u, c.Formation, ev, CmdUnitReform, dice)
}

// disorderedSinceLastMove reports whether a disordered unit became so since
// its side's last movement phase (M.8 "disordered this turn", read for a
// turn sequence where combat follows movement): in this turn, or in the
// previous turn in a phase after the movement phase.
func disorderedSinceLastMove(s *State, u *Unit) bool {
	if u.DisorderedTurn == s.Turn {
		return true
	}
	if u.DisorderedTurn != s.Turn-1 {
		return false
	}
	ph := s.Ruleset.Turn.Phases
	return slices.Index(ph, u.DisorderedPhase) > slices.Index(ph, PhaseMovement)
}
