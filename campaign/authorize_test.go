package campaign

import (
	"fmt"
	"testing"

	"github.com/clubledger/ledger/rules"
)

// TestAuthorizedFieldsExist: every command authorize reads whom it acts
// for from (actsFor) has that field, and ref reads it from the decoded
// command as the strict decoding took it, whatever the case of its key
// (as the loose decoding authorize once made of the body read it).
func TestAuthorizedFieldsExist(t *testing.T) {
	for name, field := range actsFor {
		for _, key := range []string{field, string(field[0]-'a'+'A') + field[1:]} {
			cmd, err := decodeBody(name, []byte(fmt.Sprintf(`{%q:"probe"}`, key)))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := ref(cmd, field); got != "probe" {
				t.Errorf("%s with %q: authorize reads %s %q, want \"probe\"", name, key, field, got)
			}
		}
	}
	if got := ref(nil, "unit"); got != "" {
		t.Errorf("no command: %q", got)
	}
	if got := ref(rules.Command(nil), "unit"); got != "" {
		t.Errorf("a nil command: %q", got)
	}
	if got := ref(&rules.MoveUnit{Unit: "u"}, "side"); got != "" {
		t.Errorf("a field the command has not: %q", got)
	}
	// An unexported embedded struct (a seal) before the field asked for,
	// or holding it: searched as a value, promoted as encoding/json does,
	// no panic (its Interface would panic: found by helper-38, whose
	// first entered_by check met it in a flank command).
	type seal struct {
		Side string `json:"side"`
		n    int
	}
	cmd := &struct {
		seal
		Unit string `json:"unit"`
	}{seal{Side: "french", n: 1}, "33-ligne"}
	if got := ref(cmd, "unit"); got != "33-ligne" {
		t.Errorf("a field after an unexported embedded struct: %q", got)
	}
	if got := ref(cmd, "side"); got != "french" {
		t.Errorf("a field of an unexported embedded struct: %q", got)
	}
	if got := ref(cmd, "player"); got != "" {
		t.Errorf("a field it has not: %q", got)
	}
}
