package i18n

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// Refusals are said from what they were made of, never read back from
// their English: a rules.Refusal carries the Go format its message was
// printed with and the values (rules.Refuse), and the English catalogue
// holds each format of a code under "refusal.<code>#<n>" (the words said
// around another refusal under "refusal.wrap#<n>"). The entry is the one
// whose Go format (GoFormat) is the refusal's, found by an exact lookup;
// its template in the reader's language names the values by position, each
// value printed by its own verb as the English has it ({1}, {2:len},
// {3:@term.status}). A value that is itself made of words (rules.Words,
// geom's errors: sub=phrase.<family>) is said the same way from its
// family; a value given as plain words ("left flank") is its own format;
// a wrapped refusal (inner) is said as a refusal.

// format is one English format of the catalogue, for saying a message from
// its format and values.
type format struct {
	key   string
	goFmt string   // the format as Go code prints it (GoFormat)
	verbs []string // each value's verb as the code prints it: "%s", "%.12s", "%d"
}

// compileFormats reads every "<family>#<n>" entry of the English
// catalogue, grouped by family in key order.
func compileFormats(en map[string]string) (map[string][]format, error) {
	out := map[string][]format{}
	var bad []string
	for k, v := range en {
		family, _, ok := phraseKey(k)
		if !ok {
			continue
		}
		verbs, err := formatVerbs(v)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", k, err))
			continue
		}
		out[family] = append(out[family], format{key: k, goFmt: GoFormat(v), verbs: verbs})
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("en.json: %s", strings.Join(bad, "; "))
	}
	inKeyOrder(out, func(f format) string { return f.key })
	return out, nil
}

// inKeyOrder sorts each family's entries by the number of their key
// ("refusal.unit_inactive#2" after #1): the order they are tried in.
func inKeyOrder[T any](families map[string][]T, key func(T) string) {
	for _, fs := range families {
		sort.Slice(fs, func(i, j int) bool {
			_, a, _ := phraseKey(key(fs[i]))
			_, b, _ := phraseKey(key(fs[j]))
			return a < b
		})
	}
}

// formatVerbs lists the verbs of an English format as Go prints them, and
// checks their kinds.
func formatVerbs(f string) ([]string, error) {
	var verbs []string
	for i := 0; i < len(f); {
		if f[i] != '%' {
			i++
			continue
		}
		kind, verb, prec, next, err := formatVerb(f, i)
		if err != nil {
			return nil, err
		}
		i = next
		if verb == '%' {
			continue
		}
		if kind != "" && !kinds[kind] {
			return nil, fmt.Errorf("unknown kind %q", kind)
		}
		if !strings.ContainsRune("sdvqgf", rune(verb)) {
			return nil, fmt.Errorf("verb %%%c", verb)
		}
		v := "%"
		if prec != "" {
			v += "." + prec
		}
		verbs = append(verbs, v+string(verb))
	}
	return verbs, nil
}

// part is a value of a message said from words of its own: rules.Words
// and geom's errors (sub=), a refusal a wrapper says more around (inner).
// Any other format reads its text, what it prints as in English.
type part struct {
	text string
	v    any
}

// refusal says ref by its code's entry for its format, or by a wrapper's.
func (r *renderer) refusal(ref *rules.Refusal, more map[string]any) (string, bool) {
	if ref.Format == "" {
		return "", false
	}
	if out, ok := r.said("refusal."+ref.Code, ref.Format, ref.Args, more); ok {
		return out, true
	}
	return r.said(wrapFamily, ref.Format, ref.Args, more)
}

// said says a message of family made from goFmt and args: by the entries
// whose Go format is goFmt (the first whose template reads), with more
// values by name.
func (r *renderer) said(family, goFmt string, args []any, more map[string]any) (string, bool) {
	for _, f := range r.c.formats[family] {
		if f.goFmt != goFmt || len(f.verbs) != len(args) {
			continue
		}
		key := f.key
		if r.say {
			key = sayPrefix + key
		}
		tmpl, ok := r.c.texts[r.lang][key]
		if !ok {
			continue
		}
		root := make(map[string]any, len(more)+len(args))
		for k, v := range more {
			root[k] = v
		}
		for i, a := range args {
			root[strconv.Itoa(i+1)] = value(f.verbs[i], a)
		}
		if out, ok := r.template(tmpl, root); ok {
			return out, true
		}
	}
	return "", false
}

// value is a message's value as templates read it: printed by its verb as
// the English has it, a number for %d, %g and %f, the text of a quoted
// string for %q; a value made of words of its own is a part.
func value(verb string, a any) any {
	switch x := a.(type) {
	case *rules.Refusal:
		return part{text: x.Message, v: x}
	case rules.Words:
		return part{text: x.String(), v: x}
	case *geom.Error:
		return part{text: x.Error(), v: x}
	}
	return captured(verb[len(verb)-1:], fmt.Sprintf(verb, a))
}

// subPart says a part (sub=family) from its format and values: rules'
// Words and geom's errors by their format, plain words as their own.
func (r *renderer) subPart(family string, v any) (string, bool) {
	switch x := v.(type) {
	case rules.Words:
		return r.said(family, x.Format, x.Args, nil)
	case *geom.Error:
		return r.said(family, x.Format, x.Args, nil)
	case string:
		// Plain words are their own format, else said as they are by the
		// family's "%s" (words the code printed with no format of their
		// own: an error of another package, a list joined by hand).
		if out, ok := r.said(family, x, nil, nil); ok {
			return out, true
		}
		return r.said(family, "%s", []any{x}, nil)
	}
	return "", false
}
