package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
)

// TestRefusalSaidFromFormat: a refusal is said from its format and values,
// never read back from its English. Its message altered after it was made
// changes nothing in Russian, nor does a wrapped refusal's; a refusal with
// no format, whose English is word for word one of its code's, is not
// translated (no reading back), unless a server said it in the language.
func TestRefusalSaidFromFormat(t *testing.T) {
	c := MustLoad()
	r := made(t, "unit ir-4 is routed and cannot move", "T.4", "unit_inactive", "unit %s is %s and cannot move", "ir-4", "routed")
	r.Message = "garbled beyond any format"
	if got := c.Refusal("ru", r, Vars{}); got != "отряд ir-4 бежит и двигаться не может" {
		t.Errorf("altered message: %q", got)
	}
	inner := made(t, "unit 33-ligne has no order this turn, so no actions", "C.3", "no_order", "unit %s has no order this turn, so no actions", "33-ligne")
	w := made(t, "the whole brigade marches: unit 33-ligne has no order this turn, so no actions", "C.3", "no_order", "the whole brigade marches: %s", inner)
	inner.Message, w.Message = "garbled", "garbled too"
	if got := c.Refusal("ru", w, Vars{}); got != "бригада марширует целиком: у отряда 33-ligne в этот ход нет приказа, а значит, нет и действий" {
		t.Errorf("wrapped: %q", got)
	}
	text := &rules.Refusal{Rule: "T.4", Code: "unit_inactive", Message: "unit ir-4 is routed and cannot move"}
	if got := c.Refusal("ru", text, Vars{}); got != text.Message {
		t.Errorf("read back: %q", got)
	}
	text.Said = map[string]string{"ru": "как сказал сервер"}
	if got := c.Refusal("ru", text, Vars{}); got != "как сказал сервер" {
		t.Errorf("said by a server: %q", got)
	}
	if got := c.Refusal("en", text, Vars{}); got != text.Message {
		t.Errorf("said by a server, in English: %q", got)
	}
}

// TestNothingReadBack: i18n says every message made by code from its
// format and values (refusals, details, the audit's findings and
// summaries, a broken chain, unsigned events, modifiers), never by reading
// its English back: no non-test file of the package imports regexp, or
// declares a reader of English (readBack, formatRegexp, compilePhrases,
// phraseWith), and Catalogue.Phrase, which read a message back, is gone.
func TestNothingReadBack(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "regexp" {
				t.Errorf("%s imports regexp", name)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			switch fn.Name.Name {
			case "readBack", "readBackFamilies", "formatRegexp", "compilePhrases", "phraseWith", "Phrase":
				t.Errorf("%s: %s reads messages back from their English", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d files", n)
	}
}

// TestMovementUsedSaid: a move of the movement phase after part of it was
// used says so in Russian too (phrase.why_half), where it once fell back
// to the English.
func TestMovementUsedSaid(t *testing.T) {
	c := MustLoad()
	r := made(t, `infantry in attack_column moves 9" in the movement phase, 2.2" already used this phase (M.4, M.6): 6.8" left, this move is 8.2"`,
		"M.4", "move_too_far", "%s in %s moves %s in the movement phase%s: %s left, this move is %s%s",
		"infantry", "attack_column", `9"`, rules.Words{Format: ", %s already used this phase (M.4, M.6)", Args: []any{`2.2"`}}, `6.8"`, `8.2"`, rules.Words{})
	if got := c.Refusal("ru", r, Vars{}); got != `пехота в построении «колонна к атаке» проходит 9,0" за фазу движения, 2,2" уже пройдено в этой фазе (M.4, M.6): осталось 6,8", а это передвижение — 8,2"` {
		t.Errorf("ru: %q", got)
	}
}

// TestCountsTakeTheirPlural: a number said before its noun takes the
// noun's form for that number in Russian (1 действие, 2 действия,
// 5 действий), negative numbers as their size, never a fixed "действий".
func TestCountsTakeTheirPlural(t *testing.T) {
	c := MustLoad()
	for _, x := range []struct {
		family, format string
		args           []any
		want           string
	}{
		{"refusal.overspent", "corrected, unit %s would have %d actions left: it has already used %s more than it would have had this turn; correct its actions_left (and where it stands) too", []any{"ir-4", -1, "1 action"}, "после исправления у отряда ir-4 осталось бы -1 действие: он уже потратил на 1 действие больше"},
		{"refusal.overspent", "corrected, unit %s would have %d actions left: it has already used %s more than it would have had this turn; correct its actions_left (and where it stands) too", []any{"ir-4", -2, "2 actions"}, "осталось бы -2 действия: он уже потратил на 2 действия больше"},
		{"refusal.overspent", "corrected, unit %s would have %d actions left: it has already used %s more than it would have had this turn; correct its actions_left (and where it stands) too", []any{"ir-4", -5, "5 actions"}, "осталось бы -5 действий: он уже потратил на 5 действий больше"},
		{"refusal.markers_below_zero", "corrected, unit %s would carry %d casualty markers: 0 or more", []any{"ir-4", -1}, "было бы -1 маркер потерь, а"},
		{"refusal.markers_below_zero", "corrected, unit %s would carry %d casualty markers: 0 or more", []any{"ir-4", -3}, "было бы -3 маркера потерь, а"},
		{"refusal.bad_correction", "the corrected roll shows %d, which is not a face of a die of %d sides", []any{5, 4}, "выпало 5, а у кубика 4 грани"},
		{"refusal.bad_correction", "the corrected roll shows %d, which is not a face of a die of %d sides", []any{7, 6}, "выпало 7, а у кубика 6 граней"},
		{"refusal.bad_correction", "the corrected roll has %d dice; it is a roll of %d dice of %d sides", []any{3, 2, 21}, "это бросок 2 куб. с 21 гранью"},
		{"refusal.bad_correction", "the corrected roll has %d dice; it is a roll of %d dice of %d sides", []any{3, 2, 6}, "это бросок 2 куб. с 6 гранями"},
		{"detail.bad_request", "%s %d: want 1 to %d events a transaction (0 or none: the default)", []any{"max_events", 5000, 1000}, "нужно от 1 до 1000 событий на транзакцию"},
		{"detail.bad_request", "%s %d: want 1 to %d events a transaction (0 or none: the default)", []any{"max_events", 5000, 21}, "нужно от 1 до 21 события на транзакцию"},
		{"detail.bad_request", "the body is over %d bytes", []any{1048576}, "тело запроса больше 1048576 байт"},
		{"detail.bad_request", "the body is over %d bytes", []any{1}, "тело запроса больше 1 байта"},
		{"detail.input", "at most %d items", []any{101}, "не больше 101 элемента"},
		{"detail.input", "at most %d items", []any{100}, "не больше 100 элементов"},
		{"detail.input", "at most %d characters (%d given)", []any{201, 300}, "не больше 201 символа (дано 300)"},
		{"detail.input", "at most %d bytes (%d given)", []any{4096, 5000}, "не больше 4096 байт (дано 5000)"},
		{"detail.input", "at most %d bytes (%d given)", []any{1, 5000}, "не больше 1 байта (дано 5000)"},
	} {
		got, ok := c.Said("ru", x.family, rules.Words{Format: x.format, Args: x.args}, "")
		if !ok || !strings.Contains(got, x.want) {
			t.Errorf("%s %v: %q, want it to hold %q", x.family, x.args, got, x.want)
		}
	}
	// The page's days, rendered by web/static/core.js from the same
	// template form.
	for _, k := range []string{"page.token.kept_hint", "page.token.from_link", "page.token.expired"} {
		if s := c.Text("ru", k); !strings.Contains(s, "{days:plural=день|дня|дней}") {
			t.Errorf("%s: %q says its days with no plural", k, s)
		}
	}
}
