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
	return "", fmt.Errorf("unknown table edge %q (want north, south, east or west)", s)
}

// Validate reports why the table cannot be played on.
func (t Table) Validate() error {
	if !finite(t.Width) || !finite(t.Depth) || t.Width <= 0 || t.Depth <= 0 {
		return fmt.Errorf("table size %gx%g: width and depth must be positive numbers", t.Width, t.Depth)
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
