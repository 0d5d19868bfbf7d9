package geom

import (
	"math"
	"testing"
)

// Fuzz tests check invariants on arbitrary numbers. Their seed corpus runs in
// every `go test`; `go test -fuzz FuzzSeparation ./rules/geom/` explores more.

// fuzzReach is how far from the origin the fuzz targets place things: the
// door's own bound on every number a user sends (campaign.MaxCoordinate,
// 100,000), so that what the fuzzing covers is what a command can reach.
const fuzzReach = 1e5

// fuzzBase turns raw fuzz numbers into a base the rules could meet, or
// false: finite, within fuzzReach of the origin, sides 0.01 to 1,000.
func fuzzBase(x, y, f, w, d float64) (Base, bool) {
	for _, v := range []float64{x, y, f, w, d} {
		if !finite(v) {
			return Base{}, false
		}
	}
	if math.Abs(x) > fuzzReach || math.Abs(y) > fuzzReach || math.Abs(f) > 1e6 {
		return Base{}, false
	}
	w, d = math.Abs(w), math.Abs(d)
	if w < 0.01 || d < 0.01 || w > 1e3 || d > 1e3 {
		return Base{}, false
	}
	return Base{Center: Vec{x, y}, Facing: f, Width: w, Depth: d}, true
}

func FuzzSeparation(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 5.0, 0.0, 0.0, 4.0, 2.0)       // apart
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 4.0, 0.0, 0.0, 4.0, 2.0)       // flush
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 4.0, 2.0, 0.0, 4.0, 2.0)       // corner to corner
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 3.995, 0.0, 0.0, 4.0, 2.0)     // overlap within tolerance
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 3.0, 0.5, 33.0, 2.0, 1.0)      // overlap
	f.Add(10.0, 10.0, 45.0, 2.0, 2.0, 10.0, 10.0, 45.0, 2.0, 2.0) // identical
	f.Add(0.0, 0.0, 30.0, 6.0, 1.5, 0.0, 0.0, 120.0, 6.0, 1.5)    // crossed
	f.Add(-50.0, 20.0, 359.9, 0.5, 0.5, 900.0, -3.0, 0.1, 999.0, 999.0)
	f.Fuzz(func(t *testing.T, ax, ay, af, aw, ad, bx, by, bf, bw, bd float64) {
		a, ok1 := fuzzBase(ax, ay, af, aw, ad)
		b, ok2 := fuzzBase(bx, by, bf, bw, bd)
		if !ok1 || !ok2 {
			t.Skip()
		}
		s, d := Separation(a, b), Distance(a, b)
		if math.IsNaN(s) || math.IsNaN(d) || d < 0 {
			t.Fatalf("separation %g, distance %g", s, d)
		}
		if s != Separation(b, a) || Overlaps(a, b) != Overlaps(b, a) || Touching(a, b) != Touching(b, a) {
			t.Fatalf("not symmetric")
		}
		ov, to := Overlaps(a, b), Touching(a, b)
		if ov && to {
			t.Fatalf("both overlapping and touching")
		}
		if d == 0 && !ov && !to {
			t.Fatalf("distance 0 but neither overlapping nor touching")
		}
		if ov && d != 0 {
			t.Fatalf("overlapping at distance %g", d)
		}
		if to && d > ContactTolerance {
			t.Fatalf("touching at distance %g", d)
		}
		if d > 0 && ov {
			t.Fatalf("apart and overlapping")
		}
		cd := Dist(a.Center, b.Center)
		scale := 1e-12 * (1 + cd + a.Circumradius() + b.Circumradius() + a.Center.Len() + b.Center.Len())
		if d > cd+scale {
			t.Fatalf("distance %g exceeds the centres' %g", d, cd)
		}
		if d < cd-a.Circumradius()-b.Circumradius()-scale {
			t.Fatalf("distance %g below the circumcircles' bound", d)
		}
		// Sliding across a's (or b's) thinner axis by its half-width plus
		// the other's circumradius always parts them.
		if bound := math.Min(math.Min(a.Width, a.Depth)/2+b.Circumradius(), math.Min(b.Width, b.Depth)/2+a.Circumradius()); -s > bound*(1+1e-9)+scale {
			t.Fatalf("penetration %g deeper than %g", -s, bound)
		}
		// Independent closed-intersection test, away from the boundary.
		if meets := a.Polygon().meetsBase(b); (s > 1e-6 && meets) || (s < -1e-6 && !meets) {
			t.Fatalf("separation %g, closed intersection %v", s, meets)
		}
	})
}

func FuzzArcOf(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 10.0, 5.0, uint8(0)) // on a diagonal
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 10.0, 1.0, uint8(2)) // on the front edge's line
	f.Add(0.0, 0.0, 90.0, 4.0, 2.0, 0.0, 5.0, uint8(0))
	f.Add(5.0, 5.0, 200.0, 3.0, 3.0, 5.0, 5.0, uint8(1)) // the centre
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 0.0, -0.5, uint8(2))  // inside, on the centre line
	f.Fuzz(func(t *testing.T, tx, ty, tf, tw, td, px, py float64, ri uint8) {
		b, ok := fuzzBase(tx, ty, tf, tw, td)
		if !ok || !finite(px) || !finite(py) || math.Abs(px) > fuzzReach || math.Abs(py) > fuzzReach {
			t.Skip()
		}
		rule := []ArcRule{ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended}[int(ri)%3]
		a := ArcOf(b, Vec{px, py}, rule)
		switch a {
		case ArcFront, ArcRight, ArcRear, ArcLeft:
		default:
			t.Fatalf("arc %q", a)
		}
		// In a base's own frame (at the origin facing north, where Local is
		// exact), mirroring swaps the flanks and keeps front and rear.
		o := Base{Width: b.Width, Depth: b.Depth}
		swap := map[Arc]Arc{ArcFront: ArcFront, ArcRear: ArcRear, ArcLeft: ArcRight, ArcRight: ArcLeft}
		l := Vec{px - tx, py - ty}
		if m, n := ArcOf(o, l, rule), ArcOf(o, Vec{-l.X, l.Y}, rule); n != swap[m] && l.X != 0 {
			t.Fatalf("%s: %v is %s, its mirror %s", rule, l, m, n)
		}
		// The arc holds the point: the point is in the arc's closed region.
		if inPlanes(arcPlanes(b, a, rule), b.Local(Vec{px, py})) < -1e-9*(1+math.Abs(px)+math.Abs(py)+b.Circumradius()) {
			t.Fatalf("%s: point not in its own %s region", rule, a)
		}
	})
}

func FuzzInFrontArc(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 10.0, 3.5, 0.0, 2.0, 2.0, uint8(0))  // corner on the diagonal
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 10.0, 0.0, 0.0, 2.0, 2.0, uint8(2))  // abreast
	f.Add(0.0, 0.0, 45.0, 4.0, 2.0, 0.0, 0.0, 10.0, 2.0, 2.0, uint8(1)) // overlapping
	f.Add(0.0, 0.0, 0.0, 4.0, 2.0, 0.0, -10.0, 0.0, 2.0, 2.0, uint8(0)) // behind
	f.Fuzz(func(t *testing.T, cx, cy, cf, cw, cd, tx, ty, tf, tw, td float64, ri uint8) {
		ch, ok1 := fuzzBase(cx, cy, cf, cw, cd)
		tg, ok2 := fuzzBase(tx, ty, tf, tw, td)
		if !ok1 || !ok2 {
			t.Skip()
		}
		rule := []ArcRule{ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended}[int(ri)%3]
		in := InFrontArc(ch, tg, rule)
		cs := tg.Corners()
		for _, c := range append(cs[:], tg.Center) {
			if ArcOf(ch, c, rule) == ArcFront && !in {
				t.Fatalf("%s: target point %v in front, InFrontArc false", rule, c)
			}
		}
		var area float64
		for _, a := range Arcs() {
			clip := ArcClip(ch, a, rule, tg)
			for _, v := range clip {
				if !v.IsFinite() {
					t.Fatalf("clip vertex %v", v)
				}
			}
			area += clip.Area()
		}
		if full := tg.Width * tg.Depth; math.Abs(area-full) > 1e-6*(1+full) {
			t.Fatalf("%s: arcs cover %g of %g", rule, area, full)
		}
	})
}

func FuzzSegmentDistance(f *testing.F) {
	f.Add(0.0, 0.0, 4.0, 4.0, 0.0, 4.0, 4.0, 0.0)
	f.Add(0.0, 0.0, 4.0, 0.0, 2.0, 0.0, 6.0, 0.0)
	f.Add(1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 2.0, 0.0)
	f.Fuzz(func(t *testing.T, ax, ay, bx, by, cx, cy, dx, dy float64) {
		for _, v := range []float64{ax, ay, bx, by, cx, cy, dx, dy} {
			if !finite(v) || math.Abs(v) > fuzzReach {
				t.Skip()
			}
		}
		s, u := Seg(Vec{ax, ay}, Vec{bx, by}), Seg(Vec{cx, cy}, Vec{dx, dy})
		d := s.Distance(u)
		if math.IsNaN(d) || d < 0 || d != u.Distance(s) {
			t.Fatalf("distance %g / %g", d, u.Distance(s))
		}
		if d > Dist(s.A, u.A)+1e-9 || d > Dist(s.Mid(), u.Mid())+1e-9 {
			t.Fatalf("distance %g exceeds that of two of their points", d)
		}
		p, ok := s.Intersection(u)
		if ok != s.Intersects(u) {
			t.Fatalf("Intersection and Intersects disagree")
		}
		if ok && (s.DistanceToPoint(p) > 1e-6 || u.DistanceToPoint(p) > 1e-6) {
			t.Fatalf("meeting point %v off the segments", p)
		}
	})
}
