package i18n

import (
	"encoding/json"
	"go/ast"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
)

// TestTermsOfTheRuleset: every unit type and formation the ruleset file
// defines (rules/rulesets/default.yaml, by id), and every battle status,
// has a word in both languages, for the ledger (term.) and for the page
// (page.term.); a word is not the id it stands for ("light infantry", not
// light_infantry), so that no id reaches a player as if it were a word.
func TestTermsOfTheRuleset(t *testing.T) {
	c := MustLoad()
	rs := rules.DefaultRuleset()
	ids := map[string][]string{"battle_status": {rules.StatusSetup, rules.StatusDeployed, rules.StatusInProgress, rules.StatusEnded}}
	for id := range rs.UnitTypes {
		ids["type"] = append(ids["type"], id)
	}
	for id := range rs.Formations {
		ids["formation"] = append(ids["formation"], id)
	}
	if len(ids["type"]) < 10 || len(ids["formation"]) < 10 {
		t.Fatalf("the ruleset defines %d unit types and %d formations", len(ids["type"]), len(ids["formation"]))
	}
	for kind, values := range ids {
		sort.Strings(values)
		for _, id := range values {
			for _, lang := range Languages {
				for _, key := range []string{"term." + kind + "." + id, "page.term." + pageKind(kind) + "." + id} {
					w, ok := c.texts[lang][key]
					switch {
					case !ok:
						t.Errorf("%s.json lacks %s", lang, key)
					case strings.Contains(w, "_") || lang != "en" && w == id:
						t.Errorf("%s.json: %s is %q, an id", lang, key, w)
					}
				}
			}
		}
	}
	if got := c.Term("en", "type", "light_infantry"); got != "light infantry" {
		t.Errorf("en: %q", got)
	}
	if got := c.Term("ru", "type", "light_infantry"); got != "лёгкая пехота" {
		t.Errorf("ru: %q", got)
	}
	if got := c.Term("ru", "battle_status", rules.StatusInProgress); got != "идёт" {
		t.Errorf("ru: %q", got)
	}
	if got := c.Term("en", "battle_status", rules.StatusInProgress); got != "in progress" {
		t.Errorf("en: %q", got)
	}
}

// pageKind is the page's name of a kind of term: the page calls a
// battle's status and a unit's by one kind.
func pageKind(kind string) string {
	if kind == "battle_status" {
		return "status"
	}
	return kind
}

// TestEnglishPlural: English has one form for 1 and another for the rest.
func TestEnglishPlural(t *testing.T) {
	forms := []string{"brigade", "brigades"}
	for n, want := range map[float64]string{0: "brigades", 1: "brigade", 2: "brigades", 11: "brigades", 21: "brigades", 1.5: "brigades"} {
		if got := pluralForm("en", n, forms); got != want {
			t.Errorf("%v: %s, want %s", n, got, want)
		}
	}
}

// TestEnglishLengthsHaveUnits: the English description of an event that
// measures says the battle's unit with each length ("moved 10.0 cm"), as
// the Russian does; the rules' own words print bare numbers.
func TestEnglishLengthsHaveUnits(t *testing.T) {
	c := MustLoad()
	for _, tc := range []struct {
		ev   rules.Event
		want string
	}{
		{&rules.InitiativeTaken{Unit: "u1", Actions: 1, Content: rules.OrderContent{Action: "formation", Formation: "attack_column"}, Enemy: "e1", Distance: 12.5, Range: 15},
			"u1 takes initiative (C.15): 1 action to formation to attack column, no roll; enemy e1 is 12.5 cm away, within 15.0 cm"},
		{&rules.FormationTested{Unit: "u1", Formation: "square", Enemy: "e1", Distance: 8, Roll: rules.RollRecord{Total: 4}, PassAtLeast: 5},
			"u1 took the formation test to form square, enemy e1 8.0 cm away (M.9): rolled 4, needs 5: failed: it stays as it was"},
		{&rules.BlunderCarriedOut{Unit: "u1", Roll: 3, Result: "move_left", Distance: 4, Planned: 10},
			"u1 blundered (C.5, table 3: move left): moved 4.0 cm of 10.0 cm, (0.0,0.0) -> (0.0,0.0)"},
		{&rules.GeneralMoved{General: "g1", Distance: 10, Moved: 10, Allowed: 30},
			"general g1 moved 10.0 cm (10.0 cm of 30.0 cm this phase, M.2): (0.0,0.0) -> (0.0,0.0)"},
	} {
		payload, err := json.Marshal(tc.ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Event("en", tc.ev.EventType(), payload, "cm", rules.Describe(tc.ev)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.ev.EventType(), got, tc.want)
		}
	}
}

// TestEnglishRefusalsSayTerms: an English refusal names a unit's type, a
// formation and a battle's status by their words, not their ids, and says
// every number the rules printed.
func TestEnglishRefusalsSayTerms(t *testing.T) {
	c := MustLoad()
	moveFormat := "%s moves %s per action, %s in %s; this move is %s and needs %s%s"
	for _, tc := range []struct {
		r    *rules.Refusal
		want string
	}{
		{made(t, `light_infantry moves 6" per action, 18.0" in 3 actions; this move is 19.2" and needs 4 actions`, "C.17", "move_too_far", moveFormat,
			rules.Words{Format: "%s", Args: []any{"light_infantry"}}, `6"`, `18.0"`, "3 actions", `19.2"`, "4 actions", rules.Words{}),
			`light infantry moves 6" per action, 18.0" in 3 actions; this move is 19.2" and needs 4 actions`},
		{made(t, `medium_artillery limbered moves 10 cm per action, 10.0 cm in 1 action; this move is 21.25 cm and needs 3 actions (path 18.0 cm, turning 3.25 cm)`, "C.17", "move_too_far", moveFormat,
			rules.Words{Format: "%s %s", Args: []any{"medium_artillery", "limbered"}}, "10 cm", "10.0 cm", "1 action", "21.25 cm", "3 actions", rules.Words{Format: " (path %s, turning %s)", Args: []any{"18.0 cm", "3.25 cm"}}),
			`medium artillery (limbered) moves 10 cm per action, 10.0 cm in 1 action; this move is 21.25 cm and needs 3 actions (path 18.0 cm, turning 3.25 cm)`},
		{made(t, `the battle has not started (it is in_progress)`, "battle", "not_started", "the battle has not started (it is %s)", "in_progress"),
			`the battle has not started (it is in progress)`},
		{made(t, `unit ir-4 is off_table and cannot move`, "T.4", "unit_inactive", "unit %s is %s and cannot move", "ir-4", "off_table"),
			`unit ir-4 is off the table and cannot move`},
		{made(t, `a message no format matches, light_infantry as is`, "C.17", "move_too_far", "a message no format matches, %s as is", "light_infantry"),
			`a message no format matches, light_infantry as is`},
	} {
		if got := c.Refusal("en", tc.r, Vars{}); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.r.Code, got, tc.want)
		}
	}
}

// TestRefusalNumbersHaveWords: every number a refusal of the rules carries
// (Refusal.with("name", v), read from rules/*.go) has its word on the page
// in both languages (page.term.number.<name>), so that the refusal box
// lists "actions needed 2", not actions_needed.
func TestRefusalNumbersHaveWords(t *testing.T) {
	c := MustLoad()
	fset := token.NewFileSet()
	names := map[string]bool{}
	for _, f := range parseDir(t, fset, "rules") {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "with" {
				for i := 0; i < len(call.Args); i += 2 {
					if name, ok := literal(call.Args[i]); ok {
						names[name] = true
					}
				}
			}
			return true
		})
	}
	if len(names) < 40 {
		t.Fatalf("only %d numbers found in the rules' refusals", len(names))
	}
	for name := range names {
		for _, lang := range Languages {
			if w := c.texts[lang]["page.term.number."+name]; w == "" || strings.Contains(w, "_") {
				t.Errorf("%s.json: page.term.number.%s is %q", lang, name, w)
			}
		}
	}
}

// TestTokenIsTokenInRussian: a player's (or an operator's) token is
// "токен" in every Russian line, as the page says it; "ключ" is the
// ledger's signing key, a key file or a map key only. An entry is a
// token's when its English says "token" and no "key", or when it is one
// of the events that name a token's hash.
func TestTokenIsTokenInRussian(t *testing.T) {
	read := func(name string) map[string]string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	en, ru, help := read("en.json"), read("ru.json"), read("help.ru.json")
	key := regexp.MustCompile(`(^|[^\p{L}])[Кк]люч`)
	tokens := 0
	for _, m := range []map[string]string{ru, help} {
		for k, v := range m {
			e := strings.ToLower(en[k])
			if !(strings.Contains(e, "token") && !strings.Contains(e, "key")) &&
				k != "event.campaign.player_added" && k != "event.campaign.token_reissued" {
				continue
			}
			tokens++
			if key.MatchString(v) {
				t.Errorf("%s says a token as «ключ»: %q", k, v)
			}
		}
	}
	if tokens < 8 {
		t.Errorf("only %d entries of a token found: the test reads the wrong files", tokens)
	}
}
