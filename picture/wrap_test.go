package picture

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A caption line with a word longer than the line once grew without
// bound (issue 24: a dispute reason of one 300-character word): each
// line wrap cut is checked to make progress and keep every rune.
func TestWrapLongWord(t *testing.T) {
	for _, line := range []string{
		strings.Repeat("R", 300),
		"dispute 1 by marie (open): " + strings.Repeat("R", 300),
		"a " + strings.Repeat("Ж", 1000) + " b",
		strings.Repeat(" ", 50) + strings.Repeat("x", 50),
	} {
		for _, n := range []int{0, 20, 37, 130} {
			checkWrap(t, line, n)
		}
	}
}

// checkWrap asserts what wrap promises of any line: no line longer than
// the width, the words in order with nothing lost, and a number of lines
// bounded by the line's length.
func checkWrap(t *testing.T, line string, n int) {
	t.Helper()
	out := wrap(line, n)
	width := max(n, 20)
	if limit := utf8.RuneCountInString(line)/(width-len(wrapIndent)) + 2; len(out) > limit {
		t.Fatalf("wrap(%d runes, %d) gave %d lines, more than %d", utf8.RuneCountInString(line), n, len(out), limit)
	}
	var words []string
	for i, l := range out {
		if c := utf8.RuneCountInString(l); c > width {
			t.Fatalf("line %d of wrap(%q, %d) is %d runes, over %d", i, line, n, c, width)
		}
		words = append(words, strings.Fields(l)...)
	}
	if got, want := strings.Join(words, ""), strings.Join(strings.Fields(line), ""); got != want {
		t.Fatalf("wrap(%q, %d) lost or changed words: %q", line, n, out)
	}
}
