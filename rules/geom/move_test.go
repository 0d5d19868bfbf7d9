package geom

import (
	"math"
	"testing"
)

func TestPathLength(t *testing.T) {
	checkNear(t, "3-4-5 then 6", PathLength([]Vec{{0, 0}, {3, 4}, {3, 10}}), 11)
	checkNear(t, "one point", PathLength([]Vec{{1, 1}}), 0)
	checkNear(t, "none", PathLength(nil), 0)
}

func TestRotateAndWheel(t *testing.T) {
	b := box(0, 0, 4, 2)
	// On the spot, a quarter turn clockwise.
	r := Rotate(b, b.Center, 90)
	if r.Center != (Vec{0, 0}) || r.Facing != 90 {
		t.Errorf("turn on the spot = %+v", r)
	}
	// About a point 10 to the west: clockwise, the centre swings south.
	r = Rotate(b, Vec{-10, 0}, 90)
	if r.Center != (Vec{-10, -10}) || r.Facing != 90 {
		t.Errorf("swing about (-10, 0) = %+v", r)
	}
	// Wheel right a quarter: pivot on the front-right corner (2, 1); the
	// front-left corner travels a quarter circle of radius 4.
	w, dist := Wheel(b, 90)
	checkNear(t, "wheel distance", dist, 2*math.Pi)
	if w.Facing != 90 || w.Corners()[1] != (Vec{2, 1}) {
		t.Errorf("wheel right: %+v, front-right corner %v", w, w.Corners()[1])
	}
	checkVec(t, "wheel right: front-left corner", w.Corners()[0], Vec{2, 5})
	w, _ = Wheel(b, -90)
	if w.Facing != 270 || w.Corners()[0] != (Vec{-2, 1}) {
		t.Errorf("wheel left: %+v, front-left corner %v", w, w.Corners()[0])
	}
}

func TestSweptBase(t *testing.T) {
	b := box(0, 0, 4, 2)
	s := SweptBase(b, Vec{0, 10}) // a 4 x 12 strip
	checkNear(t, "swept area", s.Area(), 48)
	checkNear(t, "distance to a unit beside the path", s.DistanceToBase(box(5, 5, 2, 2)), 2)
	// Diagonal move: the hull is a hexagon, area = rectangle + swept parallelogram.
	s = SweptBase(b, Vec{3, 4})
	checkNear(t, "diagonal swept area", s.Area(), 8+math.Abs(Vec{3, 4}.Cross(Vec{4, 0}))+math.Abs(Vec{3, 4}.Cross(Vec{0, 2})))
}

func TestRotatingDistance(t *testing.T) {
	b := box(0, 0, 4, 2) // corners at radius √5 ≈ 2.236 from its centre
	cases := []struct {
		name  string
		deg   float64
		other Base
		want  float64
	}{
		// A unit whose near edge is x = 2.2: the base starts 0.2 away, and
		// turning sweeps its front-right corner (radius √5 ≈ 2.236) through
		// due east, into the unit.
		{"turn into a neighbour", 90, box(3.2, 0, 2, 2), 0},
		// Turning the other way the corner that swings east is the rear-right
		// one, also at radius √5.
		{"turn the other way into it", -90, box(3.2, 0, 2, 2), 0},
		{"just clear of it", 90, box(3.5, 0, 2, 2), 2.5 - math.Sqrt(5)},
		// A unit whose near edge is x = 2.3: corners reach √5 < 2.3.
		{"turn clear of a neighbour", 90, box(3.3, 0, 2, 10), 2.3 - math.Sqrt(5)},
		// A unit north: the front edge is at y = 1; turning, the base reaches
		// y = √5 at most (a corner passes straight north when the diagonal
		// points there, after turning atan(2)... less than 90).
		{"turning reaches north", 90, box(0, 3, 2, 1), 2.5 - math.Sqrt(5)},
		{"no turn", 0, box(0, 3, 2, 1), 1.5},
		// Turning only 10 degrees clockwise the front edge tilts down to the
		// east; the unit's corner (-1, 2.5), seen from the base, is then
		// 2.5cos10 - sin10 ahead of its centre, the front edge 1.
		{"small turn", 10, box(0, 3, 2, 1), 2.5*math.Cos(10*math.Pi/180) - math.Sin(10*math.Pi/180) - 1},
	}
	for _, c := range cases {
		checkNear(t, c.name, RotatingDistance(b, b.Center, c.deg, c.other), c.want)
	}
}

func TestMinDistanceAlongPath(t *testing.T) {
	b := box(0, 0, 4, 2)
	enemy := box(6, 10, 2, 2) // x 5..7, y 9..11
	// Straight north 20: the strip x -2..2 passes 3 from the enemy.
	d, step := MinDistanceAlongPath(b, []Vec{{0, 20}}, 0, enemy)
	checkNear(t, "straight past", d, 3)
	if step != 0 {
		t.Errorf("step = %d, want 0", step)
	}
	// A dog-leg east to x = 2.5 brings the right edge to 4.5: 0.5 short of the enemy.
	d, step = MinDistanceAlongPath(b, []Vec{{0, 5}, {2.5, 5}, {2.5, 20}}, 0, enemy)
	checkNear(t, "dog-leg", d, 0.5)
	if step != 2 {
		t.Errorf("step = %d, want 2", step)
	}
	// Ending beside it and turning to face it: the turn comes closest.
	d, step = MinDistanceAlongPath(b, []Vec{{0, 10}}, 90, enemy)
	if step != 1 || !near(d, 5-math.Sqrt(5), 1e-9) {
		t.Errorf("turn at the end: %g at step %d, want %g at 1", d, step, 5-math.Sqrt(5))
	}
	// Already closest where it stands.
	d, step = MinDistanceAlongPath(b, []Vec{{-10, 0}}, 0, enemy)
	if step != -1 || !near(d, Distance(b, enemy), 1e-12) {
		t.Errorf("moving away: %g at step %d", d, step)
	}
}
