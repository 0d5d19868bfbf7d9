package rules

import "testing"

// TestOrderReadingIsDecideAndOdds: ReadOrderRoll reads every roll as the
// ruleset's C.3/C.5 reading does, and OrderOdds gives what Odds gives for
// a real order with the same effective rating.
func TestOrderReadingIsDecideAndOdds(t *testing.T) {
	rs := DefaultRuleset()
	for eff := -2; eff <= 14; eff++ {
		for a := 1; a <= 6; a++ {
			for b := 1; b <= 6; b++ {
				o, n, err := ReadOrderRoll(rs, "", []int{a, b}, eff)
				wo, wn := rs.Command.Resolve([]int{a, b}, eff)
				if err != nil || o != wo || n != wn {
					t.Fatalf("%d+%d against %d: %s %d, want %s %d (%v)", a, b, eff, o, n, wo, wn, err)
				}
			}
		}
		for _, sp := range []string{"", SpecialFollowMe, SpecialSteady} {
			odds, err := OrderOdds(rs, sp, eff)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, o := range odds {
				sum += o.Ways
			}
			if sum != 36 {
				t.Fatalf("rating %d %q: %d ways", eff, sp, sum)
			}
		}
	}
	if _, _, err := ReadOrderRoll(rs, "charge!", []int{1, 1}, 7); err == nil {
		t.Fatal("an unknown special was read")
	}
	if _, err := OrderOdds(rs, "charge!", 7); err == nil {
		t.Fatal("odds of an unknown special")
	}
}
