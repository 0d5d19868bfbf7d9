// A unit's tactical march (docs/rules.md M.12-M.14): how far it goes, and where
// it comes within the M.13 distance of an enemy and stops.

package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// marchSearchSteps is the number of halvings that find where a march comes
// within the M.13 distance of an enemy: far below measuring precision.
const marchSearchSteps = 60

// invPhi is the golden ratio's inverse, the step of the golden-section search.
const invPhi = 0.6180339887498949

// decideMarch judges unit.march (M.11-M.14): a unit of a brigade whose
// march was granted, in a march formation, that did not move in the command
// phase (a formation change is allowed, M.14) nor make a normal move, goes
// at most its M.12 speed this turn; where it comes within the M.13 distance
// of an enemy its march ends and the engine stops it there. The move obeys
// K.1-K.3, M.7 and M.10 like any other.
func decideMarch(s *State, c *MarchUnit) ([]Event, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	tm := rs.Movement.TacticalMarch
	u, ut, r := movementUnit(s, c.Unit)
	if r != nil {
		return nil, r
	}
	if _, ok := s.TurnBook.Marches[u.Brigade]; !ok {
		return nil, refuse("M.11", "brigade_not_marching", "brigade %s is not marching this turn: declare its march first (march.declare)", u.Brigade)
	}
	if r := marchFormationOK(s, u); r != nil {
		return nil, r
	}
	if acted, onlyFormation := actedInCommandPhase(ut); acted && !onlyFormation {
		return nil, refuse("M.14", "moved_in_command_phase", "unit %s moved in the command phase: no tactical march as well (only a formation change combines with one)", u.ID)
	}
	if ut.NormalMoved {
		return nil, refuse("M.14", "normal_move_made", "unit %s made a normal move this turn: no tactical march as well", u.ID)
	}
	stop := tm.StopDistance.For(m)
	if ut.MarchEnded {
		return nil, refuse("M.13", "march_ended", "unit %s's march ended this turn when it came within %s of the enemy", u.ID, fmtLen(stop, m)).with("stop_distance", stop)
	}
	if e, d := nearestEnemy(s, u, u.Base); e != nil && d <= stop+geom.Eps {
		return nil, refuse("M.13", "march_ended", "unit %s is %s from enemy unit %s, within %s: its tactical march has ended", u.ID, fmtMeasured(d, stop, m), e.ID, fmtLen(stop, m)).
			with("distance", d, "stop_distance", stop)
	}
	speed := tm.Speeds[rs.UnitTypes[u.Type].TacticalMarch].For(m)
	left := math.Max(0, speed-ut.Marched)
	p, r := planPath(s, u.Base, c.Path, c.To, c.Facing)
	if r != nil {
		return nil, r
	}
	ended, enemy := false, ""
	var planned *geom.Vec
	if path, stopAt, e, ok := marchStop(s, u, p, c.Path, stop); ok {
		to := c.To
		planned, ended, enemy = &to, true, e
		if p, r = planPath(s, u.Base, path, stopAt, nil); r != nil {
			return nil, r
		}
	}
	if cost := p.cost(); cost > left+geom.Eps {
		used := words("") // phrase.marched_already
		if ut.Marched > 0 {
			used = words(", %s marched already", fmtMeasured(ut.Marched, 0, m))
		}
		return nil, refuse("M.12", "march_too_far", "%s marches %s a turn (%s)%s: %s left, this march is %s%s",
			u.Type, fmtLen(speed, m), rs.UnitTypes[u.Type].TacticalMarch, used, fmtMeasured(left, cost, m), fmtMeasured(cost, left, m), costDetail(p, m)).
			with("distance", cost, "allowed", left, "speed", speed)
	}
	if r := checkPlan(s, u, p, checkFor(s)); r != nil {
		return nil, r
	}
	ev := &UnitMarched{Turn: s.Turn, Unit: u.ID, Brigade: u.Brigade, From: u.Base, To: p.end, Path: p.points()[:len(p.steps)-1],
		Distance: round6(p.cost()), Marched: round6(ut.Marched + p.cost()), Speed: speed, Ended: ended, Enemy: enemy, Planned: planned}
	if len(ev.Path) == 0 {
		ev.Path = nil
	}
	return []Event{ev}, nil
}

// nearestEnemy is the active enemy unit nearest to base b of u's side.
func nearestEnemy(s *State, u *Unit, b geom.Base) (*Unit, float64) {
	var best *Unit
	bd := math.Inf(1)
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if o.Side == u.Side || !o.active() {
			continue
		}
		if d := geom.Distance(b, o.Base); d < bd {
			best, bd = o, d
		}
	}
	return best, bd
}

// marchStop finds the first point of a march's legs where the unit comes
// within stop of an enemy (M.13). It returns the path cut there: the
// waypoints before that leg and the stopping point.
func marchStop(s *State, u *Unit, p movePlan, path []Waypoint, stop float64) ([]Waypoint, geom.Vec, string, bool) {
	cur := p.from
	for i, st := range p.steps {
		bestT, bestE := math.Inf(1), ""
		for _, id := range s.sortedUnitIDs() {
			o := s.Units[id]
			if o.Side == u.Side || !o.active() {
				continue
			}
			if geom.SweptBase(cur, st.to).DistanceToBase(o.Base) > stop+geom.Eps {
				continue
			}
			if t := firstWithin(cur, st.to, o.Base, stop); t < bestT {
				bestT, bestE = t, o.ID
			}
		}
		if bestE != "" {
			return slices.Clone(path[:i]), cur.Center.Lerp(st.to, bestT), bestE, true
		}
		cur = st.after
	}
	return nil, geom.Vec{}, "", false
}

// firstWithin is the least t in [0,1] at which base b, slid so its centre is
// at b.Center.Lerp(to, t), is within d of other. The distance is convex in
// t (two convex sets, one translated along a line), so its minimum is found
// by ternary search and the crossing before it by bisection.
func firstWithin(b geom.Base, to geom.Vec, other geom.Base, d float64) float64 {
	at := func(t float64) float64 {
		x := b
		x.Center = b.Center.Lerp(to, t)
		return geom.Distance(x, other)
	}
	if at(0) <= d {
		return 0
	}
	lo, hi := 0.0, 1.0
	for range marchSearchSteps {
		m1, m2 := hi-(hi-lo)*invPhi, lo+(hi-lo)*invPhi
		if at(m1) <= at(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	tmin := (lo + hi) / 2
	if at(tmin) > d+geom.Eps {
		return math.Inf(1)
	}
	lo, hi = 0, tmin
	for range marchSearchSteps {
		mid := (lo + hi) / 2
		if at(mid) <= d {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
