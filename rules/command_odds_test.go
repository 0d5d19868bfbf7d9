package rules

import (
	"fmt"
	"testing"
)

// textOutcome is C.3 and C.5 as the seed states them, independently of the
// ruleset's tables: 6+6 blunders; above R fails; R or R-1: 1 action; R-2:
// 2; R-3 or less: 3.
func textOutcome(r, a, b int) (string, int) {
	roll := a + b
	switch {
	case a == 6 && b == 6:
		return OutcomeBlunder, 0
	case roll > r:
		return OutcomeFailed, 0
	case roll >= r-1:
		return OutcomeActions, 1
	case roll == r-2:
		return OutcomeActions, 2
	}
	return OutcomeActions, 3
}

// TestOddsAllOutcomes: for every effective rating 2..12, each of the 36
// rolls of 2D6 decided for real gives what the text says, and Odds counts
// exactly those outcomes; the same for "Follow me!" and "Steady!" (success
// at or below R, 6+6 a blunder).
func TestOddsAllOutcomes(t *testing.T) {
	base, _ := nearSetup(t)
	for r := 2; r <= 12; r++ {
		t.Run(fmt.Sprint("R=", r), func(t *testing.T) {
			s := given(base...)
			s.Sides[0].Brigades[0].General.Rating = r // r1-gen, beside r1-inf1: no modifier
			s.Sides[0].Brigades[1].General.Rating = r // r2-gen, beside r2-lc: no modifier
			s.Units["r2-lc"].Markers = 2
			for _, tc := range []struct{ special, general, unit string }{{"", "r1-gen", "r1-inf1"}, {SpecialFollowMe, "r2-gen", "r2-lc"}, {SpecialSteady, "r2-gen", "r2-lc"}} {
				c := &GiveOrder{General: tc.general, Units: []string{tc.unit}, Content: OrderContent{Action: ActionMove}, Special: tc.special}
				odds, err := Odds(s, c)
				if err != nil {
					t.Fatal(err)
				}
				if odds.Effective != r || len(odds.Modifiers) != 0 || odds.Dice != "2D6" {
					t.Fatalf("%s: effective %d, modifiers %v", tc.special, odds.Effective, odds.Modifiers)
				}
				want := map[string]int{}
				for a := 1; a <= 6; a++ {
					for b := 1; b <= 6; b++ {
						out, act := textOutcome(r, a, b)
						if tc.special != "" && out == OutcomeActions {
							out, act = OutcomeSuccess, 0
							if tc.special == SpecialFollowMe {
								act = 3
							}
						}
						want[fmt.Sprint(out, act)]++
						evs, err := Decide(s, c, NewFixedDice(a, b, 2)) // 2: hold, if it blunders
						if err != nil {
							t.Fatal(err)
						}
						res := findEvent[*OrderResolved](evs)
						if res.Outcome != out || res.Actions != act {
							t.Errorf("%s %d+%d: decided %s/%d, the text says %s/%d", tc.special, a, b, res.Outcome, res.Actions, out, act)
						}
					}
				}
				sum := 0
				for _, o := range odds.Outcomes {
					k := fmt.Sprint(o.Outcome, o.Actions)
					if o.Ways != want[k] || o.Total != 36 || o.Fraction != fmt.Sprintf("%d/36", want[k]) || o.Probability != float64(want[k])/36 {
						t.Errorf("%s %s: odds %d/%d (%v), counted %d", tc.special, k, o.Ways, o.Total, o.Probability, want[k])
					}
					sum += o.Ways
					delete(want, k)
				}
				if sum != 36 || len(want) != 0 {
					t.Errorf("%s: outcomes sum to %d; not listed: %v", tc.special, sum, want)
				}
			}
		})
	}
}

// TestOddsWithModifiers: Odds lists the modifiers Decide uses and refuses
// what Decide refuses.
func TestOddsWithModifiers(t *testing.T) {
	evs, _ := setup(t)
	s := given(evs...)
	c := &GiveOrder{General: "red-cinc", Units: []string{"r1-inf1"}, Content: OrderContent{Action: ActionMove}}
	o, err := Odds(s, c)
	if err != nil {
		t.Fatal(err)
	}
	// Rating 9, one full 12" step: 8. Fail on 9+ (10/36, 6+6 apart: 9), blunder 1,
	// 1 action on 7-8 (11), 2 on 6 (5), 3 on 5 or less (10).
	got := ""
	for _, x := range o.Outcomes {
		got += fmt.Sprintf("%s/%d:%s ", x.Outcome, x.Actions, x.Fraction)
	}
	if want := "failed/0:9/36 blunder/0:1/36 actions/1:11/36 actions/2:5/36 actions/3:10/36 "; got != want || o.Effective != 8 || len(o.Modifiers) != 1 {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	res := findEvent[*OrderResolved](mustDecide(t, s.Clone(), c, NewFixedDice(3, 3)))
	sameJSON(t, "modifiers", res.Modifiers, o.Modifiers)
	if _, err := Odds(s, &GiveOrder{General: "r1-gen", Units: []string{"r2-lc"}, Content: OrderContent{Action: ActionMove}}); err == nil || err.(*Refusal).Rule != "C.2" {
		t.Fatalf("want the C.2 refusal, got %v", err)
	}
}
