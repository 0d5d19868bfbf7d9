package geom

import (
	"math"
	"testing"
)

func TestSightBlocked(t *testing.T) {
	blocker := box(0, 5, 2, 2) // x ±1, y 4..6
	wood := Terrain{Name: "wood", Kind: Difficult | BlocksSight, Outline: Polygon{{-3, 12}, {3, 12}, {3, 14}, {-3, 14}}}
	marsh := Terrain{Name: "marsh", Kind: Difficult, Outline: Polygon{{-3, 2}, {3, 2}, {3, 3}, {-3, 3}}}
	terrain := []Terrain{marsh, wood}
	cases := []struct {
		name    string
		s       Segment
		bases   []Base
		exclude []Base
		blocked bool
		want    Obstruction
	}{
		{"through the blocker", Seg(Vec{0, 0}, Vec{0, 9}), []Base{blocker}, nil, true,
			Obstruction{Base: 0, Terrain: -1, Entry: Vec{0, 4}, Length: 2}},
		{"excluded", Seg(Vec{0, 0}, Vec{0, 9}), []Base{blocker}, []Base{blocker}, false, Obstruction{}},
		{"grazing its corner", Seg(Vec{1, 0}, Vec{1, 9}), []Base{blocker}, nil, false, Obstruction{}},
		{"clipping it by less than the tolerance", Seg(Vec{0.995, 0}, Vec{0.995, 9}), []Base{blocker}, nil, false, Obstruction{}},
		// x = 0.5 + y/10: in at (0.9, 4), 0.1 deep, out at (1, 5).
		{"clipping its corner by more", Seg(Vec{0.5, 0}, Vec{1.3, 8}), []Base{blocker}, nil, true,
			Obstruction{Base: 0, Terrain: -1, Entry: Vec{0.9, 4}, Length: math.Hypot(0.1, 1)}},
		{"along inside a wood's edge, shallow", Seg(Vec{-2.995, 10}, Vec{-2.995, 16}), nil, nil, false, Obstruction{}},
		{"along inside a wood's edge, deeper", Seg(Vec{-2.98, 10}, Vec{-2.98, 16}), nil, nil, true,
			Obstruction{Base: -1, Terrain: 1, Entry: Vec{-2.98, 12}, Length: 2}},
		{"the marsh does not block", Seg(Vec{0, 0}, Vec{0, 9}), nil, nil, false, Obstruction{}},
		{"the wood does", Seg(Vec{0, 0}, Vec{0, 20}), nil, nil, true,
			Obstruction{Base: -1, Terrain: 1, Entry: Vec{0, 12}, Length: 2}},
		{"nearest first", Seg(Vec{0, 20}, Vec{0, 0}), []Base{blocker}, nil, true,
			Obstruction{Base: -1, Terrain: 1, Entry: Vec{0, 14}, Length: 2}},
	}
	for _, c := range cases {
		o, blocked := SightBlocked(c.s, c.bases, terrain, c.exclude...)
		if blocked != c.blocked {
			t.Errorf("%s: blocked = %v (%+v)", c.name, blocked, o)
			continue
		}
		if !blocked {
			continue
		}
		if o.Base != c.want.Base || o.Terrain != c.want.Terrain {
			t.Errorf("%s: blocked by %+v, want %+v", c.name, o, c.want)
		}
		checkVec(t, c.name+": entry", o.Entry, c.want.Entry)
		if c.want.Length > 0 {
			checkNear(t, c.name+": length", o.Length, c.want.Length)
		}
	}
	// Blocked-ness does not depend on which end one looks from.
	s := Seg(Vec{0.5, 0}, Vec{1.3, 8})
	_, ab := SightBlocked(s, []Base{blocker}, nil)
	_, ba := SightBlocked(Seg(s.B, s.A), []Base{blocker}, nil)
	if ab != ba {
		t.Errorf("sight line blocked one way only")
	}
}

func TestCanSee(t *testing.T) {
	from := Vec{0, 0}
	target := box(0, 10, 2, 2) // x ±1, y 9..11
	cases := []struct {
		name    string
		bases   []Base
		terrain []Terrain
		seen    bool
		at      Vec
	}{
		{"open ground: the nearest point", nil, nil, true, Vec{0, 9}},
		{"hidden by a wide unit", []Base{box(0, 5, 2, 2)}, nil, false, Vec{}},
		// A 0.4-wide unit at y 4..6 hides the middle of the near edge. A line
		// may clip it by the tolerance: the nearest line seen passes through
		// the corner (0.19, 4.01) of the unit inset by 0.01, reaching y = 9
		// at x = 0.19·9/4.01.
		{"past a narrow unit", []Base{box(0, 5, 0.4, 2)}, nil, true, Vec{0.19 * 9 / 4.01, 9}},
		// Two units leave a gap x 0.2..0.6 at y 4..6: lines pass for x
		// between 0.45 and 0.9 at y = 9, a little more with the tolerance.
		{"through a gap", []Base{box(-1.4, 5, 3.2, 2), box(1.8, 5, 2.4, 2)}, nil, true, Vec{0.19 * 9 / 4.01, 9}},
		{"gap closed", []Base{box(-1.4, 5, 3.2, 2), box(1.3, 5, 2.4, 2)}, nil, false, Vec{}},
		{"a wood in the way", nil, []Terrain{{Kind: BlocksSight, Outline: Polygon{{-5, 5}, {5, 5}, {5, 6}, {-5, 6}}}}, false, Vec{}},
		{"an open field in the way", nil, []Terrain{{Kind: Difficult, Outline: Polygon{{-5, 5}, {5, 5}, {5, 6}, {-5, 6}}}}, true, Vec{0, 9}},
		// A wood x -2..2, y 8..9.5 wider than the target hides all of it.
		{"target behind its own wood", nil, []Terrain{{Kind: BlocksSight, Outline: Polygon{{-2, 8}, {2, 8}, {2, 9.5}, {-2, 9.5}}}}, false, Vec{}},
	}
	for _, c := range cases {
		p, seen := CanSee(from, target, c.bases, c.terrain)
		if seen != c.seen {
			t.Errorf("%s: seen = %v at %v", c.name, seen, p)
			continue
		}
		if seen {
			checkVec(t, c.name+": point seen", p, c.at)
		}
	}
	// The viewer's own base is excluded by the caller; the target never blocks.
	viewer := box(0, -1, 4, 2)
	if _, seen := CanSee(viewer.LeaderPoint(), target, []Base{viewer, target}, nil, viewer); !seen {
		t.Errorf("viewer blocked by itself or the target")
	}
	if _, seen := CanSee(Vec{0, -1}, target, []Base{viewer}, nil); seen {
		t.Errorf("from inside an unexcluded base, the base blocks")
	}
}

func TestCanSeeMatchesBruteForce(t *testing.T) {
	// A line of units between a viewer and a target: compare with dense
	// sampling of the target's outline.
	from := Vec{0, 0}
	for i := 0; i < 40; i++ {
		x := -3 + 0.15*float64(i)
		target := Base{Center: Vec{x, 12}, Facing: 20, Width: 3, Depth: 1}
		bases := []Base{box(-2, 6, 1.5, 1), box(0.3, 6, 1.5, 1), box(2.6, 6.5, 1.5, 1)}
		_, seen := CanSee(from, target, bases, nil)
		brute := false
		for _, e := range target.Edges() {
			for k := 0; k <= 2000 && !brute; k++ {
				if _, b := SightBlocked(Seg(from, e.At(float64(k)/2000)), bases, nil); !b {
					brute = true
				}
			}
		}
		if brute && !seen {
			t.Errorf("target at x=%g: sampling sees it, CanSee does not", x)
		}
		if seen && !brute {
			t.Logf("target at x=%g: CanSee finds a line sampling misses", x)
		}
	}
}
