package rules

import (
	"fmt"
	"math"

	"github.com/clubledger/ledger/rules/geom"
)

// Blunder table results the engine carries out (C.5). A ruleset's blunder
// table may use only these (Validate checks).
const (
	BlunderRetire    = "retire"     // one move straight back, facing kept
	BlunderHold      = "hold"       // nothing
	BlunderMoveLeft  = "move_left"  // one move to its left, facing kept
	BlunderMoveRight = "move_right" // one move to its right, facing kept
	BlunderAdvance   = "advance"    // one move straight ahead
	BlunderCharge    = "charge"     // charge the nearest enemy if it simply can, else advance
)

var blunderResults = []string{BlunderRetire, BlunderHold, BlunderMoveLeft, BlunderMoveRight, BlunderAdvance, BlunderCharge}

// blunderSearchSteps is the number of halvings that find how far a blunder
// move can go: the clear part of a straight path is an interval from 0, so
// bisection finds its end to well below a player's measuring precision.
const blunderSearchSteps = 50

// carryOutBlunder computes what the blunder table makes each unit of a
// blundered order do (C.5), deterministically, so that nothing is left to a
// choice and nothing the player cannot control is refused:
//
//   - retire, move_left, move_right, advance: one move of the unit's C.17
//     distance (for its formation) straight back, left, right or ahead,
//     facing unchanged. The unit goes as far as it can along that line and
//     stops where going on would leave the table (K.3), touch a friend (K.1),
//     come within the gap of an enemy (C.9, K.2) or into the zone of an
//     enemy flank march's edge (F.8); the event says why.
//   - hold: the unit stays.
//   - charge: the unit charges the nearest enemy (base to base) when the
//     charge rules allow it, judged exactly as unit.charge is (judgeCharge:
//     K.4-K.8, with the K.9 pushes recorded as charge.pushed_back), else
//     it advances and the event says why.
//
// Units of a group blunder one after another, in the order's order, each
// seeing where the previous ones ended.
func carryOutBlunder(s *State, units []*Unit, b *BlunderResult) []Event {
	work := s.Clone()
	m := s.Measurement
	var out []Event
	for _, u0 := range units {
		u := work.Units[u0.ID]
		per, _ := work.Ruleset.UnitTypes[u.Type].Move(u.Formation, m)
		ev := &BlunderCarriedOut{Turn: s.Turn, Unit: u.ID, Roll: b.Roll, Result: b.Result, From: u.Base, To: u.Base, Planned: round6(per)}
		var dir geom.Vec
		switch b.Result {
		case BlunderRetire:
			dir = u.Base.Forward().Scale(-1)
		case BlunderMoveLeft:
			dir = u.Base.Right().Scale(-1)
		case BlunderMoveRight:
			dir = u.Base.Right()
		case BlunderAdvance:
			dir = u.Base.Forward()
		case BlunderCharge:
			dir = u.Base.Forward()
			if e := work.nearestEnemy(u); e != nil && per > 0 {
				ev.Target = e.ID
				// The same charge rules as unit.charge (K.4-K.9): the
				// blunder charges if that charge is possible.
				if o, r := judgeCharge(work, u, e, per); r == nil {
					ev.To, ev.Distance, ev.Contact = o.to, round6(geom.PathLength(o.path)), true
					out = append(out, ev)
					Apply(work, ev)
					for _, p := range o.pushed {
						pev := &ChargePushedBack{Turn: s.Turn, Unit: p.unit, Charger: u.ID, Target: e.ID, From: p.from, To: p.to, Distance: round6(p.distance), Full: p.full}
						out = append(out, pev)
						Apply(work, pev)
					}
					continue
				} else {
					ev.Stopped = "cannot charge " + e.ID + " (" + r.Rule + ": " + r.Message + "): advances instead"
				}
			}
		default: // hold
			out = append(out, ev)
			continue
		}
		if per <= 0 {
			ev.Stopped = fmt.Sprintf("%s cannot move (%s per action)", u.Type, fmtLen(per, m))
			out = append(out, ev)
			continue
		}
		at := func(t float64) geom.Base { return u.Base.Translate(dir.Scale(t)) }
		clear := func(t float64) string {
			to := at(t)
			return work.pathBlock(u, []geom.Vec{to.Center}, to, "")
		}
		t := per
		if why := clear(per); why != "" {
			lo, hi := 0.0, per
			for i := 0; i < blunderSearchSteps; i++ {
				mid := (lo + hi) / 2
				if clear(mid) == "" {
					lo = mid
				} else {
					hi = mid
				}
			}
			t = math.Floor(lo*1e6) / 1e6
			stop := "stopped: " + why
			if ev.Stopped != "" {
				stop = ev.Stopped + "; " + stop
			}
			ev.Stopped = stop
		}
		ev.To, ev.Distance = at(t), round6(t)
		out = append(out, ev)
		Apply(work, ev)
	}
	return out
}

// nearestEnemy is the active enemy unit nearest to u, base to base (ties by id).
func (s *State) nearestEnemy(u *Unit) *Unit {
	var best *Unit
	bd := math.Inf(1)
	for _, id := range s.sortedUnitIDs() {
		e := s.Units[id]
		if !e.active() || e.Side == u.Side {
			continue
		}
		if d := geom.Distance(u.Base, e.Base); d < bd {
			best, bd = e, d
		}
	}
	return best
}

// pathBlock says why unit u may not slide from where it stands through path
// (its centre's waypoints) and turn to end as to: off the table (K.3), in
// contact with a friend on the way (K.1), within the gap of an enemy on
// the way (C.9, K.2), or within the zone of an enemy flank march's edge
// (F.8); "" when clear. ignore names a unit not checked (a
// charge's target). A unit already closer than a limit may keep its distance
// but not come closer.
func (s *State) pathBlock(u *Unit, path []geom.Vec, to geom.Base, ignore string) string {
	m := s.Measurement
	if !s.Table.Contains(to) {
		return "the table edge (K.3)"
	}
	gap := s.Ruleset.Contact.Gap.For(m)
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if id == u.ID || id == ignore || !o.active() {
			continue
		}
		d, _ := geom.MinDistanceAlongPath(u.Base, path, to.Facing, o.Base)
		start := geom.Distance(u.Base, o.Base)
		if o.Side == u.Side {
			if d < math.Min(geom.ContactTolerance, start)-geom.Eps || (start > geom.ContactTolerance && d <= geom.ContactTolerance) {
				return fmt.Sprintf("friendly unit %s in the way (K.1)", o.ID)
			}
			continue
		}
		if d < math.Min(gap, start)-geom.Eps {
			return fmt.Sprintf("enemy unit %s within %s (C.9, K.2)", o.ID, fmtLen(gap, m))
		}
	}
	var course []pose
	cur := u.Base
	for _, p := range path {
		cur.Center = p
		course = append(course, pose{Base: cur})
	}
	if turn := geom.TurnDeg(cur.Facing, to.Facing); turn != 0 {
		course = append(course, pose{Base: geom.Rotate(cur, cur.Center, turn), Pivot: cur.Center, Turn: turn})
	}
	if b := s.flankBreach(u.Side, u.Base, course); b != nil {
		return fmt.Sprintf("the %s edge of %s's flank march: enemies keep %s away (F.8)", b.march.Edge, b.march.Side, fmtLen(b.limit, m))
	}
	return ""
}
