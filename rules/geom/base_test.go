package geom

import (
	"math"
	"testing"
)

func TestBaseContainsAndDistanceToPoint(t *testing.T) {
	b := box(0, 0, 4, 2) // x in [-2, 2], y in [-1, 1]
	cases := []struct {
		name    string
		p       Vec
		inside  bool
		dist    float64
		closest Vec
	}{
		{"centre", Vec{0, 0}, true, 0, Vec{0, 0}},
		{"on front edge", Vec{1, 1}, true, 0, Vec{1, 1}},
		{"corner", Vec{2, -1}, true, 0, Vec{2, -1}},
		{"ahead", Vec{0.5, 4}, false, 3, Vec{0.5, 1}},
		{"beside", Vec{-5, 0}, false, 3, Vec{-2, 0}},
		{"off the corner 3-4-5", Vec{5, 5}, false, 5, Vec{2, 1}},
		{"just off", Vec{2.01, 0}, false, 0.01, Vec{2, 0}},
	}
	for _, c := range cases {
		if got := b.Contains(c.p); got != c.inside {
			t.Errorf("%s: Contains = %v", c.name, got)
		}
		checkNear(t, c.name+": DistanceToPoint", b.DistanceToPoint(c.p), c.dist)
		checkVec(t, c.name+": ClosestPoint", b.ClosestPoint(c.p), c.closest)
	}
	// Turned 90 degrees, the same base is 2 wide along x and 4 along y.
	r := Base{Width: 4, Depth: 2, Facing: 90}
	checkNear(t, "turned: distance to (0, 5)", r.DistanceToPoint(Vec{0, 5}), 3)
	checkNear(t, "turned: distance to (4, 0)", r.DistanceToPoint(Vec{4, 0}), 3)
}

func TestSeparationTable(t *testing.T) {
	a := box(0, 0, 4, 2) // x in [-2, 2], y in [-1, 1]
	s2 := math.Sqrt2
	diamond := func(x float64) Base { return Base{Center: Vec{x, 0}, Facing: 45, Width: 2, Depth: 2} } // west corner at x-√2
	cases := []struct {
		name              string
		b                 Base
		sep               float64
		overlaps, touches bool
		contact           string
	}{
		{"gap of 1 beside", box(5, 0, 4, 2), 1, false, false, "apart"},
		{"flush side to side", box(4, 0, 4, 2), 0, false, true, "contact"},
		{"gap within tolerance", box(4.005, 0, 4, 2), 0.005, false, true, "contact"},
		{"gap at the tolerance", box(4+ContactTolerance, 0, 4, 2), ContactTolerance, false, true, "contact"},
		{"gap just over tolerance", box(4.0101, 0, 4, 2), 0.0101, false, false, "apart"},
		{"overlap within tolerance", box(3.995, 0, 4, 2), -0.005, false, true, "contact"},
		{"overlap of 1", box(3, 0, 4, 2), -1, true, false, "overlap"},
		{"diagonal gap", box(5, 3, 4, 2), s2, false, false, "apart"},
		{"corner to corner", box(4, 2, 4, 2), 0, false, true, "contact"},
		{"diamond corner 1 away", diamond(3 + s2), 1, false, false, "apart"},
		{"diamond corner 0.5 in", diamond(1.5 + s2), -0.5, true, false, "overlap"},
		{"same place", a, -2, true, false, "overlap"}, // slide 2 north or south to part them
		{"inside, small", box(0, 0, 1, 1), -1.5, true, false, "overlap"},
	}
	for _, c := range cases {
		sep := Separation(a, c.b)
		if !near(sep, c.sep, 1e-12) {
			t.Errorf("%s: Separation = %.12g, want %.12g", c.name, sep, c.sep)
		}
		checkNear(t, c.name+": Distance", Distance(a, c.b), math.Max(0, c.sep))
		if got := Overlaps(a, c.b); got != c.overlaps {
			t.Errorf("%s: Overlaps = %v, want %v", c.name, got, c.overlaps)
		}
		if got := Touching(a, c.b); got != c.touches {
			t.Errorf("%s: Touching = %v, want %v", c.name, got, c.touches)
		}
		if got, _ := Contact(a, c.b); got != c.contact {
			t.Errorf("%s: Contact = %q, want %q", c.name, got, c.contact)
		}
	}
}

func TestContactLengthEdgeVersusCorner(t *testing.T) {
	target := box(0, 0, 4, 2)
	// A charger flush on the target's left side.
	ch := FlushAgainst(box(0, 0, 4, 2), target, ArcLeft)
	checkVec(t, "flush charger centre", ch.Center, Vec{-3, 0})
	if ch.Facing != 90 {
		t.Errorf("flush charger facing = %g, want 90", ch.Facing)
	}
	if !Touching(ch, target) {
		t.Errorf("flush charger not touching")
	}
	if a := ArcOf(target, ch.LeaderPoint(), DefaultArcRule); a != ArcLeft {
		t.Errorf("flush charger's leader in %s arc, want left", a)
	}
	// Its 4-wide front edge covers the target's 2-deep side plus the tolerance at both ends.
	checkNear(t, "edge contact length", ContactLength(ch.FrontEdge(), target), 2+2*ContactTolerance)
	// Corner to corner: a 2x2 charger facing east whose front-right corner is the target's front-left.
	cc := Base{Center: Vec{-3, 2}, Facing: 90, Width: 2, Depth: 2}
	if got := cc.Corners()[1]; got != (Vec{-2, 1}) {
		t.Fatalf("setup: front-right corner %v", got)
	}
	l := ContactLength(cc.FrontEdge(), target)
	checkNear(t, "corner contact length", l, ContactTolerance)
	if l > MinEdgeContact {
		t.Errorf("corner contact %g counts as edge contact", l)
	}
	if !Touching(cc, target) {
		t.Errorf("corner to corner is base contact")
	}
}

func TestFlushAgainstEverySide(t *testing.T) {
	target := Base{Center: Vec{30, 20}, Facing: 30, Width: 4, Depth: 1.5}
	for _, side := range Arcs() {
		ch := FlushAgainst(Base{Width: 3, Depth: 2}, target, side)
		if !Touching(ch, target) || Overlaps(ch, target) {
			t.Errorf("%s: flush charger not in contact: separation %g", side, Separation(ch, target))
		}
		checkVec(t, string(side)+": leader at side's middle", ch.LeaderPoint(), target.Side(side).Mid())
		for _, rule := range []ArcRule{ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended} {
			if got := ArcOf(target, ch.LeaderPoint(), rule); got != side {
				t.Errorf("%s, %s: leader point classified %s", side, rule, got)
			}
		}
		if !InFrontArc(ch, target, DefaultArcRule) {
			t.Errorf("%s: target not in flush charger's front arc", side)
		}
		want := math.Min(3, target.Side(side).Len()+2*ContactTolerance)
		if got := ContactLength(ch.FrontEdge(), target); !near(got, want, 1e-9) {
			t.Errorf("%s: contact length %g, want %g", side, got, want)
		}
	}
}

func TestTranslateAdvanceInset(t *testing.T) {
	b := Base{Center: Vec{1, 1}, Facing: 90, Width: 4, Depth: 2}
	if got := b.Advance(3).Center; got != (Vec{4, 1}) {
		t.Errorf("Advance(3) facing east = %v", got)
	}
	if got := b.Translate(Vec{-1, 2}).Center; got != (Vec{0, 3}) {
		t.Errorf("Translate = %v", got)
	}
	in := b.Inset(0.5)
	if in.Width != 3 || in.Depth != 1 || in.Center != b.Center {
		t.Errorf("Inset(0.5) = %+v", in)
	}
	if in := b.Inset(5); in.Width != 0 || in.Depth != 0 {
		t.Errorf("Inset(5) = %+v, want zero size", in)
	}
}

// TestOverlapsSkipsOnlyApartBases: Overlaps's shortcut (centres further
// apart than the bases' circumscribed circles) answers as the separating
// axes do, on a grid of bases of several sizes, facings and distances,
// touching and overlapping ones included.
func TestOverlapsSkipsOnlyApartBases(t *testing.T) {
	sizes := [][2]float64{{4, 1.5}, {1, 1}, {6, 0.5}, {0.2, 3}}
	n := 0
	for _, sa := range sizes {
		for _, sb := range sizes {
			for fa := 0.0; fa < 360; fa += 37 {
				for fb := 0.0; fb < 360; fb += 53 {
					for dx := -7.0; dx <= 7; dx += 0.35 {
						for _, dy := range []float64{-2.3, -0.75, 0, 0.5, 1.9} {
							a := Base{Center: Vec{X: 20, Y: 20}, Facing: fa, Width: sa[0], Depth: sa[1]}
							b := Base{Center: Vec{X: 20 + dx, Y: 20 + dy}, Facing: fb, Width: sb[0], Depth: sb[1]}
							want := satOverlap(a.frame(), b.frame()) > ContactTolerance
							if got := Overlaps(a, b); got != want {
								t.Fatalf("%+v and %+v: Overlaps %v, the separating axes %v", a, b, got, want)
							}
							if want {
								n++
							}
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no pair overlapped: the grid tests nothing")
	}
}
