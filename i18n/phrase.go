package i18n

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
)

// Phrases: English text made by code this package does not own (the rules'
// refusals, the audit's summaries and findings), said in another language.
//
// The English catalogue holds each phrase as the Go format string the code
// prints it with, under a key "<family>#<n>" ("refusal.unit_inactive#1":
// "unit %s is %{word}s and cannot act"); a verb may name the kind of text it
// stands for, "%{len}s" (the kinds: below, formatVerb). Another catalogue
// holds the same key with its template, in the event descriptions'
// language (event.go), naming the verbs' values by position: {1},
// {2:@term.status}, {3:len}.
//
// Refusals, and the parts of their messages (phrase.label, phrase.cost,
// phrase.where_at, ...), are said from what they were made of: the format
// and values a rules.Refusal (rules.Words, geom.Error) carries, by the
// entry whose Go format (GoFormat) is theirs, an exact lookup
// (refusal.go). Nothing of a refusal is read back from its English.
//
// The messages whose code keeps no format (the audit's findings and
// summaries, a log's broken chain and unsigned events, an order's
// modifiers: readBack) are read back: a message is matched against its
// family's formats, compiled to regular expressions (the kinds making the
// reading unambiguous), in key order; the first that matches whole and
// whose template reads gives the values, and the template of the same key
// says them. A message no format matches, or only formats whose templates
// name a value that is not there, gives no phrase: the caller shows the
// English.
//
// English itself is the code's message, but for the formats en.json says
// again under "say.<key>", in the same template language: the words of the
// ledger's terms where the code prints ids ("light infantry moves 6\" per
// action", not light_infantry).
//
// Tests (phrase_test.go, sources_test.go) read the Go sources of the rules,
// the campaign and the audit, and fail when a format printed there has no
// entry here, or an entry no format: the catalogues cannot go stale.

// phrase is one compiled English format.
type phrase struct {
	key   string
	re    *regexp.Regexp
	verbs []string // each capture's verb ("s", "d", "q", ...)
}

// readBack are the families Phrase reads back from their English: the
// audit's findings and summaries, a log's broken chain and unsigned events,
// an order's modifiers, which their code keeps as text, with no format.
// The families their templates name (sub=) are read back with them.
// Refusals and their parts never are: they are said from their format and
// values (refusal.go).
func readBack(family string) bool {
	return strings.HasPrefix(family, "phrase.audit.") || family == "phrase.chain" || family == "phrase.signature" || family == "phrase.modifier"
}

// readBackFamilies is readBack's families and, transitively, those their
// templates in any language name by sub=.
func readBackFamilies(texts map[string]map[string]string) map[string]bool {
	fams := map[string]bool{}
	for k := range texts["en"] {
		if f, _, ok := phraseKey(k); ok && readBack(f) {
			fams[f] = true
		}
	}
	for grown := true; grown; {
		grown = false
		for _, m := range texts {
			for k, v := range m {
				f, _, ok := phraseKey(strings.TrimPrefix(k, sayPrefix))
				if !ok || !fams[f] {
					continue
				}
				for _, part := range strings.Split(v, "sub=")[1:] {
					end := strings.IndexAny(part, ":}")
					if end < 0 {
						continue
					}
					if name := part[:end]; !fams[name] {
						fams[name], grown = true, true
					}
				}
			}
		}
	}
	return fams
}

// compilePhrases compiles the "phrase.<family>#<n>" entries of the English
// catalogue that Phrase reads back (readBackFamilies), grouped by family in
// key order.
func compilePhrases(texts map[string]map[string]string) (map[string][]phrase, error) {
	out := map[string][]phrase{}
	var bad []string
	fams := readBackFamilies(texts)
	for k, v := range texts["en"] {
		family, n, ok := phraseKey(k)
		if !ok || !fams[family] {
			continue
		}
		re, verbs, err := formatRegexp(v)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", k, err))
			continue
		}
		_ = n
		out[family] = append(out[family], phrase{key: k, re: re, verbs: verbs})
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("en.json: %s", strings.Join(bad, "; "))
	}
	inKeyOrder(out, func(p phrase) string { return p.key })
	return out, nil
}

// phraseKey splits "refusal.unit_inactive#2" into its family and number.
func phraseKey(k string) (family string, n int, ok bool) {
	if !strings.HasPrefix(k, "refusal.") && !strings.HasPrefix(k, "phrase.") && !strings.HasPrefix(k, "detail.") {
		return "", 0, false
	}
	i := strings.LastIndexByte(k, '#')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(k[i+1:])
	if err != nil {
		return "", 0, false
	}
	return k[:i], n, true
}

// Kinds of verb: what a "%{kind}s" matches. A verb without a kind matches
// what its letter prints (%d a whole number, %q a quoted string, %s and %v
// any text, as little as lets the rest match).
var kindPatterns = map[string]string{
	// len: a length as the rules print it: 6", 6.1", 10 cm, -3.25 cm.
	"len": `-?\d+(?:\.\d+)?(?:"| cm)`,
	// id: an id, no spaces.
	"id": `\S+?`,
	// word: a lower-case word of the rules' own (a status, a phase,
	// blocks-sight).
	"word": `[a-z_-]+`,
	// pt: a point as geom prints it: (24.00, 10.00).
	"pt": `\(-?\d+(?:\.\d+)?, -?\d+(?:\.\d+)?\)`,
	// count: a number and its noun: "2 actions", "1 casualty marker".
	"count": `-?\d+ [a-z]+(?: [a-z]+)*?`,
	// opt: any text, or none.
	"opt": `.*?`,
	// num: a number.
	"num": `-?\d+(?:\.\d+)?(?:e[-+]?\d+)?`,
	// inner: a whole refusal message a wrapper (refusal.wrap) adds to.
	"inner": `.+?`,
}

// formatRegexp turns an English format into a regular expression matching
// what it prints, whole, with one capture per verb.
func formatRegexp(format string) (*regexp.Regexp, []string, error) {
	var b strings.Builder
	var verbs []string
	b.WriteString("^")
	for i := 0; i < len(format); {
		ch := format[i]
		if ch != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				j = len(format) - i
			}
			b.WriteString(regexp.QuoteMeta(format[i : i+j]))
			i += j
			continue
		}
		kind, verb, prec, next, err := formatVerb(format, i)
		if err != nil {
			return nil, nil, err
		}
		i = next
		if verb == '%' {
			b.WriteString("%")
			continue
		}
		pat, ok := kindPatterns[kind]
		switch {
		case kind != "" && !ok:
			return nil, nil, fmt.Errorf("unknown kind %q", kind)
		case kind != "":
		case verb == 'd':
			pat = `-?\d+`
		case verb == 'q':
			pat = `"(?:[^"\\]|\\.)*"`
		case verb == 'g' || verb == 'f':
			pat = kindPatterns["num"]
		case verb == 's' && prec != "":
			pat = `.{0,` + prec + `}?`
		case verb == 's' || verb == 'v':
			pat = `.+?`
		default:
			return nil, nil, fmt.Errorf("verb %%%c", verb)
		}
		b.WriteString("(" + pat + ")")
		verbs = append(verbs, string(verb))
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, nil, err
	}
	return re, verbs, nil
}

// formatVerb reads the verb at format[i] ('%'): its kind ("len" of
// "%{len}s"), its letter, its precision ("12" of "%.12s"), and where the
// text goes on.
func formatVerb(format string, i int) (kind string, verb byte, prec string, next int, err error) {
	j := i + 1
	if j < len(format) && format[j] == '{' {
		end := strings.IndexByte(format[j:], '}')
		if end < 0 {
			return "", 0, "", 0, fmt.Errorf("unclosed %%{ at %d", i)
		}
		kind = format[j+1 : j+end]
		j += end + 1
	}
	if j < len(format) && format[j] == '.' {
		k := j + 1
		for k < len(format) && format[k] >= '0' && format[k] <= '9' {
			k++
		}
		prec = format[j+1 : k]
		j = k
	}
	if j >= len(format) {
		return "", 0, "", 0, fmt.Errorf("format ends in a verb")
	}
	return kind, format[j], prec, j + 1, nil
}

// GoFormat is an English phrase's format as the Go code prints it: the
// kinds taken out ("%{len}s" is "%s").
func GoFormat(format string) string {
	var b strings.Builder
	for i := 0; i < len(format); {
		if format[i] != '%' {
			b.WriteByte(format[i])
			i++
			continue
		}
		_, verb, prec, next, err := formatVerb(format, i)
		if err != nil {
			b.WriteString(format[i:])
			break
		}
		b.WriteByte('%')
		if prec != "" {
			b.WriteString("." + prec)
		}
		b.WriteByte(verb)
		i = next
	}
	return b.String()
}

// Phrase says english, a text of family, in lang: english itself in
// English; ok is false when no format of the family matches it or the
// language has no usable template for the one that does.
func (c *Catalogue) Phrase(lang, family, english string) (string, bool) {
	return c.phraseWith(lang, family, english, nil, "")
}

// Said says a message of family made by code this package does not own
// (the audit's findings and summaries: phrase.audit.finding,
// phrase.audit.summary) in lang, from the format and values it was printed
// from (w), as refusals are: by the entry of family whose Go format is
// w's, an exact lookup, its parts (rules.Words among the values) said from
// their own families. English is english itself, but where en.json says
// the format again in words ("say."). ok is false when w has no format or
// no entry of family says it: the caller shows english.
func (c *Catalogue) Said(lang, family string, w rules.Words, english string) (string, bool) {
	if c == nil || w.Format == "" {
		return english, lang == "en"
	}
	r := &renderer{c: c, lang: lang, say: lang == "en", exact: true}
	if out, ok := r.said(family, w.Format, w.Args, nil); ok {
		return out, true
	}
	if lang == "en" {
		return english, true
	}
	return "", false
}

// phraseWith is Phrase with more values the template may name (a
// refusal's numbers and its command's words, by name) and the battle's
// measurement for lengths given as numbers.
func (c *Catalogue) phraseWith(lang, family, english string, more map[string]any, measurement string) (string, bool) {
	if c == nil {
		return english, lang == "en"
	}
	if lang == "en" {
		// English is the code's own words, but where en.json says a
		// format again in words ("say.<key>": a unit's type by its term,
		// not its id).
		r := &renderer{c: c, lang: lang, measurement: measurement, say: true}
		if out, ok := r.phrase(family, english, more); ok {
			return out, true
		}
		return english, true
	}
	r := &renderer{c: c, lang: lang, measurement: measurement}
	return r.phrase(family, english, more)
}

// sayPrefix prefixes the English catalogue's templates that say one of
// its formats again ("say.refusal.move_too_far#3"): English words for what
// the code prints as ids. They are English only.
const sayPrefix = "say."

// wrapFamily holds the formats the rules wrap a refusal's message in.
const wrapFamily = "refusal.wrap"

// phrase matches english against family and renders the template.
func (r *renderer) phrase(family, english string, more map[string]any) (string, bool) {
	for _, p := range r.c.phrases[family] {
		m := p.re.FindStringSubmatch(english)
		if m == nil {
			continue
		}
		key := p.key
		if r.say {
			key = sayPrefix + key
		}
		tmpl, ok := r.c.texts[r.lang][key]
		if !ok {
			continue
		}
		root := map[string]any{}
		for k, v := range more {
			root[k] = v
		}
		for i, s := range m[1:] {
			root[strconv.Itoa(i+1)] = captured(p.verbs[i], s)
		}
		// A format that matches but whose parts do not read (a part of
		// another family no format of which matches) gives way to the next.
		if out, ok := r.template(tmpl, root); ok {
			return out, true
		}
	}
	return "", false
}

// captured is a matched value as templates read it: a number for %d, %g
// and %f, the text of a quoted string for %q, else the text.
func captured(verb, s string) any {
	switch verb {
	case "d", "g", "f":
		return json.Number(s)
	case "q":
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// HasPhrase reports whether family has a format in English and a template
// in lang for every one (for tests).
func (c *Catalogue) HasPhrase(lang, family string) bool {
	fs := c.formats[family]
	if len(fs) == 0 {
		return false
	}
	for _, f := range fs {
		if _, ok := c.texts[lang][f.key]; !ok {
			return false
		}
	}
	return true
}

// Formats returns the English formats of family, by key (for tests).
func (c *Catalogue) Formats(family string) map[string]string {
	out := map[string]string{}
	for _, f := range c.formats[family] {
		out[f.key] = c.texts["en"][f.key]
	}
	return out
}

// englishLength reads a length as the rules print it (6", 6.1", 10 cm):
// its number as printed and its unit ("in" or "cm").
func englishLength(s string) (num, unit string, ok bool) {
	switch {
	case strings.HasSuffix(s, `"`):
		num, unit = strings.TrimSuffix(s, `"`), "in"
	case strings.HasSuffix(s, " cm"):
		num, unit = strings.TrimSuffix(s, " cm"), "cm"
	default:
		return "", "", false
	}
	if _, err := strconv.ParseFloat(num, 64); err != nil {
		return "", "", false
	}
	return num, unit, true
}

// englishPoint reads a point as geom prints it: (24.00, 10.00).
func englishPoint(s string) (x, y string, ok bool) {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	x, y, ok = strings.Cut(s[1:len(s)-1], ", ")
	if !ok {
		return "", "", false
	}
	if _, err := strconv.ParseFloat(x, 64); err != nil {
		return "", "", false
	}
	if _, err := strconv.ParseFloat(y, 64); err != nil {
		return "", "", false
	}
	return x, y, true
}
