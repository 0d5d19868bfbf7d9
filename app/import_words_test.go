package app_test

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/i18n"
)

// brokenExports are a played battle's export, broken in ways that
// audit.ReadExport refuses with a *audit.FormatError, by name.
func brokenExports(t *testing.T, p *played) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := p.op.Export(context.Background(), p.key, app.ExportOptions{Umpire: true}, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) < 4 {
		t.Fatalf("an export of %d lines", len(lines))
	}
	with := func(i int, s string) string {
		l := append([]string(nil), lines...)
		l[i] = s
		return strings.Join(l, "\n") + "\n"
	}
	return map[string]string{
		"a header that is not JSON":  with(0, "garbage"),
		"an empty file":              "",
		"an unknown format":          with(0, strings.Replace(lines[0], `"ledger-export-v2"`, `"ledger-export-v9"`, 1)),
		"no events declared":         with(0, regexp.MustCompile(`"events":\d+`).ReplaceAllString(lines[0], `"events":0`)),
		"a broken event line":        with(2, "{broken"),
		"two JSON values on a line":  with(2, lines[2]+" {}"),
		"an unknown field on a line": with(2, strings.Replace(lines[2], `"raw":`, `"rawx":`, 1)),
		"truncated":                  strings.Join(lines[:3], "\n") + "\n",
	}
}

// causes are the words of the system's own errors a FormatError names (a
// JSON decoder's), said as the system says them, and the format's name.
func causes(fe *audit.FormatError) []string {
	out := []string{"JSON"}
	for _, a := range fe.Words.Args {
		if err, ok := a.(error); ok {
			out = append(out, err.Error())
		}
	}
	return out
}

// TestExportFormatErrorsSaidInRussian: an export file that cannot be read
// (audit.FormatError) is said in Russian from its format and values, the
// whole line (phrase.audit.export_line) and its reason
// (phrase.audit.export_file), with no English but the decoder's own words;
// in English as it always printed. Before, the reason was English words
// only (FormatError.Reason) and said in English in a Russian message.
func TestExportFormatErrorsSaidInRussian(t *testing.T) {
	cat := i18n.MustLoad()
	p := playBattle(t, memlog.New(), 20)
	for name, file := range brokenExports(t, p) {
		_, err := audit.ReadExport(strings.NewReader(file))
		var fe *audit.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a FormatError", name, err)
			continue
		}
		if en := cat.Detail("en", "phrase.audit.export_line", fe.Said(), fe.Error()); en != fe.Error() || fe.Said().String() != fe.Error() {
			t.Errorf("%s: the English %q, said %q", name, fe.Error(), en)
		}
		ru := cat.Detail("ru", "phrase.audit.export_line", fe.Said(), fe.Error())
		if w := englishIn(ru, causes(fe)...); len(w) > 0 || ru == fe.Error() {
			t.Errorf("%s: English left in %q: %v", name, ru, w)
		}
		t.Logf("%s:\n  en %s\n  ru %s", name, fe.Error(), ru)
	}
}

// TestImportSaidInRussian: an import of a file that cannot be read, asked
// at the door in Russian, is refused in Russian with no English but the
// decoder's own words (before: "...: audit: export line 1: the header is
// not JSON: ...; nothing imported"), and in English as before.
func TestImportSaidInRussian(t *testing.T) {
	ctx := context.Background()
	cat := i18n.MustLoad()
	p := playBattle(t, memlog.New(), 20)
	files := brokenExports(t, p)
	for _, name := range []string{"a header that is not JSON", "a broken event line", "truncated"} {
		say := map[string]*app.Error{}
		var fe *audit.FormatError
		for _, lang := range []string{"en", "ru"} {
			s := p.l.As(app.Caller{Operator: "operator", Lang: lang})
			_, err := s.Import(ctx, strings.NewReader(files[name]), app.ImportOptions{})
			var imf *app.ImportFailed
			if !errors.As(err, &imf) || !imf.Audit {
				t.Fatalf("%s in %s: %v, want an ImportFailed of the audit", name, lang, err)
			}
			_, rerr := audit.ReadExport(strings.NewReader(files[name]))
			if !errors.As(rerr, &fe) {
				t.Fatalf("%s: %v", name, rerr)
			}
			say[lang] = app.Classify(err, cat, lang, i18n.Vars{})
			if say[lang].Code != "import_refused" {
				t.Errorf("%s in %s: code %s", name, lang, say[lang].Code)
			}
		}
		if want := cat.Text("en", "error.import_refused") + " (" + fe.Error() + "; nothing imported)"; say["en"].Message != want {
			t.Errorf("%s: the English %q, want %q", name, say["en"].Message, want)
		}
		if w := englishIn(say["ru"].Message, causes(fe)...); len(w) > 0 {
			t.Errorf("%s: English left in %q: %v", name, say["ru"].Message, w)
		}
		t.Logf("%s:\n  en %s\n  ru %s", name, say["en"].Message, say["ru"].Message)
	}
}
