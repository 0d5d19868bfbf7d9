package geom

import (
	"fmt"
	"math"
)

// Separation returns the signed distance between two bases: the gap
// between them when they are apart, minus the penetration depth when they
// overlap (the shortest slide that would part them), 0 when they touch
// exactly. It is exact for rectangles (separating axes for the overlap, the
// nearest corner-to-base distance for the gap) and symmetric bit for bit.
func Separation(a, b Base) float64 {
	fa, fb := a.frame(), b.frame()
	minOverlap := satOverlap(fa, fb)
	if minOverlap >= 0 {
		return -minOverlap
	}
	gap := math.Inf(1)
	for _, c := range fa.corners() {
		gap = math.Min(gap, fb.distanceToPoint(c))
	}
	for _, c := range fb.corners() {
		gap = math.Min(gap, fa.distanceToPoint(c))
	}
	return gap
}

// Distance returns the distance between the nearest points of two bases: 0
// when they touch or overlap. Symmetric; K.2 and C.7 measure with it.
func Distance(a, b Base) float64 { return math.Max(0, Separation(a, b)) }

// Overlaps reports whether two bases interpenetrate by more than
// ContactTolerance. Bases flush against each other, or overlapping by less
// than the tolerance, are Touching, not overlapping.
func Overlaps(a, b Base) bool {
	if apart(a, b) {
		return false
	}
	return satOverlap(a.frame(), b.frame()) > ContactTolerance
}

// apart reports bases whose centres are further apart than their
// circumscribed circles' radii together: they cannot overlap, and the
// separating axes need not be tried (an army of thousands of units checks
// every pair).
func apart(a, b Base) bool {
	dx, dy := a.Center.X-b.Center.X, a.Center.Y-b.Center.Y
	r := math.Hypot(a.Width, a.Depth)/2 + math.Hypot(b.Width, b.Depth)/2
	return dx*dx+dy*dy > r*r
}

// Touching reports base contact: the bases are within ContactTolerance of
// each other (gap or overlap) and do not overlap.
func Touching(a, b Base) bool { return math.Abs(Separation(a, b)) <= ContactTolerance }

// Contact classifies two bases for messages: "overlap", "contact" or
// "apart", with the number behind it (penetration depth, or gap).
func Contact(a, b Base) (string, float64) {
	s := Separation(a, b)
	switch {
	case s < -ContactTolerance:
		return "overlap", -s
	case s <= ContactTolerance:
		return "contact", math.Abs(s)
	}
	return "apart", s
}

// FlushAgainst returns the charger placed as K.6 wants it at the end of a
// charge: its front edge flush on the given side of the target, facing the
// target, its leader point at the middle of that side. The charger keeps its
// size. Sliding it aside when something is in the way is the rules' job.
func FlushAgainst(charger, target Base, side Arc) Base {
	var turn float64 // the direction the side faces, relative to the target
	var out Vec      // the same as a unit vector
	f := target.Forward()
	switch side {
	case ArcFront:
		turn, out = 0, f
	case ArcRight:
		turn, out = 90, Vec{f.Y, -f.X}
	case ArcRear:
		turn, out = 180, Vec{-f.X, -f.Y}
	case ArcLeft:
		turn, out = 270, Vec{-f.Y, f.X}
	default:
		panic(fmt.Sprintf("geom: unknown arc %q", side))
	}
	mid := target.Side(side).Mid()
	charger.Facing = NormDeg(target.Facing + turn + 180)
	charger.Center = mid.Add(out.Scale(charger.Depth / 2))
	return charger
}
