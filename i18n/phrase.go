package i18n

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
)

// Phrases: English text made by code this package does not own (the rules'
// refusals, the audit's summaries and findings, a log's broken chain and
// unsigned events, an order's modifiers), said in another language.
//
// The English catalogue holds each phrase as the Go format string the code
// prints it with, under a key "<family>#<n>" ("refusal.unit_inactive#1":
// "unit %s is %{word}s and cannot act"); a verb may name the kind of text it
// stands for, "%{len}s" (the kinds: below, kinds). Another catalogue
// holds the same key with its template, in the event descriptions'
// language (event.go), naming the verbs' values by position: {1},
// {2:@term.status}, {3:len}.
//
// Every phrase is said from what it was made of: the format and values the
// code kept beside its English (a rules.Refusal's, rules.Words, geom.Error,
// the audit's Finding.Words and Check.SummaryWords, a modifier's Words, the
// words of events' errors), by the entry whose Go format (GoFormat) is
// theirs, an exact lookup (refusal.go, Said). A value made of words of its
// own is said the same way from the family its template names (sub=); a
// value given as plain words is its own format, or said as it is by its
// family's "%s". Nothing is read back from its English: a message whose
// format no entry has, or whose template names a value that is not there,
// gives no phrase, and the caller shows the English.
//
// English itself is the code's message, but for the formats en.json says
// again under "say.<key>", in the same template language: the words of the
// ledger's terms where the code prints ids ("light infantry moves 6\" per
// action", not light_infantry).
//
// Tests (phrase_test.go, sources_test.go) read the Go sources of the rules,
// the campaign, the audit and events, and fail when a format printed there
// has no entry here, or an entry no format: the catalogues cannot go stale.

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

// kinds are the kinds a verb may name ("%{len}s"): what the text a value
// prints as is, for the templates that read it (len, pt, lead, ...) and
// for the tests' samples.
var kinds = map[string]bool{
	// len: a length as the rules print it: 6", 6.1", 10 cm, -3.25 cm.
	"len": true,
	// id: an id, no spaces.
	"id": true,
	// word: a lower-case word of the rules' own (a status, a phase,
	// blocks-sight).
	"word": true,
	// pt: a point as geom prints it: (24.00, 10.00).
	"pt": true,
	// count: a number and its noun: "2 actions", "1 casualty marker".
	"count": true,
	// opt: any text, or none.
	"opt": true,
	// num: a number.
	"num": true,
	// inner: a whole refusal message a wrapper (refusal.wrap) adds to.
	"inner": true,
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
	r := &renderer{c: c, lang: lang, say: lang == "en"}
	if out, ok := r.said(family, w.Format, w.Args, nil); ok {
		return out, true
	}
	if lang == "en" {
		return english, true
	}
	return "", false
}

// sayPrefix prefixes the English catalogue's templates that say one of
// its formats again ("say.refusal.move_too_far#3"): English words for what
// the code prints as ids. They are English only.
const sayPrefix = "say."

// wrapFamily holds the formats the rules wrap a refusal's message in.
const wrapFamily = "refusal.wrap"

// captured is a value printed by its verb as templates read it: a number for %d, %g
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
