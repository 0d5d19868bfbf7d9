package rules

import (
	"github.com/clubledger/ledger/rules/geom"
)

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

// actingUnit checks what every action command checks: the battle is in
// the phasing side's command phase, the unit is its own and on the table,
// it has an order or initiative this turn, and did not fail (C.3, C.4, C.5).
// C.12's one move after a failure is judged by unit.move itself.
func actingUnit(s *State, id string) (*Unit, UnitTurn, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, UnitTurn{}, r
	}
	u := s.Units[id]
	if u == nil {
		return nil, UnitTurn{}, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", id)
	}
	if u.Side != s.Phasing {
		return nil, UnitTurn{}, refuse("T.2", "not_phasing", "turn %d is %s's turn; unit %s of %s may not act", s.Turn, s.Phasing, u.ID, u.Side).with("turn", s.Turn)
	}
	if s.Phase != PhaseCommand {
		return nil, UnitTurn{}, refuse("T.3", "not_command_phase", "actions are carried out in the command phase; in the %s phase units move by unit.march, unit.move (movement_table) or re-form (M.8)", s.Phase)
	}
	if !u.active() {
		return nil, UnitTurn{}, refuse("T.4", "unit_inactive", "unit %s is %s and cannot act", u.ID, u.Status)
	}
	if u.Status == UnitRouted {
		return nil, UnitTurn{}, refuse("T.4", "unit_routed", "unit %s is routed: it moves only as its rout is recorded (combat.record), until it rallies", u.ID)
	}
	ut := s.TurnBook.peekUnit(u.ID)
	if r := orderRefusal(u, ut); r != nil {
		return nil, ut, r
	}
	return u, ut, nil
}

// orderRefusal refuses an action of a unit without actions of its own this
// turn: it blundered (C.5), failed (C.4), or had no order or initiative
// (C.3).
func orderRefusal(u *Unit, ut UnitTurn) *Refusal {
	switch {
	case ut.Failed && ut.Blundered:
		return refuse("C.5", "blundered", "unit %s blundered its order this turn: it carried out the blunder table and does nothing of its own", u.ID)
	case ut.Failed:
		return refuse("C.4", "unit_failed", "unit %s failed its order this turn and does nothing", u.ID)
	case ut.Orders == 0 && !ut.Initiative:
		return refuse("C.3", "no_order", "unit %s has no order this turn, so no actions", u.ID)
	}
	return nil
}

// moveAllowance is the C.17 distance per move action of u, checked against
// the type's cap of moves a turn, with the label messages use.
func moveAllowance(s *State, u *Unit, ut UnitTurn, actions int) (per float64, label string, r *Refusal) {
	m := s.Measurement
	t := s.Ruleset.UnitTypes[u.Type]
	per, maxPerTurn := t.Move(u.Formation, m)
	label = u.Type
	if _, ok := t.FormationMoves[u.Formation]; ok {
		label = u.Type + " " + u.Formation
	}
	if per <= 0 {
		return 0, label, refuse("C.17", "cannot_move", "%s moves %s per action: unit %s cannot move", label, fmtLen(per, m), u.ID).with("per_action", per)
	}
	if maxPerTurn > 0 && ut.MoveActions+actions > maxPerTurn {
		return 0, label, refuse("C.17", "moves_per_turn", "%s makes at most %s a turn; unit %s has made %d", label, plural(maxPerTurn, "move", "moves"), u.ID, ut.MoveActions).
			with("max_moves", maxPerTurn, "moves_made", ut.MoveActions, "actions", actions)
	}
	return per, label, nil
}
