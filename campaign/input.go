package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The limits of what a command body may carry (docs/events.md, "Limits of
// a command"). Every string of every command is checked before anything is
// decided: a name is text a person reads on every page and picture, so it
// is bounded, and nothing may hide control characters or bidirectional
// overrides that would make one thing read as another.
const (
	// MaxID is the length of an identifier: a unit, general, brigade,
	// side, player, objective, terrain piece.
	MaxID = 64
	// MaxName is the length of a name: a unit's, a general's, a battle's.
	MaxName = 100
	// MaxText is the length of free text: a reason, a note, an order's
	// words, a ruling.
	MaxText = 2000
	// MaxSeed is the length, in bytes, of a player's dice seed.
	MaxSeed = 256
	// MaxString is the length of any other string.
	MaxString = 200
	// MaxCoordinate bounds every number: a table is never a kilometre wide.
	MaxCoordinate = 100000
	// MaxPath is the most waypoints of a move's, march's or charge's path:
	// every rule that follows a path checks each leg against every unit,
	// and 30,000 waypoints once held a battle for 20 s (a measured move
	// at the table has a handful of turns).
	MaxPath = 32
	// MaxList is the most items of any other list: an army's units, the
	// dice of a roll, a terrain piece's corners, a ruling's corrections.
	MaxList = 500
)

// fieldKind is how a string field is bounded.
type fieldKind int

const (
	kindOther fieldKind = iota
	kindID
	kindName
	kindText
	kindSeed
	kindRuleset
)

// kindOf classifies a field by its name (the last key of its path).
func kindOf(key string) fieldKind {
	switch key {
	case "id", "unit", "units", "general", "brigade", "target", "side", "player", "campaign", "battle",
		"on_road", "attached_to", "objective", "march", "first_side", "command_id", "attach_to", "leader":
		return kindID
	case "name", "title":
		return kindName
	case "reason", "note", "text", "ruling", "description", "comment":
		return kindText
	case "seed":
		return kindSeed
	case "ruleset":
		return kindRuleset
	}
	return kindOther
}

// CheckBody checks every value of a command's JSON body against the
// limits: valid UTF-8, no null, lists within MaxPath (a path's waypoints)
// or MaxList, numbers finite and within MaxCoordinate,
// identifiers of letters, digits, '-', '_' or '.', names and text without
// control characters (free text may break lines) or bidirectional
// overrides, each within its length. The error names the field and the
// limit, never echoes the value.
func CheckBody(body json.RawMessage) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !utf8.Valid(body) {
		return Invalid("command", "not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil // the command's own decoding says what is wrong
	}
	return checkValue("", "", v)
}

func checkValue(path, key string, v any) error {
	switch x := v.(type) {
	case nil:
		if path == "" {
			return nil
		}
		return Invalid(path, "null: give a value, or leave the field out")
	case map[string]any:
		for k, e := range x {
			if err := checkValue(join(path, k), k, e); err != nil {
				return err
			}
		}
	case []any:
		if key == "path" && len(x) > MaxPath {
			return Invalid(path, "at most %d waypoints", MaxPath)
		}
		if len(x) > MaxList {
			return Invalid(path, "at most %d items", MaxList)
		}
		for i, e := range x {
			if err := checkValue(path+"["+strconv.Itoa(i)+"]", key, e); err != nil {
				return err
			}
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > MaxCoordinate {
			return Invalid(path, "a number between -%d and %d", MaxCoordinate, MaxCoordinate)
		}
	case string:
		return checkString(path, kindOf(key), x)
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkString bounds one string of a command.
func checkString(path string, kind fieldKind, s string) error {
	n := utf8.RuneCountInString(s)
	limit, what := MaxString, "characters"
	switch kind {
	case kindID:
		limit = MaxID
	case kindName:
		limit = MaxName
	case kindText:
		limit = MaxText
	case kindSeed:
		limit, what, n = MaxSeed, "bytes", len(s)
	case kindRuleset:
		limit = 64 << 10
	}
	if n > limit {
		if what == "bytes" {
			return Invalid(path, "at most %d bytes (%d given)", limit, n)
		}
		return Invalid(path, "at most %d characters (%d given)", limit, n)
	}
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return Invalid(path, "not valid text (a replacement character or a broken escape)")
		case bidiControl(r):
			return Invalid(path, "bidirectional control character %s is not allowed", codePoint(r))
		case kind == kindID && !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.", r)):
			return Invalid(path, "an identifier is letters, digits, '-', '_' or '.' (not %s), at most %d", codePoint(r), MaxID)
		case (kind == kindText || kind == kindRuleset) && (r == '\n' || r == '\t' || r == '\r'):
		case unicode.IsControl(r):
			return Invalid(path, "control character %s is not allowed", codePoint(r))
		}
	}
	return nil
}

// codePoint names a character by its code point, U+202E.
func codePoint(r rune) string { return fmt.Sprintf("U+%04X", r) }

// bidiControl reports the characters that reorder text as it is shown:
// embeddings, overrides and isolates, and the invisible marks.
func bidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}
