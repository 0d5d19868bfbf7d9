package i18n

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clubledger/ledger/rules"
)

// The formats of an event's template ({field|format}): numbers, lengths in
// the battle's unit, lists, names, plurals, in the reader's language.

// format applies one format to a value; strings come out as strings.
func (r *renderer) format(f string, v any) (any, bool) {
	name, arg, _ := strings.Cut(f, "=")
	switch name {
	case "count":
		switch x := v.(type) {
		case nil:
			return json.Number("0"), true
		case []any:
			return json.Number(strconv.Itoa(len(x))), true
		case map[string]any:
			return json.Number(strconv.Itoa(len(x))), true
		}
		return nil, false
	case "each":
		list, ok := v.([]any)
		if m, isObject := v.(map[string]any); isObject {
			list, ok = []any{m}, true
		}
		if !ok {
			return nil, false
		}
		key, sep, hasSep := strings.Cut(arg, "|")
		if !hasSep {
			sep = ", "
		}
		tmpl, ok := r.c.texts[r.lang][key]
		if !ok {
			return nil, false
		}
		parts := make([]string, 0, len(list))
		for _, el := range list {
			s, ok := r.template(tmpl, el)
			if !ok {
				return nil, false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, sep), true
	case "purpose":
		// A roll's purpose ("order:friant:33-ligne"): what it was for, in
		// words (rules.PurposeWords, phrase.purpose), else as it is.
		p, ok := v.(string)
		if !ok {
			return nil, false
		}
		w := rules.PurposeWords(p)
		if out, ok := r.said("phrase.purpose", w.Format, w.Args, nil); ok {
			return out, true
		}
		return p, true
	case "side":
		// A side's id: its name in this battle (the id when unknown).
		s, ok := scalar(v)
		if !ok {
			return nil, false
		}
		if name := r.sides[s]; name != "" {
			return name, true
		}
		return s, true
	case "short":
		s, ok := v.(string)
		n, err := strconv.Atoi(arg)
		if !ok || err != nil {
			return nil, false
		}
		if utf8.RuneCountInString(s) > n {
			s = string([]rune(s)[:n])
		}
		return s + "…", true
	case "pt":
		sep := ", "
		if r.decimalComma() {
			sep = "; "
		}
		if s, isText := v.(string); isText {
			x, y, ok := englishPoint(s)
			if !ok {
				return nil, false
			}
			return "(" + r.decimal(x) + sep + r.decimal(y) + ")", true
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		x, okx := number(m["x"])
		y, oky := number(m["y"])
		if !okx || !oky {
			return nil, false
		}
		return "(" + r.fixed(x, 1) + sep + r.fixed(y, 1) + ")", true
	case "sub":
		// A phrase of another family (phrase.go): a part of a message the
		// code prints from words of its own, said from its format and
		// values (refusal.go: subPart); each element of a list, joined by
		// "; ".
		if p, isPart := v.(part); isPart {
			v = p.v
		}
		if list, isList := v.([]any); isList {
			parts := make([]string, 0, len(list))
			for _, el := range list {
				out, ok := r.subPart(arg, el)
				if !ok {
					return nil, false
				}
				parts = append(parts, out)
			}
			return strings.Join(parts, "; "), true
		}
		return r.subPart(arg, v)
	case "inner":
		// The refusal a wrapper says more around (refusal.wrap), said as a
		// refusal (refusal.go).
		p, _ := v.(part)
		ref, ok := p.v.(*rules.Refusal)
		if !ok {
			return nil, false
		}
		out, ok := r.refusal(ref, nil)
		if !ok {
			return nil, false
		}
		return out, true
	case "semis":
		// Parts the code joined by "; ": as words, the parts of a
		// rules.Words that prints them so ("%s; %s"), else the text split.
		if p, isPart := v.(part); isPart {
			if w, isWords := p.v.(rules.Words); isWords && len(w.Args) > 0 && w.Format == strings.TrimSuffix(strings.Repeat("%s; ", len(w.Args)), "; ") {
				return append([]any(nil), w.Args...), true
			}
			v = p.text
		}
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		var list []any
		for _, part := range strings.Split(s, "; ") {
			list = append(list, part)
		}
		return list, true
	case "lead":
		// The number a text starts with: 2 of "2 actions".
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		head, _, _ := strings.Cut(s, " ")
		if _, err := strconv.ParseFloat(head, 64); err != nil {
			return nil, false
		}
		return json.Number(head), true
	case "split", "splitby":
		// A list the rules print joined by ", " (or by arg).
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		sep := ", "
		if name == "splitby" {
			sep = arg
		}
		var list []any
		for _, part := range strings.Split(s, sep) {
			if part != "" {
				list = append(list, part)
			}
		}
		return list, true
	case "vlist":
		// A list printed by %v: [a b].
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
			return nil, false
		}
		var list []any
		for _, part := range strings.Fields(s[1 : len(s)-1]) {
			list = append(list, part)
		}
		return list, true
	case "num":
		// A number as printed, in the language's format.
		switch x := v.(type) {
		case string:
			if _, err := strconv.ParseFloat(x, 64); err != nil {
				return nil, false
			}
			return r.decimal(x), true
		case json.Number:
			return r.decimal(x.String()), true
		}
		return nil, false
	}
	if strings.HasPrefix(name, "@") {
		word := func(x any) (string, bool) {
			s, ok := scalar(x)
			if !ok {
				return "", false
			}
			if w, ok := r.c.texts[r.lang][name[1:]+"."+s]; ok {
				return w, true
			}
			return s, true
		}
		if list, ok := v.([]any); ok {
			words := make([]string, 0, len(list))
			for _, x := range list {
				w, ok := word(x)
				if !ok {
					return nil, false
				}
				words = append(words, w)
			}
			return strings.Join(words, ", "), true
		}
		return word(v)
	}
	if s, isText := v.(string); isText && name == "len" {
		// A length as the rules print it (6", 6.25"), with at least one
		// decimal, as every length of the ledger is shown: 6,0".
		num, unit, ok := englishLength(s)
		if !ok {
			return nil, false
		}
		if !strings.Contains(num, ".") {
			num += ".0"
		}
		return r.decimal(num) + r.unit(unit), true
	}
	x, ok := number(v)
	if !ok {
		return nil, false
	}
	switch name {
	case "len", "len2":
		d := 1
		if name == "len2" {
			d = 2
		}
		s := r.fixed(x, d)
		switch r.measurement {
		case "cm":
			if r.lang == "ru" {
				return s + " см", true
			}
			return s + " cm", true
		case "in":
			return s + `"`, true
		}
		return s, true
	case "next":
		return json.Number(strconv.FormatFloat(x+1, 'f', -1, 64)), true
	case "1":
		return r.fixed(x, 1), true
	case "0":
		return r.fixed(x, 0), true
	case "deg":
		return r.fixed(x, 0) + "°", true
	case "signed":
		s := r.num(x)
		if x > 0 {
			s = "+" + s
		}
		return s, true
	case "plural":
		forms := strings.Split(arg, "|")
		if len(forms) == 0 || arg == "" {
			return nil, false
		}
		return r.num(x) + " " + pluralForm(r.lang, x, forms), true
	}
	return nil, false
}

// text renders a value that every format has been applied to.
func (r *renderer) text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return "", false
		}
		return r.num(f), true
	case float64:
		return r.num(x), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, el := range x {
			s, ok := r.text(el)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), true
	}
	return "", false
}

func (r *renderer) decimalComma() bool { return r.lang == "ru" }

// decimal is a number printed in English ("6.5") in the language's format.
func (r *renderer) decimal(s string) string {
	if r.decimalComma() {
		return strings.ReplaceAll(s, ".", ",")
	}
	return s
}

// unit is what follows a length in a unit ("in" or "cm").
func (r *renderer) unit(u string) string {
	switch u {
	case "cm":
		if r.lang == "ru" {
			return " см"
		}
		return " cm"
	case "in":
		return `"`
	}
	return ""
}

// num is Number in the language's format.
func (r *renderer) num(v float64) string {
	s := Number(v)
	if r.decimalComma() {
		s = strings.ReplaceAll(s, ".", ",")
	}
	return s
}

// fixed prints v with d decimals in the language's format.
func (r *renderer) fixed(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	if r.decimalComma() {
		s = strings.ReplaceAll(s, ".", ",")
	}
	return s
}

// pluralForm picks the noun's form for v: forms are one|few|many (Russian)
// or one|other.
func pluralForm(lang string, v float64, forms []string) string {
	pick := func(i int) string {
		if i >= len(forms) {
			i = len(forms) - 1
		}
		return forms[i]
	}
	if v != math.Trunc(v) {
		return pick(1)
	}
	n := int64(math.Abs(v))
	if lang != "ru" {
		if n == 1 {
			return pick(0)
		}
		return pick(1)
	}
	switch {
	case n%10 == 1 && n%100 != 11:
		return pick(0)
	case n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14):
		return pick(1)
	}
	return pick(2)
}
