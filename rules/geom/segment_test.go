package geom

import (
	"math"
	"testing"
)

func TestSegmentDistanceAndIntersection(t *testing.T) {
	cases := []struct {
		name string
		s, u Segment
		dist float64
		at   *Vec // the meeting point, when they meet
	}{
		{"cross", Seg(Vec{0, 0}, Vec{4, 4}), Seg(Vec{0, 4}, Vec{4, 0}), 0, &Vec{2, 2}},
		{"T touch", Seg(Vec{0, 0}, Vec{4, 0}), Seg(Vec{2, 0}, Vec{2, 3}), 0, &Vec{2, 0}},
		{"parallel 3 apart", Seg(Vec{0, 0}, Vec{4, 0}), Seg(Vec{1, 3}, Vec{5, 3}), 3, nil},
		{"collinear overlap", Seg(Vec{0, 0}, Vec{4, 0}), Seg(Vec{2, 0}, Vec{6, 0}), 0, &Vec{4, 0}},
		{"collinear gap", Seg(Vec{0, 0}, Vec{4, 0}), Seg(Vec{6, 0}, Vec{9, 0}), 2, nil},
		{"end to end 3-4-5", Seg(Vec{0, 0}, Vec{1, 0}), Seg(Vec{4, 4}, Vec{4, 9}), 5, nil},
		{"skew, nearest at the ends", Seg(Vec{0, 0}, Vec{0, 4}), Seg(Vec{1, 5}, Vec{5, 1}), math.Sqrt2, nil}, // (0,4) to (1,5)
		{"point segment", Seg(Vec{1, 1}, Vec{1, 1}), Seg(Vec{0, 0}, Vec{2, 0}), 1, nil},
	}
	for _, c := range cases {
		checkNear(t, c.name+": Distance", c.s.Distance(c.u), c.dist)
		if c.s.Distance(c.u) != c.u.Distance(c.s) {
			t.Errorf("%s: Distance not symmetric", c.name)
		}
		p, ok := c.s.Intersection(c.u)
		if ok != (c.at != nil) || ok != c.s.Intersects(c.u) {
			t.Errorf("%s: Intersection ok = %v, Intersects = %v", c.name, ok, c.s.Intersects(c.u))
			continue
		}
		if ok {
			checkVec(t, c.name+": Intersection", p, *c.at)
		}
	}
}

func TestSegmentPointDistance(t *testing.T) {
	s := Seg(Vec{0, 0}, Vec{10, 0})
	for _, c := range []struct {
		p    Vec
		d    float64
		near Vec
	}{{Vec{5, 3}, 3, Vec{5, 0}}, {Vec{-3, 4}, 5, Vec{0, 0}}, {Vec{13, -4}, 5, Vec{10, 0}}, {Vec{7, 0}, 0, Vec{7, 0}}} {
		checkNear(t, "DistanceToPoint", s.DistanceToPoint(c.p), c.d)
		checkVec(t, "ClosestPoint", s.ClosestPoint(c.p), c.near)
	}
	checkNear(t, "Len", Seg(Vec{1, 1}, Vec{4, 5}).Len(), 5)
	checkVec(t, "Mid", Seg(Vec{1, 1}, Vec{4, 5}).Mid(), Vec{2.5, 3})
}
