package geom

import (
	"fmt"
	"math"
)

// Validate reports why the base cannot stand on a table: a size that is not
// positive, or a number that is not finite.
func (b Base) Validate() error {
	if !b.Center.IsFinite() || !finite(b.Facing) || !finite(b.Width) || !finite(b.Depth) {
		return errorf("base has a coordinate, facing or size that is not a finite number")
	}
	if b.Width <= 0 || b.Depth <= 0 {
		return errorf("base size %gx%g: width and depth must be positive", b.Width, b.Depth)
	}
	return nil
}

// Local returns p in the base's own frame: X along Right (to the base's
// right), Y along Forward (ahead), origin at the centre. The base occupies
// |X| <= Width/2, |Y| <= Depth/2.
func (b Base) Local(p Vec) Vec { return b.frame().local(p) }

// World is the inverse of Local: it turns a point of the base's frame into
// table coordinates.
func (b Base) World(l Vec) Vec {
	f := b.Forward()
	return b.Center.Add(Vec{f.Y, -f.X}.Scale(l.X)).Add(f.Scale(l.Y))
}

// Polygon returns the base's outline: front-left, front-right, rear-right,
// rear-left (clockwise seen from above).
func (b Base) Polygon() Polygon {
	c := b.Corners()
	return Polygon{c[0], c[1], c[2], c[3]}
}

// FrontEdge returns the front edge, from the front-left to the front-right
// corner.
func (b Base) FrontEdge() Segment { c := b.Corners(); return Segment{c[0], c[1]} }

// RightEdge returns the right side, from the front-right to the rear-right
// corner.
func (b Base) RightEdge() Segment { c := b.Corners(); return Segment{c[1], c[2]} }

// RearEdge returns the rear edge, from the rear-right to the rear-left corner.
func (b Base) RearEdge() Segment { c := b.Corners(); return Segment{c[2], c[3]} }

// LeftEdge returns the left side, from the rear-left to the front-left corner.
func (b Base) LeftEdge() Segment { c := b.Corners(); return Segment{c[3], c[0]} }

// Edges returns the four edges in the order front, right, rear, left, going
// clockwise round the base.
func (b Base) Edges() [4]Segment {
	c := b.Corners()
	return [4]Segment{{c[0], c[1]}, {c[1], c[2]}, {c[2], c[3]}, {c[3], c[0]}}
}

// Side returns the edge that faces the given arc: the side a charge from
// that arc hits (K.6, K.8).
func (b Base) Side(a Arc) Segment {
	switch a {
	case ArcFront:
		return b.FrontEdge()
	case ArcRight:
		return b.RightEdge()
	case ArcRear:
		return b.RearEdge()
	case ArcLeft:
		return b.LeftEdge()
	}
	panic(fmt.Sprintf("geom: unknown arc %q", a))
}

// Contains reports whether p is on the base or inside it (within Eps).
func (b Base) Contains(p Vec) bool {
	l := b.Local(p)
	return math.Abs(l.X) <= b.Width/2+Eps && math.Abs(l.Y) <= b.Depth/2+Eps
}

// DistanceToPoint returns the distance from p to the nearest point of the
// base: 0 when p is on or inside it. K.4 measures a charge with it.
func (b Base) DistanceToPoint(p Vec) float64 { return b.frame().distanceToPoint(p) }

// ClosestPoint returns the point of the base nearest to p (p itself when it
// is inside).
func (b Base) ClosestPoint(p Vec) Vec {
	l := b.Local(p)
	hw, hd := b.Width/2, b.Depth/2
	if math.Abs(l.X) <= hw && math.Abs(l.Y) <= hd {
		return p
	}
	return b.World(Vec{math.Max(-hw, math.Min(hw, l.X)), math.Max(-hd, math.Min(hd, l.Y))})
}

// Translate returns the base moved by d, facing unchanged.
func (b Base) Translate(d Vec) Base { b.Center = b.Center.Add(d); return b }

// Advance returns the base moved dist straight ahead (backward if dist is
// negative).
func (b Base) Advance(dist float64) Base { return b.Translate(b.Forward().Scale(dist)) }

// Inset returns the base shrunk by d on every side (grown if d is negative),
// same centre and facing; a size that would go negative becomes 0.
func (b Base) Inset(d float64) Base {
	b.Width = math.Max(0, b.Width-2*d)
	b.Depth = math.Max(0, b.Depth-2*d)
	return b
}

// Circumradius returns the distance from the centre to a corner.
func (b Base) Circumradius() float64 { return hypot(b.Width/2, b.Depth/2) }

// clipLocal clips the segment a+t·d, t in [0,1], given in a base's local
// frame, to the box |X| <= hx, |Y| <= hy (Liang–Barsky). It returns the
// parameter interval inside and whether it is non-empty.
func clipLocal(a, d Vec, hx, hy float64) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	clip := func(p, q float64) bool { // p·t <= q
		if p == 0 {
			return q >= 0
		}
		r := q / p
		if p < 0 {
			if r > t1 {
				return false
			}
			t0 = math.Max(t0, r)
		} else {
			if r < t0 {
				return false
			}
			t1 = math.Min(t1, r)
		}
		return true
	}
	if clip(-d.X, a.X+hx) && clip(d.X, hx-a.X) && clip(-d.Y, a.Y+hy) && clip(d.Y, hy-a.Y) {
		return t0, t1, t0 <= t1
	}
	return 0, 0, false
}

// sightCrossing returns how much of s lies inside the base, the fraction
// along s where it enters, and whether s passes more than ContactTolerance
// deep inside (it crosses the base inset by the tolerance).
func (b Base) sightCrossing(s Segment) (length, entry float64, deep bool) {
	a := b.Local(s.A)
	d := b.Local(s.B).Sub(a)
	t0, t1, ok := clipLocal(a, d, b.Width/2, b.Depth/2)
	if !ok {
		return 0, 1, false
	}
	length, entry = (t1-t0)*s.Len(), t0
	hx, hy := b.Width/2-ContactTolerance, b.Depth/2-ContactTolerance
	if hx > 0 && hy > 0 {
		u0, u1, ok := clipLocal(a, d, hx, hy)
		deep = ok && (u1-u0)*s.Len() > Eps // a line through an inset corner only touches it
	}
	return length, entry, deep
}

// ContactLength returns how much of the segment lies within
// ContactTolerance of the base (inside the base grown by the tolerance on
// every side). Applied to a charger's front edge it tells edge contact
// (more than MinEdgeContact) from corner-to-corner contact (K.7).
func ContactLength(s Segment, b Base) float64 {
	a := b.Local(s.A)
	d := b.Local(s.B).Sub(a)
	t0, t1, ok := clipLocal(a, d, b.Width/2+ContactTolerance, b.Depth/2+ContactTolerance)
	if !ok {
		return 0
	}
	return (t1 - t0) * s.Len()
}
