package web_test

import (
	"strings"
	"testing"

	"github.com/clubledger/ledger/web"
)

// TestTokenBeforeBody: a command posted without a token, or with a token
// the campaign does not know, answers 401 whatever its body: the token is
// checked before the body is read, so a stranger learns nothing of how
// bodies are read. With a good token the same body is 400.
func TestTokenBeforeBody(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	path := "/api/campaigns/demo/battles/b1/commands/unit.move"
	bodies := map[string]string{
		"not JSON":         "{not json",
		"an unknown field": `{"nonsense": 1}`,
		"over 1 MiB":       `{"id": "` + strings.Repeat("x", 2<<20) + `"}`,
	}
	for what, body := range bodies {
		for _, token := range []string{"", "lt_0000000000000000000000000000000000000000"} {
			r := s.do("POST", path, token, body)
			if r.status != 401 || r.errorField("code") != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s, token %q: %d %.200s, want 401 unauthorized", what, token, r.status, r.raw)
			}
		}
		if r := s.do("POST", path, s.tokens["marie"], body); r.status != 400 {
			t.Errorf("%s with marie's token: %d %.200s, want 400", what, r.status, r.raw)
		}
	}
	// A campaign's own commands too.
	if r := s.do("POST", "/api/campaigns/demo/commands/player.add", "", "{not json"); r.status != 401 {
		t.Errorf("player.add without a token, a bad body: %d %.200s, want 401", r.status, r.raw)
	}
}
