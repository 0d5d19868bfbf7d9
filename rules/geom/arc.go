package geom

import (
	"fmt"
	"math"
)

// Arc is one of the four arcs round a base (K.8), named by the side of the
// base it faces. The names are stable: events store them.
type Arc string

// The arcs of a base.
const (
	ArcFront Arc = "front"
	ArcRight Arc = "right"
	ArcRear  Arc = "rear"
	ArcLeft  Arc = "left"
)

// Arcs lists the arcs in a fixed order, clockwise from the front.
func Arcs() [4]Arc { return [4]Arc{ArcFront, ArcRight, ArcRear, ArcLeft} }

// ArcRule is how a base's surroundings are cut into arcs: a ruleset option
// (K.8 is a [choice]), stored in ruleset files by these names.
type ArcRule string

// The arc rules. The empty ArcRule means DefaultArcRule.
const (
	// ArcRuleDiagonals bounds the arcs by the base's diagonals extended
	// beyond its corners (K.8 default): the front arc is the wedge from the
	// centre through the two front corners, and so on. A point exactly on a
	// diagonal belongs to the front or rear arc, never to a flank.
	ArcRuleDiagonals ArcRule = "diagonals"
	// ArcRuleQuadrants uses four 90-degree sectors from the centre, at 45
	// degrees either side of the facing, whatever the base's proportions
	// (the same as diagonals for a square base). Boundaries go to front and
	// rear.
	ArcRuleQuadrants ArcRule = "quadrants"
	// ArcRuleEdgeExtended bounds the arcs by the front and rear edges
	// extended to infinity: the front arc is everything level with or ahead
	// of the front edge's line, the rear arc everything level with or behind
	// the rear edge's line, and the band between is the left or right flank.
	ArcRuleEdgeExtended ArcRule = "edge-extended"

	// DefaultArcRule is the house default for K.8.
	DefaultArcRule = ArcRuleDiagonals
)

// ParseArcRule returns the arc rule with that name; "" gives
// DefaultArcRule. Rulesets validate their option with it once, at load.
func ParseArcRule(s string) (ArcRule, error) {
	switch r := ArcRule(s); r {
	case "":
		return DefaultArcRule, nil
	case ArcRuleDiagonals, ArcRuleQuadrants, ArcRuleEdgeExtended:
		return r, nil
	}
	return "", errorf("unknown arc rule %q (want diagonals, quadrants or edge-extended)", s)
}

// halfPlane is n·l >= c in a base's local frame (X right, Y ahead), n a
// unit vector, so n·l - c is a signed distance.
type halfPlane struct {
	n Vec
	c float64
}

func (h halfPlane) eval(l Vec) float64 { return h.n.Dot(l) - h.c }

// arcPlanes returns the closed region of arc a of base b as an intersection
// of half-planes in b's local frame. All arc regions are convex.
func arcPlanes(b Base, a Arc, rule ArcRule) []halfPlane {
	hw, hd := b.Width/2, b.Depth/2
	switch rule {
	case "", ArcRuleDiagonals, ArcRuleQuadrants:
		if rule == ArcRuleQuadrants {
			hw, hd = 1, 1
		}
		k := hypot(hw, hd)
		w, d := hw/k, hd/k
		// Front: Y·hw >= |X|·hd, i.e. ahead of both diagonals.
		switch a {
		case ArcFront:
			return []halfPlane{{Vec{-d, w}, 0}, {Vec{d, w}, 0}}
		case ArcRear:
			return []halfPlane{{Vec{-d, -w}, 0}, {Vec{d, -w}, 0}}
		case ArcLeft:
			return []halfPlane{{Vec{-d, -w}, 0}, {Vec{-d, w}, 0}}
		case ArcRight:
			return []halfPlane{{Vec{d, -w}, 0}, {Vec{d, w}, 0}}
		}
	case ArcRuleEdgeExtended:
		switch a {
		case ArcFront:
			return []halfPlane{{Vec{0, 1}, hd}}
		case ArcRear:
			return []halfPlane{{Vec{0, -1}, hd}}
		case ArcLeft:
			return []halfPlane{{Vec{0, -1}, -hd}, {Vec{0, 1}, -hd}, {Vec{-1, 0}, 0}}
		case ArcRight:
			return []halfPlane{{Vec{0, -1}, -hd}, {Vec{0, 1}, -hd}, {Vec{1, 0}, 0}}
		}
	default:
		panic(fmt.Sprintf("geom: unknown arc rule %q (validate it with ParseArcRule)", rule))
	}
	panic(fmt.Sprintf("geom: unknown arc %q", a))
}

// inPlanes returns the least signed distance of l into the region.
func inPlanes(hs []halfPlane, l Vec) float64 {
	m := math.Inf(1)
	for _, h := range hs {
		m = math.Min(m, h.eval(l))
	}
	return m
}

// ArcOf returns the arc of the target that holds point p (K.8: pass the
// charger's leader point). Boundaries: a point on a boundary (within Eps)
// between the front or rear arc and a flank belongs to the front or rear
// arc. Points inside the base are classified by the same regions (under
// diagonals and quadrants the centre is in the front arc); the only tie
// between the two flanks, a point inside the base on its centre line under
// edge-extended, goes to the left.
//
// It panics on an unknown rule: validate rules with ParseArcRule.
func ArcOf(target Base, p Vec, rule ArcRule) Arc {
	l := target.Local(p)
	if inPlanes(arcPlanes(target, ArcFront, rule), l) >= -Eps {
		return ArcFront
	}
	if inPlanes(arcPlanes(target, ArcRear, rule), l) >= -Eps {
		return ArcRear
	}
	if l.X > 0 {
		return ArcRight
	}
	return ArcLeft // x = 0 here only inside the base, under edge-extended
}

// ArcClip returns the part of the target base that lies in arc a of base b,
// a convex polygon (empty when none does; one or two points when the target
// only touches the arc). The arc is taken closed, boundaries included
// within Eps.
func ArcClip(b Base, a Arc, rule ArcRule, target Base) Polygon {
	hs := arcPlanes(b, a, rule)
	c := target.Corners()
	poly := []Vec{b.Local(c[0]), b.Local(c[1]), b.Local(c[2]), b.Local(c[3])}
	for _, h := range hs {
		poly = clipHalfPlane(poly, h)
		if len(poly) == 0 {
			return nil
		}
	}
	out := make(Polygon, len(poly))
	for i, l := range poly {
		out[i] = b.World(l)
	}
	return out
}

// clipHalfPlane is one Sutherland–Hodgman step: the part of the convex
// polygon poly where h.eval >= -Eps.
func clipHalfPlane(poly []Vec, h halfPlane) []Vec {
	var out []Vec
	n := len(poly)
	for i := 0; i < n; i++ {
		cur, next := poly[i], poly[(i+1)%n]
		vc, vn := h.eval(cur), h.eval(next)
		inC, inN := vc >= -Eps, vn >= -Eps
		if inC {
			out = append(out, cur)
		}
		if inC != inN {
			t := vc / (vc - vn)
			out = append(out, cur.Lerp(next, t))
		}
	}
	return out
}

// InFrontArc reports whether the target is in the charger's front arc
// (K.4): some point of the target's base lies in the closed front arc. It is
// exact: the target rectangle is clipped by the arc's wedge (ArcClip). A
// target only touching the arc's boundary is in it, by the convention that
// boundaries belong to the front arc.
func InFrontArc(charger, target Base, rule ArcRule) bool {
	return len(ArcClip(charger, ArcFront, rule, target)) > 0
}
