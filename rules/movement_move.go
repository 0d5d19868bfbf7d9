package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// decideMove judges unit.move. In the command phase it is a move paid with
// actions of this turn's order or initiative (C.3, C.6, C.15) at the C.17
// distance per action, or the one move C.12 leaves a failed unit in march
// column, square or limbered; in the movement phase it is the unit's M.3
// normal move, under the movement_table option only (T.7). Either way the
// move costs its centre's path plus turns and difficult terrain (planPath),
// and obeys K.1-K.3, M.7, M.10 and F.8 (checkPlan). In the command phase a
// unit without a charge order whose move would reach the enemy stops 1"
// short (C.9, stopShort); one with a charge order is refused, since a move
// is not a charge (unit.charge).
func decideMove(s *State, c *MoveUnit) ([]Event, *Refusal) {
	if s.Status == StatusInProgress && s.Phase == PhaseMovement {
		return decideNormalMove(s, c)
	}
	rs, m := s.Ruleset, s.Measurement
	actions := c.Actions
	if actions < 0 {
		return nil, refuse(RuleInput, "bad_actions", "actions %d: want 1 or more", actions).with("actions", actions)
	}
	// Actions omitted: the fewest of the unit's actions that cover the
	// move's cost, known once the path (and any C.9 stop) is planned.
	auto := actions == 0
	if auto {
		actions = 1
	}
	failedMove := false
	u, ut, r := actingUnit(s, c.Unit)
	switch {
	case r != nil && r.Code == "unit_failed" && ut.FailedMoves >= actions:
		failedMove, u = true, s.Units[c.Unit] // C.12
	case r != nil && r.Code == "unit_failed" && ut.FailedMoves > 0:
		return nil, refuse("C.12", "one_move", "unit %s failed its order: C.12 leaves it %s, not %d", c.Unit, plural(ut.FailedMoves, "move", "moves"), actions).
			with("moves_left", ut.FailedMoves, "actions", actions)
	case r != nil:
		return nil, r
	case ut.Initiative && ut.InitiativeAction != ActionMove:
		return nil, refuse("C.15", "wrong_action", "unit %s took initiative to %s, not to move", u.ID, ut.InitiativeAction)
	case !auto && ut.ActionsLeft < actions:
		return nil, refuse("C.3", "no_actions_left", "unit %s has %s left this turn; this move uses %d", u.ID, plural(ut.ActionsLeft, "action", "actions"), actions).
			with("actions_left", ut.ActionsLeft, "actions", actions)
	case auto && ut.ActionsLeft < 1:
		return nil, refuse("C.3", "no_actions_left", "unit %s has %s left this turn; this move uses %d", u.ID, plural(ut.ActionsLeft, "action", "actions"), 1).
			with("actions_left", ut.ActionsLeft, "actions", 1)
	}
	if rs.Turn.OrdinaryMoves == MovesMovementTable {
		return nil, refuse("T.7", "moves_in_movement_phase", "under the movement_table option ordinary moves are made in the movement phase (M.3), not as command-phase actions")
	}
	if c.Evading && !exemptFromFlankRule(s, u) {
		return nil, refuse("M.10", "not_evading_type", "only %v evade free of M.10; unit %s is %s", rs.Movement.FlankExposureExemptTypes, u.ID, u.Type)
	}
	per, label, r := moveAllowance(s, u, ut, actions)
	if r != nil {
		return nil, r
	}
	p, r := planPath(s, u.Base, c.Path, c.To, c.Facing)
	if r != nil {
		return nil, r
	}
	// C.9: without a charge order, a move that would reach the enemy stops
	// 1" short where it first comes that near.
	path, short := c.Path, (*shortStop)(nil)
	if !ut.MayCharge {
		if short, r = stopShort(s, u, p, c.Path); r != nil {
			return nil, r
		}
		if short != nil {
			path, p = short.path, short.plan
		}
	}
	cost := p.cost()
	needed := max(1, int(math.Ceil(cost/per-geom.Eps)))
	if auto {
		// What the unit has to spend: its actions this turn, or the
		// moves C.12 leaves a failed unit.
		left := ut.ActionsLeft
		if failedMove {
			left = ut.FailedMoves
		}
		capped := 0
		if _, maxPerTurn := rs.UnitTypes[u.Type].Move(u.Formation, m); maxPerTurn > 0 && maxPerTurn-ut.MoveActions < left {
			left, capped = max(0, maxPerTurn-ut.MoveActions), maxPerTurn
		}
		if needed > left && failedMove {
			return nil, refuse("C.12", "one_move", "unit %s failed its order: C.12 leaves it %s, enough for %s; this move is %s and needs %s",
				u.ID, plural(left, "move", "moves"), fmtLen(per*float64(left), m), fmtMeasured(cost, per*float64(left), m), plural(needed, "action", "actions")).
				with("moves_left", left, "actions", needed, "actions_needed", needed, "distance", cost, "allowed", per*float64(left))
		}
		if needed > left {
			r := refuse("C.17", "move_too_far", "%s moves %s per action; %s has %s left, enough for %s; this move is %s and needs %s%s",
				label, fmtLen(per, m), u.ID, plural(left, "action", "actions"), fmtMeasured(per*float64(left), cost, m), fmtMeasured(cost, per*float64(left), m),
				plural(needed, "action", "actions"), costDetail(p, m))
			if capped > 0 {
				r = refuse("C.17", "move_too_far", "%s moves %s per action, at most %s a turn; %s may make %s more, enough for %s; this move is %s and needs %s%s",
					label, fmtLen(per, m), plural(capped, "move", "moves"), u.ID, plural(left, "move", "moves"), fmtMeasured(per*float64(left), cost, m), fmtMeasured(cost, per*float64(left), m),
					plural(needed, "action", "actions"), costDetail(p, m))
			}
			return nil, r.with("distance", cost, "allowed", per*float64(left), "per_action", per, "actions", left, "actions_left", left, "actions_needed", needed,
				"path", p.length, "turns", p.turnCost, "difficult", p.difficult)
		}
		actions = needed
		if _, _, r := moveAllowance(s, u, ut, actions); r != nil {
			return nil, r
		}
	}
	allowed := per * float64(actions)
	if cost > allowed+geom.Eps {
		return nil, refuse("C.17", "move_too_far", "%s moves %s per action, %s in %s; this move is %s and needs %s%s",
			label, fmtLen(per, m), fmtMeasured(allowed, cost, m), plural(actions, "action", "actions"), fmtMeasured(cost, allowed, m), plural(needed, "action", "actions"), costDetail(p, m)).
			with("distance", cost, "allowed", allowed, "per_action", per, "actions", actions, "actions_needed", needed, "path", p.length, "turns", p.turnCost, "difficult", p.difficult)
	}
	mc := checkFor(s)
	mc.evading = c.Evading
	if r := checkPlan(s, u, p, mc); r != nil {
		switch {
		case short != nil:
			r.wrap("stopping %s short of %s at %s (C.9), %s", fmtLen(short.gap, m), short.enemy, p.end.Center, r.copy())
		case r.Rule == "C.9" && ut.MayCharge:
			r.wrap("%s; %s's order says charge: it charges with unit.charge, a move stops short", r.copy(), u.ID)
		}
		return nil, r
	}
	ev := &UnitMoved{Turn: s.Turn, Unit: u.ID, From: u.Base, To: p.end, Distance: round6(p.length), ActionsUsed: actions, FailedMove: failedMove}
	if short != nil {
		// The actions its shortened move takes, never more than given.
		ev.ActionsUsed = max(1, min(needed, actions))
		ev.StoppedShort, ev.Enemy, ev.Short = true, short.enemy, short.gap
		to := c.To
		ev.Planned = &to
	}
	fillMoved(ev, path, p, allowed)
	return []Event{ev}, nil
}

// shortStop is where a move without a charge order stops (C.9): the
// waypoints it keeps, the plan cut at the stop, the enemy and the gap.
type shortStop struct {
	path  []Waypoint
	plan  movePlan
	enemy string
	gap   float64
}

// stopShort finds where a planned move of u first comes within the gap
// (contact.gap, 1") of an enemy along its legs (C.9: a unit whose move
// would reach the enemy stops 1" short), and returns the move cut there:
// the waypoints before that leg and the point on it where the unit stands
// exactly the gap from the enemy, facing as on that leg; nil if no leg
// comes that near. "Short" is measured base to base, along the path the
// player gave: the later waypoints, turns and the final facing are not
// made. A unit already nearer than the gap may not come nearer: it stops
// where it would start to. Turns on the spot are not moves toward the
// enemy: where one would end within the gap, K.3 refuses it. A move that
// would stop where it stands is refused.
func stopShort(s *State, u *Unit, p movePlan, path []Waypoint) (*shortStop, *Refusal) {
	m := s.Measurement
	gap := s.Ruleset.Contact.Gap.For(m)
	cur := p.from
	for i, st := range p.steps {
		bestT, best := math.Inf(1), (*Unit)(nil)
		for _, id := range s.sortedUnitIDs() {
			o := s.Units[id]
			if o.Side == u.Side || !o.active() {
				continue
			}
			lim := math.Min(gap, geom.Distance(cur, o.Base))
			if geom.SweptBase(cur, st.to).DistanceToBase(o.Base) >= lim-geom.Eps {
				continue
			}
			if t := firstWithin(cur, st.to, o.Base, lim); t < bestT {
				bestT, best = t, o
			}
		}
		if best == nil {
			cur = st.after
			continue
		}
		at := cur.Center.Lerp(st.to, bestT)
		if i == 0 && geom.Dist(at, p.from.Center) < geom.Eps {
			d := geom.Distance(p.from, best.Base)
			return nil, refuse("C.9", "no_room_short", "unit %s is %s from enemy unit %s and this move would take it nearer at once: without a charge order a unit stops %s short of the enemy, so it cannot move this way",
				u.ID, fmtMeasured(d, gap, m), best.ID, fmtLen(gap, m)).with("distance", d, "gap", gap)
		}
		kept := slices.Clone(path[:i])
		cut, r := planPath(s, p.from, kept, at, nil)
		if r != nil {
			return nil, r
		}
		return &shortStop{path: kept, plan: cut, enemy: best.ID, gap: gap}, nil
	}
	return nil, nil
}

// fillMoved records the path, the turns and the cost of a move.
func fillMoved(ev *UnitMoved, path []Waypoint, p movePlan, allowed float64) {
	for _, w := range path {
		ev.Path = append(ev.Path, w.Vec())
		if w.Facing != nil {
			ev.Route = slices.Clone(path)
		}
	}
	if p.turnCost > 0 || p.difficult > 0 {
		ev.Cost, ev.Allowed = round6(p.cost()), round6(allowed)
	}
}

// costDetail explains a cost made of more than the path: " (path 5.0",
// turning 3.7", difficult terrain 1.0")" (phrase.cost).
func costDetail(p movePlan, m string) Words {
	path, turning, difficult := fmtMeasured(p.length, 0, m), fmtMeasured(p.turnCost, 0, m), fmtMeasured(p.difficult, 0, m)
	switch {
	case p.turnCost == 0 && p.difficult == 0:
		return words("")
	case p.difficult == 0:
		return words(" (path %s, turning %s)", path, turning)
	case p.turnCost == 0:
		return words(" (path %s, difficult terrain %s)", path, difficult)
	}
	return words(" (path %s, turning %s, difficult terrain %s)", path, turning, difficult)
}

// movementUnit checks what every movement-phase command of a unit checks:
// the battle is in its movement phase, the unit's side is the one moving
// (M.1), and the unit is on the table and not routed (T.4).
func movementUnit(s *State, id string) (*Unit, UnitTurn, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, UnitTurn{}, r
	}
	u := s.Units[id]
	if u == nil {
		return nil, UnitTurn{}, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", id)
	}
	if s.Phase != PhaseMovement {
		return nil, UnitTurn{}, refuse("T.3", "not_movement_phase", "this is done in the movement phase; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing).with("turn", s.Turn)
	}
	if r := s.checkMover(u.Side); r != nil {
		return nil, UnitTurn{}, r
	}
	if !u.active() {
		return nil, UnitTurn{}, refuse("T.4", "unit_inactive", "unit %s is %s and cannot move", u.ID, u.Status)
	}
	if u.Status == UnitRouted {
		return nil, UnitTurn{}, refuse("T.4", "unit_routed", "unit %s is routed: it moves only as its rout is recorded (combat.record), until it rallies", u.ID)
	}
	return u, s.TurnBook.peekUnit(u.ID), nil
}

// mover is the side moving now in the movement phase (M.1).
func (s *State) mover() string {
	if s.TurnBook.Mover != "" {
		return s.TurnBook.Mover
	}
	return s.Phasing
}

// checkMover refuses a movement-phase command of a side that is not moving
// now (M.1: the phasing side moves first, then the other).
func (s *State) checkMover(side string) *Refusal {
	mv := s.mover()
	if side == mv {
		return nil
	}
	if side != s.Phasing && mv == s.Phasing {
		return refuse("M.1", "phasing_side_first", "the phasing side %s moves all its units first; %s moves after %s hands the movement phase over (movement.hand_over)", s.Phasing, side, s.Phasing)
	}
	return refuse("M.1", "not_moving", "in this movement phase %s is moving now; %s has handed over and moves no more", mv, side)
}

// normalMove is the unit's M.3 normal move in its formation: the type's row
// of movement.normal_move (or the row of the type it moves as, M.16), with
// its nation's exception (M.16: Austrian horse artillery).
func normalMove(s *State, u *Unit) float64 {
	mv, m := s.Ruleset.Movement, s.Measurement
	look := u.Type
	if as := s.Ruleset.UnitTypes[u.Type].MovesAs; as != "" {
		if _, own := mv.NormalMove[u.Type]; !own {
			look = as
		}
	}
	row := mv.NormalMove[look]
	if sd := s.side(u.Side); sd != nil {
		if nrow, ok := mv.NationNormalMove[sd.Nation][u.Type]; ok {
			row = nrow
		}
	}
	if d, ok := row[u.Formation]; ok {
		return d.For(m)
	}
	return row["default"].For(m)
}

// movementBudget is the fraction of its normal move a unit may use this
// movement phase: all of it, or M.5's fraction after firing.
func movementBudget(s *State, ut UnitTurn) (budget float64, rule string) {
	if ut.Fired {
		return s.Ruleset.Movement.AfterFiringFraction, "M.5"
	}
	return 1, "M.3"
}

// actedInCommandPhase reports whether the unit moved, charged or changed
// formation with actions this turn (T.3: it does not move again in the
// movement phase), and whether that was only formation changes (M.14).
func actedInCommandPhase(ut UnitTurn) (acted, onlyFormation bool) {
	moved := ut.MoveActions > 0 || ut.Charged != ""
	return moved || ut.Reforms > 0, !moved
}

// decideNormalMove judges unit.move in the movement phase: the M.3 normal
// move under the movement_table option, at most the unit's normal move (half
// after firing, M.5) less what this phase has used (M.4), nothing carried
// over (M.6), not with a tactical march (M.14), obeying K.1-K.3, M.7, M.10.
func decideNormalMove(s *State, c *MoveUnit) ([]Event, *Refusal) {
	m := s.Measurement
	u, ut, r := movementUnit(s, c.Unit)
	if r != nil {
		return nil, r
	}
	if s.Ruleset.Turn.OrdinaryMoves != MovesMovementTable {
		return nil, refuse("T.7", "moves_are_actions", "under the command_actions option ordinary moves are command-phase actions (C.17); the movement phase is for tactical marches (unit.march), generals and re-forming (M.8)")
	}
	if c.Actions != 0 {
		return nil, refuse(RuleInput, "no_actions_here", "a normal move in the movement phase uses no actions; %d given", c.Actions).with("actions", c.Actions)
	}
	if acted, _ := actedInCommandPhase(ut); acted {
		return nil, refuse("T.3", "acted_in_command_phase", "unit %s took actions in the command phase and does not move again in the movement phase", u.ID)
	}
	if ut.Marched > 0 {
		return nil, refuse("M.14", "marched", "unit %s made a tactical march this turn: no normal move as well", u.ID).with("marched", ut.Marched)
	}
	if c.Evading && !exemptFromFlankRule(s, u) {
		return nil, refuse("M.10", "not_evading_type", "only %v evade free of M.10; unit %s is %s", s.Ruleset.Movement.FlankExposureExemptTypes, u.ID, u.Type)
	}
	full := normalMove(s, u)
	if full <= 0 {
		return nil, refuse("M.3", "cannot_move", "%s in %s moves %s (movement.normal_move): unit %s cannot move", u.Type, u.Formation, fmtLen(full, m), u.ID).with("normal_move", full)
	}
	budget, rule := movementBudget(s, ut)
	if rule == "M.3" && ut.MovementUsed > 0 {
		rule = "M.4" // part of the move went on formation changes or moves
	}
	left := math.Max(0, budget-ut.MovementUsed) * full
	p, r := planPath(s, u.Base, c.Path, c.To, c.Facing)
	if r != nil {
		return nil, r
	}
	if cost := p.cost(); cost > left+geom.Eps {
		why, used := words(""), fmtMeasured(ut.MovementUsed*full, 0, m) // phrase.why_half
		switch {
		case rule == "M.5" && ut.MovementUsed > 0:
			why = words(", half after firing, %s already used this phase (M.4, M.6)", used)
		case rule == "M.5":
			why = words(", half after firing")
		case ut.MovementUsed > 0:
			why = words(", %s already used this phase (M.4, M.6)", used)
		}
		return nil, refuse(rule, "move_too_far", "%s in %s moves %s in the movement phase%s: %s left, this move is %s%s",
			u.Type, u.Formation, fmtLen(full, m), why, fmtMeasured(left, cost, m), fmtMeasured(cost, left, m), costDetail(p, m)).
			with("distance", cost, "allowed", left, "normal_move", full, "used", ut.MovementUsed, "path", p.length, "turns", p.turnCost, "difficult", p.difficult)
	}
	mc := checkFor(s)
	mc.evading = c.Evading
	if r := checkPlan(s, u, p, mc); r != nil {
		return nil, r
	}
	ev := &UnitMoved{Turn: s.Turn, Unit: u.ID, From: u.Base, To: p.end, Distance: round6(p.length), Phase: PhaseMovement,
		MovementUsed: round6(p.cost() / full)}
	fillMoved(ev, c.Path, p, left)
	return []Event{ev}, nil
}
