package rules

import (
	"encoding"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// BodyError is a command body that cannot be read, said in words of the
// ledger's own: which field, and what kind of value it wants (Words,
// phrase.body of i18n), never the JSON decoder's Go words ("cannot
// unmarshal string into Go struct field Vec.to.x of type float64").
type BodyError struct {
	Command string
	Words   Words
}

func (e *BodyError) Error() string { return "decode " + e.Command + ": " + e.Words.String() }

// BodyWords says why a JSON decoder could not read a command's body: the
// field and the kind of value it wants ("to.x: a number, not text"), a
// field the command does not have, where the text stops being JSON, a body
// cut short. A value's own error (a terrain kind's) is its own words.
func BodyWords(err error) Words {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
		ge *geom.Error
	)
	switch {
	case errors.As(err, &te):
		want, got := wantedKind(te.Type), givenKind(te.Value)
		if te.Field == "" {
			return words("%s, not %s", want, got)
		}
		return words("%s: %s, not %s", shortName(te.Field), want, got)
	case errors.As(err, &se):
		return words("not JSON at byte %d", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return words("the body ends before the command does")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, uerr := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		if uerr == nil {
			return words("unknown field %q", shortName(name))
		}
	case errors.As(err, &ge):
		return words("%s", ge)
	}
	return words("%v", err)
}

// NameShown is the most characters of a body's key that a refusal says:
// a longer one is cut there, with "…" (a body's unknown key of half a
// megabyte was said back whole).
const NameShown = 32

// shortName is a field's name as the words say it (NameShown).
func shortName(name string) string {
	n := 0
	for i := range name {
		if n == NameShown {
			return name[:i] + "…"
		}
		n++
	}
	return name
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// wantedKind is the kind of value a Go type reads from JSON, in words.
func wantedKind(t reflect.Type) string {
	if t == nil {
		return "a value of another kind"
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "text"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return wantedKind(t.Elem())
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value of another kind"
}

// givenKind is the kind of JSON value the decoder met, in words: its
// UnmarshalTypeError's Value ("string", "number", "number -1.5", ...).
func givenKind(v string) string {
	switch {
	case v == "string":
		return "text"
	case v == "number" || strings.HasPrefix(v, "number "):
		return "a number"
	case v == "bool":
		return "true or false"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	}
	return "a value of another kind"
}
