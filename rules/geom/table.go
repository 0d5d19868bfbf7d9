package geom

import (
	"fmt"
	"math"
)

// Table is the playing area, Width along x (west to east) by Depth along y
// (south to north), in the battle's unit, origin at its south-west corner.
type Table struct {
	Width float64 `json:"width" yaml:"width"`
	Depth float64 `json:"depth" yaml:"depth"`
}

// Edge names a table edge. The names are stable: scenario files and flank
// march declarations (F.1) store them.
type Edge string

// The four table edges. North is the far edge, y = Depth.
const (
	EdgeNorth Edge = "north"
	EdgeSouth Edge = "south"
	EdgeEast  Edge = "east"
	EdgeWest  Edge = "west"
)

// TableEdges lists the table edges in a fixed order (clockwise from north),
// for deterministic loops.
func TableEdges() [4]Edge { return [4]Edge{EdgeNorth, EdgeEast, EdgeSouth, EdgeWest} }

// ParseEdge returns the edge with that name.
func ParseEdge(s string) (Edge, error) {
	for _, e := range TableEdges() {
		if string(e) == s {
			return e, nil
		}
	}
	return "", errorf("unknown table edge %q (want north, south, east or west)", s)
}

// Validate reports why the table cannot be played on.
func (t Table) Validate() error {
	if !finite(t.Width) || !finite(t.Depth) || t.Width <= 0 || t.Depth <= 0 {
		return errorf("table size %gx%g: width and depth must be positive numbers", t.Width, t.Depth)
	}
	return nil
}

// ContainsPoint reports whether p is on the table (its edges included,
// within Eps).
func (t Table) ContainsPoint(p Vec) bool {
	return p.X >= -Eps && p.X <= t.Width+Eps && p.Y >= -Eps && p.Y <= t.Depth+Eps
}

// Contains reports whether the base is wholly on the table (K.3); a base
// flush with an edge is on it.
func (t Table) Contains(b Base) bool {
	for _, c := range b.Corners() {
		if !t.ContainsPoint(c) {
			return false
		}
	}
	return true
}

// EdgeSegment returns the edge as a segment, running clockwise round the
// table (north edge west to east, and so on).
func (t Table) EdgeSegment(e Edge) Segment {
	sw, se, ne, nw := Vec{0, 0}, Vec{t.Width, 0}, Vec{t.Width, t.Depth}, Vec{0, t.Depth}
	switch e {
	case EdgeNorth:
		return Segment{nw, ne}
	case EdgeEast:
		return Segment{ne, se}
	case EdgeSouth:
		return Segment{se, sw}
	case EdgeWest:
		return Segment{sw, nw}
	}
	panic(fmt.Sprintf("geom: unknown table edge %q", e))
}

// PointDistanceToEdge returns how far p is from the edge's line, measured
// into the table: negative when p is beyond the edge, off the table.
func (t Table) PointDistanceToEdge(p Vec, e Edge) float64 {
	switch e {
	case EdgeNorth:
		return t.Depth - p.Y
	case EdgeSouth:
		return p.Y
	case EdgeEast:
		return t.Width - p.X
	case EdgeWest:
		return p.X
	}
	panic(fmt.Sprintf("geom: unknown table edge %q", e))
}

// DistanceToEdge returns the distance from the base's nearest point to the
// edge (F.8: within 12" of a flank-march edge). It is negative when the
// base reaches over the edge, by how far.
func (t Table) DistanceToEdge(b Base, e Edge) float64 {
	d := math.Inf(1)
	for _, c := range b.Corners() {
		d = math.Min(d, t.PointDistanceToEdge(c, e))
	}
	return d
}

// inward is the unit vector from edge e into the table.
func inward(e Edge) Vec {
	switch e {
	case EdgeNorth:
		return Vec{0, -1}
	case EdgeSouth:
		return Vec{0, 1}
	case EdgeEast:
		return Vec{-1, 0}
	case EdgeWest:
		return Vec{1, 0}
	}
	panic(fmt.Sprintf("geom: unknown table edge %q", e))
}

// RotatingDistanceToEdge returns the least DistanceToEdge the base reaches
// while it turns by deg degrees (clockwise if positive) about pivot, start
// and end included (F.8 along a move that turns on the spot: K.3 lets a
// turn sweep anywhere, even over the edge). Exact: the distance of a corner
// turning on a circle of radius r is the pivot's distance plus r times the
// cosine of its angle to the edge's inward direction, least where the
// corner points straight at the edge if its arc passes that way.
func (t Table) RotatingDistanceToEdge(b Base, pivot Vec, deg float64, e Edge) float64 {
	d := math.Min(t.DistanceToEdge(b, e), t.DistanceToEdge(Rotate(b, pivot, deg), e))
	if deg == 0 {
		return d
	}
	sweep := -deg * math.Pi / 180 // math angles run anticlockwise
	out := inward(e).Scale(-1)
	outAngle := math.Atan2(out.Y, out.X)
	for _, c := range b.Corners() {
		r := Dist(pivot, c)
		if r == 0 {
			continue
		}
		a0 := math.Atan2(c.Y-pivot.Y, c.X-pivot.X)
		if angleInSweep(outAngle-a0, sweep) {
			d = math.Min(d, t.PointDistanceToEdge(pivot, e)-r)
		}
	}
	return d
}

// angleInSweep reports whether turning by a (radians, anticlockwise
// positive) from an arc's start lands on the arc of sweep radians.
func angleInSweep(a, sweep float64) bool {
	if math.Abs(sweep) >= 2*math.Pi {
		return true
	}
	if sweep > 0 {
		return math.Mod(math.Mod(a, 2*math.Pi)+2*math.Pi, 2*math.Pi) <= sweep
	}
	return math.Mod(math.Mod(a, 2*math.Pi)-2*math.Pi, 2*math.Pi) >= sweep
}

// NearestEdge returns the edge nearest to the base and its distance; ties
// go to the first in TableEdges order.
func (t Table) NearestEdge(b Base) (Edge, float64) {
	best, bd := TableEdges()[0], math.Inf(1)
	for _, e := range TableEdges() {
		if d := t.DistanceToEdge(b, e); d < bd {
			best, bd = e, d
		}
	}
	return best, bd
}
