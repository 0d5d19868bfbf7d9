package geom

import (
	"math"
	"sort"
)

// Obstruction is what blocks a sight line first, for the message that
// refuses a charge (K.10): "line of sight crosses 1.20 of unit X".
type Obstruction struct {
	// Base is the index of the blocking base in the bases given, or -1.
	Base int
	// Terrain is the index of the blocking piece in the terrain given, or -1.
	Terrain int
	// Entry is where the line enters it.
	Entry Vec
	// Length is how much of the line lies inside it.
	Length float64
}

// SightBlocked reports whether the sight line s is blocked, and by what: a
// base (other than those in exclude, compared by value) or a terrain piece
// that BlocksSight, which the line passes through more than
// ContactTolerance deep (farther than that from its outline). A line
// grazing a corner, running along an edge or clipping it by a hair is not
// blocked: what is within the tolerance is "touching", here as for bases.
// When several obstacles block, the one the line enters first is returned,
// ties to bases, then to the lower index.
//
// Terrain the line starts or ends in counts like any other: a unit inside a
// wood that may see out of it should be given a terrain list without it.
func SightBlocked(s Segment, bases []Base, terrain []Terrain, exclude ...Base) (Obstruction, bool) {
	best := Obstruction{Base: -1, Terrain: -1}
	bestT := math.Inf(1)
	for i, b := range bases {
		if excluded(b, exclude) {
			continue
		}
		if l, t, deep := b.sightCrossing(s); deep && t < bestT {
			best, bestT = Obstruction{Base: i, Terrain: -1, Entry: s.At(t), Length: l}, t
		}
	}
	for i, tr := range terrain {
		if !tr.Kind.Has(BlocksSight) {
			continue
		}
		if l, t, deep := tr.Outline.sightCrossing(s, ContactTolerance); deep && t < bestT {
			best, bestT = Obstruction{Base: -1, Terrain: i, Entry: s.At(t), Length: l}, t
		}
	}
	return best, bestT <= 1
}

// polygonsMeet reports whether two closed simple polygons share a point.
func polygonsMeet(p, q Polygon) bool {
	if len(p) == 0 || len(q) == 0 {
		return false
	}
	for _, e := range p.Edges() {
		for _, f := range q.Edges() {
			if e.Intersects(f) {
				return true
			}
		}
	}
	return p.Contains(q[0]) || q.Contains(p[0])
}

func excluded(b Base, ex []Base) bool {
	for _, e := range ex {
		if b == e {
			return true
		}
	}
	return false
}

// CanSee reports whether a straight line from the point from reaches some
// point of the target's base without being blocked (SightBlocked), and
// returns the nearest such point. The target never blocks its own sight
// lines; the viewer's base should be passed in exclude.
//
// It tests a finite set of points on the target's outline: its corners, the
// point nearest to from, every point where a ray from from through a corner
// of an obstacle meets the outline, every point where an obstacle's edge
// crosses the outline, and the middle of each stretch of outline between
// consecutive such points. Which obstacles a sight line blocks on changes
// only at those rays and crossings, so for bases (whose blocking core is
// the base inset by ContactTolerance, whose corners are among the rays) the
// answer is exact. For terrain it is exact for lines that touch no piece;
// lines that pass only by clipping a piece by less than the tolerance are
// found through the rays passing the tolerance beside each vertex, which
// is exact at convex corners seen square-on and may miss a sliver of view
// otherwise.
func CanSee(from Vec, target Base, bases []Base, terrain []Terrain, exclude ...Base) (Vec, bool) {
	ex := append(append([]Base(nil), exclude...), target)
	// Only obstacles meeting the hull of the viewer and the target can stand
	// in the way.
	c := target.Corners()
	hull := ConvexHull([]Vec{from, c[0], c[1], c[2], c[3]})
	var near []Base
	for _, b := range bases {
		if !excluded(b, ex) && hull.meetsBase(b) {
			near = append(near, b)
		}
	}
	var nearT []Terrain
	for _, tr := range terrain {
		if tr.Kind.Has(BlocksSight) && polygonsMeet(hull, tr.Outline) {
			nearT = append(nearT, tr)
		}
	}
	bases, terrain = near, nearT
	edges := target.Edges()
	params := make([][]float64, 4)
	for i := range params {
		params[i] = []float64{0, 1, edges[i].param(from)}
	}
	addVertex := func(v Vec) {
		for i, e := range edges {
			if t, ok := rayParam(from, v, e); ok && v != from {
				params[i] = append(params[i], t)
			}
		}
	}
	addEdge := func(o Segment) {
		for i, e := range edges {
			if p, ok := e.Intersection(o); ok {
				params[i] = append(params[i], e.param(p))
			}
		}
	}
	for _, b := range bases {
		// A base blocks the lines that cross it inset by the tolerance, so
		// the inset outline's corners and edges are where that changes.
		for _, o := range [2]Base{b, b.Inset(ContactTolerance)} {
			for _, c := range o.Corners() {
				addVertex(c)
			}
			for _, e := range o.Edges() {
				addEdge(e)
			}
		}
	}
	for _, tr := range terrain {
		for _, v := range tr.Outline {
			addVertex(v)
			// Lines passing the tolerance to either side of a vertex.
			if u := v.Sub(from); u.Len() > 0 {
				n := Vec{-u.Y, u.X}.Scale(ContactTolerance / u.Len())
				addVertex(v.Add(n))
				addVertex(v.Sub(n))
			}
		}
		for _, e := range tr.Outline.Edges() {
			addEdge(e)
		}
	}
	var cands []Vec
	for i, ts := range params {
		sort.Float64s(ts)
		for j, t := range ts {
			cands = append(cands, edges[i].At(t))
			if j+1 < len(ts) && ts[j+1] > t {
				cands = append(cands, edges[i].At((t+ts[j+1])/2))
			}
		}
	}
	// Nearest first; the sort is stable on a deterministic list, so equal
	// distances keep their order and the answer is the same every time.
	sort.SliceStable(cands, func(i, j int) bool { return Dist(from, cands[i]) < Dist(from, cands[j]) })
	for _, c := range cands {
		if _, blocked := SightBlocked(Segment{from, c}, bases, terrain, ex...); !blocked {
			return c, true
		}
	}
	return Vec{}, false
}
