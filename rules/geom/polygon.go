package geom

import (
	"math"
	"sort"
)

// Polygon is a simple polygon (its edges do not cross), listed vertex by
// vertex in either order, the last joined to the first. Terrain outlines may
// be concave; swept regions and bases are convex.
type Polygon []Vec

// Edges returns the polygon's edges, the i-th from vertex i to vertex i+1.
func (p Polygon) Edges() []Segment {
	out := make([]Segment, len(p))
	for i := range p {
		out[i] = Segment{p[i], p[(i+1)%len(p)]}
	}
	return out
}

func (p Polygon) signedArea() float64 {
	var a float64
	for i := range p {
		a += p[i].Cross(p[(i+1)%len(p)])
	}
	return a / 2
}

// Area returns the polygon's area.
func (p Polygon) Area() float64 { return math.Abs(p.signedArea()) }

// Validate reports why the polygon cannot be a terrain outline: fewer than
// three vertices, a coordinate that is not finite, a zero area, or edges
// that cross.
func (p Polygon) Validate() error {
	if len(p) < 3 {
		return errorf("polygon has %d vertices, need at least 3", len(p))
	}
	for i, v := range p {
		if !v.IsFinite() {
			return errorf("polygon vertex %d is not a finite point", i)
		}
	}
	if p.Area() <= Eps {
		return errorf("polygon has no area")
	}
	e := p.Edges()
	n := len(e)
	for i := 0; i < n; i++ {
		if e[i].Len() <= Eps {
			return errorf("polygon vertices %d and %d coincide", i, (i+1)%n)
		}
		for j := i + 2; j < n; j++ {
			if i == 0 && j == n-1 {
				continue // adjacent through the closing edge
			}
			if e[i].Intersects(e[j]) {
				return errorf("polygon edges %d and %d cross", i, j)
			}
		}
	}
	return nil
}

// boundaryDistance returns the distance from q to the polygon's outline.
func (p Polygon) boundaryDistance(q Vec) float64 {
	d := math.Inf(1)
	for i := range p {
		d = math.Min(d, Segment{p[i], p[(i+1)%len(p)]}.DistanceToPoint(q))
	}
	return d
}

// Contains reports whether q is inside the polygon or on its outline
// (within Eps).
func (p Polygon) Contains(q Vec) bool {
	if len(p) == 0 {
		return false
	}
	if p.boundaryDistance(q) <= Eps {
		return true
	}
	return p.crossingInside(q)
}

// crossingInside is the even-odd ray test, for points off the outline.
func (p Polygon) crossingInside(q Vec) bool {
	in := false
	for i, j := 0, len(p)-1; i < len(p); j, i = i, i+1 {
		a, b := p[i], p[j]
		if (a.Y > q.Y) != (b.Y > q.Y) {
			x := a.X + (q.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y)
			if q.X < x {
				in = !in
			}
		}
	}
	return in
}

// strictlyInside reports whether q is inside, more than Eps from the outline.
func (p Polygon) strictlyInside(q Vec) bool {
	return len(p) > 0 && p.boundaryDistance(q) > Eps && p.crossingInside(q)
}

// DistanceToPoint returns the distance from q to the polygon: 0 inside or on
// the outline.
func (p Polygon) DistanceToPoint(q Vec) float64 {
	if len(p) == 0 {
		return math.Inf(1)
	}
	d := p.boundaryDistance(q)
	if d <= Eps || p.crossingInside(q) {
		return 0
	}
	return d
}

// IntersectsSegment reports whether the segment meets the polygon: it
// crosses or touches the outline, or lies inside.
func (p Polygon) IntersectsSegment(s Segment) bool {
	if len(p) == 0 {
		return false
	}
	for _, e := range p.Edges() {
		if e.Intersects(s) {
			return true
		}
	}
	return p.Contains(s.A)
}

// InsideLength returns how much of the segment lies strictly inside the
// polygon (running along the outline does not count) and the fraction along
// s where the first inside stretch begins (1 if none). Exact for simple
// polygons: s is cut at every crossing and every vertex lying on it, and
// each piece is in or out as a whole.
func (p Polygon) InsideLength(s Segment) (length, entry float64) {
	length, entry, _ = p.sightCrossing(s, math.Inf(1))
	return length, entry
}

// sightCrossing is InsideLength, also reporting whether some point of s
// lies more than depth inside the polygon (farther than depth from its
// outline).
func (p Polygon) sightCrossing(s Segment, depth float64) (length, entry float64, deep bool) {
	entry = 1
	if len(p) < 3 {
		return 0, entry, false
	}
	ts := []float64{0, 1}
	for _, e := range p.Edges() {
		if s.crosses(e) {
			d1 := s.B.Sub(s.A)
			d2 := e.B.Sub(e.A)
			ts = append(ts, e.A.Sub(s.A).Cross(d2)/d1.Cross(d2))
		}
	}
	for _, v := range p {
		if s.DistanceToPoint(v) <= Eps {
			ts = append(ts, s.param(v))
		}
	}
	sort.Float64s(ts)
	l := s.Len()
	for i := 0; i+1 < len(ts); i++ {
		t0, t1 := ts[i], ts[i+1]
		if t1-t0 <= 0 {
			continue
		}
		if p.strictlyInside(s.At((t0 + t1) / 2)) {
			if length == 0 {
				entry = t0
			}
			length += (t1 - t0) * l
			deep = deep || p.reaches(s, t0, t1, depth)
		}
	}
	return length, entry, deep
}

// reaches reports whether some point of s between fractions t0 and t1, a
// stretch wholly inside the polygon, lies more than depth from the outline.
// The distance to the outline changes no faster than the point moves, so
// a stretch of length L whose ends are fa and fb deep reaches at most
// (fa+fb+L)/2: bisect until a point is deep enough or every stretch is
// provably too shallow (or shorter than 1e-7, the limit of this search).
func (p Polygon) reaches(s Segment, t0, t1, depth float64) bool {
	if math.IsInf(depth, 1) {
		return false
	}
	l := s.Len()
	f := func(t float64) float64 { return p.boundaryDistance(s.At(t)) }
	type stretch struct{ a, b, fa, fb float64 }
	stack := []stretch{{t0, t1, f(t0), f(t1)}}
	for n := 0; len(stack) > 0 && n < 100000; n++ {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.fa > depth || v.fb > depth {
			return true
		}
		span := (v.b - v.a) * l
		if (v.fa+v.fb+span)/2 <= depth || span < 1e-7 {
			continue
		}
		m := (v.a + v.b) / 2
		fm := f(m)
		stack = append(stack, stretch{m, v.b, fm, v.fb}, stretch{v.a, m, v.fa, fm})
	}
	return false
}

// meetsBase reports whether the closed polygon and the closed rectangle
// share a point.
func (p Polygon) meetsBase(b Base) bool {
	if len(p) == 0 {
		return false
	}
	be := b.Edges()
	for _, e := range p.Edges() {
		for _, f := range be {
			if e.Intersects(f) {
				return true
			}
		}
	}
	return b.Contains(p[0]) || p.Contains(b.Center)
}

// DistanceToBase returns the distance between the polygon and a base: 0
// when they meet.
func (p Polygon) DistanceToBase(b Base) float64 {
	if len(p) == 0 {
		return math.Inf(1)
	}
	if p.meetsBase(b) {
		return 0
	}
	d := math.Inf(1)
	for _, v := range p {
		d = math.Min(d, b.DistanceToPoint(v))
	}
	for _, c := range b.Corners() {
		d = math.Min(d, p.boundaryDistance(c))
	}
	return d
}

// OverlapsBase reports whether the polygon reaches more than
// ContactTolerance inside the base (it meets the base shrunk by the
// tolerance on every side). A base merely touching a wood's edge, or
// overlapping it by a hair, does not overlap it.
func (p Polygon) OverlapsBase(b Base) bool {
	return p.meetsBase(b.Inset(ContactTolerance))
}

// ConvexHull returns the convex hull of the points, counter-clockwise,
// without collinear vertices. Fewer than three distinct points give a
// degenerate polygon (a point or a segment).
func ConvexHull(pts []Vec) Polygon {
	ps := append([]Vec(nil), pts...)
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].X != ps[j].X {
			return ps[i].X < ps[j].X
		}
		return ps[i].Y < ps[j].Y
	})
	k := 0
	for i, v := range ps { // dedupe
		if i == 0 || v != ps[k-1] {
			ps[k] = v
			k++
		}
	}
	ps = ps[:k]
	if len(ps) < 3 {
		return Polygon(ps)
	}
	h := make([]Vec, 0, 2*len(ps))
	for _, v := range ps {
		for len(h) >= 2 && h[len(h)-1].Sub(h[len(h)-2]).Cross(v.Sub(h[len(h)-2])) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, v)
	}
	lower := len(h) + 1
	for i := len(ps) - 2; i >= 0; i-- {
		v := ps[i]
		for len(h) >= lower && h[len(h)-1].Sub(h[len(h)-2]).Cross(v.Sub(h[len(h)-2])) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, v)
	}
	return Polygon(h[:len(h)-1])
}
