// Charges (docs/rules.md C.9, K.4-K.10): the command, its events and the
// decision; where a charge goes: charge_path.go; the K.9 pushes:
// charge_push.go.

package rules

import (
	"fmt"

	"github.com/clubledger/ledger/rules/geom"
)

// CmdUnitCharge is a charge action (C.6, C.9).
const CmdUnitCharge = "unit.charge"

// Event type names of charges: persisted forever, never renamed or reused.
const (
	EvChargeDeclared = "charge.declared"
	// EvChargePushedBack is K.9's push.
	EvChargePushedBack = "charge.pushed_back"
)

// ChargeUnit (unit.charge) is a charge as one action (C.6, C.9): allowed only
// when the unit's order said "charge" (or "Follow me!", or an initiative
// charge). Actions defaults to 1 (more actions reach farther).
type ChargeUnit struct {
	Unit    string `json:"unit"`
	Target  string `json:"target"`
	Actions int    `json:"actions,omitempty"`
}

// CommandName implements Command.
func (*ChargeUnit) CommandName() string { return CmdUnitCharge }

// ChargeDeclared is charge.declared: a charge action (C.6, C.9). Contact
// says the engine moved the unit into contact (From -> To) by the charge
// rules (K.4-K.10, charge_path.go); the fields from Measured on record how.
// Pending and Reason appear only in events recorded before the engine
// decided every charge: the unit stayed where it was.
type ChargeDeclared struct {
	Turn        int       `json:"turn"`
	Unit        string    `json:"unit"`
	Target      string    `json:"target"`
	ActionsUsed int       `json:"actions_used"`
	Reach       float64   `json:"reach"`    // distance the actions allow (C.17)
	Distance    float64   `json:"distance"` // leader point's path to contact
	Side        geom.Arc  `json:"side,omitempty"`
	From        geom.Base `json:"from"`
	To          geom.Base `json:"to"`
	Contact     bool      `json:"contact"`
	Pending     bool      `json:"pending,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	// Measured is K.4's distance: leader point to the nearest point of the
	// target (at most Reach, twice the speed). Path is the leader point's
	// path (start, the turn point if any, end; Distance is its length);
	// TurnDegrees the one turn (K.5, clockwise positive), made at
	// Path[TurnAt]; Slide the leader point's offset from the middle of the
	// side hit, to the charger's right (K.6); Crossed the difficult terrain
	// on the path (K.5, for the melee); Pushed the enemy units moved back
	// (K.9, each a charge.pushed_back that follows).
	Measured    float64    `json:"measured,omitempty"`
	Path        []geom.Vec `json:"path,omitempty"`
	TurnDegrees float64    `json:"turn_degrees,omitempty"`
	TurnAt      int        `json:"turn_at,omitempty"`
	Slide       float64    `json:"slide,omitempty"`
	Crossed     []string   `json:"crossed,omitempty"`
	Pushed      []string   `json:"pushed,omitempty"`
}

// EventType implements Event.
func (*ChargeDeclared) EventType() string { return EvChargeDeclared }

// Audience implements Event.
func (*ChargeDeclared) Audience() string { return AudienceAll }

// ChargePushedBack is charge.pushed_back: a charge (the charge.declared just
// before it) ended touching Unit, an enemy it did not charge, which moved
// From -> To, Distance in the battle's unit: the whole gap when Full, else
// as far back as the room behind it allowed (K.9).
type ChargePushedBack struct {
	Turn     int       `json:"turn"`
	Unit     string    `json:"unit"`
	Charger  string    `json:"charger"`
	Target   string    `json:"target"`
	From     geom.Base `json:"from"`
	To       geom.Base `json:"to"`
	Distance float64   `json:"distance"`
	Full     bool      `json:"full,omitempty"`
}

// EventType implements Event.
func (*ChargePushedBack) EventType() string { return EvChargePushedBack }

// Audience implements Event.
func (*ChargePushedBack) Audience() string { return AudienceAll }

// decideCharge judges unit.charge: a charge is an action (C.6) of a unit
// whose order said "charge" (C.9), or that follows its general (C.13), or
// that took a charge on initiative (C.15). The engine then decides the
// charge itself (judgeCharge, charge_path.go): the K.4 conditions, the K.5
// path, the K.6/K.7 placement, the K.8 side and the K.9 pushes. Accepted, it
// records charge.declared with contact (never pending) and one
// charge.pushed_back per enemy moved back.
//
// Speed and actions (docs/charges.md): the K.4 range is
// contact.charge_reach_multiple (2) times the charger's speed, read as its
// C.17 distance per action in its formation; the charge move itself is
// unmeasured (K.5), so the actions the charge spends (Actions, default 1)
// do not lengthen it. A unit with more actions that wants to charge from
// farther moves first (unit.move, stopping 1" short, C.9), then charges.
func decideCharge(s *State, c *ChargeUnit) ([]Event, *Refusal) {
	u, ut, r := actingUnit(s, c.Unit)
	if r != nil {
		return nil, r
	}
	actions := c.Actions
	if actions == 0 {
		actions = 1
	}
	if actions < 0 {
		return nil, refuse(RuleInput, "bad_actions", "actions %d: want 1 or more", actions).with("actions", actions)
	}
	if ut.Initiative && ut.InitiativeAction != ActionCharge {
		return nil, refuse("C.15", "wrong_action", "unit %s took initiative to %s, not to charge", u.ID, ut.InitiativeAction)
	}
	if !ut.MayCharge {
		return nil, refuse("C.9", "no_charge_order", "unit %s may charge only if its order said \"charge\"; without it a unit stops %s short of the enemy", u.ID, fmtLen(s.Ruleset.Contact.Gap.For(s.Measurement), s.Measurement))
	}
	if ut.Charged != "" {
		return nil, refuse("C.6", "already_charged", "unit %s already charged %s this turn", u.ID, ut.Charged)
	}
	if ut.ActionsLeft < actions {
		return nil, refuse("C.3", "no_actions_left", "unit %s has %s left this turn; this charge uses %d", u.ID, plural(ut.ActionsLeft, "action", "actions"), actions).
			with("actions_left", ut.ActionsLeft, "actions", actions)
	}
	t := s.Units[c.Target]
	if t == nil || t.Side == u.Side || !t.active() {
		return nil, refuse("C.9", "bad_target", "charge target %q is not an enemy unit on the table", c.Target)
	}
	speed, _, r := moveAllowance(s, u, ut, actions)
	if r != nil {
		return nil, r
	}
	o, r := judgeCharge(s, u, t, speed)
	if r != nil {
		return nil, r
	}
	ev := &ChargeDeclared{Turn: s.Turn, Unit: u.ID, Target: t.ID, ActionsUsed: actions, Reach: round6(o.reach), Distance: round6(geom.PathLength(o.path)),
		Side: o.side, From: u.Base, To: o.to, Contact: true,
		Measured: round6(o.measured), Path: o.path, TurnDegrees: round6(o.turn), TurnAt: o.turnAt, Slide: o.slide, Crossed: o.crossed}
	evs := []Event{ev}
	for _, p := range o.pushed {
		ev.Pushed = append(ev.Pushed, p.unit)
		evs = append(evs, &ChargePushedBack{Turn: s.Turn, Unit: p.unit, Charger: u.ID, Target: t.ID, From: p.from, To: p.to, Distance: round6(p.distance), Full: p.full})
	}
	return evs, nil
}

// applyCharge folds the charge events.
func applyCharge(s *State, e Event) {
	switch ev := e.(type) {
	case *ChargeDeclared:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		if ev.Contact {
			u.Base = ev.To
			s.followUnit(ev.Unit)
		}
		ut := s.TurnBook.unit(ev.Unit)
		ut.ActionsLeft -= ev.ActionsUsed
		ut.MoveActions += ev.ActionsUsed
		ut.Charged = ev.Target
	case *ChargePushedBack:
		if u := s.Units[ev.Unit]; u != nil {
			u.Base = ev.To
			s.followUnit(ev.Unit)
		}
	}
}

// describeCharge says the charge events in words.
func describeCharge(e Event) string {
	switch ev := e.(type) {
	case *ChargePushedBack:
		how := "as far as the room allows"
		if ev.Full {
			how = "the full gap"
		}
		return fmt.Sprintf("%s, touched by %s's charge on %s, moved back %.2f (%s, K.9): (%.1f,%.1f) -> (%.1f,%.1f)",
			ev.Unit, ev.Charger, ev.Target, ev.Distance, how, ev.From.Center.X, ev.From.Center.Y, ev.To.Center.X, ev.To.Center.Y)
	case *ChargeDeclared:
		if !ev.Contact || len(ev.Path) == 0 { // pending, or recorded before the charge rules
			if ev.Contact {
				return fmt.Sprintf("%s charged %s using %s: %.1f of %.1f reach into contact with its %s (C.9): (%.1f,%.1f) facing %.0f",
					ev.Unit, ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Distance, ev.Reach, ev.Side, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
			}
			return fmt.Sprintf("%s declared a charge on %s using %s; contact pending the charge rules: %s", ev.Unit, ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Reason)
		}
		s := fmt.Sprintf("%s charged the %s of %s using %s (C.9, K.4-K.8): %.2f from its leader point (reach %.1f); path %.1f",
			ev.Unit, arcName(ev.Side), ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Measured, ev.Reach, ev.Distance)
		if n := len(ev.Path); n > 2 {
			s += fmt.Sprintf(" bending %.0f° at (%.1f,%.1f)", geom.BendDeg(ev.Path[0], ev.Path[1], ev.Path[n-1]), ev.Path[1].X, ev.Path[1].Y)
		}
		if ev.TurnDegrees != 0 {
			where := "on the way"
			switch {
			case ev.TurnAt == 0:
				where = "at the start"
			case ev.TurnAt == len(ev.Path)-1:
				where = "on contact"
			}
			s += fmt.Sprintf(", turning %.0f° %s", ev.TurnDegrees, where)
		}
		s += fmt.Sprintf("; ends (%.1f,%.1f) facing %.0f", ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.Slide != 0 {
			s += fmt.Sprintf(", slid %.2f from the middle", ev.Slide)
		}
		if len(ev.Crossed) > 0 {
			s += fmt.Sprintf("; crossed %v", ev.Crossed)
		}
		if len(ev.Pushed) > 0 {
			s += fmt.Sprintf("; pushed back %v", ev.Pushed)
		}
		return s
	}
	return ""
}
