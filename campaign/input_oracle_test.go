package campaign

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// oldCheckBody is CheckBody as it was before issue 29: the body decoded
// into a tree (any, UseNumber) and the tree walked. It is kept, word for
// word, as the oracle the token scan is held to (TestCheckBodyAsBefore,
// FuzzCheckBody).
func oldCheckBody(body json.RawMessage) error {
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
	return oldCheckValue("", "", v)
}

func oldCheckValue(path, key string, v any) error {
	switch x := v.(type) {
	case nil:
		if path == "" {
			return nil
		}
		return Invalid(path, "null: give a value, or leave the field out")
	case map[string]any:
		for k, e := range x {
			if err := oldCheckValue(oldJoin(path, k), k, e); err != nil {
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
			if err := oldCheckValue(path+"["+strconv.Itoa(i)+"]", key, e); err != nil {
				return err
			}
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > MaxCoordinate {
			return Invalid(path, "a number between -%d and %d", MaxCoordinate, MaxCoordinate)
		}
	case string:
		return oldCheckString(path, kindOf([]byte(key)), x)
	}
	return nil
}

func oldJoin(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkString bounds one string of a command.
func oldCheckString(path string, kind fieldKind, s string) error {
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
