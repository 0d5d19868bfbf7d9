package dice

import (
	"math"
	"testing"
)

func TestChiSquare(t *testing.T) {
	cases := []struct {
		counts []int
		want   float64
	}{
		{[]int{10, 10, 10, 10, 10, 10}, 0},
		{[]int{20, 0}, 20},                       // (10^2 + 10^2) / 10
		{[]int{5, 10, 15}, 5},                    // (25 + 0 + 25) / 10
		{[]int{100, 90, 110, 95, 105, 100}, 2.5}, // (0+100+100+25+25+0) / 100
		{nil, 0},
		{[]int{7}, 0},
		{[]int{0, 0, 0}, 0},
	}
	for _, c := range cases {
		if got := ChiSquare(c.counts); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ChiSquare(%v) = %v, want %v", c.counts, got, c.want)
		}
	}
}

// TestChiSquareCritical999 checks the table at a few points and the
// Wilson-Hilferty branch against exact quantiles (computed by bisection on
// the regularised upper incomplete gamma function, in Python, once).
func TestChiSquareCritical999(t *testing.T) {
	exact := map[int]float64{
		1: 10.828, 5: 20.515, 20: 45.315,
		21: 46.7970, 25: 52.6197, 30: 59.7031, 50: 86.6608, 100: 149.4493, 254: 329.3828,
	}
	for df, want := range exact {
		got := ChiSquareCritical999(df)
		if df <= 20 && got != want {
			t.Errorf("df %d: %v, want %v", df, got, want)
		}
		if rel := (got - want) / want; rel < -1e-4 || rel > 0.003 {
			t.Errorf("df %d: %v, exact %v (relative %.5f)", df, got, want, rel)
		}
	}
	for df := 2; df <= 300; df++ {
		if ChiSquareCritical999(df) <= ChiSquareCritical999(df-1) {
			t.Errorf("critical value not increasing at df %d", df)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("df 0 did not panic")
		}
	}()
	ChiSquareCritical999(0)
}
