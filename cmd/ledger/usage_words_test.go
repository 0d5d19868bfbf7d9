package main

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/i18n"
)

// usageFormats reads cmd/ledger's non-test sources and returns every
// English format a usage error is made with, by where: usagef's format,
// a rules.Words{Format: ...} literal's and joinWords' pair (the words of a
// value said by its own entry), and each problem(...) of the configuration
// (config/*.go).
func usageFormats(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := map[string]string{}
	lit := func(e ast.Expr) {
		bl, ok := e.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(bl.Value)
		if err != nil {
			t.Fatal(err)
		}
		out[s] = fset.Position(bl.Pos()).String()
	}
	// The configuration's problems (config.Problem), said by the CLI's
	// exit as a usage error's words.
	cfgNames, err := filepath.Glob(filepath.Join("..", "..", "config", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cfgNames {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if x, ok := n.(*ast.CallExpr); ok {
				if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "problem" && len(x.Args) >= 1 {
					lit(x.Args[0])
				}
			}
			return true
		})
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				id, ok := x.Fun.(*ast.Ident)
				if !ok {
					return true
				}
				switch {
				case id.Name == "usagef" && len(x.Args) >= 1:
					if _, ok := x.Args[0].(*ast.BasicLit); !ok {
						t.Errorf("%s: usagef with a format that is not a literal", fset.Position(x.Pos()))
					}
					lit(x.Args[0])
				case id.Name == "joinWords" && len(x.Args) == 2:
					lit(x.Args[1])
				}
			case *ast.CompositeLit:
				sel, ok := x.Type.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Words" {
					return true
				}
				for _, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, _ := kv.Key.(*ast.Ident); k != nil && k.Name == "Format" {
							lit(kv.Value)
						}
					}
				}
			}
			return true
		})
	}
	return out
}

// TestUsageFormatsHaveRussian fails when a usage error's format (usagef's,
// cmd/ledger/*.go) has no entry "detail.usage#N" in en.json, or its entry
// no Russian in ru.json: it would be said in English under --lang ru. And
// when en.json keeps a format no code makes any more.
func TestUsageFormatsHaveRussian(t *testing.T) {
	src := usageFormats(t)
	if len(src) < 40 {
		t.Fatalf("only %d usage formats found in the sources: the reader is broken", len(src))
	}
	cat := messages()
	have := map[string]string{} // Go format -> key
	for key, f := range cat.Formats("detail.usage") {
		have[i18n.GoFormat(f)] = key
	}
	var missing []string
	for f, pos := range src {
		key, ok := have[f]
		if !ok {
			missing = append(missing, pos+": "+strconv.Quote(f)+" has no detail.usage#N in en.json")
			continue
		}
		if _, ok := cat.Lookup("ru", key); !ok {
			missing = append(missing, pos+": "+key+" has no Russian in ru.json")
		}
	}
	for f, key := range have {
		if _, ok := src[f]; !ok {
			missing = append(missing, "en.json "+key+": "+strconv.Quote(f)+" is made by no code (stale)")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Error(m)
	}
}

// TestUsageErrorsInRussian: the CLI's own usage errors (usagef), run as a
// user runs them with --lang ru or LEDGER_LANG=ru, are said in Russian,
// flag names and values kept, exit 2 (they were English: "bench: --batch
// at most 10000").
func TestUsageErrorsInRussian(t *testing.T) {
	t.Chdir(t.TempDir())
	english := regexp.MustCompile(`\b(at most|at least|give|want|events are numbered|no such|or more|unknown|not one of)\b`)
	cases := []struct {
		env        string
		setenv     []string
		args       []string
		en, ru     string
		enAndRuSay string // kept as typed
	}{
		{"", nil, []string{"--lang", "ru", "bench", "--batch", "20000"}, "bench: --batch at most 10000", "bench: --batch — не больше 10000", "--batch"},
		// A league's flag without --league: said, not ignored while another
		// benchmark runs.
		{"", nil, []string{"--lang", "ru", "bench", "--parts", "zz"}, "bench: --parts needs --league", "bench: --parts нужен вместе с --league", "--parts"},
		{"", nil, []string{"--lang=ru", "backup"}, "backup: give the file to write with -f", "backup: укажите файл для записи флагом -f", "-f"},
		{"ru", nil, []string{"report", "c/b", "--format", "pdf"}, `--format "pdf": html, bbcode or markdown`, "--format «pdf»: html, bbcode или markdown", "pdf"},
		{"", nil, []string{"--lang", "ru", "move", "c/b", "u", "--to", "1,x"}, `--to "1,x": want X,Y in the battle's unit`, "--to «1,x»: нужно X,Y в единицах битвы", "1,x"},
		{"", nil, []string{"--lang", "ru", "--output", "xml", "state", "c/b"}, `--output "xml": want table or json`, "--output «xml»: нужно table или json", "xml"},
		// Before the configuration is loaded; two variables said by pairs.
		{"ru", []string{"LEDGER_HTTP_ADRR", "LEDGER_DATA_DIRR"}, []string{"state", "c/b"},
			"environment: unknown variable LEDGER_DATA_DIRR (did you mean LEDGER_DATA_DIR?), unknown variable LEDGER_HTTP_ADRR (did you mean LEDGER_HTTP_ADDR?): the ledger reads",
			"окружение: неизвестная переменная LEDGER_DATA_DIRR (может быть, LEDGER_DATA_DIR?), неизвестная переменная LEDGER_HTTP_ADRR (может быть, LEDGER_HTTP_ADDR?): ledger читает",
			"LEDGER_HTTP_ADRR"},
	}
	for _, tc := range cases {
		for _, name := range tc.setenv {
			t.Setenv(name, "x")
		}
		for _, lang := range []string{"en", "ru"} {
			args := tc.args
			if lang == "en" {
				args = nil
				for i := 0; i < len(tc.args); i++ {
					switch {
					case tc.args[i] == "--lang":
						i++
					case strings.HasPrefix(tc.args[i], "--lang="):
					default:
						args = append(args, tc.args[i])
					}
				}
				t.Setenv("LEDGER_LANG", "en")
			} else {
				t.Setenv("LEDGER_LANG", tc.env)
			}
			var out, errb bytes.Buffer
			code := Main(context.Background(), args, strings.NewReader(""), &out, &errb)
			errs := errb.String()
			want := tc.en
			if lang == "ru" {
				want = tc.ru
			}
			if code != exitUsage || !strings.Contains(errs, want) || !strings.Contains(errs, tc.enAndRuSay) {
				t.Errorf("%s: ledger %s: exit %d, stderr %q; want exit %d saying %q", lang, strings.Join(args, " "), code, errs, exitUsage, want)
			}
			if lang == "ru" {
				if m := english.FindString(errs); m != "" {
					t.Errorf("ru: ledger %s: English %q left in %q", strings.Join(args, " "), m, errs)
				}
			}
		}
	}
}
