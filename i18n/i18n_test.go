package i18n

import (
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
)

func TestWebRefusalInEnglishAndRussian(t *testing.T) {
	c := MustLoad()
	r := &rules.Refusal{Rule: "C.17", Code: "move_too_far",
		Message: `infantry moves 6" per action; 1 action allows 6.0", this move is 6.1"`,
		Numbers: map[string]float64{"distance": 6.1, "allowed": 6, "per_action": 6, "actions": 1}}
	vars := Vars{Measurement: "in", Words: map[string]string{"unit": "33-ligne"}}
	if got := c.Refusal("en", r, vars); got != r.Message {
		t.Errorf("en: %q", got)
	}
	ru := c.Refusal("ru", r, vars)
	for _, want := range []string{`6,0" за действие`, "1 действ.", `6,0"`, `6,1"`} {
		if !strings.Contains(ru, want) {
			t.Errorf("ru: %q lacks %q", ru, want)
		}
	}
	// In centimetres the lengths say so.
	if ru := c.Refusal("ru", r, Vars{Measurement: "cm"}); !strings.Contains(ru, "6,1 см") {
		t.Errorf("ru cm: %q", ru)
	}
	// A code without a template, or a template naming a word the refusal
	// lacks, falls back to the English message: nothing is lost.
	other := &rules.Refusal{Rule: "X.1", Code: "no_such_code", Message: "the English words"}
	if got := c.Refusal("ru", other, vars); got != other.Message {
		t.Errorf("fallback: %q", got)
	}
	noUnit := &rules.Refusal{Rule: "C.3", Code: "no_order", Message: "unit u has no order this turn, so no actions"}
	if got := c.Refusal("ru", noUnit, Vars{}); got != noUnit.Message {
		t.Errorf("missing word: %q", got)
	}
	if got := c.Refusal("ru", noUnit, vars); !strings.Contains(got, "33-ligne") || !strings.Contains(got, "нет приказа") {
		t.Errorf("with the unit: %q", got)
	}
	// A rule-specific template wins over the code's.
	c11 := &rules.Refusal{Rule: "C.11", Code: "unit_failed", Message: "x"}
	if got := c.Refusal("ru", c11, vars); !strings.Contains(got, "главнокомандующий") {
		t.Errorf("C.11: %q", got)
	}
}

func TestWebCataloguesComplete(t *testing.T) {
	c := MustLoad()
	ru := map[string]bool{}
	for _, k := range c.Keys("ru") {
		ru[k] = true
	}
	for _, k := range c.Keys("en") {
		if !ru[k] {
			t.Errorf("ru.json lacks %q", k)
		}
	}
}

func TestWebNegotiate(t *testing.T) {
	for _, c := range []struct{ query, accept, def, want string }{
		{"", "", "en", "en"},
		{"", "", "ru", "ru"},
		{"ru", "en-GB", "en", "ru"},
		{"fr", "ru-RU,ru;q=0.9,en;q=0.8", "en", "ru"},
		{"", "de-DE,en;q=0.3,ru;q=0.7", "en", "ru"},
		{"", "de-DE", "ru", "ru"},
		{"", "ru;q=0", "en", "en"},
	} {
		if got := Negotiate(c.query, c.accept, c.def); got != c.want {
			t.Errorf("Negotiate(%q, %q, %q) = %q, want %q", c.query, c.accept, c.def, got, c.want)
		}
	}
}
