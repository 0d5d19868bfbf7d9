package main

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/config"
)

// TestServeReviewLongWord (issue 24, item 1): a dispute reason of one
// 300-character word (a pasted link is one) once made the review picture
// loop for ever, ledger serve growing by 200 MiB a second until the machine
// was out of memory. Now the picture of the disputed event answers, with
// the reason wrapped inside the word, and what the server allocated for it
// stays within a bound (the runaway allocated without end).
func TestServeReviewLongWord(t *testing.T) {
	ts := seed(t)
	last := ts.lastVersion()
	reasons := []string{
		strings.Repeat("R", 300),
		"https://forum.example.org/" + strings.Repeat("x/", 400),
		strings.Repeat("Ж", 1999),
		"{unit} %s %d {{.}} " + strings.Repeat("{n}", 300),
	}
	for i, reason := range reasons {
		move := last - i // one open dispute per event
		ts.must(ts.command("karl", "b1", "dispute.raise", map[string]any{"command": map[string]any{"event_version": move, "reason": reason}}), 201)
		// The bound is generous: a client that waits 60 s rather than
		// the runaway's forever; the assertion is on memory.
		client := &http.Client{Timeout: 60 * time.Second}
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/campaigns/demo/battles/b1/review?version=%d&format=svg", ts.url, move), nil)
		req.Header.Set("Authorization", "Bearer "+ts.tokens["marie"])
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("reason %d: the review picture did not answer: %v", i+1, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		runtime.ReadMemStats(&after)
		if res.StatusCode != 200 || !strings.Contains(string(body), "</svg>") {
			t.Fatalf("reason %d: %d %.300s", i+1, res.StatusCode, body)
		}
		// Every character of the reason is in the caption, wrapped into
		// lines (a line of the caption is a <text>).
		if got := strings.Count(string(body), string([]rune(reason)[:1])); got < 1 {
			t.Errorf("reason %d is not in the picture", i+1)
		}
		if spent := after.TotalAlloc - before.TotalAlloc; spent > 256<<20 {
			t.Errorf("reason %d: the review picture cost the server %d MiB", i+1, spent>>20)
		}
	}
}

// TestServeRequestBudget: a request that outlasts http.request_budget is
// stopped and answered 503 in words, naming the budget and the setting,
// with Retry-After; the health check and the live stream are not held to
// it. A budget of a nanosecond is over before any work starts, so the
// test does not depend on how fast the machine is.
func TestServeRequestBudget(t *testing.T) {
	ts := startServerWith(t, func(c *config.Config) { c.HTTP.RequestBudget = time.Nanosecond })
	r := ts.do("GET", "/api/campaigns", testAdminToken, nil)
	if r.status != 503 || r.errorField("code") != "over_budget" || !strings.Contains(fmt.Sprint(r.errorField("message")), "http.request_budget") {
		t.Fatalf("a request over its budget: %d %s", r.status, r.raw)
	}
	ru := ts.do("GET", "/api/campaigns?lang=ru", testAdminToken, nil)
	if ru.status != 503 || !strings.Contains(fmt.Sprint(ru.errorField("message")), "Запрос занял больше времени") {
		t.Errorf("in Russian: %d %s", ru.status, ru.raw)
	}
	if r := ts.do("GET", "/healthz", "", nil); r.status != 200 {
		t.Errorf("healthz under a nanosecond's budget: %d %s", r.status, r.raw)
	}
	// A battle's queries read the log, and a read cut short by the
	// deadline comes back as the log not answering in time: the answer
	// still names the budget (it said "unavailable", the log's fault).
	for _, p := range []string{"state", "events", "battlefield.svg", "audit", "replay?version=1", "review?version=1"} {
		r := ts.do("GET", "/api/campaigns/x/battles/y/"+p, testAdminToken, nil)
		if r.status != 503 || r.errorField("code") != "over_budget" {
			t.Errorf("%s over its budget: %d %v", p, r.status, r.errorField("code"))
		}
	}
}

// TestServeUsedIDForbiddenFirst (issue 25, item 4): a reader who sends a
// command under an id someone else used is refused as a reader (403),
// exactly as with an unused id, not told what the id recorded (409
// naming the event and who entered it); a player sending the other
// side's command under a used id likewise.
func TestServeUsedIDForbiddenFirst(t *testing.T) {
	ts := seed(t)
	before := ts.lastVersion()
	move := map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 20}}
	for _, c := range []struct{ who, id string }{{"rita", "move-1"}, {"rita", "order-1"}, {"rita", "never-used"}, {"karl", "move-1"}} {
		r := ts.command(c.who, "b1", "unit.move", map[string]any{"id": c.id, "command": move})
		if r.status != 403 || strings.Contains(string(r.raw), "entered by") {
			t.Errorf("%s with id %s: %d %s", c.who, c.id, r.status, r.raw)
		}
	}
	// The owner of the id, with another command, still hears of the clash.
	if r := ts.command("marie", "b1", "unit.move", map[string]any{"id": "move-1", "command": move}); r.status != 409 {
		t.Errorf("marie reusing her own id for another move: %d %s", r.status, r.raw)
	}
	if got := ts.lastVersion(); got != before {
		t.Errorf("the battle went from event %d to %d", before, got)
	}
}
