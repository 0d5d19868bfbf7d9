package campaign

import (
	"os"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
)

// TestEveryEventTypeIsDocumented keeps docs/events.md true: each type the
// ledger writes has a heading there.
func TestEveryEventTypeIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "### ") {
			headings = append(headings, line)
		}
	}
	for _, typ := range Registry().Types() {
		found := false
		for _, h := range headings {
			if strings.Contains(h, "`"+typ.Name+"`") {
				found = true
			}
		}
		if !found {
			t.Errorf("docs/events.md has no heading for %s (%s)", typ.Name, typ.Doc)
		}
	}
}

// TestEveryCommandIsDocumented keeps docs/scenario-format.md's command
// table true.
func TestEveryCommandIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/scenario-format.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(rules.CommandNames(), CmdCreate, CmdPlayerAdd, CmdTokenReissue) {
		if !strings.Contains(string(b), "| `"+name+"` |") {
			t.Errorf("docs/scenario-format.md does not list the command %s", name)
		}
	}
}
