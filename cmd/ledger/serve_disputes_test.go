package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clubledger/ledger/events"
)

// Retractions, disputes and hidden information over real HTTP
// (docs/disputes.md, docs/api.md).

// boardUnit returns a unit of a state or replay answer.
func boardUnit(t *testing.T, r response, id string) map[string]any {
	t.Helper()
	for _, u := range r.body["units"].([]any) {
		if u := u.(map[string]any); u["unit"] == id {
			return u
		}
	}
	t.Fatalf("no unit %s in %s", id, r.raw)
	return nil
}

// eventsOf returns the battle's events as token may read them.
func (ts *testServer) eventsOf(token string) []map[string]any {
	ts.t.Helper()
	r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", token, nil), 200)
	var out []map[string]any
	for _, e := range r.body["events"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

func eventVersion(e map[string]any) int { return int(e["version"].(float64)) }

// projectedUnit is a unit as the SQLite projection holds it (the CLI's
// ledger state), once the projection has caught up.
func (ts *testServer) projectedY(unit string) float64 {
	ts.t.Helper()
	v, err := ts.served.App.DB.Battle(context.Background(), events.Key{Campaign: "demo", Battle: "b1"})
	if err != nil {
		ts.t.Fatal(err)
	}
	for _, u := range v.Units {
		if u.Unit == unit {
			return u.Y
		}
	}
	ts.t.Fatalf("projection has no unit %s", unit)
	return 0
}

func TestServeRetractWithAgreement(t *testing.T) {
	ts := seed(t)
	moved := 0
	for _, e := range ts.eventsOf(ts.tokens["rita"]) {
		if e["type"] == "unit.moved" {
			moved = eventVersion(e)
		}
	}
	// Only the command's actor asks; a reader cannot.
	r := ts.must(ts.command("karl", "b1", "command.retract_request", map[string]any{"command": map[string]any{"command_id": "move-1"}}), 422)
	if r.errorField("code") != "not_yours" || r.errorField("rule") != "retract" {
		t.Fatalf("karl asks for marie's move: %s", r.raw)
	}
	ts.must(ts.command("rita", "b1", "command.retract_request", map[string]any{"command": map[string]any{"command_id": "move-1"}}), 403)
	req := ts.must(ts.command("marie", "b1", "command.retract_request", map[string]any{"id": "ask-1", "command": map[string]any{"command_id": "move-1"}}), 201)
	ev := req.body["events"].([]any)[0].(map[string]any)
	if ev["type"] != "command.retract_requested" || fmt.Sprint(ev["refers"]) != fmt.Sprintf("[%d]", moved) {
		t.Fatalf("request: %s", req.raw)
	}
	// The requester, or the requester's side, does not agree for the opponent.
	ts.must(ts.command("marie", "b1", "command.retract_agree", map[string]any{"command": map[string]any{"request": 1}}), 403)
	ts.must(ts.command("rita", "b1", "command.retract_agree", map[string]any{"command": map[string]any{"request": 1}}), 403)
	done := ts.must(ts.command("karl", "b1", "command.retract_agree", map[string]any{"id": "agree-1", "command": map[string]any{"request": 1}}), 201)
	rev := done.body["events"].([]any)[0].(map[string]any)
	if rev["type"] != "command.retracted" || rev["actor"] != "karl" || !strings.Contains(rev["description"].(string), "33-ligne to (24.0,10.0)") {
		t.Fatalf("retracted: %s", done.raw)
	}
	// The state: the 33e back where it stood, with both actions.
	st := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["rita"], nil), 200)
	if u := boardUnit(t, st, "33-ligne"); u["y"] != 10.0 || u["actions_left"] != 2.0 {
		t.Fatalf("after the retraction: %v", u)
	}
	if y := ts.projectedY("33-ligne"); y != 10 {
		t.Fatalf("projection: y %v", y)
	}
	// The original move stays in the log; the compensating event follows it.
	evs := ts.eventsOf(ts.tokens["rita"])
	if evs[moved-1]["type"] != "unit.moved" || eventVersion(evs[len(evs)-1]) <= moved || evs[len(evs)-1]["type"] != "command.retracted" {
		t.Fatalf("log: %v ... %v", evs[moved-1]["type"], evs[len(evs)-1]["type"])
	}
	list := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/disputes", ts.tokens["rita"], nil), 200)
	q := list.body["retractions"].([]any)[0].(map[string]any)
	if q["status"] != "retracted" || q["requested_by"] != "marie" || q["answered_by"] != "karl" {
		t.Fatalf("retractions: %s", list.raw)
	}
	// With its actions back, the 33e moves again.
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 16}}}), 201)
}

func TestServeDisputeUpheldAfterRoll(t *testing.T) {
	ts := seed(t)
	moved := 0
	for _, e := range ts.eventsOf(ts.tokens["rita"]) {
		if e["type"] == "unit.moved" {
			moved = eventVersion(e)
		}
	}
	// A die is rolled after the move: the player can no longer take it back.
	ts.must(ts.command("marie", "b1", "order.give", map[string]any{"id": "order-2", "dice": []int{3, 3},
		"command": map[string]any{"general": "friant", "units": []string{"48-ligne"}, "content": map[string]any{"action": "move"}}}), 201)
	r := ts.must(ts.command("marie", "b1", "command.retract_request", map[string]any{"command": map[string]any{"command_id": "move-1"}}), 422)
	if r.errorField("code") != "not_last" {
		t.Fatalf("retract an earlier command: %s", r.raw)
	}
	r = ts.must(ts.command("marie", "b1", "command.retract_request", map[string]any{"command": map[string]any{"command_id": "order-2"}}), 422)
	if r.errorField("code") != "rolled" || !strings.Contains(r.errorField("message").(string), "only the umpire") {
		t.Fatalf("retract a roll: %s", r.raw)
	}
	// The opponent disputes the move; a reader cannot; only the umpire rules.
	raise := map[string]any{"id": "dispute-1", "command": map[string]any{"event_version": moved, "reason": "the 33e crossed the stream: half speed"}}
	ts.must(ts.command("rita", "b1", "dispute.raise", raise), 403)
	raised := ts.must(ts.command("karl", "b1", "dispute.raise", raise), 201)
	if e := raised.body["events"].([]any)[0].(map[string]any); e["type"] != "dispute.raised" || fmt.Sprint(e["refers"]) != fmt.Sprintf("[%d]", moved) {
		t.Fatalf("raised: %s", raised.raw)
	}
	uphold := map[string]any{"id": "ruling-1", "command": map[string]any{"dispute": 1, "ruling": "the stream is difficult: the 33e goes back",
		"corrections": []map[string]any{{"unit": "33-ligne", "base": map[string]any{"center": map[string]float64{"x": 24, "y": 10}, "facing": 0}, "actions_left": 2}}}}
	ts.must(ts.command("marie", "b1", "dispute.uphold", uphold), 403)
	ts.must(ts.command("karl", "b1", "dispute.dismiss", map[string]any{"command": map[string]any{"dispute": 1, "ruling": "x"}}), 403)
	up := ts.must(ts.command("uma", "b1", "dispute.uphold", uphold), 201)
	upEvs := up.body["events"].([]any)
	if len(upEvs) != 2 || upEvs[0].(map[string]any)["type"] != "dispute.upheld" || upEvs[1].(map[string]any)["type"] != "unit.corrected" {
		t.Fatalf("upheld: %s", up.raw)
	}
	// The original stays; the correction follows it and points at it.
	evs := ts.eventsOf(ts.tokens["karl"])
	if evs[moved-1]["type"] != "unit.moved" || evs[moved-1]["payload"].(map[string]any)["to"].(map[string]any)["center"].(map[string]any)["y"] != 16.0 {
		t.Fatalf("the disputed event changed: %v", evs[moved-1])
	}
	corr := evs[len(evs)-1]
	// It points at the disputed event and at its ruling, the event before it.
	if corr["type"] != "unit.corrected" || eventVersion(corr) <= moved || fmt.Sprint(corr["refers"]) != fmt.Sprintf("[%d %d]", moved, eventVersion(corr)-1) || corr["actor"] != "uma" {
		t.Fatalf("correction: %v", corr)
	}
	st := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["karl"], nil), 200)
	if u := boardUnit(t, st, "33-ligne"); u["y"] != 10.0 || u["actions_left"] != 2.0 {
		t.Fatalf("after the correction: %v", u)
	}
	if y := ts.projectedY("33-ligne"); y != 10 {
		t.Fatalf("projection: y %v", y)
	}
	// The replay just before the correction still shows the move.
	before := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d", eventVersion(corr)-1), ts.tokens["rita"], nil), 200)
	if u := boardUnit(t, before, "33-ligne"); u["y"] != 16.0 {
		t.Fatalf("replay before the correction: %v", u)
	}
	// A second dispute, dismissed; the list says who did what and why.
	ts.must(ts.command("marie", "b1", "dispute.raise", map[string]any{"command": map[string]any{"event_version": 3, "reason": "the hussars deployed too far forward"}}), 201)
	ts.must(ts.command("uma", "b1", "dispute.dismiss", map[string]any{"command": map[string]any{"dispute": 2, "ruling": "measured: 9 inches from the edge"}}), 201)
	list := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/disputes", ts.tokens["rita"], nil), 200)
	ds := list.body["disputes"].([]any)
	d1, d2 := ds[0].(map[string]any), ds[1].(map[string]any)
	if d1["status"] != "upheld" || d1["raised_by"] != "karl" || d1["ruled_by"] != "uma" || len(d1["corrections"].([]any)) != 1 ||
		d1["event"].(map[string]any)["type"] != "unit.moved" || d2["status"] != "dismissed" || d2["ruling"] != "measured: 9 inches from the edge" {
		t.Fatalf("disputes: %s", list.raw)
	}
	// The audit and the standings answer.
	audit := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/audit", ts.tokens["rita"], nil), 200)
	if len(audit.body["players"].([]any)) == 0 || len(audit.body["checks"].([]any)) == 0 {
		t.Fatalf("audit: %s", audit.raw)
	}
	ts.must(ts.do("GET", "/api/campaigns/demo/standings", ts.tokens["rita"], nil), 200)
}

func TestServeFlankMarchHidden(t *testing.T) {
	ts := seed(t)
	// Marie's flank march on the west edge; the roll of 1 brings it at once.
	declare := map[string]any{"id": "flank-1", "dice": []int{1}, "command": map[string]any{"side": "french", "edge": "west",
		"orders": map[string]any{"entry": map[string]float64{"x": 0, "y": 27.5}, "brigades": []map[string]any{{
			"id": "bde-secret", "name": "Secret brigade", "order": "attack", "general": map[string]any{"id": "gen-secret", "rating": 8},
			"units": []map[string]any{{"id": "secret-1", "type": "infantry"}, {"id": "secret-2", "type": "infantry"}}}}}}}
	ts.must(ts.command("marie", "b1", "flank.declare", declare), 201)
	secret := []string{"secret-1", "bde-secret", "gen-secret", "27.5"}
	hidden := func(who, what string, raw []byte) {
		t.Helper()
		for _, s := range secret {
			if strings.Contains(string(raw), s) {
				t.Fatalf("%s sees %q in %s: %s", who, s, what, raw)
			}
		}
	}
	last := ts.lastVersion()
	for _, who := range []string{"karl", "rita"} {
		tok := ts.tokens[who]
		st := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", tok, nil), 200)
		hidden(who, "state", st.raw)
		m := st.body["flank_marches"].([]any)[0].(map[string]any)
		if m["edge"] != "west" || m["side"] != "french" || m["orders"] != nil {
			t.Fatalf("%s's view of the march: %v", who, m)
		}
		hidden(who, "events", ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", tok, nil), 200).raw)
		for v := 0; v <= last; v++ {
			hidden(who, fmt.Sprintf("replay %d", v), ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d", v), tok, nil), 200).raw)
		}
	}
	// Its own side and the umpire see the orders, in the state and the replay.
	for _, who := range []string{"marie", "uma"} {
		for _, path := range []string{"state", "replay"} {
			r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/"+path, ts.tokens[who], nil), 200)
			if !strings.Contains(string(r.raw), "secret-1") {
				t.Fatalf("%s's %s lacks its own march's orders: %s", who, path, r.raw)
			}
		}
	}
	// The march arrives in the movement phase: everyone sees its units.
	ts.must(ts.command("marie", "b1", "phase.end", map[string]any{"command": map[string]any{"side": "french"}}), 201)
	ts.must(ts.command("karl", "b1", "flank.enter", map[string]any{"command": map[string]any{"side": "french", "march": 1, "unit": "secret-1"}}), 403)
	ts.must(ts.command("marie", "b1", "flank.enter", map[string]any{"command": map[string]any{"side": "french", "march": 1, "unit": "secret-1",
		"to": map[string]float64{"x": 4, "y": 27.5}}}), 201)
	st := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["karl"], nil), 200)
	if u := boardUnit(t, st, "secret-1"); u["side"] != "french" || u["status"] != "ok" {
		t.Fatalf("arrived unit: %v", u)
	}
	if u := boardUnit(t, st, "secret-2"); u["status"] != "off_table" {
		t.Fatalf("waiting unit: %v", u)
	}
	if m := st.body["flank_marches"].([]any)[0].(map[string]any); m["orders"] == nil {
		t.Fatalf("revealed march without orders: %v", m)
	}
}

// TestBrowserDisputeRuling: the umpire opens the battle page, finds the
// opponent's dispute in the list with its event linked, and dismisses it
// with a ruling through the page's form; the page then shows it dismissed,
// the disputed event marked in the log, and the audit's checks.
func TestBrowserDisputeRuling(t *testing.T) {
	exe := browserPath(t)
	ts := seed(t)
	ts.must(ts.command("karl", "b1", "dispute.raise", map[string]any{"command": map[string]any{"event_version": 8, "reason": "the roll was misread"}}), 201)
	ctx := browserContext(t, exe)
	dispute := chromedp.CSS(`#disputes li.dispute[data-dispute="1"]`)
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.url+"/"),
		void(chromedp.Evaluate[any](fmt.Sprintf(`localStorage.setItem("ledger.token", %q)`, ts.tokens["uma"]))),
		chromedp.Navigate(ts.url+"/c/demo/b/b1?lang=en"),
		chromedp.WaitVisible(dispute),
		chromedp.WaitVisible(chromedp.CSS(`#log li.disputed[data-version="8"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#audit li.check[data-check="chain"]`)),
		chromedp.SendKeys(chromedp.CSS(`#disputes textarea[name="ruling-1"]`), "the dice read 3 and 3"),
		chromedp.Click(chromedp.CSS(`#disputes button.dismiss`)),
		chromedp.WaitVisible(chromedp.CSS(`#disputes li.dispute.s-dismissed[data-dispute="1"]`)),
		// The list is drawn again as the ruling's event arrives: wait for
		// the drawing that shows the ruling, not the instant between two.
		void(chromedp.Poll[bool](`(document.querySelector('#disputes li.dispute[data-dispute="1"]') || {}).textContent?.includes("the dice read 3 and 3") || false`)),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(dispute))
	if err != nil || !strings.Contains(text, "the dice read 3 and 3") || !strings.Contains(text, "uma") {
		t.Fatalf("dispute shown as %q (%v)", text, err)
	}
	list := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/disputes", ts.tokens["rita"], nil), 200)
	if d := list.body["disputes"].([]any)[0].(map[string]any); d["status"] != "dismissed" || d["ruled_by"] != "uma" {
		t.Fatalf("after the page's ruling: %s", list.raw)
	}
	if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		path := filepath.Join(t.TempDir(), "ledger-disputes.png")
		if p := os.Getenv("LEDGER_WEB_SCREENSHOT"); p != "" {
			path = strings.TrimSuffix(p, ".png") + "-disputes.png"
		}
		_ = os.WriteFile(path, shot, 0o644)
		t.Logf("screenshot: %s", path)
	}
}
