package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// These tests play through the page alone, in real Chromium, with two
// players' tokens in two browser contexts: every command is the page's,
// posted to the API as a player's tablet would post it.

// unitCentre is where a unit is drawn on the screen (CSS pixels), after
// scrolling the map into view.
func unitCentre(b *tab, unit string) (float64, float64) {
	b.t.Helper()
	evalIn[any](b, `document.getElementById("map-stage").scrollIntoView({block: "center"})`)
	p := evalIn[map[string]float64](b, fmt.Sprintf(`(() => { const r = document.querySelector('#map g.unit[data-unit=%q] polygon.base').getBoundingClientRect(); return {x: r.x + r.width/2, y: r.y + r.height/2}; })()`, unit))
	return p["x"], p["y"]
}

// screenAt is where a table point is on the screen.
func screenAt(b *tab, x, y float64) (float64, float64) {
	b.t.Helper()
	p := evalIn[map[string]float64](b, fmt.Sprintf(`(() => { const m = document.getElementById("map"); const d = +m.dataset.tableDepth; const p = new DOMPoint(%g, d - %g).matrixTransform(m.getScreenCTM()); return {x: p.x, y: p.y}; })()`, x, y))
	return p["x"], p["y"]
}

// drag presses the mouse at (x0, y0), moves it in steps to (x1, y1) and,
// unless hold, releases it there.
func drag(x0, y0, x1, y1 float64, hold bool, opts ...chromedp.MouseOption) chromedp.Action[chromedp.Void] {
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.MouseEvent(chromedp.MousePressed, x0, y0, append([]chromedp.MouseOption{chromedp.ButtonLeft, chromedp.ClickCount(1)}, opts...)...),
	}
	for i := 1; i <= 8; i++ {
		f := float64(i) / 8
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, append([]chromedp.MouseOption{chromedp.ButtonLeft}, opts...)...))
	}
	if !hold {
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, x1, y1, append([]chromedp.MouseOption{chromedp.ButtonLeft, chromedp.ClickCount(1)}, opts...)...))
	}
	return chromedp.Steps(steps...)
}

// tapUnit clicks a unit on the map. With no tool open, a tap selects the
// unit, and tapUnit waits for the unit list to say so: the map is drawn
// again as each event arrives live, and a tap that lands while its picture
// is being replaced selects nothing (the CI saw it once under load, after
// a command: the next tool's button never came). Such a tap is made again,
// up to three times. With a tool open the tap is the tool's (a charge's
// target): what it does is the caller's to check.
func tapUnit(b *tab, unit string) {
	b.t.Helper()
	unitSel := fmt.Sprintf(`#map g.unit[data-unit=%q] polygon.base`, unit)
	took := fmt.Sprintf(`!!document.querySelector("#tool .tool-body") || !!document.querySelector('#unit-list button.unit-pick[data-unit=%q][aria-pressed="true"]')`, unit)
	for try := 1; ; try++ {
		b.do("find "+unit, chromedp.WaitVisible(chromedp.CSS(unitSel)))
		x, y := unitCentre(b, unit)
		b.do("tap "+unit, chromedp.MouseClickXY(x, y))
		ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](took))
		cancel()
		if err == nil {
			return
		}
		at := evalIn[string](b, fmt.Sprintf(`(() => { const e = document.elementFromPoint(%g, %g); return e ? e.outerHTML.slice(0, 120) : "nothing"; })()`, x, y))
		if try == 3 {
			b.t.Fatalf("%s: %d taps on %s at (%.0f, %.0f) selected nothing: %v (there: %s)", b.name, try, unit, x, y, err, at)
		}
		b.t.Logf("%s: the tap on %s at (%.0f, %.0f) selected nothing (there: %s); tapping again", b.name, unit, x, y, at)
	}
}

// markLoaded leaves a mark in the page's window: it is gone if the page
// reloads.
func markLoaded(b *tab) { evalIn[any](b, `window.__notReloaded = true`) }

func stillLoaded(b *tab) bool { return evalIn[bool](b, `window.__notReloaded === true`) }

// TestBrowserPlayTurn plays the French command phase at Aspern through the
// page alone, marie on a tablet and karl watching on a phone, in the order
// play happens: the 1/26e takes the initiative to charge the jaeger (C.15:
// before any general's order), the charge's path and final placement are
// drawn before she confirms it; she selects the 2/26e on the map and
// orders it forward, the exact odds shown before the roll (as GET .../odds
// gives them) and the dice thrown on the table entered on the page; she
// drags it too far, the ruler shows the refusal with its rule (from the
// service's dry run), then to a legal spot, and moves it; she orders the
// hussars with digital dice (the page sends a nonce of its own); she ends
// the phase. Karl's page follows every step without reloading, its dice
// chart showing her physical and digital dice apart.
func TestBrowserPlayTurn(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	newTab := browser(t)
	marie, karl := newTab("marie"), newTab("karl")
	karl.open(ts, "karl", "/c/demo/b/aspern?lang=en", "#map g.unit", 400, 860)
	markLoaded(karl)
	marie.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#map g.unit", 1280, 900)
	marie.do("play panel", chromedp.WaitVisible(chromedp.CSS(`#play #turn-text[data-phase="command"]`)))

	// Initiative to charge, then the charge with its preview.
	tapUnit(marie, "1-leger")
	marie.do("initiative", chromedp.Click(chromedp.CSS(`#do-initiative`)),
		chromedp.SetValue(chromedp.CSS(`#init-action`), "charge"),
		void(chromedp.Evaluate[any](`document.getElementById("init-action").dispatchEvent(new Event("change"))`)),
		chromedp.SetValue(chromedp.CSS(`#init-target`), "jaeger"),
		void(chromedp.Evaluate[any](`document.getElementById("init-target").dispatchEvent(new Event("change"))`)),
		// The dry run's answer comes in above the buttons: click once it
		// is there, not where the button stood before it.
		void(chromedp.Poll[bool](`(document.querySelector('#init-preview[data-state="ok"]') || {textContent: ""}).textContent.includes("jaeger")`)),
		chromedp.Click(chromedp.CSS(`#init-take`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="initiative.take"]`)))
	tapUnit(marie, "1-leger")
	marie.do("charge tool", chromedp.Click(chromedp.CSS(`#do-charge`)), chromedp.WaitVisible(chromedp.CSS(`#charge-target`)))
	tapUnit(marie, "jaeger")
	marie.do("charge preview", chromedp.WaitVisible(chromedp.CSS(`#charge-preview[data-state="ok"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#overlay .charge-preview-after`)))
	marie.shot("charge-preview")
	marie.docShot("page-charge-preview.png", ".map-card")
	marie.do("charge", chromedp.Click(chromedp.CSS(`#charge-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.charge"] li[data-type="charge.declared"]`)))
	karl.do("karl sees the charge live", chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="charge.declared"]`)))

	// An order with physical dice, its odds shown before the roll.
	tapUnit(marie, "2-leger")
	marie.do("order tool",
		chromedp.WaitVisible(chromedp.CSS(`#unit-title[data-unit="2-leger"]`)),
		chromedp.Click(chromedp.CSS(`#do-order`)),
		chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)))
	odds := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/odds?general=claparede&units=2-leger&action=move", ts.tokens["marie"], nil), 200)
	shown := evalIn[[]string](marie, `[...document.querySelectorAll("#odds tr[data-outcome] td.fraction")].map(x => x.textContent)`)
	var want []string
	for _, o := range odds.body["outcomes"].([]any) {
		want = append(want, o.(map[string]any)["fraction"].(string))
	}
	if strings.Join(shown, " ") != strings.Join(want, " ") {
		t.Errorf("odds shown %v, the API's %v", shown, want)
	}
	if g := evalIn[string](marie, `document.getElementById("order-general").value`); g != "claparede" {
		t.Errorf("the order's general %q, want the 2/26e's brigadier claparede", g)
	}
	marie.shot("order-odds")
	marie.docShot("page-order.png", "#tool")
	marie.do("dice 2 and 3, give the order",
		chromedp.Click(chromedp.CSS(`#order-dice-pad button[data-face="2"]`)),
		chromedp.Click(chromedp.CSS(`#order-dice-pad button[data-face="3"]`)),
		chromedp.Click(chromedp.CSS(`#order-give`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="order.give"] li[data-type="order.resolved"]`)))
	if d := evalIn[string](marie, `document.querySelector('#play-result li[data-type="dice.rolled"]').textContent`); !strings.Contains(d, "2+3") || !strings.Contains(d, "physical by marie") {
		t.Errorf("the roll recorded as %q", d)
	}
	karl.do("karl sees the order live", chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="order.resolved"]`)))

	// A drag move: too far first (refused, C.17, from the dry run), then a
	// legal spot; confirmed.
	tapUnit(marie, "2-leger")
	marie.do("move tool", chromedp.Click(chromedp.CSS(`#do-move`)), chromedp.WaitVisible(chromedp.CSS(`#ruler-readout`)))
	x0, y0 := unitCentre(marie, "2-leger")
	fx, fy := screenAt(marie, 65, 20+45) // 45 cm north: beyond three actions of 10 cm
	marie.do("drag too far", drag(x0, y0, fx, fy, false),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-illegal[data-rule="C.17"]`)))
	if n := evalIn[int](marie, `document.querySelectorAll("#overlay .move-ruler, #overlay .move-ghost.bad").length`); n != 2 {
		t.Errorf("the ruler and the refused ghost on the map: %d elements", n)
	}
	marie.shot("move-refused")
	marie.docShot("page-move-refused.png", ".map-card")
	// The ghost is picked up where it stands and put down 8 cm ahead of
	// the start: one action.
	gx, gy := screenAt(marie, 65, 20+45)
	lx, ly := screenAt(marie, 65, 20+8)
	marie.do("drag back to a legal spot", drag(gx, gy, lx, ly, false),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-legal`)))
	marie.shot("move-legal")
	marie.do("move", chromedp.Click(chromedp.CSS(`#move-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.move"]`)))
	karl.do("karl sees the move live", chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="2-leger"][data-y="28"]`)))

	// An order with digital dice: the page sends a fresh nonce of the
	// device's own (16 bytes, hex) and no dice. Whatever the roll, the
	// order is recorded with a digital roll.
	evalIn[any](marie, `(() => { window.__posted = []; const f = window.fetch; window.fetch = (u, o) => { if (o && o.method === "POST") window.__posted.push({url: String(u), body: JSON.parse(o.body)}); return f(u, o); }; })()`)
	tapUnit(marie, "8-hussards")
	marie.do("digital order", chromedp.Click(chromedp.CSS(`#do-order`)),
		chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)),
		chromedp.Click(chromedp.CSS(`#order-dice-digital`)),
		chromedp.Click(chromedp.CSS(`#order-give`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="order.give"] li[data-type="dice.rolled"]`)))
	if d := evalIn[string](marie, `document.querySelector('#play-result li[data-type="dice.rolled"]').textContent`); !strings.Contains(d, "digital") {
		t.Errorf("the digital roll recorded as %q", d)
	}
	type posted struct {
		URL  string
		Body struct {
			ID      string
			Nonce   string
			Dice    []int
			DryRun  bool `json:"dry_run"`
			Command map[string]any
		}
	}
	var sent *posted
	for _, p := range evalIn[[]posted](marie, `window.__posted`) {
		if strings.Contains(p.URL, "/commands/order.give") && !p.Body.DryRun {
			sent = &p
		}
	}
	if sent == nil || len(sent.Body.Nonce) != 32 || strings.Trim(sent.Body.Nonce, "0123456789abcdef") != "" || sent.Body.Dice != nil || !strings.HasPrefix(sent.Body.ID, "page-") {
		t.Errorf("the digital order was posted as %+v; want a 32-hex-digit nonce, no dice, an id", sent)
	}
	karl.do("karl's dice chart splits physical and digital",
		chromedp.WaitVisible(chromedp.CSS(`#dice svg.dice-chart[data-person="marie"] rect.bar.physical`)),
		chromedp.WaitVisible(chromedp.CSS(`#dice svg.dice-chart[data-person="marie"] rect.bar.digital[data-digital]:not([data-digital="0"])`)))

	// The phase ends.
	marie.do("end the phase", chromedp.Click(chromedp.CSS(`#phase-end`)),
		chromedp.WaitVisible(chromedp.CSS(`#phase-end-confirm`)),
		chromedp.Click(chromedp.CSS(`#phase-end-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="phase.end"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#turn-text[data-phase="movement"]`)))
	karl.do("karl sees the movement phase live", chromedp.WaitVisible(chromedp.CSS(`#turn-text[data-phase="movement"]`)))
	if !stillLoaded(karl) {
		t.Error("karl's page reloaded")
	}
	marie.shot("after-phase")
	karl.shot("after-phase")
	karl.docShot("page-phone.png", ".map-card")
}
