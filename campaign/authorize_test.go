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
}
