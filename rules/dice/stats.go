package dice

import (
	"fmt"
	"math"
)

// Statistics for dice audits ("whose dice ran hot"). They use floats, unlike
// the derivation, because they only summarise rolls and never produce one.

// ChiSquare returns Pearson's chi-square statistic of counts against the
// uniform distribution over len(counts) categories (faces): the sum over
// faces of (observed - expected)^2 / expected, with expected = total /
// len(counts). Compare it with ChiSquareCritical999(len(counts) - 1). It
// returns 0 when there are fewer than two categories or no observations.
// Negative counts are a caller error and make the result meaningless.
func ChiSquare(counts []int) (stat float64) {
	total := 0
	for _, c := range counts {
		total += c
	}
	if len(counts) < 2 || total == 0 {
		return 0
	}
	expected := float64(total) / float64(len(counts))
	for _, c := range counts {
		d := float64(c) - expected
		stat += d * d / expected
	}
	return stat
}

// chiSquare999 holds the 0.999 quantiles of the chi-square distribution for
// 1..20 degrees of freedom, rounded to three decimals (standard tables;
// checked against the regularised gamma function, see stats_test.go).
var chiSquare999 = [...]float64{
	1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515,
	6: 22.458, 7: 24.322, 8: 26.124, 9: 27.877, 10: 29.588,
	11: 31.264, 12: 32.909, 13: 34.528, 14: 36.123, 15: 37.697,
	16: 39.252, 17: 40.790, 18: 42.312, 19: 43.820, 20: 45.315,
}

// ChiSquareCritical999 returns the value that a chi-square statistic with df
// degrees of freedom exceeds with probability 0.001: a fair die fails a test
// against it once in a thousand audits. For df 1..20 it is the tabulated
// value; above 20 it uses the Wilson-Hilferty approximation, which there is
// at most 0.3% above the exact quantile (enough for any die up to 255 sides). It panics
// when df < 1, a programming error that must not pass an audit silently.
func ChiSquareCritical999(df int) float64 {
	if df < 1 {
		panic(fmt.Sprintf("dice: chi-square degrees of freedom %d < 1", df))
	}
	if df < len(chiSquare999) {
		return chiSquare999[df]
	}
	const z = 3.090232306167813 // standard normal 0.999 quantile
	k := float64(df)
	h := 2 / (9 * k)
	return k * math.Pow(1-h+z*math.Sqrt(h), 3)
}
