package geom

import (
	"math"
	"testing"
)

func TestTable(t *testing.T) {
	tb := Table{Width: 72, Depth: 48}
	b := box(2, 1, 4, 2) // flush in the south-west corner
	if !tb.Contains(b) {
		t.Errorf("flush base not on table")
	}
	want := map[Edge]float64{EdgeWest: 0, EdgeSouth: 0, EdgeNorth: 46, EdgeEast: 68}
	for e, d := range want {
		checkNear(t, "DistanceToEdge "+string(e), tb.DistanceToEdge(b, e), d)
	}
	over := box(1, 1, 4, 2)
	if tb.Contains(over) {
		t.Errorf("base over the west edge is on table")
	}
	checkNear(t, "over the edge", tb.DistanceToEdge(over, EdgeWest), -1)
	// A 4x2 base at 45 degrees reaches (4+2)/(2√2) north of its centre.
	r := Base{Center: Vec{36, 45}, Facing: 45, Width: 4, Depth: 2}
	checkNear(t, "rotated to north edge", tb.DistanceToEdge(r, EdgeNorth), 3-3/1.4142135623730951)
	if e, d := tb.NearestEdge(b); e != EdgeSouth || d != 0 { // ties with west; TableEdges order is N, E, S, W
		t.Errorf("NearestEdge = %s %g", e, d)
	}
	if s := tb.EdgeSegment(EdgeNorth); s != (Segment{Vec{0, 48}, Vec{72, 48}}) {
		t.Errorf("north edge = %v", s)
	}
	if _, err := ParseEdge("up"); err == nil {
		t.Errorf("ParseEdge(up): want an error")
	}
	if e, err := ParseEdge("east"); err != nil || e != EdgeEast {
		t.Errorf("ParseEdge(east) = %v, %v", e, err)
	}
	if (Table{Width: 0, Depth: 4}).Validate() == nil {
		t.Errorf("zero table valid")
	}
}

// TestRotatingDistanceToEdge: a base turning on the spot comes nearest an
// edge where a corner points at it, if its arc passes there; the exact
// value matches a fine sampling of the turn.
func TestRotatingDistanceToEdge(t *testing.T) {
	tb := Table{Width: 72, Depth: 48}
	b := Base{Center: Vec{20, 24}, Facing: 0, Width: 4, Depth: 2} // west side at 18
	half := math.Hypot(2, 1)                                      // the corners' radius
	// Turning 90 degrees clockwise (facing north to east), the front-left
	// corner swings west through the point nearest the west edge.
	checkNear(t, "quarter turn", tb.RotatingDistanceToEdge(b, b.Center, 90, EdgeWest), 20-half)
	// Either way round the same.
	checkNear(t, "anticlockwise", tb.RotatingDistanceToEdge(b, b.Center, -90, EdgeWest), 20-half)
	// A small turn never points a corner west: the ends decide.
	small := tb.RotatingDistanceToEdge(b, b.Center, 5, EdgeWest)
	checkNear(t, "small turn", small, math.Min(tb.DistanceToEdge(b, EdgeWest), tb.DistanceToEdge(Rotate(b, b.Center, 5), EdgeWest)))
	checkNear(t, "no turn", tb.RotatingDistanceToEdge(b, b.Center, 0, EdgeNorth), 23)
	// Against sampling, for turns and pivots of every kind and every edge.
	for _, pivot := range []Vec{b.Center, b.LeaderPoint(), {17, 22}} {
		for _, deg := range []float64{-170, -90, -33, 12, 45, 90, 135, 180, 359} {
			for _, e := range TableEdges() {
				got := tb.RotatingDistanceToEdge(b, pivot, deg, e)
				want := math.Inf(1)
				const n = 20000
				for k := 0; k <= n; k++ {
					want = math.Min(want, tb.DistanceToEdge(Rotate(b, pivot, deg*float64(k)/n), e))
				}
				if got > want+1e-9 || want-got > 1e-6 {
					t.Errorf("pivot %v turn %v edge %s: %v, sampled %v", pivot, deg, e, got, want)
				}
			}
		}
	}
}
