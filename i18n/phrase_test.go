package i18n

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRefusalsHaveRussian reads every refusal the rules and the campaign
// service can give from their Go sources (refusalSources) and fails when
// one has no English format in en.json, or its format no Russian template,
// or en.json keeps a format no code prints any more.
func TestRefusalsHaveRussian(t *testing.T) {
	c := MustLoad()
	src := refusalSources(t)
	if len(src) < 250 {
		t.Fatalf("only %d refusals found in the sources: the reader of the sources is broken", len(src))
	}
	checkSources(t, c, src, "refusal.")
	codes := map[string]bool{}
	for _, s := range src {
		codes[s.Family] = true
	}
	for code := range codes {
		if !c.HasPhrase("ru", code) {
			t.Errorf("%s: no Russian for every format", code)
		}
	}
	// Known codes, so that the reader cannot pass by finding nothing.
	for _, code := range []string{"move_too_far", "unit_inactive", "no_order", "dice.missing", "player.unknown", "roster.losses", "enemy_too_close"} {
		if !codes["refusal."+code] {
			t.Errorf("refusal %s not found in the sources", code)
		}
	}
}

// TestAuditHasRussian: every finding and check summary the audit prints.
func TestAuditHasRussian(t *testing.T) {
	c := MustLoad()
	src := auditSources(t)
	if len(src) < 40 {
		t.Fatalf("only %d audit messages found", len(src))
	}
	checkSources(t, c, src, "phrase.audit.finding", "phrase.audit.summary")
}

// checkSources checks formats found in the sources against the catalogue's
// families with the prefixes: both ways.
func checkSources(t *testing.T, c *Catalogue, src []sourcePhrase, prefixes ...string) {
	t.Helper()
	want := map[string]map[string]string{} // family -> Go format -> where
	for _, s := range src {
		if want[s.Family] == nil {
			want[s.Family] = map[string]string{}
		}
		want[s.Family][s.Format] = s.Pos
	}
	for fam, formats := range want {
		have := map[string]bool{}
		for _, f := range c.Formats(fam) {
			have[GoFormat(f)] = true
		}
		for f, pos := range formats {
			if !have[f] {
				t.Errorf("%s: %s prints %q, which en.json does not have (add %q to en.json with its kinds, and its Russian to ru.json)", pos, fam, f, fam+"#N")
			}
		}
	}
	for _, k := range c.Keys("en") {
		fam, _, ok := phraseKey(k)
		if !ok || !hasAnyPrefix(fam, prefixes) {
			continue
		}
		if _, ok := want[fam][GoFormat(c.texts["en"][k])]; !ok {
			t.Errorf("en.json %s: %q is printed by no code (stale: remove it from both catalogues)", k, c.texts["en"][k])
		}
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestPartsInSources: the parts of messages (phrase.* families other than
// the audit's) are words the code builds messages from, often joined from
// several strings: each word of their English must still be in the code's
// string literals, so that a reworded part fails here rather than falling
// back to English at the table.
func TestPartsInSources(t *testing.T) {
	c := MustLoad()
	fset := token.NewFileSet()
	var lits []string
	for _, dir := range []string{"rules", "rules/geom", "campaign", "campaign/audit", "events"} {
		for _, f := range parseDir(t, fset, dir) {
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := literal(exprOf(n)); ok {
					lits = append(lits, s)
				}
				return true
			})
		}
	}
	words := map[string]bool{}
	for _, l := range lits {
		for _, w := range wordRE.FindAllString(l, -1) {
			words[w] = true
		}
	}
	verb := regexp.MustCompile(`%(\{[a-z]+\})?(\.\d+)?[a-z%]`)
	for _, k := range c.Keys("en") {
		fam, _, ok := phraseKey(k)
		if !ok || !strings.HasPrefix(fam, "phrase.") || strings.HasPrefix(fam, "phrase.audit.finding") || strings.HasPrefix(fam, "phrase.audit.summary") {
			continue
		}
		for _, w := range wordRE.FindAllString(verb.ReplaceAllString(c.texts["en"][k], " "), -1) {
			// A word of the code's, or its plural (c.Result + "s").
			if len(w) >= 3 && !words[w] && !words[strings.TrimSuffix(w, "s")] {
				t.Errorf("en.json %s: %q is in no string of the code", k, w)
			}
		}
	}
}

func exprOf(n ast.Node) ast.Expr {
	e, _ := n.(ast.Expr)
	return e
}

// TestPhraseSamples renders every phrase of ru.json from an English
// message made from its format: the message reads back (the format's
// kinds are right), the Russian renders (every part it names exists),
// names every value of the message, and leaves no English word but ids,
// rule numbers and the values a user types (field and option names).
func TestPhraseSamples(t *testing.T) {
	c := MustLoad()
	n := 0
	for _, k := range c.Keys("en") {
		fam, _, ok := phraseKey(k)
		if !ok {
			continue
		}
		n++
		tmpl := c.texts["ru"][k]
		uses := templateUses(tmpl)
		p := c.phraseByKey(fam, k)
		for i := range p.verbs {
			if _, ok := uses[i+1]; !ok {
				t.Errorf("%s: the Russian %q drops value %d of %q", k, tmpl, i+1, c.texts["en"][k])
			}
		}
		msg, ids := c.sample(k, 0)
		if m := p.re.FindStringSubmatch(msg); m == nil {
			t.Errorf("%s: the sample %q does not read back", k, msg)
			continue
		}
		r := &renderer{c: c, lang: "ru", inner: sampleInner}
		got, ok := r.phrase(fam, msg, nil)
		if !ok {
			t.Errorf("%s: the sample %q has no Russian", k, msg)
			continue
		}
		if strings.ContainsAny(got, "{}") {
			t.Errorf("%s: %q", k, got)
		}
		if w := englishWords(got, ids); len(w) > 0 {
			t.Errorf("%s: English left in %q: %v", k, got, w)
		}
	}
	if n < 300 {
		t.Errorf("only %d phrases", n)
	}
}

// phraseByKey is the compiled format of key.
func (c *Catalogue) phraseByKey(family, key string) phrase {
	for _, p := range c.phrases[family] {
		if p.key == key {
			return p
		}
	}
	panic(key)
}

var usesRE = regexp.MustCompile(`\{[?!#]?(\d+)(?::([^}]*))?\}`)

// templateUses maps each value a template names to its formats ("len",
// "sub=phrase.cost", "@term.status").
func templateUses(tmpl string) map[int]string {
	out := map[int]string{}
	for _, m := range usesRE.FindAllStringSubmatch(tmpl, -1) {
		var i int
		fmt.Sscan(m[1], &i)
		if out[i] == "" {
			out[i] = m[2]
		}
	}
	return out
}

// sample makes an English message from key's format, each value what the
// Russian template reads it as; ids are the sample values that are ids.
func (c *Catalogue) sample(key string, depth int) (string, []string) {
	format := c.texts["en"][key]
	uses := templateUses(c.texts["ru"][key])
	var b strings.Builder
	var ids []string
	n := 0
	for i := 0; i < len(format); {
		if format[i] != '%' {
			b.WriteByte(format[i])
			i++
			continue
		}
		kind, verb, prec, next, _ := formatVerb(format, i)
		i = next
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		n++
		use := uses[n]
		v := ""
		switch {
		case use == "inner":
			v = c.sampleOf(sampleInner, depth, &ids)
		case strings.Contains(use, "sub="):
			fam := use[strings.Index(use, "sub=")+4:]
			fam, _, _ = strings.Cut(fam, ":")
			v = c.sampleOf(fam, depth, &ids)
			if strings.Contains(use, "semis") {
				v = v + "; " + v
			}
		case strings.Contains(use, "lead"):
			v = "2 actions"
		case strings.Contains(use, "splitby="):
			sep := use[strings.Index(use, "splitby=")+8:]
			sep, _, _ = strings.Cut(sep, ":")
			a, b := c.termSamples(use)
			v = a + sep + b
		case strings.Contains(use, "vlist"):
			a, b := c.termSamples(use)
			v = "[" + a + " " + b + "]"
		case strings.Contains(use, "split"):
			a, b := c.termSamples(use)
			v = a + ", " + b
		case strings.Contains(use, "@"):
			v, _ = c.termSamples(use)
		case kind == "len" || strings.Contains(use, "len"):
			v = `6.5"`
		case kind == "pt" || strings.Contains(use, "pt"):
			v = "(24.00, 10.50)"
		case kind == "count":
			v = "2 actions"
		case kind == "num" || strings.Contains(use, "num") || verb == 'g' || verb == 'f':
			v = "1.5"
		case verb == 'd':
			v = "3"
		case verb == 'q':
			v, ids = `"x-1"`, append(ids, "x-1")
		case prec != "":
			v = "0123456789abcdef"[:min(len("0123456789abcdef"), atoi(prec))]
			ids = append(ids, v)
		case kind == "opt":
			v = ""
		case kind == "word":
			v = "ok"
			ids = append(ids, v)
		default:
			v = "x-1"
			ids = append(ids, v)
		}
		if verb == 'q' && !strings.HasPrefix(v, `"`) {
			v = strconv.Quote(v)
		}
		b.WriteString(v)
	}
	return b.String(), ids
}

// sampleInner is the refusal a wrapper's sample wraps.
const sampleInner = "refusal.no_order"

// sampleOf is a sample message of a family: of its first format that
// makes a non-empty one.
func (c *Catalogue) sampleOf(family string, depth int, ids *[]string) string {
	if depth > 5 {
		return ""
	}
	ps := c.phrases[family]
	for _, p := range ps {
		s, more := c.sample(p.key, depth+1)
		if s != "" || len(ps) == 1 {
			*ids = append(*ids, more...)
			return s
		}
	}
	return ""
}

// termSamples gives two values of the term family a use names
// ("@term.formation"), as a list's elements.
func (c *Catalogue) termSamples(use string) (string, string) {
	i := strings.Index(use, "@")
	prefix, _, _ := strings.Cut(use[i+1:], ":")
	var vals []string
	for k := range c.texts["ru"] {
		if v, ok := strings.CutPrefix(k, prefix+"."); ok {
			vals = append(vals, v)
		}
	}
	sort.Strings(vals)
	if len(vals) == 0 {
		panic("no term " + prefix)
	}
	return vals[0], vals[len(vals)-1]
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// typed are the words a user types that Russian messages name as they are:
// the commands' fields and option values, never translated.
var typed = map[string]bool{
	"move": true, "formation": true, "charge": true, "follow_me": true, "steady": true, "none": true,
	"napoleonic": true, "awi": true, "umpire": true, "player": true, "reader": true,
	"north": true, "south": true, "east": true, "west": true,
	"impassable": true, "difficult": true, "road": true, "open": true, "diagonals": true, "quadrants": true,
	"base": true, "markers": true, "status": true, "toward": true, "x": true, "y": true, "distance": true,
	"ruling": true, "initiative": true, "true": true, "prev_hash": true, "sig": true,
	// "id" is what Russian screens call an id too.
	"id": true,
}

var wordRE = regexp.MustCompile(`[A-Za-z]+`)

var latin = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.\-]*`)

// englishWords returns the Latin words of s that are not ids (the sample's
// values), rule ids (C.17), names with a dot, dash, underscore or digit
// (commands, fields, SHA-256, 2D6), or values a user types.
func englishWords(s string, ids []string) []string {
	for _, id := range ids {
		s = strings.ReplaceAll(s, id, " ")
	}
	var out []string
	for _, w := range latin.FindAllString(s, -1) {
		w = strings.TrimRight(w, ".-")
		if typed[w] || strings.ContainsAny(w, "._-0123456789") || w == "D" || w == "SHA" || w == "JSON" || w == "N" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// TestCatalogueKeysUsed: every text the CLI and the picture ask for by key
// (w.t("board.title"), p.w.t("flank_label")) is in the catalogues.
func TestCatalogueKeysUsed(t *testing.T) {
	c := MustLoad()
	fset := token.NewFileSet()
	keys := 0
	for dir, prefix := range map[string]string{"cmd/ledger": "cli.", "picture": "picture."} {
		for _, f := range parseDir(t, fset, dir) {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "t" {
					return true
				}
				key, ok := literal(call.Args[0])
				if !ok {
					t.Errorf("%s: a text asked for by a key that is not a literal", fset.Position(call.Pos()))
					return true
				}
				keys++
				for _, lang := range Languages {
					if _, ok := c.texts[lang][prefix+key]; !ok {
						t.Errorf("%s: %s.json lacks %s", fset.Position(call.Pos()), lang, prefix+key)
					}
				}
				return true
			})
		}
	}
	if keys < 60 {
		t.Errorf("only %d keys used", keys)
	}
}

// TestAuditTitlesInStep: the English of each audit check's title in
// en.json (term.check_title.<id>) is the audit's own (campaign/audit's
// checkTitles), so that a changed title cannot leave its Russian behind.
func TestAuditTitlesInStep(t *testing.T) {
	c := MustLoad()
	fset := token.NewFileSet()
	files := parseDir(t, fset, "campaign/audit")
	consts := map[string]string{}
	titles := map[string]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := literal(vs.Values[i]); ok {
							consts[name.Name] = s
						}
					}
					if name.Name == "checkTitles" && i < len(vs.Values) {
						if cl, ok := vs.Values[i].(*ast.CompositeLit); ok {
							for _, el := range cl.Elts {
								kv := el.(*ast.KeyValueExpr)
								id, _ := kv.Key.(*ast.Ident)
								title, _ := literal(kv.Value)
								titles[id.Name] = title
							}
						}
					}
				}
			}
			return true
		})
	}
	if len(titles) < 7 {
		t.Fatalf("checkTitles: %v", titles)
	}
	for name, title := range titles {
		key := "term.check_title." + consts[name]
		if got := c.texts["en"][key]; got != title {
			t.Errorf("%s is %q in en.json, %q in the audit", key, got, title)
		}
	}
}
