package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBodyWordsCutLongNames: a body's unknown field is named with at most
// NameShown characters (a 500,000-character key
// was said back whole, making a 500 KB answer: found by this round's
// tester).
func TestBodyWordsCutLongNames(t *testing.T) {
	long := strings.Repeat("k", 500000)
	var v struct {
		Unit string `json:"unit"`
	}
	dec := json.NewDecoder(strings.NewReader(`{"` + long + `":1}`))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if err == nil {
		t.Fatal("an unknown field decoded")
	}
	if got, want := BodyWords(err).String(), `unknown field "`+strings.Repeat("k", NameShown)+`…"`; got != want {
		t.Errorf("unknown field: %.100q, want %q", got, want)
	}
	if got := BodyWords(json.Unmarshal([]byte(`{"unit":1}`), &v)).String(); got != "unit: text, not a number" {
		t.Errorf("a short field: %q", got)
	}
}
