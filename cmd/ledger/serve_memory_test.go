package main

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/clubledger/ledger/config"
)

// TestServeTimelinesBounded (issue 24, item 10): the battles' replay
// timelines hold at most cache.timeline_events events in all, but for the
// battle just asked for: replaying four battles one after another with a
// bound of one battle's events keeps the figure /metrics shows within it,
// and each battle still replays (read again from the log).
func TestServeTimelinesBounded(t *testing.T) {
	const limit = 3
	ts := startServerWith(t, func(c *config.Config) { c.Cache.TimelineEvents = limit })
	seedOn(t, ts)
	battles := []string{"b1", "b2", "b3", "b4"}
	for _, b := range battles[1:] {
		ts.must(ts.command("uma", b, "battle.create", map[string]any{"command": map[string]any{
			"name": "Battle " + b, "measurement": "in", "table": map[string]int{"width": 72, "depth": 48}, "first_side": "french"}}), 201)
		ts.must(ts.command("uma", b, "army.deploy", map[string]any{"command": exampleBody(t, "oob-french.yaml")}), 201)
		ts.must(ts.command("uma", b, "army.deploy", map[string]any{"command": exampleBody(t, "oob-austrians.yaml")}), 201)
	}
	metric := func(name string) float64 {
		t.Helper()
		r := ts.must(ts.do("GET", "/metrics", testAdminToken, nil), 200)
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(r.raw)
		if m == nil {
			t.Fatalf("/metrics has no %s:\n%s", name, r.raw)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	for round := range 2 {
		for _, b := range battles {
			r := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/%s/replay?version=1", b), ts.tokens["rita"], nil), 200)
			last := r.body["last"].(float64)
			held := metric("ledger_timeline_events")
			// What is held: within the bound, or the one battle just
			// replayed when it alone is longer.
			if held > max(limit, last) {
				t.Errorf("round %d, after replaying %s (%v events): the timelines hold %v events, over the bound of %d", round+1, b, last, held, limit)
			}
			if held < last {
				t.Errorf("round %d: %s (%v events) is not held after its replay: %v", round+1, b, last, held)
			}
		}
	}
	if n := metric("ledger_cached_streams"); n < 1 || n > 1024 {
		t.Errorf("ledger_cached_streams %v", n)
	}
}
