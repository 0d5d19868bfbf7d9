package web_test

import (
	"strings"
	"testing"

	"github.com/clubledger/ledger/web"
)

// TestEmptyCommandIDIsMadeUp: a command sent with "id": "" is taken as one
// without an id (docs/api.md): the server makes one up.
func TestEmptyCommandIDIsMadeUp(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	r := s.must(s.command(adminToken, "", "player.add", map[string]any{"id": "", "command": map[string]string{"player": "anna", "role": "reader"}}), 201)
	if id, _ := r.body["command_id"].(string); !strings.HasPrefix(id, "c-") {
		t.Errorf("an empty id answered command_id %q, want one made up (c-…)", id)
	}
}
