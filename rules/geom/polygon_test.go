package geom

import (
	"encoding/json"
	"testing"
)

// ell is an L-shaped (concave) outline: a 4x4 square missing its 3x3
// north-east part.
var ell = Polygon{{0, 0}, {4, 0}, {4, 1}, {1, 1}, {1, 4}, {0, 4}}

func TestPolygonContainsAndDistance(t *testing.T) {
	cases := []struct {
		p    Vec
		in   bool
		dist float64
	}{
		{Vec{0.5, 0.5}, true, 0},
		{Vec{3, 0.5}, true, 0},
		{Vec{0.5, 3}, true, 0},
		{Vec{2, 2}, false, 1},                    // in the notch
		{Vec{4, 0.5}, true, 0},                   // on the outline
		{Vec{1, 1}, true, 0},                     // the reflex vertex
		{Vec{-3, -4}, false, 5},                  // off the corner
		{Vec{2.5, 5}, false, 1.8027756377319946}, // above the notch: nearest is (1, 4), √(1.5²+1²)
	}
	for _, c := range cases {
		if got := ell.Contains(c.p); got != c.in {
			t.Errorf("Contains(%v) = %v", c.p, got)
		}
		checkNear(t, "DistanceToPoint "+c.p.String(), ell.DistanceToPoint(c.p), c.dist)
	}
	checkNear(t, "Area", ell.Area(), 7)
}

func TestPolygonInsideLength(t *testing.T) {
	cases := []struct {
		name          string
		s             Segment
		length, entry float64
	}{
		{"across the foot", Seg(Vec{-1, 0.5}, Vec{5, 0.5}), 4, 1.0 / 6},
		{"up the stem", Seg(Vec{0.5, -1}, Vec{0.5, 5}), 4, 1.0 / 6},
		{"through the stem only", Seg(Vec{-1, 2}, Vec{3, 2}), 1, 0.25},
		{"in the notch", Seg(Vec{2, 2}, Vec{3, 3}), 0, 1},
		{"along an edge", Seg(Vec{0, 0}, Vec{4, 0}), 0, 1},
		{"along the inner edge", Seg(Vec{1, 1}, Vec{1, 4}), 0, 1},
		{"starting inside", Seg(Vec{0.5, 0.5}, Vec{0.5, -0.5}), 0.5, 0},
		// x+y=4 runs inside the stem from (0,4) to (1,3), through the notch,
		// and inside the foot from (3,1) to (4,0): √2 in each.
		{"diagonal across the notch", Seg(Vec{0, 4}, Vec{4, 0}), 2 * 1.4142135623730951, 0},
	}
	for _, c := range cases {
		l, e := ell.InsideLength(c.s)
		if !near(l, c.length, 1e-9) || !near(e, c.entry, 1e-9) {
			t.Errorf("%s: InsideLength = %.12g, entry %.12g; want %.12g, %.12g", c.name, l, e, c.length, c.entry)
		}
	}
	if !ell.IntersectsSegment(Seg(Vec{2, 2}, Vec{2, -2})) || ell.IntersectsSegment(Seg(Vec{2, 2}, Vec{3, 3})) {
		t.Errorf("IntersectsSegment wrong")
	}
	if !ell.IntersectsSegment(Seg(Vec{0.2, 0.2}, Vec{0.3, 0.3})) {
		t.Errorf("a segment wholly inside intersects")
	}
}

func TestPolygonAndBase(t *testing.T) {
	cases := []struct {
		name     string
		b        Base
		dist     float64
		overlaps bool
	}{
		{"in the notch", box(2.5, 2.5, 1, 1), 1, false},
		{"on the foot", box(0.5, 0.5, 1, 1), 0, true},
		{"touching the east end", box(4.5, 0.5, 1, 1), 0, false},
		{"in by less than the tolerance", box(4.495, 0.5, 1, 1), 0, false},
		{"in by 0.1", box(4.4, 0.5, 1, 1), 0, true},
		{"covering it all", box(2, 2, 10, 10), 0, true},
		{"far away", box(20, 0.5, 2, 1), 15, false},
	}
	for _, c := range cases {
		checkNear(t, c.name+": DistanceToBase", ell.DistanceToBase(c.b), c.dist)
		if got := ell.OverlapsBase(c.b); got != c.overlaps {
			t.Errorf("%s: OverlapsBase = %v", c.name, got)
		}
	}
}

func TestPolygonValidate(t *testing.T) {
	if err := ell.Validate(); err != nil {
		t.Errorf("ell: %v", err)
	}
	bad := map[string]Polygon{
		"two points": {{0, 0}, {1, 1}},
		"bow tie":    {{0, 0}, {2, 2}, {2, 0}, {0, 2}},
		"flat":       {{0, 0}, {1, 0}, {2, 0}},
		"repeated":   {{0, 0}, {1, 0}, {1, 0}, {0, 1}},
	}
	for name, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestConvexHull(t *testing.T) {
	h := ConvexHull([]Vec{{0, 0}, {2, 0}, {1, 0}, {2, 2}, {0, 2}, {1, 1}, {0, 0}})
	want := Polygon{{0, 0}, {2, 0}, {2, 2}, {0, 2}}
	if len(h) != 4 {
		t.Fatalf("hull = %v, want %v", h, want)
	}
	for i := range want {
		if h[i] != want[i] {
			t.Fatalf("hull = %v, want %v", h, want)
		}
	}
	if got := ConvexHull([]Vec{{1, 1}, {1, 1}}); len(got) != 1 {
		t.Errorf("hull of one point = %v", got)
	}
}

func TestTerrainKinds(t *testing.T) {
	k := Difficult | BlocksSight
	if k.String() != "difficult,blocks-sight" || Kind(0).String() != "open" {
		t.Errorf("String = %q, %q", k.String(), Kind(0).String())
	}
	for _, s := range []string{"difficult,blocks-sight", "blocks-sight | difficult", "difficult+blocks-sight"} {
		if got, err := ParseKind(s); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseKind("swamp"); err == nil {
		t.Errorf("ParseKind(swamp): want an error")
	}
	tr := Terrain{Name: "Hougoumont wood", Kind: k, Outline: ell}
	js, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back Terrain
	if err := json.Unmarshal(js, &back); err != nil || back.Kind != k || len(back.Outline) != len(ell) {
		t.Errorf("round trip %s: %+v, %v", js, back, err)
	}
	if tr.Validate() != nil {
		t.Errorf("valid terrain refused")
	}
}

func TestOnRoadAndOverlapping(t *testing.T) {
	terrain := []Terrain{
		{Name: "road", Kind: Road, Outline: Polygon{{0, 9}, {50, 9}, {50, 11}, {0, 11}}},
		{Name: "farm", Kind: Impassable | BlocksSight, Outline: Polygon{{20, 20}, {24, 20}, {24, 24}, {20, 24}}},
		{Name: "marsh", Kind: Difficult, Outline: Polygon{{20, 0}, {30, 0}, {30, 5}}},
	}
	if !OnRoad(Vec{10, 10}, terrain) || !OnRoad(Vec{10, 11}, terrain) || OnRoad(Vec{10, 12}, terrain) || OnRoad(Vec{22, 22}, terrain) {
		t.Errorf("OnRoad wrong")
	}
	b := box(25, 22, 4, 2) // reaches 1 into the farm
	if got := Overlapping(b, terrain, Impassable); len(got) != 1 || got[0] != 1 {
		t.Errorf("Overlapping impassable = %v", got)
	}
	if got := Overlapping(box(26, 22, 4, 2), terrain, Impassable); len(got) != 0 {
		t.Errorf("flush with the farm counts as overlapping: %v", got)
	}
	if got := Overlapping(box(25, 2, 4, 2), terrain, Impassable|Difficult); len(got) != 1 || got[0] != 2 {
		t.Errorf("Overlapping difficult = %v", got)
	}
}
