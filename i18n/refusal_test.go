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
