package web_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/web"
)

// startBattle deploys both sides of b1 (seed) and starts it, as the
// umpire: one turn, so the report has a turn and its picture.
func (s *server) startBattle() {
	s.t.Helper()
	deploy := func(side, cinc, bde, gen, unit string, y, facing float64) map[string]any {
		return map[string]any{"command": map[string]any{"side": side,
			"c_in_c": map[string]any{"id": cinc, "name": cinc, "rating": 8, "position": map[string]float64{"x": 36, "y": y}},
			"brigades": []map[string]any{{"id": bde, "order": "attack",
				"general": map[string]any{"id": gen, "rating": 7, "position": map[string]float64{"x": 30, "y": y}},
				"units":   []map[string]any{{"id": unit, "type": "infantry", "position": map[string]float64{"x": 30, "y": y}, "facing": facing}}}}}}
	}
	s.must(s.command(s.tokens["uma"], "b1", "army.deploy", deploy("french", "davout", "b-friant", "friant", "33-ligne", 6, 0)), 201)
	s.must(s.command(s.tokens["uma"], "b1", "army.deploy", deploy("austrians", "charles", "b-vuk", "vukassovich", "ir-4", 42, 180)), 201)
	s.must(s.command(s.tokens["uma"], "b1", "battle.start", map[string]any{}), 201)
}

// TestReportEndpoint: GET .../report answers the battle's report as the
// caller may see it: HTML by default (text/html, never cached, a policy
// that runs and loads nothing, a picture of the turn inline), BBCode as
// text/plain and Markdown as text/markdown, in the caller's language
// (?lang=ru); the campaign's report on the campaign's path; a format or
// a bound it does not take is refused in words
// naming the numbers (400); without a token 401; and the report's work
// is held to the request's budget like any query (503 over_budget).
func TestReportEndpoint(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	s.startBattle()
	path := "/api/campaigns/demo/battles/b1/report"

	r := s.must(s.do("GET", path, s.tokens["rita"], nil), 200)
	doc := string(r.raw)
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := r.header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if !strings.HasPrefix(doc, "<!DOCTYPE html>") || strings.Count(doc, `<figure class="picture"`) != 1 || !strings.Contains(doc, "Turn 1: France") {
		t.Errorf("the HTML report: %.300s", doc)
	}
	head := regexp.MustCompile(`<meta name="ledger-head" content="([0-9a-f]{64})">`).FindStringSubmatch(doc)
	events := s.must(s.do("GET", "/api/campaigns/demo/battles/b1/events", s.tokens["rita"], nil), 200)
	if head == nil || head[1] != events.body["head"] {
		t.Errorf("the report's head %v, the battle's %v", head, events.body["head"])
	}

	for format, ct := range map[string]string{"bbcode": "text/plain; charset=utf-8", "markdown": "text/markdown; charset=utf-8"} {
		r := s.must(s.do("GET", path+"?format="+format+"&lang=ru", s.tokens["marie"], nil), 200)
		if got := r.header.Get("Content-Type"); got != ct || !strings.Contains(string(r.raw), "Ход сражения") {
			t.Errorf("%s: %s\n%.300s", format, got, r.raw)
		}
	}

	if r := s.do("GET", path+"?format=pdf", s.tokens["rita"], nil); r.status != 400 || !strings.Contains(string(r.raw), "html, bbcode or markdown") {
		t.Errorf("format=pdf: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", path+"?max_pictures=1000", s.tokens["rita"], nil); r.status != 400 || !strings.Contains(string(r.raw), "at most 250, got 1000") {
		t.Errorf("max_pictures=1000: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", path, "", nil); r.status != 401 {
		t.Errorf("no token: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", "/api/campaigns/demo/battles/nowhere/report", s.tokens["rita"], nil); r.status != 404 {
		t.Errorf("no battle: %d %s", r.status, r.raw)
	}

	// The campaign's report: its standings, then b1's report, a heading
	// down.
	camp := s.must(s.do("GET", "/api/campaigns/demo/report", s.tokens["karl"], nil), 200)
	if c := string(camp.raw); camp.header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(c, `<h2 id="standings">Standings</h2>`) ||
		!strings.Contains(c, `<h2 id="b1-battle">Eggmuhl</h2>`) || strings.Count(c, `<figure class="picture"`) != 1 {
		t.Errorf("the campaign's report: %.400s", camp.raw)
	}
	if r := s.do("GET", "/api/campaigns/nowhere/report", s.tokens["karl"], nil); r.status < 400 {
		t.Errorf("no campaign: %d", r.status)
	}

	// A budget of a nanosecond is over before any work starts.
	tight := startServer(t, web.Options{Budget: time.Nanosecond})
	if r := tight.do("GET", path, adminToken, nil); r.status != 503 || r.errorField("code") != "over_budget" {
		t.Errorf("over its budget: %d %s", r.status, r.raw)
	}
}
