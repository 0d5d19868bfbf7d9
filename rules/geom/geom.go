// Package geom is the table's geometry for the rules engine: points, unit
// bases as rotated rectangles, distances, contact and arcs. It is pure: no
// I/O, no randomness, float64 arithmetic only, so the same inputs give the
// same verdicts on every machine.
//
// Conventions: the table's origin is its south-west corner, x grows east
// (across the width), y grows north (toward the far edge). A facing is a
// heading in degrees, 0 = north (+y), 90 = east (+x), clockwise, normalised
// to [0, 360). Lengths are in the battle's measurement unit (inches or cm).
//
// Tolerances are defined once (tolerance.go): Eps absorbs rounding,
// ContactTolerance is base contact. Arcs follow a ruleset ArcRule (arc.go),
// sight lines and movement are in sight.go and move.go. docs/geometry.md
// explains the conventions, the arc options and what is approximate.
package geom

import (
	"fmt"
	"math"
)

// Vec is a point or a displacement on the table.
type Vec struct {
	X float64 `json:"x" yaml:"x"`
	Y float64 `json:"y" yaml:"y"`
}

// Add returns v+w.
func (v Vec) Add(w Vec) Vec { return Vec{v.X + w.X, v.Y + w.Y} }

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec { return Vec{v.X - w.X, v.Y - w.Y} }

// Scale returns v*k. The explicit float64 conversions here and in Dot and
// Cross forbid the compiler to fuse a product with a later sum (FMA, allowed
// by the Go spec on arm64, ppc64, s390x and amd64 v3), so every build rounds
// the same way.
func (v Vec) Scale(k float64) Vec { return Vec{float64(v.X * k), float64(v.Y * k)} }

// Dot returns the dot product.
func (v Vec) Dot(w Vec) float64 { return float64(v.X*w.X) + float64(v.Y*w.Y) }

// Cross returns the z of the cross product v×w: positive when w is
// counter-clockwise from v (to its left, seen from above the table).
func (v Vec) Cross(w Vec) float64 { return float64(v.X*w.Y) - float64(v.Y*w.X) }

// Lerp returns the point a fraction t of the way from v to w.
func (v Vec) Lerp(w Vec, t float64) Vec { return v.Add(w.Sub(v).Scale(t)) }

// IsFinite reports whether both coordinates are finite numbers.
func (v Vec) IsFinite() bool { return finite(v.X) && finite(v.Y) }

// String formats the point with two decimals, for messages.
func (v Vec) String() string { return fmt.Sprintf("(%.2f, %.2f)", v.X, v.Y) }

// RotateVec turns the displacement v clockwise by deg degrees (the same sense
// as facings: rotating north by 90 gives east).
func RotateVec(v Vec, deg float64) Vec {
	h := Heading(deg) // (sin, cos), exact for multiples of 90
	s, c := h.X, h.Y
	return Vec{float64(v.X*c) + float64(v.Y*s), float64(v.Y*c) - float64(v.X*s)}
}

// Len returns the length of v.
func (v Vec) Len() float64 { return hypot(v.X, v.Y) }

// Dist returns the distance between two points.
func Dist(a, b Vec) float64 { return b.Sub(a).Len() }

// Heading returns the unit vector of a facing in degrees (0 = +y, clockwise).
// The four cardinal facings give exact unit vectors (no 6e-17 residue), so
// bases set square to the table have exact corners.
func Heading(deg float64) Vec {
	d := NormDeg(deg)
	switch d {
	case 0:
		return Vec{0, 1}
	case 90:
		return Vec{1, 0}
	case 180:
		return Vec{0, -1}
	case 270:
		return Vec{-1, 0}
	}
	r := d * math.Pi / 180
	return Vec{math.Sin(r), math.Cos(r)}
}

// Along returns where a point ends that goes dist from from along the
// heading deg (degrees clockwise from north, y growing north): a move
// typed as a distance and a heading, as `ledger move --by --heading` and
// the page's move form take it (web/static/geom.js is its twin, held
// equal by cmd/ledger's TestBrowserGeometryMirrorsGo).
func Along(from Vec, dist, deg float64) Vec { return from.Add(Heading(deg).Scale(dist)) }

// Toward returns where a point ends that goes dist from from straight
// toward to, and false when the two are one point (no direction).
func Toward(from, to Vec, dist float64) (Vec, bool) {
	d := to.Sub(from)
	l := d.Len()
	if l == 0 {
		return from, false
	}
	return from.Add(d.Scale(dist / l)), true
}

// Bearing returns the heading from a to b in degrees clockwise from north,
// in [0, 360): Along's direction (0 when they are one point).
func Bearing(a, b Vec) float64 {
	d := b.Sub(a)
	if d.X == 0 && d.Y == 0 {
		return 0
	}
	return NormDeg(math.Atan2(d.X, d.Y) * 180 / math.Pi)
}

// NormDeg normalises an angle in degrees to [0, 360).
func NormDeg(deg float64) float64 {
	d := math.Mod(deg, 360)
	if d < 0 {
		d += 360
	}
	if d >= 360 { // -1e-20 + 360 rounds to 360
		d = 0
	}
	return d
}

// TurnDeg returns the signed turn in degrees, in (-180, 180], that takes
// facing from to facing to: positive clockwise. A half turn is +180.
func TurnDeg(from, to float64) float64 {
	d := NormDeg(to - from)
	if d > 180 {
		d -= 360
	}
	return d
}

// hypot is √(x²+y²). Unlike math.Hypot, which is assembly on amd64 and Go
// elsewhere, it rounds the same on every architecture (square root is
// correctly rounded everywhere) and is faster; table lengths are far from
// overflow.
func hypot(x, y float64) float64 { return math.Sqrt(float64(x*x) + float64(y*y)) }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

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

// Right is the unit vector to the base's right, Heading(Facing+90), computed
// from Forward so the two are exactly perpendicular.
func (b Base) Right() Vec {
	f := b.Forward()
	return Vec{f.Y, -f.X}
}

// Corners returns the four corners: front-left, front-right, rear-right, rear-left.
func (b Base) Corners() [4]Vec { return b.frame().corners() }

// FrontCenter is the middle of the front edge: the leader point of docs/rules.md
// K.10 in the default ruleset.
func (b Base) FrontCenter() Vec { return b.Center.Add(b.Forward().Scale(b.Depth / 2)) }

// LeaderPoint is the point K.4 measures a charge from and K.8 classifies:
// the middle of the front edge (K.10 default, the same as FrontCenter).
func (b Base) LeaderPoint() Vec { return b.FrontCenter() }

// Error is a geometry the table cannot use (a base, a polygon, a table, a
// terrain piece, an edge or arc rule by name), kept as the English format
// of its message and the values, which i18n says again in another
// language (phrase.geom).
type Error struct {
	Format string
	Args   []any
}

func (e *Error) Error() string { return fmt.Sprintf(e.Format, e.Args...) }

// Unwrap gives the error an Error says more around ("terrain %q: %s").
func (e *Error) Unwrap() error {
	for _, a := range e.Args {
		if err, ok := a.(error); ok {
			return err
		}
	}
	return nil
}

func errorf(format string, a ...any) error { return &Error{Format: format, Args: a} }
