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

	"github.com/clubledger/ledger/rules"
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
	var whole, parts []sourcePhrase
	for _, s := range src {
		if s.Family == auditPart {
			parts = append(parts, s)
		} else {
			whole = append(whole, s)
		}
	}
	// The reasons of events' errors an audit names (not signed, a key
	// change's) are said by their format too.
	ev := eventsSources(t)
	if len(ev) < 15 {
		t.Errorf("only %d reasons of events' errors found", len(ev))
	}
	for _, s := range ev {
		if s.Family == "phrase.audit.not_signed" {
			whole = append(whole, s)
		}
	}
	// A value given as plain words is said as it is by its family's "%s"
	// (subPart): the English of an error that keeps no words.
	for _, fam := range []string{"phrase.audit.not_signed", "phrase.key_change"} {
		ev = append(ev, sourcePhrase{Family: fam, Format: "%s", Pos: "i18n/refusal.go (subPart)"})
	}
	checkSources(t, c, append(whole, ev...), "phrase.audit.finding", "phrase.audit.summary", "phrase.audit.not_signed", "phrase.key_change", "phrase.chain_why", "phrase.audit.export_file", "phrase.audit.export_line", "phrase.audit.failed")
	// Known families, so that the reader cannot pass by finding nothing.
	families := map[string]int{}
	for _, s := range whole {
		families[s.Family]++
	}
	for _, fam := range []string{"phrase.audit.export_file", "phrase.audit.export_line", "phrase.audit.failed"} {
		if families[fam] < 2 {
			t.Errorf("%s: only %d formats found in the sources", fam, families[fam])
		}
		if !c.HasPhrase("ru", fam) {
			t.Errorf("%s: no Russian for every format", fam)
		}
	}
	auditPartsCheck(t, c, parts)
}

// auditPartsCheck: each part of the audit's messages (auditSources'
// auditPart) has its format in a phrase.audit.* family.
func auditPartsCheck(t *testing.T, c *Catalogue, parts []sourcePhrase) {
	t.Helper()
	// A part's format is one of a part family's (phrase.audit.chain,
	// .rolls, .export_key, ...), said where a template names that family.
	have := map[string]bool{}
	for _, k := range c.Keys("en") {
		if fam, _, ok := phraseKey(k); ok && strings.HasPrefix(fam, "phrase.audit.") && fam != "phrase.audit.finding" && fam != "phrase.audit.summary" {
			have[GoFormat(c.texts["en"][k])] = true
		}
	}
	if len(parts) < 10 {
		t.Errorf("only %d parts of the audit's messages found", len(parts))
	}
	for _, p := range parts {
		if !have[p.Format] {
			t.Errorf("%s: a part of the audit's messages %q, which no phrase.audit.* family of en.json has", p.Pos, p.Format)
		}
	}
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

// TestPhraseSamples renders every phrase and refusal of ru.json from a
// sample made from its English format, its values and the message they
// print: each is said from its format and values, as Catalogue.Refusal
// and Catalogue.Said say them, its parts from theirs. The
// Russian renders (every part it names exists), names every value, and
// leaves no English word but ids, rule numbers and the values a user types
// (field and option names).
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
		f := c.formatByKey(fam, k)
		for i := range f.verbs {
			if _, ok := uses[i+1]; !ok {
				t.Errorf("%s: the Russian %q drops value %d of %q", k, tmpl, i+1, c.texts["en"][k])
			}
		}
		smp := c.sample(k, 0)
		if printed := (rules.Words{Format: f.goFmt, Args: smp.args}).String(); printed != smp.text {
			t.Errorf("%s: the sample's values print %q, not %q", k, printed, smp.text)
			continue
		}
		got, ok := (&renderer{c: c, lang: "ru"}).said(fam, f.goFmt, smp.args, nil)
		if !ok {
			t.Errorf("%s: the sample %q has no Russian", k, smp.text)
			continue
		}
		if strings.ContainsAny(got, "{}") {
			t.Errorf("%s: %q", k, got)
		}
		if w := englishWords(got, smp.ids); len(w) > 0 {
			t.Errorf("%s: English left in %q: %v", k, got, w)
		}
	}
	if n < 300 {
		t.Errorf("only %d phrases", n)
	}
}

// formatByKey is the format of key.
func (c *Catalogue) formatByKey(family, key string) format {
	for _, f := range c.formats[family] {
		if f.key == key {
			return f
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

// sampled is a sample message: its English, its format's values, and the
// values that are ids.
type sampled struct {
	text string
	args []any
	ids  []string
}

// sample makes an English message from key's format, each value what the
// Russian template reads it as: a part (sub=) is Words of a sample of its
// family, a wrapper's refusal (inner) a refusal of sampleInner.
func (c *Catalogue) sample(key string, depth int) sampled {
	format := c.texts["en"][key]
	uses := templateUses(c.texts["ru"][key])
	var b strings.Builder
	var out sampled
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
		var arg any
		switch {
		case use == "inner":
			s := c.sampleOf(sampleInner, depth, &out.ids)
			v = s.text
			_, code, _ := strings.Cut(sampleInner, ".")
			arg = &rules.Refusal{Code: code, Message: s.text, Format: s.format, Args: s.args}
		case strings.Contains(use, "sub="):
			fam := use[strings.Index(use, "sub=")+4:]
			fam, _, _ = strings.Cut(fam, ":")
			s := c.sampleOf(fam, depth, &out.ids)
			v, arg = s.text, rules.Words{Format: s.format, Args: s.args}
			if strings.Contains(use, "semis") {
				// Parts joined by "; ", as words (the audit's joined).
				w := arg
				v, arg = v+"; "+v, rules.Words{Format: "%s; %s", Args: []any{w, w}}
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
			v, arg = "["+a+" "+b+"]", []string{a, b}
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
			v, out.ids = `"x-1"`, append(out.ids, "x-1")
		case prec != "":
			v = "0123456789abcdef"[:min(len("0123456789abcdef"), atoi(prec))]
			out.ids = append(out.ids, v)
		case kind == "opt":
			v = ""
		case kind == "word":
			v = "ok"
			out.ids = append(out.ids, v)
		default:
			v = "x-1"
			out.ids = append(out.ids, v)
		}
		if verb == 'q' && !strings.HasPrefix(v, `"`) {
			v = strconv.Quote(v)
		}
		if arg == nil {
			// The value the code would give, printed by the verb.
			spec := "%" + string(verb)
			if prec != "" {
				spec = "%." + prec + string(verb)
			}
			switch verb {
			case 'd':
				x, _ := strconv.Atoi(v)
				arg = x
			case 'g', 'f':
				x, _ := strconv.ParseFloat(v, 64)
				arg = x
			case 'q':
				arg, _ = strconv.Unquote(v)
			default:
				arg = v
			}
			v = fmt.Sprintf(spec, arg)
		}
		out.args = append(out.args, arg)
		b.WriteString(v)
	}
	out.text = b.String()
	return out
}

// sampleInner is the refusal a wrapper's sample wraps.
const sampleInner = "refusal.no_order"

// sampledOf is a sample of a family, with the Go format it was made from.
type sampledOf struct {
	sampled
	format string
}

// sampleOf is a sample message of a family: of its first format that
// makes a non-empty one.
func (c *Catalogue) sampleOf(family string, depth int, ids *[]string) sampledOf {
	if depth > 5 {
		return sampledOf{}
	}
	fs := c.formats[family]
	for _, f := range fs {
		s := c.sample(f.key, depth+1)
		if s.text != "" || len(fs) == 1 {
			*ids = append(*ids, s.ids...)
			return sampledOf{s, f.goFmt}
		}
	}
	return sampledOf{}
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
	// The parameters and fields of a request, and their values, that an
	// error's detail names (detail.*), and the CLI's ledger log.
	"head": true, "scale": true, "format": true, "version": true, "dice": true, "command": true, "null": true, "false": true,
	"json": true, "svg": true, "html": true, "bbcode": true, "markdown": true, "ledger": true, "log": true,
	// "id" is what Russian screens call an id too.
	"id": true,
	// The CLI's commands, values and usage lines' placeholders that its
	// usage errors (detail.usage) name, and the configuration's section a
	// server's start-up error names (http.addr).
	"bench": true, "backup": true, "restore": true, "import": true, "config": true, "table": true, "png": true, "serve": true, "http": true,
	"X": true, "Y": true, "DIST": true, "DEG": true, "TARGET": true, "CAMPAIGN": true, "BATTLE": true, "VERSION": true,
	// The fields of an export file's line a FormatError names.
	"raw": true, "withheld": true,
	// The configuration's keys and values its validation names
	// (config.Problem: lang, retries, en, ru).
	"lang": true, "retries": true, "en": true, "ru": true,
}

var wordRE = regexp.MustCompile(`[A-Za-z]+`)

var latin = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.\-]*`)

// englishWords returns the Latin words of s that are not ids (the sample's
// values), rule ids (C.17), names with a dot, dash, underscore or digit
// (commands, fields, SHA-256, 2D6), flags as typed (--batch, -f), or
// values a user types.
func englishWords(s string, ids []string) []string {
	for _, id := range ids {
		s = strings.ReplaceAll(s, id, " ")
	}
	var out []string
	for _, ix := range latin.FindAllStringIndex(s, -1) {
		if ix[0] > 0 && s[ix[0]-1] == '-' {
			continue // a flag as typed: --batch, -f
		}
		w := strings.TrimRight(s[ix[0]:ix[1]], ".-")
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

// TestDetailsHaveRussian reads every detail of an error that is not a
// refusal from the Go sources (detailSources: a Forbidden's and an
// InvalidInput's reason, the door's and the edges' own errors) and fails
// when one has no English format in en.json ("detail.<code>#<n>",
// "detail.input#<n>"), or its format no Russian template, or en.json keeps
// a detail no code prints any more.
func TestDetailsHaveRussian(t *testing.T) {
	c := MustLoad()
	src := detailSources(t)
	if len(src) < 40 {
		t.Fatalf("only %d details found in the sources: the reader of the sources is broken", len(src))
	}
	checkSources(t, c, src, "detail.")
	families := map[string]bool{}
	for _, s := range src {
		families[s.Family] = true
	}
	for fam := range families {
		if !c.HasPhrase("ru", fam) {
			t.Errorf("%s: no Russian for every format", fam)
		}
	}
	// Known families, so that the reader cannot pass by finding nothing.
	for _, fam := range []string{"detail.forbidden", "detail.input", "detail.not_found", "detail.bad_request", "detail.too_many_streams", "detail.import_refused", "detail.import_exists", "detail.import_audit"} {
		if !families[fam] {
			t.Errorf("%s not found in the sources", fam)
		}
	}
}

// TestModifiersHaveRussian: every format a C.7 modifier's reason is
// printed from (modifierSources) is en.json's phrase.modifier, and every
// phrase.modifier of en.json is printed by the rules; each has Russian.
func TestModifiersHaveRussian(t *testing.T) {
	c := MustLoad()
	src := modifierSources(t)
	if len(src) < 5 {
		t.Fatalf("only %d modifiers found in the rules", len(src))
	}
	checkSources(t, c, src, "phrase.modifier")
	if !c.HasPhrase("ru", "phrase.modifier") {
		t.Error("phrase.modifier: no Russian for every format")
	}
}
