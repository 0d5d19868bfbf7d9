package i18n

import (
	"encoding/json"
	"strconv"
)

// Texts of the command line and other programs: a template of the
// catalogue (the CLI's are keyed "cli.") rendered with named values, in the
// template language of the event descriptions (event.go).

// Render says key's template in lang with values by name; English fills a
// language's gap, and a template that names a value not given renders as
// the English one does (or, failing that, as the key itself, which a test
// notices). measurement is the battle's ("in" or "cm") for values with
// :len; "" for none. Values may be strings, numbers, lists of strings and
// maps.
func (c *Catalogue) Render(lang, key, measurement string, values map[string]any) string {
	root := map[string]any{}
	for k, v := range values {
		root[k] = jsonish(v)
	}
	for _, l := range []string{lang, "en"} {
		tmpl, ok := c.texts[l][key]
		if !ok {
			continue
		}
		r := &renderer{c: c, lang: l, measurement: measurement}
		if out, ok := r.template(tmpl, root); ok {
			return out
		}
	}
	return key
}

// Term is the word lang has for a value of one of the ledger's kinds
// ("term.<kind>.<value>": a status, a formation, a role), else the value
// itself, which is an id.
func (c *Catalogue) Term(lang, kind, value string) string {
	if s, ok := c.texts[lang]["term."+kind+"."+value]; ok {
		return s
	}
	if s, ok := c.texts["en"]["term."+kind+"."+value]; ok && lang != "en" {
		return s
	}
	return value
}

// Decimal prints v with d decimals in lang's format ("6,5" in Russian).
func Decimal(lang string, v float64, d int) string {
	r := &renderer{lang: lang}
	return r.fixed(v, d)
}

// jsonish turns Go values into what templates read: numbers as
// json.Number, lists of strings as lists.
func jsonish(v any) any {
	switch x := v.(type) {
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case bool:
		return x
	}
	return v
}
