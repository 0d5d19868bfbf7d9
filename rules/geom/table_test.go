package geom

import "testing"

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
