package geom

import "testing"

func TestArcOf(t *testing.T) {
	// Target 4 wide, 2 deep at the origin facing north: its diagonals run
	// through (±2, ±1), slope 1/2.
	target := box(0, 0, 4, 2)
	cases := []struct {
		rule ArcRule
		p    Vec
		want Arc
	}{
		{ArcRuleDiagonals, Vec{0, 5}, ArcFront},
		{ArcRuleDiagonals, Vec{10, 5}, ArcFront}, // on the front-right diagonal: front wins
		{ArcRuleDiagonals, Vec{10, 5.01}, ArcFront},
		{ArcRuleDiagonals, Vec{10, 4.99}, ArcRight},
		{ArcRuleDiagonals, Vec{-10, 4.99}, ArcLeft},
		{ArcRuleDiagonals, Vec{-10, 5}, ArcFront},
		{ArcRuleDiagonals, Vec{0, -3}, ArcRear},
		{ArcRuleDiagonals, Vec{10, -5}, ArcRear}, // on the rear-right diagonal: rear wins
		{ArcRuleDiagonals, Vec{10, -4.99}, ArcRight},
		{ArcRuleDiagonals, Vec{2, 1}, ArcFront}, // the corner itself
		{ArcRuleDiagonals, Vec{0, 0}, ArcFront}, // the centre
		{"", Vec{-10, 4.99}, ArcLeft},           // empty rule = default
		{ArcRuleQuadrants, Vec{10, 9.99}, ArcRight},
		{ArcRuleQuadrants, Vec{10, 10}, ArcFront},
		{ArcRuleQuadrants, Vec{10, 5}, ArcRight}, // front under diagonals
		{ArcRuleQuadrants, Vec{-10, -10}, ArcRear},
		{ArcRuleEdgeExtended, Vec{10, 1}, ArcFront}, // level with the front edge
		{ArcRuleEdgeExtended, Vec{10, 0.99}, ArcRight},
		{ArcRuleEdgeExtended, Vec{-30, 1.5}, ArcFront},
		{ArcRuleEdgeExtended, Vec{-10, -1}, ArcRear},
		{ArcRuleEdgeExtended, Vec{-10, 0}, ArcLeft},
		{ArcRuleEdgeExtended, Vec{0, 0.5}, ArcLeft}, // inside, on the centre line
		{ArcRuleEdgeExtended, Vec{0, 1}, ArcFront},  // the leader point
		{ArcRuleEdgeExtended, Vec{0, 0}, ArcLeft},
	}
	for _, c := range cases {
		if got := ArcOf(target, c.p, c.rule); got != c.want {
			t.Errorf("%s: ArcOf(%v) = %s, want %s", c.rule, c.p, got, c.want)
		}
	}
	// Facing east, its left is the north.
	east := Base{Width: 4, Depth: 2, Facing: 90}
	for p, want := range map[Vec]Arc{{5, 0}: ArcFront, {0, 5}: ArcLeft, {0, -5}: ArcRight, {-5, 0}: ArcRear} {
		if got := ArcOf(east, p, DefaultArcRule); got != want {
			t.Errorf("facing east: ArcOf(%v) = %s, want %s", p, got, want)
		}
	}
}

func TestParseArcRule(t *testing.T) {
	for s, want := range map[string]ArcRule{"": ArcRuleDiagonals, "diagonals": ArcRuleDiagonals, "quadrants": ArcRuleQuadrants, "edge-extended": ArcRuleEdgeExtended} {
		if got, err := ParseArcRule(s); err != nil || got != want {
			t.Errorf("ParseArcRule(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseArcRule("hexes"); err == nil {
		t.Errorf("ParseArcRule(hexes): want an error")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("ArcOf with an unknown rule did not panic")
		}
	}()
	ArcOf(box(0, 0, 1, 1), Vec{}, "hexes")
}

func TestInFrontArc(t *testing.T) {
	// Charger 4x2 at the origin facing north: its front arc (diagonals) is
	// y >= |x|/2.
	ch := box(0, 0, 4, 2)
	cases := []struct {
		name   string
		rule   ArcRule
		target Base
		want   bool
	}{
		{"dead ahead", ArcRuleDiagonals, box(0, 10, 2, 2), true},
		{"out to the side", ArcRuleDiagonals, box(10, 0, 2, 2), false},
		{"only its corner in the arc", ArcRuleDiagonals, box(10, 4, 2, 2), true}, // corner (9,5): 5 >= 4.5
		{"corner exactly on the diagonal", ArcRuleDiagonals, box(10, 3.5, 2, 2), true},
		{"corner a hair off the diagonal", ArcRuleDiagonals, box(10, 3.499, 2, 2), false},
		{"behind", ArcRuleDiagonals, box(0, -10, 2, 2), false},
		{"wide target straddling", ArcRuleDiagonals, Base{Center: Vec{0, 20}, Facing: 90, Width: 50, Depth: 1}, true},
		{"quadrants: corner at 45 degrees", ArcRuleQuadrants, box(10, 10, 2, 2), true},
		{"quadrants: below 45 degrees", ArcRuleQuadrants, box(10, 7.9, 2, 2), false},
		{"edge-extended: beside but ahead", ArcRuleEdgeExtended, box(10, 2.5, 2, 2), true},
		{"edge-extended: abreast, level", ArcRuleEdgeExtended, box(10, 0, 2, 2), true}, // front edge on the line
		{"edge-extended: a hair back", ArcRuleEdgeExtended, box(10, -0.001, 2, 2), false},
	}
	for _, c := range cases {
		if got := InFrontArc(ch, c.target, c.rule); got != c.want {
			t.Errorf("%s: InFrontArc = %v, want %v (clip %v)", c.name, got, c.want, ArcClip(ch, ArcFront, c.rule, c.target))
		}
	}
	// A target x 9..11, y 4..6 straddles the front-right diagonal y = x/2:
	// above it lies a trapezoid 1.5 tall at x=9 and 0.5 at x=11, area 2.
	clip := ArcClip(ch, ArcFront, ArcRuleDiagonals, box(10, 5, 2, 2))
	checkNear(t, "clipped area in front", clip.Area(), 2)
	checkNear(t, "clipped area right", ArcClip(ch, ArcRight, ArcRuleDiagonals, box(10, 5, 2, 2)).Area(), 2)
	if got := ArcClip(ch, ArcRear, ArcRuleDiagonals, box(10, 5, 2, 2)); len(got) != 0 {
		t.Errorf("rear clip = %v, want empty", got)
	}
}
