// F.8: from a flank march's declaration on, enemy units keep away from its
// table edge, along the whole of every move (docs/flank-marches.md).

package rules

import (
	"math"

	"github.com/clubledger/ledger/rules/geom"
)

// pose is one place a moving base passes through on its way (F.8): it
// slides there in a straight leg from the pose before (Turn 0), or turns
// there on the spot by Turn degrees, clockwise positive, about Pivot.
// Where names it in messages ("at waypoint 1", "turning at the
// destination": phrase.edge_where).
type pose struct {
	Base  geom.Base
	Pivot geom.Vec
	Turn  float64
	Where Words
	Step  int // the waypoint's number, 0 for none
}

// planCourse is a planned move's course: each leg's end, then its turn.
func planCourse(p movePlan) []pose {
	var out []pose
	for i, st := range p.steps {
		n := i + 1
		if i == len(p.steps)-1 {
			n = 0
		}
		out = append(out, pose{Base: st.before, Where: p.whereAt("at ", i), Step: n})
		if st.turn != 0 {
			out = append(out, pose{Base: st.after, Pivot: st.before.Center, Turn: st.turn, Where: p.whereAt("turning at ", i), Step: n})
		}
	}
	return out
}

// edgeBreach is where a course first comes nearer a flank march's edge
// than F.8 allows.
type edgeBreach struct {
	march    *FlankMarch
	distance float64 // the least distance to the edge on the course
	limit    float64 // the exclusion
	at       pose
}

// flankBreach is the F.8 check of a course: from a flank march's
// declaration on, units (and generals) of the other sides may not come
// within flank_march.edge_exclusion of its edge, neither where a move ends
// nor anywhere along it, whether a move, a march, a charge or a general's
// move. A unit already that near may stay or draw back, not come nearer:
// the limit is the exclusion or its distance at the start, whichever is
// less. Straight legs come nearest at one of their ends; a turn on the spot
// is swept exactly (geom.Table.RotatingDistanceToEdge). Forced moves (K.9
// pushes, entered retreats and routs) are not checked: docs/flank-marches.md.
func (s *State) flankBreach(side string, from geom.Base, course []pose) *edgeBreach {
	if s == nil || s.Ruleset == nil {
		return nil
	}
	excl := s.Ruleset.FlankMarch.EdgeExclusion.For(s.Measurement)
	for i := range s.Flank.Marches {
		m := &s.Flank.Marches[i]
		if m.Side == side || !m.excludes() {
			continue
		}
		limit := math.Min(excl, s.Table.DistanceToEdge(from, m.Edge))
		prev := from
		for _, p := range course {
			d := s.Table.DistanceToEdge(p.Base, m.Edge)
			if p.Turn != 0 {
				d = s.Table.RotatingDistanceToEdge(prev, p.Pivot, p.Turn, m.Edge)
			}
			if d < limit-geom.Eps {
				return &edgeBreach{march: m, distance: d, limit: excl, at: p}
			}
			prev = p.Base
		}
	}
	return nil
}

// refusal words a breach for unit (or general) who (phrase.who).
func (b *edgeBreach) refusal(s *State, who Words) *Refusal {
	m, meas := b.march, s.Measurement
	r := refuse("F.8", "flank_edge", "%s declared a flank march on the %s edge (march %d): %s would come %s from that edge %s; enemies keep %s away, anywhere along a move",
		m.Side, m.Edge, m.N, who, fmtMeasured(b.distance, b.limit, meas), b.at.Where, fmtLen(b.limit, meas)).
		with("distance", b.distance, "exclusion", b.limit, "march", m.N)
	if b.at.Step > 0 {
		r = r.with("waypoint", b.at.Step)
	}
	return r
}

// flankCourseRefusal is F.8 for unit u moving from its base along course.
func (s *State) flankCourseRefusal(u *Unit, course []pose) *Refusal {
	if b := s.flankBreach(u.Side, u.Base, course); b != nil {
		return b.refusal(s, words("unit %s", u.ID))
	}
	return nil
}

// FlankZones are the table edges flank marches keep enemies from now
// (F.8), each with its strip: for drawing before a player moves (the page
// shades them); the rules judge a move by flankBreach.
func (s *State) FlankZones() []EdgeZone {
	if s == nil || s.Ruleset == nil {
		return nil
	}
	d := s.Ruleset.FlankMarch.EdgeExclusion.For(s.Measurement)
	var out []EdgeZone
	for _, m := range s.Flank.Marches {
		if m.excludes() {
			out = append(out, EdgeZone{March: m.N, Side: m.Side, Edge: m.Edge, Distance: d, Zone: edgeStrip(s.Table, m.Edge, d)})
		}
	}
	return out
}
