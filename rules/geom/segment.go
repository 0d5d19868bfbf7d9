package geom

import "math"

// Segment is the straight line between two points: a base's edge, a sight
// line, a leg of a move.
type Segment struct {
	A Vec `json:"a" yaml:"a"`
	B Vec `json:"b" yaml:"b"`
}

// Seg returns the segment from a to b.
func Seg(a, b Vec) Segment { return Segment{a, b} }

// Len returns the length of the segment.
func (s Segment) Len() float64 { return Dist(s.A, s.B) }

// At returns the point a fraction t along the segment (0 = A, 1 = B).
func (s Segment) At(t float64) Vec { return s.A.Lerp(s.B, t) }

// Mid returns the middle of the segment.
func (s Segment) Mid() Vec { return s.At(0.5) }

// param returns the fraction along s of the point of the segment closest
// to p (0 for a zero-length segment).
func (s Segment) param(p Vec) float64 {
	d := s.B.Sub(s.A)
	dd := d.Dot(d)
	if dd == 0 {
		return 0
	}
	t := p.Sub(s.A).Dot(d) / dd
	return math.Max(0, math.Min(1, t))
}

// ClosestPoint returns the point of the segment nearest to p.
func (s Segment) ClosestPoint(p Vec) Vec {
	t := s.param(p)
	switch t {
	case 0:
		return s.A
	case 1:
		return s.B
	}
	return s.At(t)
}

// DistanceToPoint returns the distance from p to the nearest point of the
// segment.
func (s Segment) DistanceToPoint(p Vec) float64 { return Dist(p, s.ClosestPoint(p)) }

// crosses reports whether the segments cross properly: each has its
// endpoints strictly on opposite sides of the other's line.
func (s Segment) crosses(t Segment) bool {
	d1 := s.B.Sub(s.A)
	d2 := t.B.Sub(t.A)
	o1 := d1.Cross(t.A.Sub(s.A))
	o2 := d1.Cross(t.B.Sub(s.A))
	o3 := d2.Cross(s.A.Sub(t.A))
	o4 := d2.Cross(s.B.Sub(t.A))
	return ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) &&
		((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))
}

// Distance returns the distance between the nearest points of two
// segments: 0 when they cross. It is symmetric bit for bit.
func (s Segment) Distance(t Segment) float64 {
	if s.crosses(t) {
		return 0
	}
	return math.Min(
		math.Min(t.DistanceToPoint(s.A), t.DistanceToPoint(s.B)),
		math.Min(s.DistanceToPoint(t.A), s.DistanceToPoint(t.B)))
}

// Intersects reports whether the two closed segments meet: they cross,
// touch, or overlap along a line, within Eps.
func (s Segment) Intersects(t Segment) bool { return s.Distance(t) <= Eps }

// Intersection returns the point where two segments meet, and false if
// they do not (within Eps). When they overlap along a line it returns one
// shared point: the first of s.A, s.B, t.A, t.B that lies on the other.
func (s Segment) Intersection(t Segment) (Vec, bool) {
	if s.crosses(t) {
		d1 := s.B.Sub(s.A)
		d2 := t.B.Sub(t.A)
		u := t.A.Sub(s.A).Cross(d2) / d1.Cross(d2)
		return s.At(u), true
	}
	switch {
	case t.DistanceToPoint(s.A) <= Eps:
		return s.A, true
	case t.DistanceToPoint(s.B) <= Eps:
		return s.B, true
	case s.DistanceToPoint(t.A) <= Eps:
		return t.A, true
	case s.DistanceToPoint(t.B) <= Eps:
		return t.B, true
	}
	return Vec{}, false
}

// rayParam returns the fraction along seg where the ray from p through q
// (beyond q too) meets seg, and false if it does not or runs along it.
func rayParam(p, q Vec, seg Segment) (float64, bool) {
	d := q.Sub(p)
	e := seg.B.Sub(seg.A)
	den := d.Cross(e)
	if den == 0 {
		return 0, false
	}
	w := seg.A.Sub(p)
	u := w.Cross(e) / den // along the ray
	t := w.Cross(d) / den // along seg
	if u < 0 || t < -Eps || t > 1+Eps {
		return 0, false
	}
	return math.Max(0, math.Min(1, t)), true
}
