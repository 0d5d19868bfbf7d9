package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// decideMove judges unit.move: a move of the unit's base centre along its
// path, paid with actions of this turn's order or initiative (C.3, C.6,
// C.15) at the C.17 distance per action, or the one move C.12 leaves a
// failed unit in march column, square or limbered. The distance is the
// length of the path of the centre from where the unit stands through the
// waypoints to the destination; the cost of wheeling or turning is not
// charged yet. The end position must be wholly on the table (K.3), clear of
// friends (K.1), and neither the path nor the end may come within the gap of
// an enemy (C.9: a unit not charging stops 1" short; K.2).
func decideMove(s *State, c *MoveUnit) ([]Event, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	actions := c.Actions
	if actions == 0 {
		actions = 1
	}
	if actions < 0 {
		return nil, refuse(RuleInput, "bad_actions", "actions %d: want 1 or more", actions).with("actions", actions)
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
	case ut.ActionsLeft < actions:
		return nil, refuse("C.3", "no_actions_left", "unit %s has %s left this turn; this move uses %d", u.ID, plural(ut.ActionsLeft, "action", "actions"), actions).
			with("actions_left", ut.ActionsLeft, "actions", actions)
	}
	per, label, r := moveAllowance(s, u, ut, actions)
	if r != nil {
		return nil, r
	}
	// Path length of the centre.
	pts := append([]geom.Vec{u.Base.Center}, c.Path...)
	pts = append(pts, c.To)
	dist := 0.0
	for i := 1; i < len(pts); i++ {
		if !pts[i].IsFinite() {
			return nil, refuse(RuleInput, "bad_point", "path point %d is not a finite position", i)
		}
		dist += geom.Dist(pts[i-1], pts[i])
	}
	allowed := per * float64(actions)
	if dist > allowed+geom.Eps {
		return nil, refuse("C.17", "move_too_far", "%s moves %s per action; %s allows %s, this move is %s",
			label, fmtLen(per, m), plural(actions, "action", "actions"), fmtMeasured(allowed, dist, m), fmtMeasured(dist, allowed, m)).
			with("distance", dist, "allowed", allowed, "per_action", per, "actions", actions)
	}
	to := u.Base
	to.Center = c.To
	if c.Facing != nil {
		if !finite(*c.Facing) {
			return nil, refuse(RuleInput, "bad_facing", "facing is not a number")
		}
		to.Facing = geom.NormDeg(*c.Facing)
	}
	if !s.Table.Contains(to) {
		return nil, refuse("K.3", "off_table", "unit %s would not end wholly on the %gx%g table", u.ID, s.Table.Width, s.Table.Depth).with("x", to.Center.X, "y", to.Center.Y)
	}
	gap := rs.Contact.Gap.For(m)
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if id == u.ID || !o.active() {
			continue
		}
		d := geom.Distance(to, o.Base)
		if o.Side == u.Side {
			if d <= geom.ContactTolerance {
				what := "in base contact with"
				if geom.Overlaps(to, o.Base) {
					what = "overlapping"
				}
				return nil, refuse("K.1", "friend_contact", "unit %s would end %s friendly unit %s", u.ID, what, o.ID).with("distance", d)
			}
			continue
		}
		if d < gap-geom.Eps {
			return nil, refuse("C.9", "enemy_too_close", "unit %s would end %s from enemy unit %s; a unit not charging stops %s short of the enemy (K.2)", u.ID, fmtMeasured(d, gap, m), o.ID, fmtLen(gap, m)).
				with("distance", d, "gap", gap)
		}
		if pd, _ := geom.MinDistanceAlongPath(u.Base, append(slices.Clone(c.Path), c.To), to.Facing, o.Base); pd < math.Min(gap, geom.Distance(u.Base, o.Base))-geom.Eps {
			return nil, refuse("C.9", "path_reaches_enemy", "unit %s would pass %s from enemy unit %s on its way; a unit not charging stops %s short of the enemy (K.2)", u.ID, fmtMeasured(pd, gap, m), o.ID, fmtLen(gap, m)).
				with("distance", pd, "gap", gap)
		}
	}
	ev := &UnitMoved{Turn: s.Turn, Unit: u.ID, From: u.Base, To: to, Distance: round6(dist), ActionsUsed: actions, FailedMove: failedMove}
	if len(c.Path) > 0 {
		ev.Path = append([]geom.Vec(nil), c.Path...)
	}
	return []Event{ev}, nil
}

// round6 keeps recorded distances readable without changing any decision.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
