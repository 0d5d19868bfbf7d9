// Small helpers every chapter uses: names, numbers, maps and text.

package rules

import (
	"math"
	"sort"
	"unicode"
	"unicode/utf8"
)

// validName reports whether s can be an id of a side, general or unit: not
// empty, at most 64 characters, no spaces or control characters.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// round6 keeps recorded distances readable without changing any decision.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// AppendFold appends to dst an identifier as its case folds: each
// character the least of its case orbit (unicode.SimpleFold), so that two
// ids fold alike exactly when strings.EqualFold says they are equal
// ("33-ligne", "33-LIGNE"; "ſide", "SIDE").
func AppendFold(dst, id []byte) []byte {
	for _, r := range string(id) {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		dst = utf8.AppendRune(dst, least)
	}
	return dst
}
