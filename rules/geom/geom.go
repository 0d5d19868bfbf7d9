// Package geom is the table's geometry for the rules engine: points, unit
// bases as rotated rectangles, distances, contact and arcs. It is pure: no
// I/O, no randomness, float64 arithmetic only, so the same inputs give the
// same verdicts on every machine.
//
// Conventions: the table's origin is its south-west corner, x grows east
// (across the width), y grows north (toward the far edge). A facing is a
// heading in degrees, 0 = north (+y), 90 = east (+x), clockwise, normalised
// to [0, 360). Lengths are in the battle's measurement unit (inches or cm).
package geom

import "math"

// Vec is a point or a displacement on the table.
type Vec struct {
	X float64 `json:"x" yaml:"x"`
	Y float64 `json:"y" yaml:"y"`
}

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y} }

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y} }

// Scale returns v*k.
func (v Vec) Scale(k float64) Vec { return Vec{v.X * k, v.Y * k} }

// Dot returns the dot product.
func (v Vec) Dot(w Vec) float64 { return v.X*w.X + v.Y*w.Y }

// Cross returns the z of the cross product v×w.
func (v Vec) Cross(w Vec) float64 { return v.X*w.Y - v.Y*w.X }

// Len returns the length of v.
func (v Vec) Len() float64 { return math.Hypot(v.X, v.Y) }

// Dist returns the distance between two points.
func Dist(a, b Vec) float64 { return b.Sub(a).Len() }

// Heading returns the unit vector of a facing in degrees (0 = +y, clockwise).
func Heading(deg float64) Vec {
	r := deg * math.Pi / 180
	return Vec{math.Sin(r), math.Cos(r)}
}

// NormDeg normalises an angle in degrees to [0, 360).
func NormDeg(deg float64) float64 {
	d := math.Mod(deg, 360)
	if d < 0 {
		d += 360
	}
	return d
}

// Base is a unit's base: a rectangle of Width (its front edge) and Depth,
// centred on Center, its front facing Facing degrees.
type Base struct {
	Center Vec     `json:"center" yaml:"center"`
	Facing float64 `json:"facing" yaml:"facing"`
	Width  float64 `json:"width" yaml:"width"`
	Depth  float64 `json:"depth" yaml:"depth"`
}

// Forward is the unit vector the base faces.
func (b Base) Forward() Vec { return Heading(b.Facing) }

// Right is the unit vector to the base's right.
func (b Base) Right() Vec { return Heading(b.Facing + 90) }

// Corners returns the four corners: front-left, front-right, rear-right, rear-left.
func (b Base) Corners() [4]Vec {
	f := b.Forward().Scale(b.Depth / 2)
	r := b.Right().Scale(b.Width / 2)
	c := b.Center
	return [4]Vec{
		c.Add(f).Sub(r),
		c.Add(f).Add(r),
		c.Sub(f).Add(r),
		c.Sub(f).Sub(r),
	}
}

// FrontCenter is the middle of the front edge: the leader point of RULES.md
// K.10 in the default ruleset.
func (b Base) FrontCenter() Vec { return b.Center.Add(b.Forward().Scale(b.Depth / 2)) }
