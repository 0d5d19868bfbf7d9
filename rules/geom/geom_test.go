package geom

import (
	"math"
	"testing"
)

func TestHeadingCardinalIsExact(t *testing.T) {
	cases := []struct {
		deg  float64
		want Vec
	}{
		{0, Vec{0, 1}}, {90, Vec{1, 0}}, {180, Vec{0, -1}}, {270, Vec{-1, 0}},
		{360, Vec{0, 1}}, {-90, Vec{-1, 0}}, {450, Vec{1, 0}}, {-1e-20, Vec{0, 1}},
	}
	for _, c := range cases {
		if got := Heading(c.deg); got != c.want {
			t.Errorf("Heading(%g) = %v, want exactly %v", c.deg, got, c.want)
		}
	}
	h := Heading(45)
	checkVec(t, "Heading(45)", h, Vec{math.Sqrt2 / 2, math.Sqrt2 / 2})
}

func TestNormAndTurn(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 0}, {360, 0}, {-30, 330}, {725, 5}, {-1e-20, 0}, {359.5, 359.5}} {
		if got := NormDeg(c.in); got != c.want {
			t.Errorf("NormDeg(%g) = %g, want %g", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ from, to, want float64 }{
		{0, 90, 90}, {90, 0, -90}, {350, 10, 20}, {10, 350, -20}, {0, 180, 180}, {180, 0, 180}, {45, 45, 0},
	} {
		if got := TurnDeg(c.from, c.to); got != c.want {
			t.Errorf("TurnDeg(%g, %g) = %g, want %g", c.from, c.to, got, c.want)
		}
	}
}

func TestRotateVecClockwise(t *testing.T) {
	if got := RotateVec(Vec{0, 1}, 90); got != (Vec{1, 0}) {
		t.Errorf("north turned 90 = %v, want east", got)
	}
	if got := RotateVec(Vec{1, 0}, 90); got != (Vec{0, -1}) {
		t.Errorf("east turned 90 = %v, want south", got)
	}
	checkVec(t, "RotateVec((0,2), 30)", RotateVec(Vec{0, 2}, 30), Vec{1, math.Sqrt(3)})
}

func TestCornersAndEdges(t *testing.T) {
	// A 4 wide, 2 deep base at (10, 20) facing north.
	b := box(10, 20, 4, 2)
	want := [4]Vec{{8, 21}, {12, 21}, {12, 19}, {8, 19}}
	if got := b.Corners(); got != want {
		t.Errorf("Corners = %v, want %v", got, want)
	}
	if got := b.FrontEdge(); got != (Segment{Vec{8, 21}, Vec{12, 21}}) {
		t.Errorf("FrontEdge = %v", got)
	}
	if got := b.LeftEdge(); got != (Segment{Vec{8, 19}, Vec{8, 21}}) {
		t.Errorf("LeftEdge = %v", got)
	}
	if got := b.LeaderPoint(); got != (Vec{10, 21}) {
		t.Errorf("LeaderPoint = %v, want (10, 21)", got)
	}
	// The same base facing east: its front is the east side, its left the north.
	b.Facing = 90
	want = [4]Vec{{11, 22}, {11, 18}, {9, 18}, {9, 22}}
	if got := b.Corners(); got != want {
		t.Errorf("Corners facing east = %v, want %v", got, want)
	}
	if got := b.Side(ArcLeft); got != (Segment{Vec{9, 22}, Vec{11, 22}}) {
		t.Errorf("left side facing east = %v", got)
	}
	if got := b.LeaderPoint(); got != (Vec{11, 20}) {
		t.Errorf("LeaderPoint facing east = %v, want (11, 20)", got)
	}
}

func TestLocalWorldRoundTrip(t *testing.T) {
	b := Base{Center: Vec{3, -7}, Facing: 33.3, Width: 5, Depth: 2}
	for _, p := range []Vec{{0, 0}, {3, -7}, {100, 50}, {-2.5, 8}} {
		checkVec(t, "World(Local(p))", b.World(b.Local(p)), p)
	}
	l := box(0, 0, 4, 2).Local(Vec{1, 3})
	if l != (Vec{1, 3}) {
		t.Errorf("Local at the origin facing north = %v", l)
	}
	l = Base{Width: 4, Depth: 2, Facing: 90}.Local(Vec{1, 3}) // facing east: ahead is +x, right is -y
	if l != (Vec{-3, 1}) {
		t.Errorf("Local facing east = %v, want (-3, 1)", l)
	}
}

func TestValidate(t *testing.T) {
	if err := box(0, 0, 4, 2).Validate(); err != nil {
		t.Errorf("good base: %v", err)
	}
	for _, b := range []Base{box(0, 0, 0, 2), box(0, 0, 4, -1), box(math.NaN(), 0, 4, 2), {Width: 1, Depth: 1, Facing: math.Inf(1)}} {
		if b.Validate() == nil {
			t.Errorf("%+v: want an error", b)
		}
	}
}

// TestAlongAndBearing: a move typed as a distance and a heading (Along)
// goes that distance in that direction (Bearing says it back), exactly on
// the four cardinal headings; Toward goes the distance asked straight at
// its target and refuses a target on the start point.
func TestAlongAndBearing(t *testing.T) {
	from := Vec{12.5, -3.25}
	for _, h := range []float64{0, 30, 45, 90, 135, 180, 225, 270, 315, 359.5, 360, -30, 725} {
		for _, d := range []float64{0.1, 6, 10, 250} {
			p := Along(from, d, h)
			if got := Dist(from, p); math.Abs(got-d) > 1e-9 {
				t.Errorf("Along(%v, %g, %g°) = %v: %g from the start", from, d, h, p, got)
			}
			if got, want := Bearing(from, p), NormDeg(h); math.Abs(TurnDeg(want, got)) > 1e-9 {
				t.Errorf("Bearing back from Along(%v, %g, %g°): %g°, want %g°", from, d, h, got, want)
			}
		}
	}
	for h, want := range map[float64]Vec{0: {12.5, 6.75}, 90: {22.5, -3.25}, 180: {12.5, -13.25}, 270: {2.5, -3.25}, -90: {2.5, -3.25}} {
		if got := Along(from, 10, h); got != want {
			t.Errorf("Along(%v, 10, %g°) = %#v, want exactly %#v", from, h, got, want)
		}
	}
	if got := Bearing(from, from); got != 0 {
		t.Errorf("Bearing of one point: %g", got)
	}
	to := Vec{15.5, 0.75} // 5 away: a 3-4-5 triangle
	if p, ok := Toward(from, to, 5); !ok || Dist(p, to) > 1e-12 {
		t.Errorf("Toward the whole way: %v %v, want %v", p, ok, to)
	}
	if p, ok := Toward(from, to, 2.5); !ok || math.Abs(p.X-14) > 1e-12 || math.Abs(p.Y+1.25) > 1e-12 {
		t.Errorf("Toward half way: %v %v, want (14, -1.25)", p, ok)
	}
	if _, ok := Toward(from, from, 3); ok {
		t.Error("Toward the start point itself: a direction given")
	}
}
