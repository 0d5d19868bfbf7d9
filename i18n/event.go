package i18n

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Event descriptions.
//
// English descriptions are the rules' own (rules.Describe, campaign.Describe),
// but for the events en.json has a template for (those whose rules' words
// would print a bare length, a side's id or a wrong plural). Another
// language describes an event from its catalogue's template
// "event.<type>", filled from the event's JSON payload, so that a
// translation is text in ru.json, never strings in code:
//
//	{path}            a field, by dotted path ("to.center.x", "roll.total",
//	                  "path.1.x" for a list's element); "." is the value at
//	                  hand. A number prints in the language's format (at most
//	                  two decimals, "6,5" in Russian), a list joined by ", ".
//	{path:fmt:fmt}    formats, applied left to right:
//	                    len, len2   a length with one (two) decimals in the
//	                                battle's unit: 6,1" or 6,1 см
//	                    1, 0        one decimal; a whole number
//	                    deg         whole degrees: 90°
//	                    pt          a point {x, y}: (24,0; 10,0)
//	                    signed      +1, -1
//	                    count       how many elements a list has (0 if absent)
//	                    next        the number plus one
//	                    plural=one|few|many
//	                                the number and its noun in the right form
//	                                (Russian: 1 действие, 2 действия, 5 действий)
//	                    @prefix     the word the catalogue has for "prefix.<value>"
//	                                (the value itself when it has none); each
//	                                element of a list
//	                    each=key|sep
//	                                each element of a list (or an object, once),
//	                                by template key, joined by sep (", " if none)
//	                    short=N     the first N characters and "…"
//	                    side        a side's id: the side's name in the
//	                                battle (Battle.Sides), else the id
//	                    purpose     a roll's purpose in words
//	                                (rules.PurposeWords, phrase.purpose)
//	{?path}A{:}B{/}   A when the field is there and not false, 0, "" or empty,
//	                  else B ({:}B is optional); {!path}A{/} the opposite;
//	                  {?path=v}A{/} when the field's value is v ({!path=v}: is
//	                  not), {?path=@other} when it equals another field's;
//	                  {#path}A{/} when the field is there at all, even 0.
//	{join=sep}A{|}B{|}C{/}
//	                  the parts that are not empty, joined by sep.
//
// A template naming a field the payload lacks (outside a condition that
// tests it) is not used: the English description is shown instead, so a
// translation never drops a fact.

// Event renders what an event records in lang: the fallback (rules.Describe's
// words) for a language without a template "event.<typ>" (English has
// templates only for the events whose rules' words would print a bare
// length, an id or a wrong plural), or when the template names a field the
// payload lacks. measurement is the battle's ("in" or "cm") for lengths; ""
// prints bare numbers (battle.created says its own).
func (c *Catalogue) Event(lang, typ string, payload json.RawMessage, measurement, fallback string) string {
	return c.EventIn(lang, typ, payload, Battle{Measurement: measurement}, fallback)
}

// Battle is what a description needs to know of the battle an event is of:
// its measurement, and its sides' names by id ({side:side} in a template;
// battle.created names its own).
type Battle struct {
	Measurement string
	Sides       map[string]string
}

// EventIn is Event with the battle's sides' names as well.
func (c *Catalogue) EventIn(lang, typ string, payload json.RawMessage, b Battle, fallback string) string {
	if c == nil {
		return fallback
	}
	tmpl, ok := c.texts[lang]["event."+typ]
	if !ok {
		return fallback
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return fallback
	}
	measurement := b.Measurement
	if measurement == "" {
		if m, ok := lookup(root, "measurement").(string); ok {
			measurement = m
		}
	}
	sides := b.Sides
	if sides == nil && typ == "battle.created" {
		sides = SideNames(payload)
	}
	r := &renderer{c: c, lang: lang, measurement: measurement, sides: sides}
	out, ok := r.template(tmpl, root)
	if !ok {
		return fallback
	}
	return out
}

// SideNames reads the sides' names by id from a battle.created payload
// (or a battle's state: both list "sides" with "id" and "name"); nil when
// it names none.
func SideNames(payload json.RawMessage) map[string]string {
	var b struct {
		Sides []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"sides"`
	}
	if json.Unmarshal(payload, &b) != nil {
		return nil
	}
	var out map[string]string
	for _, s := range b.Sides {
		if s.ID != "" && s.Name != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[s.ID] = s.Name
		}
	}
	return out
}

// HasEvent reports whether lang's catalogue has a template for typ.
func (c *Catalogue) HasEvent(lang, typ string) bool {
	_, ok := c.texts[lang]["event."+typ]
	return ok
}

type renderer struct {
	c           *Catalogue
	lang        string
	measurement string
	// sides are the battle's sides' names by id.
	sides map[string]string
	depth int
	// say: the templates are English's "say.<key>" (phrase.go).
	say bool
}

// node is a parsed template: literal text, a field, a condition or a join.
type node struct {
	text   string
	field  string // path[:fmt...]
	isText bool
	// cond is "?path", "!path", "#path", "?path=v" or "!path=v";
	// join is the separator of a join block.
	cond, join string
	isJoin     bool
	then, els  []node
	parts      [][]node
}

// parse reads nodes up to a closing tag; end is the tag that stopped it
// ("/", ":", "|" or "" at the end of the text).
func parse(s string, pos int) (nodes []node, next int, end string) {
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			nodes = append(nodes, node{text: lit.String(), isText: true})
			lit.Reset()
		}
	}
	for pos < len(s) {
		ch := s[pos]
		if ch != '{' {
			lit.WriteByte(ch)
			pos++
			continue
		}
		j := strings.IndexByte(s[pos:], '}')
		if j < 0 {
			lit.WriteString(s[pos:])
			pos = len(s)
			break
		}
		tag := s[pos+1 : pos+j]
		pos += j + 1
		switch {
		case tag == "/" || tag == ":" || tag == "|":
			flush()
			return nodes, pos, tag
		case strings.HasPrefix(tag, "join="):
			flush()
			n := node{isJoin: true, join: tag[len("join="):]}
			for {
				part, p, e := parse(s, pos)
				n.parts = append(n.parts, part)
				pos = p
				if e != "|" {
					break
				}
			}
			nodes = append(nodes, n)
		case tag != "" && (tag[0] == '?' || tag[0] == '!' || tag[0] == '#'):
			flush()
			n := node{cond: tag}
			var e string
			n.then, pos, e = parse(s, pos)
			if e == ":" {
				n.els, pos, _ = parse(s, pos)
			}
			nodes = append(nodes, n)
		default:
			flush()
			nodes = append(nodes, node{field: tag})
		}
	}
	flush()
	return nodes, pos, ""
}

// template renders the template text against the value at hand.
func (r *renderer) template(tmpl string, at any) (string, bool) {
	if r.depth > 8 {
		return "", false
	}
	r.depth++
	defer func() { r.depth-- }()
	nodes, _, _ := parse(tmpl, 0)
	var b strings.Builder
	if !r.nodes(&b, nodes, at) {
		return "", false
	}
	return b.String(), true
}

func (r *renderer) nodes(b *strings.Builder, nodes []node, at any) bool {
	for _, n := range nodes {
		switch {
		case n.isText:
			b.WriteString(n.text)
		case n.isJoin:
			var parts []string
			for _, p := range n.parts {
				var pb strings.Builder
				if !r.nodes(&pb, p, at) {
					return false
				}
				if s := strings.TrimSpace(pb.String()); s != "" {
					parts = append(parts, pb.String())
				}
			}
			b.WriteString(strings.Join(parts, n.join))
		case n.cond != "":
			branch := n.els
			if r.test(n.cond, at) {
				branch = n.then
			}
			if !r.nodes(b, branch, at) {
				return false
			}
		default:
			s, ok := r.field(n.field, at)
			if !ok {
				return false
			}
			b.WriteString(s)
		}
	}
	return true
}

// test evaluates a condition tag.
func (r *renderer) test(cond string, at any) bool {
	kind, expr := cond[0], cond[1:]
	path, want, eq := strings.Cut(expr, "=")
	v := lookup(at, path)
	if p, ok := v.(part); ok {
		v = p.text
	}
	if kind == '#' {
		return v != nil
	}
	var ok bool
	if eq {
		s, isScalar := scalar(v)
		if other, isField := strings.CutPrefix(want, "@"); isField {
			want, eq = scalar(lookup(at, other))
		}
		ok = isScalar && eq && sameValue(s, want)
	} else {
		ok = truthy(v)
	}
	if kind == '!' {
		return !ok
	}
	return ok
}

// field renders {path:fmt...}.
func (r *renderer) field(spec string, at any) (string, bool) {
	path, rest, _ := strings.Cut(spec, ":")
	v := lookup(at, path)
	if p, ok := v.(part); ok && !strings.HasPrefix(rest, "sub=") && rest != "inner" && !strings.HasPrefix(rest, "semis:") {
		v = p.text // a part read as the text it prints as
	}
	var fmts []string
	if rest != "" {
		// each= and plural= take the rest of the tag: they may hold colons' neighbours.
		for rest != "" {
			if strings.HasPrefix(rest, "each=") || strings.HasPrefix(rest, "plural=") {
				fmts = append(fmts, rest)
				break
			}
			f, more, _ := strings.Cut(rest, ":")
			fmts = append(fmts, f)
			rest = more
		}
	}
	if v == nil && !(len(fmts) > 0 && fmts[0] == "count") {
		return "", false
	}
	for _, f := range fmts {
		var ok bool
		if v, ok = r.format(f, v); !ok {
			return "", false
		}
	}
	return r.text(v)
}

// lookup walks a dotted path through decoded JSON; nil when absent.
func lookup(v any, path string) any {
	if path == "." || path == "" {
		return v
	}
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
		if v == nil {
			return nil
		}
	}
	return v
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// sameValue compares two scalars' texts, numbers by value (2 == 2.0).
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, errx := strconv.ParseFloat(a, 64)
	y, erry := strconv.ParseFloat(b, 64)
	return errx == nil && erry == nil && x == y
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	}
	return 0, false
}
