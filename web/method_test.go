package web_test

import (
	"testing"

	"github.com/clubledger/ledger/web"
)

// TestWrongMethod: a known route asked with a method it does not take
// answers 405 with an Allow header naming those it takes (issue 27), in
// the API's JSON error shape and the caller's language; an unknown route
// is still 404.
func TestWrongMethod(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	cases := []struct{ method, path, allow string }{
		{"POST", "/api/campaigns/demo/battles/b1/state", "GET, HEAD"},
		{"DELETE", "/api/campaigns/demo", "GET, HEAD"},
		{"GET", "/api/campaigns/demo/battles/b1/commands/unit.move", "POST"},
		{"PUT", "/api/campaigns/demo/commands/player.add", "POST"},
		{"GET", "/api/admin/backup", "POST"},
		{"POST", "/healthz", "GET, HEAD"},
		{"POST", "/api/openapi.yaml", "GET, HEAD"},
	}
	for _, c := range cases {
		r := s.do(c.method, c.path, s.tokens["uma"], nil)
		if r.status != 405 || r.header.Get("Allow") != c.allow || r.errorField("code") != "method_not_allowed" {
			t.Errorf("%s %s: %d, Allow %q: %.300s; want 405, Allow %q", c.method, c.path, r.status, r.header.Get("Allow"), r.raw, c.allow)
		}
	}
	r := s.do("PATCH", "/api/campaigns/demo/battles/b1/state?lang=ru", "", nil)
	if msg, _ := r.errorField("message").(string); r.status != 405 || r.errorField("lang") != "ru" || msg == "" {
		t.Errorf("in Russian: %d %s", r.status, r.raw)
	}
	for _, path := range []string{"/api/nothing", "/api/campaigns/demo/battles/b1/nothing"} {
		if r := s.do("POST", path, s.tokens["uma"], nil); r.status != 404 {
			t.Errorf("POST %s: %d, want 404", path, r.status)
		}
	}
}
