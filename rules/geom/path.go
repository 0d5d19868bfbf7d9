package geom

import (
	"math"
	"sort"
)

// This file holds the geometry of a path with at most one turn (the K.5
// charge move). The rules decide what makes a leg legal; the functions here
// only place bases along a leader point's path, propose turn points and pick
// the shortest legal path among them. docs/charges.md describes how the
// rules use them and what is approximate.

// AtLeader returns b turned to facing with its leader point (the middle of
// its front edge, K.10) at p: where a unit stands when its leader point has
// gone to p.
func AtLeader(b Base, p Vec, facing float64) Base {
	b.Facing = NormDeg(facing)
	b.Center = p.Sub(b.Forward().Scale(b.Depth / 2))
	return b
}

// SweptAtLeader returns the region covered by b, facing facing, while its
// leader point goes in a straight line from p to q: SweptBase of the base at
// p (AtLeader).
func SweptAtLeader(b Base, p, q Vec, facing float64) Polygon {
	at := AtLeader(b, p, facing)
	return SweptBase(at, q.Sub(p).Add(at.Center))
}

// BendDeg returns how much a path a -> t -> b changes direction at t, in
// degrees from 0 (straight on) to 180 (straight back); 0 when either leg is
// shorter than Eps.
func BendDeg(a, t, b Vec) float64 {
	u, v := t.Sub(a), b.Sub(t)
	lu, lv := u.Len(), v.Len()
	if lu < Eps || lv < Eps {
		return 0
	}
	c := u.Dot(v) / float64(lu*lv)
	return math.Acos(math.Max(-1, math.Min(1, c))) * 180 / math.Pi
}

// PolygonsMeet reports whether two closed simple polygons share a point (an
// edge of one meets an edge of the other, or one holds the other).
func PolygonsMeet(p, q Polygon) bool { return polygonsMeet(p, q) }

// TurnCandidates proposes turn points for the leader point of a base of
// b's size, facing facing, that must pass the obstacles whose outlines are
// given: for each vertex v of an obstacle and each corner r of the base
// (relative to the leader point), the leader point where that corner sits on
// v, moved margin outward (away from the base's body). These are the vertices
// of the configuration-space obstacles of a translating rectangle (the
// Minkowski sums), so the shortest path round convex obstacles bends at one
// of them; the margin keeps the candidate just clear of the vertex.
func TurnCandidates(b Base, facing float64, obstacles []Polygon, margin float64) []Vec {
	at := AtLeader(b, Vec{}, facing) // leader point at the origin
	var out []Vec
	for _, o := range obstacles {
		for _, v := range o {
			for _, c := range at.Corners() {
				dir := c.Sub(at.Center) // the corner's outward direction from the base's centre
				p := v.Sub(c)
				if n := dir.Len(); n > 0 {
					p = p.Sub(dir.Scale(margin / n))
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// ShadowCrossings proposes the turn points a shortest path with one turn
// needs when it must pass two obstacles, one on each leg: where the line
// from a through a point of viaA (beyond it) crosses the line from b
// through a point of viaB (beyond it). With the configuration-space
// vertices (TurnCandidates) as via points, the shortest path with one turn
// round convex obstacles turns at such a crossing or at a vertex.
func ShadowCrossings(a, b Vec, viaA, viaB []Vec) []Vec {
	var out []Vec
	for _, p := range viaA {
		da := p.Sub(a)
		if da.Len() < Eps {
			continue
		}
		for _, q := range viaB {
			db := q.Sub(b)
			den := da.Cross(db)
			if math.Abs(den) < Eps {
				continue
			}
			w := b.Sub(a)
			s, u := w.Cross(db)/den, w.Cross(da)/den // a + s·da = b + u·db
			if s >= 1-Eps && u >= 1-Eps {
				out = append(out, a.Add(da.Scale(s)))
			}
		}
	}
	return out
}

// OneTurnPath returns the turn point t of the shortest path a -> t -> b
// that legal accepts: b or a when the straight path is legal (turning at its
// end, else at its start), else the candidate with the shortest legal path.
// legal(t) judges the whole path a -> t -> b. Candidates are tried in order
// of path length, ties in the order given, so the answer is deterministic;
// ok is false when none is legal.
func OneTurnPath(a, b Vec, candidates []Vec, legal func(t Vec) bool) (t Vec, ok bool) {
	if legal(b) {
		return b, true
	}
	if legal(a) {
		return a, true
	}
	type cand struct {
		t Vec
		l float64
	}
	cs := make([]cand, 0, len(candidates))
	for _, t := range candidates {
		if !t.IsFinite() {
			continue
		}
		cs = append(cs, cand{t, Dist(a, t) + Dist(t, b)})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].l < cs[j].l })
	for _, c := range cs {
		if legal(c.t) {
			return c.t, true
		}
	}
	return Vec{}, false
}
