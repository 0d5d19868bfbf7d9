package geom

import (
	"math"
	"testing"
)

func TestAtLeaderAndBend(t *testing.T) {
	b := box(0, 0, 4, 2)
	at := AtLeader(b, Vec{10, 10}, 90)
	checkVec(t, "leader", at.LeaderPoint(), Vec{10, 10})
	checkVec(t, "centre", at.Center, Vec{9, 10})
	checkNear(t, "straight", BendDeg(Vec{0, 0}, Vec{1, 0}, Vec{2, 0}), 0)
	checkNear(t, "right angle", BendDeg(Vec{0, 0}, Vec{1, 0}, Vec{1, 1}), 90)
	checkNear(t, "empty leg", BendDeg(Vec{0, 0}, Vec{0, 0}, Vec{1, 1}), 0)
	sw := SweptAtLeader(b, Vec{0, 1}, Vec{0, 5}, 0)
	if math.Abs(sw.Area()-4*6) > 1e-9 {
		t.Fatalf("swept area %g", sw.Area())
	}
}

// TestOneTurnPath: round a square obstacle, a point robot's shortest path
// with one turn bends at a candidate; straight when nothing is in the way.
func TestOneTurnPath(t *testing.T) {
	obstacle := box(5, 0, 2, 2).Polygon()
	a, b := Vec{0, 0}, Vec{10, 0}
	legal := func(tp Vec) bool {
		return !obstacle.IntersectsSegment(Seg(a, tp)) && !obstacle.IntersectsSegment(Seg(tp, b))
	}
	// A point base: TurnCandidates of a tiny base are the obstacle's corners, pushed out.
	tiny := Base{Width: 1e-6, Depth: 1e-6}
	cands := TurnCandidates(tiny, 0, []Polygon{obstacle}, 0.01)
	if _, ok := OneTurnPath(a, b, cands, legal); ok {
		t.Fatal("a corner alone is no turn point for a one-turn path round a box across the line")
	}
	// The crossing of the lines from a and b past the near corners: (5, 1.25).
	cands = append(cands, ShadowCrossings(a, b, cands, cands)...)
	tp, ok := OneTurnPath(a, b, cands, legal)
	if !ok || math.Abs(math.Abs(tp.Y)-1.25) > 0.02 || math.Abs(tp.X-5) > 0.02 {
		t.Fatalf("turn at %v, %v", tp, ok)
	}
	if tp, ok := OneTurnPath(a, b, cands, func(Vec) bool { return true }); !ok || tp != b {
		t.Fatalf("straight: %v", tp)
	}
	if _, ok := OneTurnPath(a, b, nil, func(Vec) bool { return false }); ok {
		t.Fatal("no path found one")
	}
}
