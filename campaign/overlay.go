package campaign

import (
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/rules"
)

// checkOverlay judges a ruleset overlay (a campaign.create's or a
// battle.create's) as its user wrote it, alone, before it is merged with
// any other: its YAML, its size with its aliases expanded (overlaySize),
// the text of every key and value (the limits of a ruleset's text in a
// command's body: a double-quoted YAML scalar's escapes, "\e", "\0",
// "\u202E", carry what the body may not) and every key and value against
// the ruleset's own (rules.Ruleset): a key it does not know, a value of
// the wrong kind. Each refusal names the overlay's own line, and a key's
// path and what was wanted in words ("line 3: command.rating_max: want a
// whole number, got \"abc\""). Before, a mistake was named by a line of
// the overlays merged and re-encoded, in the decoder's Go words ("cannot
// unmarshal !!str `abc` into int").
//
// What a value means (a rating within its bounds, a formation the ruleset
// has) is still the ruleset's to judge (rules.LoadRuleset).
func checkOverlay(o string) error {
	if strings.TrimSpace(o) == "" {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(o), &doc); err != nil {
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return rules.Refuse("ruleset", "ruleset.overlay", "the ruleset overlay is not YAML at its line %d", line).WithNumbers(lineNumber(line))
		}
		return rules.Refuse("ruleset", "ruleset.overlay", "the ruleset overlay is not YAML")
	}
	if err := docSize(&doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 {
		return nil
	}
	if err := checkText(doc.Content[0]); err != nil {
		return err
	}
	top := resolved(doc.Content[0])
	if top == nil || isNull(top) {
		return nil
	}
	if top.Kind != yaml.MappingNode {
		return rules.Refuse("ruleset", "ruleset.overlay", "line %d: the ruleset overlay is keys and values (a mapping)", top.Line).WithNumbers(lineNumber(top.Line))
	}
	return checkNode(top, reflect.TypeFor[rules.Ruleset](), "")
}

// yamlLine reads the line of a YAML syntax error ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`^yaml: line (\d+):`)

// lineNumber is the Numbers of a refusal naming an overlay's line.
func lineNumber(line int) map[string]float64 { return map[string]float64{"line": float64(line)} }

// resolved is n, or what the alias n names.
func resolved(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// isNull reports a null scalar: it leaves what it names as the ruleset
// has it, zero.
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// checkText judges the text of a scalar, or of every scalar (keys and
// values) under n, as a ruleset's text in a command's body is judged
// (checkString): no control characters but a line's breaks and tabs, no
// bidirectional controls, nothing that is not valid text.
func checkText(n *yaml.Node) error {
	n = resolved(n)
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		if l := checkString(kindRuleset, []byte(n.Value)); l != nil {
			return rules.Refuse("ruleset", "ruleset.overlay", "line %d of the ruleset overlay: %s", n.Line, rules.Words{Format: l.format, Args: l.args}).WithNumbers(lineNumber(n.Line))
		}
		return nil
	}
	for _, c := range n.Content {
		if err := checkText(c); err != nil {
			return err
		}
	}
	return nil
}

// checkNode judges n, the value of the key path path, against t, the
// ruleset's type there: its kind, and its keys' and items' (its text is
// checkText's).
func checkNode(n *yaml.Node, t reflect.Type, path string) error {
	n = resolved(n)
	if n == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isNull(n) {
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.Struct, reflect.Map:
		if n.Kind != yaml.MappingNode {
			return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: want keys and values (a mapping)", n.Line, path).WithNumbers(lineNumber(n.Line))
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := resolved(n.Content[i]), n.Content[i+1]
			if k.ShortTag() == "!!merge" {
				// "<<: *defaults": the mapping (or mappings) merged in
				// are this one's keys.
				merged := resolved(v)
				if merged != nil && merged.Kind == yaml.SequenceNode {
					for _, m := range merged.Content {
						if err := checkNode(m, t, path); err != nil {
							return err
						}
					}
					continue
				}
				if err := checkNode(v, t, path); err != nil {
					return err
				}
				continue
			}
			name := shortKey([]byte(k.Value))
			if path != "" {
				name = path + "." + name
			}
			if k.Kind != yaml.ScalarNode {
				return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: the ruleset has no such key", k.Line, path+".?").WithNumbers(lineNumber(k.Line))
			}
			if seen[k.Value] {
				return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: given twice", k.Line, name).WithNumbers(lineNumber(k.Line))
			}
			seen[k.Value] = true
			var ft reflect.Type
			if t.Kind() == reflect.Map {
				ft = t.Elem()
			} else {
				var ok bool
				if ft, ok = yamlField(t, k.Value); !ok {
					return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: the ruleset has no such key", k.Line, name).WithNumbers(lineNumber(k.Line))
				}
			}
			if err := checkNode(v, ft, name); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: want a list", n.Line, path).WithNumbers(lineNumber(n.Line))
		}
		for i, c := range n.Content {
			if err := checkNode(c, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: want one value, not a list or a mapping", n.Line, path).WithNumbers(lineNumber(n.Line))
	}
	got := shortKey([]byte(n.Value))
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !whole(n) {
			return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: want a whole number, got %q", n.Line, path, got).WithNumbers(lineNumber(n.Line))
		}
	case reflect.Float32, reflect.Float64:
		if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
			return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: want a number, got %q", n.Line, path, got).WithNumbers(lineNumber(n.Line))
		}
	case reflect.Bool:
		// What the YAML decoder takes for a true or false: its own
		// !!bool, and YAML 1.1's yes, no, on and off, as the rules have
		// always read them.
		var b bool
		if n.ShortTag() != "!!bool" && n.Decode(&b) != nil {
			return rules.Refuse("ruleset", "ruleset.overlay", "line %d: %s: want true or false, got %q", n.Line, path, got).WithNumbers(lineNumber(n.Line))
		}
	}
	return nil
}

// whole reports a scalar YAML reads as a whole number: an integer, or a
// number with nothing after its point (3.0).
func whole(n *yaml.Node) bool {
	switch n.ShortTag() {
	case "!!int":
		return true
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		return err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53
	}
	return false
}

// yamlField is the type of struct t's field that YAML names key (its yaml
// tag's name, or its name in lower case; inline structs' fields too).
func yamlField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if t, ok := yamlField(ft, key); ok {
					return t, true
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}
