package geom

import (
	"math"
	"math/rand"
	"testing"
)

const tol = 1e-9

func near(got, want, eps float64) bool {
	return math.Abs(got-want) <= eps || (math.IsInf(got, 1) && math.IsInf(want, 1))
}

func checkNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

func checkVec(t *testing.T, what string, got, want Vec) {
	t.Helper()
	if !near(got.X, want.X, tol) || !near(got.Y, want.Y, tol) {
		t.Errorf("%s = %v (%.12g, %.12g), want %v", what, got, got.X, got.Y, want)
	}
}

// box is an axis-aligned base facing north: width along x, depth along y.
func box(x, y, w, d float64) Base { return Base{Center: Vec{x, y}, Width: w, Depth: d} }

// randBase draws a base of plausible size anywhere in a 200x200 area.
func randBase(r *rand.Rand) Base {
	return Base{
		Center: Vec{r.Float64()*200 - 100, r.Float64()*200 - 100},
		Facing: r.Float64() * 360,
		Width:  0.5 + r.Float64()*8,
		Depth:  0.5 + r.Float64()*4,
	}
}

// randNearBase draws a base near a, so pairs often touch or overlap.
func randNearBase(r *rand.Rand, a Base) Base {
	b := randBase(r)
	b.Center = a.Center.Add(Vec{r.Float64()*16 - 8, r.Float64()*16 - 8})
	if r.Intn(8) == 0 { // square to a, often flush
		b.Facing = NormDeg(a.Facing + float64(90*r.Intn(4)))
	}
	return b
}

// moveRigid applies the same rotation about pivot and translation to a
// point, as a rigid motion of the table.
func moveRigid(p, pivot Vec, deg float64, d Vec) Vec {
	return pivot.Add(RotateVec(p.Sub(pivot), deg)).Add(d)
}

func moveBase(b Base, pivot Vec, deg float64, d Vec) Base {
	return Rotate(b, pivot, deg).Translate(d)
}

// randPointIn draws a point inside the base.
func randPointIn(r *rand.Rand, b Base) Vec {
	return b.World(Vec{(r.Float64() - 0.5) * b.Width, (r.Float64() - 0.5) * b.Depth})
}
