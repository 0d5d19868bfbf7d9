package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// These tests look at the battle page as a player without a mouse does:
// with the keyboard alone, with a finger on a phone, and through the
// accessibility checks of axe-core, in real headless Chromium.

// targetsJS measures every control of the page as drawn (the header, the
// link to the unit list, and all of main: the map's toolbar and timeline,
// the unit list, the play panel, the log, dice, disputes, audit and
// report): the box a finger or a pointer hits (a checkbox's or a radio's
// whole label: pressing the label presses it), each control once, hidden
// ones left out. A link inside a sentence (an event's "#12" it refers
// to, a dispute's events) is marked inline: WCAG 2.5.8 exempts it, and a
// 44 px box would break its line.
const targetsJS = `(() => {
  const out = [];
  const seen = new Set();
  const sel = "button, select, input, textarea, summary, a[href], [tabindex]:not([tabindex='-1'])";
  for (const root of document.querySelectorAll("header.top, a.skip, main")) {
    for (const c of root.querySelectorAll(sel)) {
      let box = c;
      if ((c.type === "checkbox" || c.type === "radio") && c.closest("label")) box = c.closest("label");
      if (seen.has(box)) continue;
      seen.add(box);
      if (!box.getClientRects().length || getComputedStyle(box).visibility === "hidden") continue;
      const r = box.getBoundingClientRect();
      const name = c.id ? "#" + c.id : c.tagName.toLowerCase() + (c.className ? "." + String(c.className).split(" ")[0] : "") +
        (c.dataset.unit ? "[" + c.dataset.unit + "]" : c.dataset.face ? "[" + c.dataset.face + "]" : "") + " " + (box.textContent || c.value || "").trim().slice(0, 30);
      out.push({ name, w: r.width, h: r.height, inline: c.tagName === "A" && !!c.closest(".refers, li.dispute, li.retraction, ul.corrections") });
    }
  }
  return out;
})()`

type target struct {
	Name   string
	W, H   float64
	Inline bool
}

// TestBrowserTargets: at Aspern, marie's battle page on a 360 px and a
// 400 px phone and a 1,024 px tablet: with the 2/26e selected from the
// unit list, every tool of the play panel open in turn (and the phase's
// end asked), every control of the page (the header, the map's toolbar and
// timeline, the unit list, the play panel, the log, dice, disputes, audit
// and report) is at least 44 by 44 CSS pixels, as Chromium lays it out (a
// checkbox or radio button counts with its label, which presses it). No
// control needs the 24 px exception; left out are only links inside a
// sentence (an event's "#12", a dispute's events), which WCAG 2.5.8
// exempts and a 44 px box would break the line of. So is every control
// of the umpire's review of a disputed order (its pictures' tools, the
// ruling's form with a unit's row) at 360 and 400 px. At 400 x 850
// the order tool shows its odds and its dice pad on its first screen. With
// LEDGER_DOCS_IMG it draws docs/img/page-units-phone.png and
// page-order-phone.png (the unit list and the order tool at 400 px).
func TestBrowserTargets(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	playScenario(t, ts, "do", "../../testdata/scenarios/d-order.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "dispute.uphold"
	})
	newTab := browser(t)
	b, u := newTab("marie"), newTab("uma")
	tools := []string{"initiative", "order", "move", "turn", "formation", "charge", "fire", "combat", "order-any", "tactical", "flank", "seed", "other"}
	for _, width := range []int64{360, 400, 1024} {
		height := int64(850)
		if width > 600 {
			height = 768
		}
		b.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", width, height)
		settled(b, ts, "aspern") // the map drawn: its stage is empty, 0 px high, until then
		var all []target
		measure := func(what string) {
			t.Helper()
			for _, x := range evalIn[[]target](b, targetsJS) {
				x.Name = what + ": " + x.Name
				all = append(all, x)
			}
		}
		measure("nothing selected")
		selectUnit(b, "2-leger")
		measure("2-leger selected")
		if width == 400 {
			b.docShot("page-units-phone.png", "#units")
		}
		for _, tool := range tools {
			b.do("tool "+tool, chromedp.Click(chromedp.CSS(`#do-`+tool)), chromedp.WaitVisible(chromedp.CSS(`#tool .tool-body`)))
			measure(tool)
			if tool == "order" && width == 400 {
				b.do("order settled", chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)))
				fold := evalIn[map[string]float64](b, `(() => { document.getElementById("tool").scrollIntoView({block: "start"});
				  return {odds: document.querySelector("#odds table").getBoundingClientRect().bottom, dice: document.getElementById("order-dice-pad").getBoundingClientRect().bottom,
				    give: document.getElementById("order-give").getBoundingClientRect().bottom, screen: innerHeight}; })()`)
				b.docShot("page-order-phone.png", "#tool")
				t.Logf("400 x 850, the order tool scrolled to the top: odds end at %.0f px, the dice pad at %.0f px, the give button at %.0f px (screen %.0f px)",
					fold["odds"], fold["dice"], fold["give"], fold["screen"])
				if fold["odds"] > fold["screen"] || fold["dice"] > fold["screen"] {
					t.Errorf("400 x 850: the order's odds (to %.0f px) or dice (to %.0f px) below the first screen (%.0f px)", fold["odds"], fold["dice"], fold["screen"])
				}
			}
			b.do("close "+tool, chromedp.Click(chromedp.CSS(`#tool-close`)))
		}
		b.do("end the phase?", chromedp.Click(chromedp.CSS(`#phase-end`)), chromedp.WaitVisible(chromedp.CSS(`#phase-end-confirm`)))
		measure("phase end asked")
		b.do("not yet", chromedp.Click(chromedp.CSS(`#phase-end-cancel`)))

		// The umpire's review of a disputed order, with its ruling's form
		// and a unit's row added to it.
		if width < 600 {
			u.open(ts, "uma", "/c/demo/b/do?lang=en", `#log li[data-version="8"] button.review-open`, width, height)
			u.do("review", void(chromedp.Evaluate[any](`document.querySelector('#log li[data-version="8"]').scrollIntoView({block: "center"})`)),
				chromedp.Click(chromedp.CSS(`#log li[data-version="8"] button.review-open`)),
				chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] svg[data-panel="recorded"] line.review-command[data-unit="fr-a"]`)),
				chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] #rule-1-preview[data-state="idle"]`)),
				chromedp.Click(chromedp.CSS(`#rule-1-add-unit`)),
				chromedp.WaitVisible(chromedp.CSS(`#rule-1 .unit-row select.u-unit`)))
			for _, x := range evalIn[[]target](u, strings.Replace(targetsJS, `"header.top, a.skip, main"`, `"#review"`, 1)) {
				x.Name = "review: " + x.Name
				all = append(all, x)
			}
		}
		sort.Slice(all, func(i, j int) bool { return math.Min(all[i].W, all[i].H) < math.Min(all[j].W, all[j].H) })
		if len(all) < 40 {
			t.Fatalf("%d px: only %d controls measured", width, len(all))
		}
		for _, x := range all {
			if !x.Inline {
				t.Logf("%d px: %d controls measured; the smallest: %s (%.1f x %.1f px)", width, len(all), x.Name, x.W, x.H)
				break
			}
		}
		var small []string
		inline := 0
		for _, x := range all {
			if x.Inline {
				inline++
				continue
			}
			if x.W < 44-0.01 || x.H < 44-0.01 {
				small = append(small, fmt.Sprintf("%s %.1fx%.1f", x.Name, x.W, x.H))
			}
		}
		t.Logf("%d px: %d links inside a sentence left out", width, inline)
		if len(small) > 0 {
			t.Errorf("%d px: %d controls smaller than 44 x 44 px: %s", width, len(small), strings.Join(small, "; "))
		}
	}
}

// selectUnit chooses a unit from the unit list beside the map, by a click
// (as a finger does), and waits for its card.
func selectUnit(b *tab, unit string) {
	b.t.Helper()
	b.do("select "+unit, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#units button.unit-pick[data-unit=%q]`, unit))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#unit-title[data-unit=%q]`, unit))))
}

// keyboard drives a page with the keyboard alone and counts the keys pressed.
type keyboard struct {
	b *tab
	n int
}

// press presses each key of ks in turn (kb's names: kb.Tab, kb.Enter…;
// or the characters typed).
func (k *keyboard) press(ks string, opts ...chromedp.KeyOption) {
	k.b.t.Helper()
	for _, r := range ks {
		k.b.do("key "+fmt.Sprintf("%q", r), chromedp.KeyEvent(string(r), opts...))
		k.n++
	}
}

// focused describes the element that has the keyboard.
func (k *keyboard) focused() string {
	return evalIn[string](k.b, `(() => { const a = document.activeElement; return a ? a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") + (a.dataset && a.dataset.unit ? "[" + a.dataset.unit + "]" : "") + " " + (a.textContent || "").trim().slice(0, 30) : ""; })()`)
}

// to presses key (Tab, Shift+Tab, an arrow) until the element that has
// the keyboard matches sel, at most max times.
func (k *keyboard) to(sel, key string, max int, opts ...chromedp.KeyOption) {
	k.b.t.Helper()
	var path []string
	for i := 0; i <= max; i++ {
		if evalIn[bool](k.b, fmt.Sprintf(`!!(document.activeElement && document.activeElement.matches(%q))`, sel)) {
			return
		}
		if i == max {
			break
		}
		k.press(key, opts...)
		path = append(path, k.focused())
	}
	k.b.shot("keys-lost")
	k.b.t.Fatalf("%s: %s not reached in %d presses of %q: %s", k.b.name, sel, max, key, strings.Join(path, " → "))
}

// settled waits until the page shows the battle's last event: the live
// stream and the redraws it causes are done.
func settled(b *tab, ts *testServer, battle string) {
	b.t.Helper()
	b.do("settle", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map[data-version="%d"]`, ts.lastVersion2(battle)))))
}

// TestBrowserKeyboard plays the French command phase at Aspern with the
// keyboard alone (Tab, Shift+Tab, the arrow keys, Enter and typed digits;
// the page sees no pointer event at all): from the top of the page marie
// reaches the unit list, chooses the 1/26e with the arrow keys and
// declines its initiative; chooses General Claparede in the list (the
// panel offers his order, him chosen); chooses the 2/26e and gives his order,
// the dice thrown on the table (2 and 3) entered on the pad; moves it 10
// cm north typed as a distance and a heading; ends the phase; zooms and
// pans the map with + and an arrow, and shows the whole table with 0
// (the timeline staying where it is). Every event
// her commands appended is in the page's log, and the 2/26e is drawn where
// the move put it. The unit list is named and its buttons say the unit's
// name and type, the selected one pressed. The keys an order takes (from
// the first Tab on a fresh page to the order given) are logged. Last, the
// battle's report is made from its button and kept from its link, both
// by Enter: the browser downloads aspern.html, the report the API writes
// (GET .../report?format=html, with her token).
func TestBrowserKeyboard(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	start := ts.lastVersion2("aspern")
	b := browser(t)("marie")
	b.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", 1280, 900)
	settled(b, ts, "aspern")
	evalIn[any](b, `(() => { window.__pointers = 0; for (const e of ["pointerdown", "mousedown", "touchstart"]) document.addEventListener(e, () => window.__pointers++, true); document.activeElement && document.activeElement.blur(); })()`)
	k := &keyboard{b: b}
	shift := chromedp.KeyModifiers(chromedp.ModifierShift)

	// The first Tab: the link to the unit list; Enter: on the list, one
	// stop of the Tab key, its units named by name and type.
	k.press(kb.Tab)
	if f := k.focused(); !strings.HasPrefix(f, "a#skip-units") {
		t.Errorf("the first Tab on the page reaches %q, want the link to the unit list", f)
	}
	k.press(kb.Enter)
	k.to(`#units button.unit-pick`, kb.Tab, 40)
	toList := k.n
	names := evalIn[[]string](b, `[...document.querySelectorAll("#units button.unit-pick[data-unit]")].map(x => x.dataset.unit + "=" + x.textContent)`)
	if len(names) != 7 || !strings.HasPrefix(names[0], "1-leger=1/26e leger light infantry") || !strings.HasPrefix(names[5], "ir-14=IR 14 Klebek infantry") {
		t.Errorf("the unit list, marie's side first: %q", names)
	}
	if g := evalIn[[]string](b, `[...document.querySelectorAll("#units button.general-pick")].map(x => x.dataset.general + "=" + x.textContent)`); len(g) != 5 ||
		!strings.HasPrefix(g[0], "lannes=Marshal Lannes commander-in-chief") || !strings.HasPrefix(g[1], "claparede=General Claparede general") {
		t.Errorf("the generals in the list, each before their brigade: %q", g)
	}
	if n := evalIn[int](b, `document.querySelectorAll('#units button.unit-pick[tabindex="0"]').length`); n != 1 {
		t.Errorf("%d buttons of the unit list on the Tab key's path, want 1", n)
	}
	k.to(`#units button.unit-pick[data-unit="1-leger"]`, kb.ArrowDown, 10)
	k.press(kb.Enter)
	b.do("1-leger chosen", chromedp.WaitVisible(chromedp.CSS(`#unit-title[data-unit="1-leger"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#units button.unit-pick[data-unit="1-leger"][aria-pressed="true"]`)))

	// Its initiative declined.
	k.to(`#do-initiative`, kb.Tab, 10)
	k.press(kb.Enter)
	b.do("initiative tool", chromedp.WaitVisible(chromedp.CSS(`#init-preview[data-state="ok"]`)))
	if f := k.focused(); !strings.HasPrefix(f, "select#init-action") {
		t.Errorf("the initiative tool opened from the keyboard: the keyboard on %q, want its first field", f)
	}
	k.to(`#init-decline`, kb.Tab, 10)
	k.press(kb.Enter)
	b.do("declined", chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="initiative.decline"]`)))
	settled(b, ts, "aspern")

	// A general chosen from the list: Claparede, whose order the panel
	// offers with him as the general.
	k.to(`#units button.unit-pick`, kb.Tab, 40, shift)
	k.press(kb.Home) // the list's first: Lannes, then down
	k.to(`#units button.general-pick[data-general="claparede"]`, kb.ArrowDown, 10)
	k.press(kb.Enter)
	b.do("claparede chosen", chromedp.WaitVisible(chromedp.CSS(`#unit-title[data-general="claparede"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#units button.general-pick[data-general="claparede"][aria-pressed="true"]`)))
	k.to(`#do-general-order`, kb.Tab, 10)
	k.press(kb.Enter)
	if f, g := k.focused(), evalIn[string](b, `document.getElementById("order-general").value`); !strings.HasPrefix(f, "select#order-general") || g != "claparede" {
		t.Errorf("Claparede's order from the keyboard: the keyboard on %q, the general %q", f, g)
	}

	// The 2/26e chosen, Claparede's order given with the dice 2 and 3
	// typed on the pad.
	k.to(`#units button.unit-pick`, kb.Tab, 40, shift)
	before := k.n
	k.to(`#units button.unit-pick[data-unit="2-leger"]`, kb.ArrowDown, 10)
	k.press(kb.Enter)
	b.do("2-leger chosen", chromedp.WaitVisible(chromedp.CSS(`#unit-title[data-unit="2-leger"]`)))
	chosen := k.n
	k.to(`#do-order`, kb.Tab, 10)
	k.press(kb.Enter)
	b.do("order tool", chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)))
	k.to(`#order-dice-pad button[data-face="1"]`, kb.Tab, 30)
	k.press("23")
	b.do("dice entered", chromedp.WaitVisible(chromedp.CSS(`#order-dice-list button.chip:nth-child(2)`)))
	if d := evalIn[string](b, `document.getElementById("order-dice-list").textContent`); d != "23" {
		t.Errorf("the dice typed on the pad: %q, want 2 and 3", d)
	}
	k.to(`#order-give`, kb.Tab, 10)
	k.press(kb.Enter)
	b.do("order given", chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="order.give"] li[data-type="order.resolved"]`)))
	t.Logf("keys pressed for an order: %d from a fresh page's first Tab to the order given (%d to reach the unit list, %d to choose the 2/26e in it, %d from the unit chosen to the order given)",
		toList+(k.n-before), toList, chosen-before, k.n-chosen)
	settled(b, ts, "aspern")

	// A move typed: 10 cm, heading 0 (north).
	y0 := unitAttr(b, "2-leger", "y")
	k.to(`#do-move`, kb.Tab, 40, shift)
	k.press(kb.Enter)
	if f := k.focused(); !strings.HasPrefix(f, "input#move-distance") {
		t.Errorf("the move tool opened from the keyboard: the keyboard on %q, want the distance", f)
	}
	k.press("10")
	k.to(`#move-heading`, kb.Tab, 2)
	k.press("0")
	b.do("the ruler says legal", chromedp.WaitVisible(chromedp.CSS(`#ruler-legal`)))
	k.to(`#move-confirm`, kb.Tab, 10)
	k.press(kb.Enter)
	b.do("moved", chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.move"]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map g.unit[data-unit="2-leger"][data-y="%s"]`, num(y0+10)))))
	settled(b, ts, "aspern")

	// The phase ended: the check, then its confirmation, which the
	// keyboard is taken to.
	k.to(`#phase-end`, kb.Tab, 40, shift)
	k.press(kb.Enter)
	b.do("phase end checked", void(chromedp.Poll[bool](`document.activeElement && document.activeElement.id === "phase-end-confirm"`)))
	k.press(kb.Enter)
	b.do("phase ended", chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="phase.end"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#turn-text[data-phase="movement"]`)))
	settled(b, ts, "aspern")
	phaseKeys := k.n

	// The map itself: + zooms in, an arrow pans (the timeline stays where
	// it is), 0 shows the whole table again.
	k.to(`#map-stage`, kb.Tab, 60, shift)
	viewBox := func() string { return evalIn[string](b, `document.getElementById("map").getAttribute("viewBox")`) }
	version := evalIn[string](b, `document.getElementById("map").dataset.version`)
	whole := viewBox()
	k.press("+")
	zoomed := viewBox()
	k.press(kb.ArrowRight)
	panned := viewBox()
	k.press("0")
	if zoomed == whole || panned == zoomed || viewBox() != whole {
		t.Errorf("the map by keyboard: viewBox %q, after + %q, after → %q, after 0 %q", whole, zoomed, panned, viewBox())
	}
	if v := evalIn[string](b, `document.getElementById("map").dataset.version`); v != version {
		t.Errorf("an arrow on the map moved the timeline too: event %s, then %s", version, v)
	}

	if n := evalIn[int](b, `window.__pointers`); n != 0 {
		t.Errorf("%d pointer events: the turn was not played by keyboard alone", n)
	}
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/events", ts.tokens["marie"], nil), 200)
	types := map[string]bool{}
	for _, e := range evs.body["events"].([]any) {
		e := e.(map[string]any)
		v := int(e["version"].(float64))
		if v <= start {
			continue
		}
		types[e["type"].(string)] = true
		if !evalIn[bool](b, fmt.Sprintf(`!!document.querySelector('#log li[data-version="%d"][data-type=%q]')`, v, e["type"])) {
			t.Errorf("event %d (%s) not in the page's log", v, e["type"])
		}
	}
	for _, want := range []string{"initiative.declined", "order.resolved", "unit.moved"} {
		if !types[want] {
			t.Errorf("no %s among the events the keyboard's commands appended: %v", want, types)
		}
	}
	t.Logf("%d keys pressed in all for the phase (the initiative declined, the order, the move, the phase's end)", phaseKeys)
	b.shot("keyboard")

	// The battle's report, made from the keyboard too: a link to the
	// file, named after the battle, holding the report the API writes.
	before = k.n
	k.to(`#report-make`, kb.Tab, 150) // past the log's Review buttons, one an event
	t.Logf("%d Tabs from the map to the report's button, past %d Review buttons of the log", k.n-before, evalIn[int](b, `document.querySelectorAll("#log button.review-open").length`))
	k.press(kb.Enter)
	b.do("the report", chromedp.WaitVisible(chromedp.CSS(`#report-link[download="aspern.html"]`)))
	if f := k.focused(); !strings.HasPrefix(f, "a#report-link") {
		t.Errorf("the report made: the keyboard on %q, want its link", f)
	}
	// Enter on the link: the browser keeps the file (in a folder of the
	// test's), as it would on a phone.
	dir := t.TempDir()
	on := true
	if _, err := chromedp.Call(b.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName,
		BrowserContextID: chromedp.FromContext(b.ctx).BrowserContextID, DownloadPath: dir, EventsEnabled: &on}); err != nil {
		t.Fatal(err)
	}
	// Both subscriptions before the key: no event can come before them.
	ectx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	begins := chromedp.Events(ectx, cdpbrowser.DownloadWillBegin)
	progress := chromedp.Events(ectx, cdpbrowser.DownloadProgress)
	k.press(kb.Enter)
	var done cdpbrowser.EventDownloadProgress
	for e, err := range progress {
		if err != nil {
			t.Fatalf("the report's download: %v", err)
		}
		if e.State != cdpbrowser.DownloadProgressStateInProgress {
			done = e
			break
		}
	}
	if done.State != cdpbrowser.DownloadProgressStateCompleted {
		t.Fatalf("the report's download ended %q", done.State)
	}
	var got cdpbrowser.EventDownloadWillBegin
	for e, err := range begins {
		if err != nil {
			t.Fatalf("the report's download: %v", err)
		}
		if e.GUID == done.GUID {
			got = e
			break
		}
	}
	name := got.SuggestedFilename
	raw, err := os.ReadFile(filepath.Join(dir, got.GUID))
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	if name != "aspern.html" {
		t.Errorf("the report downloaded as %q, want aspern.html", name)
	}
	if !strings.HasPrefix(strings.ToLower(html), "<!doctype html") || !strings.Contains(html, "Aspern") || !strings.Contains(html, "2/26e leger") {
		t.Errorf("the report's file begins %q", html[:min(len(html), 200)])
	}
}

// axeViolation is one rule axe-core finds broken, and where.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// axeCheck runs axe-core (testdata/axe/axe.min.js, vendored from npm with
// its licence) on the page as it stands, every rule it runs by default,
// and returns what it finds broken.
func axeCheck(b *tab) []axeViolation {
	b.t.Helper()
	src, err := os.ReadFile("testdata/axe/axe.min.js")
	if err != nil {
		b.t.Fatal(err)
	}
	if !evalIn[bool](b, `typeof window.axe === "object"`) {
		evalIn[any](b, string(src)+"\n;true")
	}
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
	  id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map(n => n.target.join(" ") + " " + n.html.slice(0, 160)) })))`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.shot("failed-axe")
		b.t.Fatalf("%s: axe: %v", b.name, err)
	}
	return v
}

// TestBrowserAxe runs axe-core on the page's five views, each once it has
// loaded everything it shows: the landing page, the campaign's page (its
// standings), the battle page as a reader sees it (the map, log, dice,
// disputes and audit), the same page as the French player plays it (the
// unit list, the 2/26e selected and the order tool open with its odds)
// and the umpire's review of a disputed order (its pictures and the form
// of the ruling), on a 400 px phone and at 1,280 px. axe finds nothing
// broken in any.
func TestBrowserAxe(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	playScenario(t, ts, "do", "../../testdata/scenarios/d-order.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "dispute.uphold"
	})
	// loaded: the dice, the audit and the disputes have answered (each
	// says "Loading…" until then).
	loaded := void(chromedp.Poll[bool](fmt.Sprintf(`!!document.querySelector("#dice figure, #dice p, #dice .error") && !!document.querySelector("#audit-box ul.checks, #audit-box .error") &&
	  ![...document.querySelectorAll("main p")].some(p => p.textContent === %q)`, catalogue(t, "en")["page.loading"])))
	newTab := browser(t)
	rita, marie, uma := newTab("rita"), newTab("marie"), newTab("uma")
	type view struct {
		name string
		b    *tab
		open func(width int64)
	}
	views := []view{
		{"landing", marie, func(w int64) { marie.open(ts, "marie", "/?lang=en", `#campaigns li[data-campaign="demo"]`, w, 860) }},
		{"campaign", marie, func(w int64) { marie.open(ts, "marie", "/c/demo?lang=en", `#standings table`, w, 860) }},
		{"battle", rita, func(w int64) {
			rita.open(ts, "rita", "/c/demo/b/aspern?lang=en", `#map g.unit`, w, 860)
			rita.do("loaded", loaded)
		}},
		{"play", marie, func(w int64) {
			marie.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", w, 860)
			settled(marie, ts, "aspern")
			tapUnit(marie, "2-leger")
			marie.do("order tool", chromedp.Click(chromedp.CSS(`#do-order`)), chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)), loaded)
		}},
		{"review", uma, func(w int64) {
			uma.do("open the review", chromedp.EmulateViewport(w, 860),
				chromedp.Navigate(fmt.Sprintf("%s/c/demo/b/do?lang=en#token=%s&review=8", ts.url, ts.tokens["uma"])),
				chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] svg[data-panel="recorded"] line.review-command[data-unit="fr-a"]`)),
				chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] #rule-1-preview[data-state="idle"]`)), loaded)
		}},
	}
	for _, width := range []int64{400, 1280} {
		for _, v := range views {
			v.open(width)
			found := axeCheck(v.b)
			n := 0
			for _, x := range found {
				n += len(x.Nodes)
				t.Errorf("%s at %d px: axe: %s (%s, %s): %d elements: %s", v.name, width, x.ID, x.Impact, x.Help, len(x.Nodes), strings.Join(x.Nodes[:min(len(x.Nodes), 4)], " | "))
			}
			t.Logf("%s at %d px: %d rules broken, %d elements", v.name, width, len(found), n)
		}
	}
}
