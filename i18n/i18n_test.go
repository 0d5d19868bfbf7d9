package i18n

import (
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
)

// made is a refusal made as the rules make it (rules.Refuse: a format and
// its values), whose English must be message.
func made(t *testing.T, message, rule, code, format string, a ...any) *rules.Refusal {
	t.Helper()
	r := rules.Refuse(rule, code, format, a...)
	if r.Message != message {
		t.Fatalf("made %q, want %q", r.Message, message)
	}
	return r
}

func TestWebRefusalInEnglishAndRussian(t *testing.T) {
	c := MustLoad()
	r := made(t, `infantry moves 6" per action, 6.0" in 1 action; this move is 6.1" and needs 2 actions`,
		"C.17", "move_too_far", "%s moves %s per action, %s in %s; this move is %s and needs %s%s",
		rules.Words{Format: "%s", Args: []any{"infantry"}}, `6"`, `6.0"`, "1 action", `6.1"`, "2 actions", rules.Words{})
	r.Numbers = map[string]float64{"distance": 6.1, "allowed": 6, "per_action": 6, "actions": 1, "actions_needed": 2}
	vars := Vars{Measurement: "in", Words: map[string]string{"unit": "33-ligne"}}
	if got := c.Refusal("en", r, vars); got != r.Message {
		t.Errorf("en: %q", got)
	}
	// Russian says the same message, every word and number of it.
	if ru := c.Refusal("ru", r, vars); ru != `пехота: 6,0" за действие; 1 действие позволяет 6,0", а это передвижение — 6,1", ему нужно 2 действия` {
		t.Errorf("ru: %q", ru)
	}
	// In centimetres, with the turns and terrain the move cost, and the
	// formation the unit moves in.
	cm := made(t, `light_infantry attack_column moves 10 cm per action, 20.0 cm in 2 actions; this move is 21.25 cm and needs 3 actions (path 18.0 cm, turning 3.25 cm)`,
		"C.17", "move_too_far", "%s moves %s per action, %s in %s; this move is %s and needs %s%s",
		rules.Words{Format: "%s %s", Args: []any{"light_infantry", "attack_column"}}, "10 cm", "20.0 cm", "2 actions", "21.25 cm", "3 actions",
		rules.Words{Format: " (path %s, turning %s)", Args: []any{"18.0 cm", "3.25 cm"}})
	if ru := c.Refusal("ru", cm, Vars{}); ru != `лёгкая пехота в построении «колонна к атаке»: 10,0 см за действие; 2 действия позволяют 20,0 см, а это передвижение — 21,25 см, ему нужно 3 действия (путь 18,0 см, повороты 3,25 см)` {
		t.Errorf("ru cm: %q", ru)
	}
	// A message no format of its code has, or a code without formats, or
	// a refusal with no format at all, falls back to the English message:
	// nothing is lost.
	for _, other := range []*rules.Refusal{
		made(t, "the English words", "X.1", "no_such_code", "the English words"),
		{Rule: "X.1", Code: "no_order", Message: "unit u has no order this turn, so no actions"},
		made(t, "unit u has no order, worded as the rules never did", "C.3", "no_order", "unit %s has no order, worded as the rules never did", "u"),
		// A part of a message in words no phrase knows.
		made(t, `infantry moves 6" per action, 6.0" in 1 action; this move is 6.1" and needs 2 actions (by moonlight)`,
			"C.17", "move_too_far", "%s moves %s per action, %s in %s; this move is %s and needs %s%s",
			rules.Words{Format: "%s", Args: []any{"infantry"}}, `6"`, `6.0"`, "1 action", `6.1"`, "2 actions", rules.Words{Format: " (by moonlight)"}),
	} {
		if got := c.Refusal("ru", other, vars); got != other.Message {
			t.Errorf("fallback: %q", got)
		}
	}
	// The values come from the refusal itself: no command words needed.
	noUnit := made(t, "unit 33-ligne has no order this turn, so no actions", "C.3", "no_order", "unit %s has no order this turn, so no actions", "33-ligne")
	if got := c.Refusal("ru", noUnit, Vars{}); got != "у отряда 33-ligne в этот ход нет приказа, а значит, нет и действий" {
		t.Errorf("no_order: %q", got)
	}
	// One code, several messages: each its own words.
	c11 := made(t, "unit ir-4 already failed an order this turn: not even the commander-in-chief may order it",
		"C.11", "unit_failed", "unit %s already failed an order this turn: not even the commander-in-chief may order it", "ir-4")
	if got := c.Refusal("ru", c11, vars); !strings.Contains(got, "даже главнокомандующий") || !strings.Contains(got, "ir-4") {
		t.Errorf("C.11: %q", got)
	}
	// Words of the rules (a status) in Russian.
	routed := made(t, "unit ir-4 is routed and cannot move", "T.4", "unit_inactive", "unit %s is %s and cannot move", "ir-4", "routed")
	if got := c.Refusal("ru", routed, vars); got != "отряд ir-4 бежит и двигаться не может" {
		t.Errorf("T.4: %q", got)
	}
}

// TestCataloguesComplete: a message exists in both languages or in
// neither. Event descriptions (event.*) are one exception by design:
// their English is the rules' own (rules.Describe), and
// TestWebEventTemplatesComplete checks that each event type has its
// Russian, and here that each Russian template belongs to an event type
// or is a part another one names. The CLI's help (cli.help.*, from
// help.ru.json) is the other: its English is the commands' own Short,
// Long, Example and flag usages in cmd/ledger and cobra's, and a copy in
// an English catalogue would be a second source nothing reads, free to
// drift; TestHelpRussianComplete (cmd/ledger) checks that every command
// and flag has its Russian and that no Russian key is left over.
func TestCataloguesComplete(t *testing.T) {
	c := MustLoad()
	for _, pair := range [][2]string{{"en", "ru"}, {"ru", "en"}} {
		have := map[string]bool{}
		for _, k := range c.Keys(pair[1]) {
			have[k] = true
		}
		for _, k := range c.Keys(pair[0]) {
			if pair[0] == "ru" && (strings.HasPrefix(k, "event.") || strings.HasPrefix(k, "cli.help.")) {
				continue
			}
			if pair[0] == "en" && strings.HasPrefix(k, sayPrefix) {
				continue // English words for a format of English (phrase.go)
			}
			if !have[k] {
				t.Errorf("%s.json has %q, %s.json does not", pair[0], k, pair[1])
			}
		}
	}
	types := map[string]bool{}
	for _, ty := range eventTypes(t) {
		types[ty] = true
	}
	named := map[string]bool{}
	for _, k := range c.Keys("ru") {
		for _, m := range regexp.MustCompile(`each=([^|}:]+)`).FindAllStringSubmatch(c.texts["ru"][k], -1) {
			named[m[1]] = true
		}
	}
	for _, k := range c.Keys("ru") {
		if typ, ok := strings.CutPrefix(k, "event."); ok && !types[typ] && !named[k] {
			t.Errorf("ru.json has %q, which is no event type and no part of another template", k)
		}
	}
	// Empty texts are gaps too (a phrase for an empty part may be empty).
	for _, lang := range Languages {
		for _, k := range c.Keys(lang) {
			if c.texts[lang][k] == "" && !strings.HasPrefix(k, "phrase.") {
				t.Errorf("%s.json: %q is empty", lang, k)
			}
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

// TestHelpCatalogueMerged: help.ru.json's texts are ru's, and a key that
// help.<lang>.json shares with <lang>.json is refused, by name.
func TestHelpCatalogueMerged(t *testing.T) {
	c := MustLoad()
	if s, ok := c.Lookup("ru", "cli.help.template.usage"); !ok || s != "Использование:" {
		t.Errorf("cli.help.template.usage: %q, %v", s, ok)
	}
	if _, ok := c.Lookup("en", "cli.help.template.usage"); ok {
		t.Error("English has the Russian help's key")
	}
	err := mergeHelp("ru", map[string]string{"cli.help.ledger.short": "twice"})
	if err == nil || !strings.Contains(err.Error(), "cli.help.ledger.short") {
		t.Errorf("a key in both files: %v", err)
	}
}
