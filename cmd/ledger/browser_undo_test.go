package main

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserUndo: marie moves the 2/26e 10 cm on her page and, nothing
// having happened since, takes it back with "Undo": the ledger records
// the retraction at once (no agreement asked, marked at_once), the unit
// stands where it stood with its three actions. She moves it again; karl
// disputes that move; as the dispute arrives on her page, "Undo" is taken
// away, saying that only karl's agreement takes the move back now.
func TestBrowserUndo(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "unit.reform")
	b := browser(t)("marie")
	b.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", 400, 860)
	b.do("the map", chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="2-leger"]`)))
	y0 := unitAttr(b, "2-leger", "y")
	move := func(what string) {
		tapUnit(b, "2-leger")
		b.do(what, chromedp.Click(chromedp.CSS(`#do-move`)),
			typeInto(`#move-distance`, "10"),
			typeInto(`#move-heading`, "0"),
			chromedp.WaitVisible(chromedp.CSS(`#ruler-legal`)),
			chromedp.Click(chromedp.CSS(`#move-confirm`)),
			chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.move"] #undo-last`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map g.unit[data-unit="2-leger"][data-y="%s"]`, num(y0+10)))))
	}
	move("move")
	b.do("undo", chromedp.Click(chromedp.CSS(`#undo-last`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="command.retract_request"] li[data-type="command.retracted"]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map g.unit[data-unit="2-leger"][data-y="%s"]`, num(y0)))))
	r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/events", ts.tokens["uma"], nil), 200)
	evs := r.body["events"].([]any)
	last := evs[len(evs)-1].(map[string]any)
	if last["type"] != "command.retracted" || last["actor"] != "marie" || last["payload"].(map[string]any)["at_once"] != true {
		t.Errorf("the battle's last event: %v", last)
	}
	st := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/state", ts.tokens["marie"], nil), 200)
	for _, x := range st.body["units"].([]any) {
		if u := x.(map[string]any); u["unit"] == "2-leger" && (u["y"] != y0 || u["actions_left"] != 3.0) {
			t.Errorf("the 2/26e after the undo: %v, want y %v and 3 actions", u, y0)
		}
	}

	move("move again")
	moved := ts.lastVersion2("aspern")
	ts.must(ts.command("karl", "aspern", "dispute.raise", map[string]any{"command": map[string]any{"event_version": moved, "reason": "through the wood"}}), 201)
	// The dispute arrives on marie's page: "Undo" is taken away, saying
	// why (the rules would refuse it now: TestRetractAtOnce), and the
	// page still stands at the last event.
	b.do("the dispute arrives", chromedp.WaitVisible(chromedp.CSS(`#play-result #undo-gone`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#undo-last`)))
	t.Logf("instead of Undo: %q", evalIn[string](b, `document.getElementById("undo-gone").textContent`))
	if v := ts.lastVersion2("aspern"); v != moved+1 {
		t.Errorf("the battle is at %d, want %d (the move and the dispute)", v, moved+1)
	}
}
