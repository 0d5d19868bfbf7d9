package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/web"
)

// TestEdgeDetailsInRussian: the edge's own errors (no such route, a query
// parameter that is no number, a command's envelope that is not the JSON
// it should be) say their detail in the caller's language, from its format
// and values, with no English but the names of fields and parameters; in
// English the words are as before, but a field of the wrong kind, which
// named Go's type ('field "id" must be string'), says the kinds in words
// ("id: text, not a number").
func TestEdgeDetailsInRussian(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	uma := s.tokens["uma"]
	cmd := "/api/campaigns/demo/battles/b1/commands/unit.move"
	cases := []struct {
		name, method, path string
		body               any
		status             int
		en                 string // the English detail
		names              []string
	}{
		{"no such route", "GET", "/api/nothing", nil, 404, "(no such route)", nil},
		{"a parameter that is no number", "GET", "/api/campaigns/demo/battles/b1/events?after=abc", nil, 400, "(after: want a whole number)", []string{"after"}},
		{"an envelope that is not JSON", "POST", cmd, `{"id": x}`, 400, `(the body is {"id": ..., "dice": [...], "command": {...}}: not JSON at byte `, []string{"id", "dice", "command", "JSON"}},
		{"an envelope's field of the wrong kind", "POST", cmd, `{"id": 5}`, 400, `(the body is {"id": ..., "dice": [...], "command": {...}}: id: text, not a number)`, []string{"id", "dice", "command"}},
		{"an envelope's unknown field", "POST", cmd, `{"comand": {}}`, 400, `(the body is {"id": ..., "dice": [...], "command": {...}}: unknown field "comand")`, []string{"comand", "id", "dice", "command"}},
	}
	latin := regexp.MustCompile(`[A-Za-z][A-Za-z0-9_.\-]*`)
	for _, c := range cases {
		msgs := map[string]string{}
		for _, lang := range []string{"en", "ru"} {
			r := s.do(c.method, c.path+map[bool]string{true: "&", false: "?"}[strings.Contains(c.path, "?")]+"lang="+lang, uma, c.body)
			msg, _ := r.errorField("message").(string)
			if r.status != c.status || msg == "" {
				t.Errorf("%s in %s: %d %.300s", c.name, lang, r.status, r.raw)
			}
			msgs[lang] = msg
		}
		if !strings.Contains(msgs["en"], " "+c.en) {
			t.Errorf("%s: the English %q, want %q in it", c.name, msgs["en"], c.en)
		}
		ru := msgs["ru"]
		for _, n := range c.names {
			ru = strings.ReplaceAll(ru, n, " ")
		}
		if w := latin.FindAllString(ru, -1); len(w) > 0 {
			t.Errorf("%s: English left in %q: %v", c.name, msgs["ru"], w)
		}
		t.Logf("%s:\n  en %s\n  ru %s", c.name, msgs["en"], msgs["ru"])
	}
}
