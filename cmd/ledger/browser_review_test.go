package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The review screen (web/static/review.js, docs/disputes.md "The review"),
// in real Chromium: the d-move scenario's charge, disputed by karl (event
// 15: the 1/33e charges Grenadier Bn 1 and pushes Grenadier Bn 2 back).

// disputedCharge plays testdata/scenarios/d-move.yaml into battle dm up
// to the umpire's ruling on the charge: dispute 2, raised by karl on
// event 15, is open.
func disputedCharge(t *testing.T, ts *testServer) {
	t.Helper()
	playScenario(t, ts, "dm", "../../testdata/scenarios/d-move.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "dispute.uphold" && fmt.Sprint(st.With["dispute"]) == "2"
	})
	d := ts.must(ts.do("GET", "/api/campaigns/demo/battles/dm/disputes", ts.tokens["uma"], nil), 200)
	list := d.body["disputes"].([]any)
	if len(list) != 2 {
		t.Fatalf("disputes before the ruling: %s", d.raw)
	}
	if d2 := list[1].(map[string]any); d2["status"] != "open" || d2["event_version"].(float64) != 15 || d2["event_type"] != "charge.declared" {
		t.Fatalf("dispute 2: %v", d2)
	}
}

// TestBrowserReviewCharge: the umpire opens the review of a disputed
// charge from the dispute, sees the charge's path and the charger's front
// arc drawn over the battle as recorded, with their numbers in words (6"
// of 12", the target in the arc, seen, hit in the front) and the rules it
// cites; a correction placing the charger over the grenadiers is refused
// by the dry run, naming K.2, before anything is recorded; she upholds the
// dispute with the charge undone, checked first, and her review shows the
// battle as corrected beside it as recorded. Karl, who raised it, watches
// the same review on his phone, read-only, and marie her battlefield:
// both pages show the ruling as it is made, without reloading.
func TestBrowserReviewCharge(t *testing.T) {
	ts := peopleServer(t)
	disputedCharge(t, ts)
	newTab := browser(t)
	uma, karl, marie := newTab("uma"), newTab("karl"), newTab("marie")

	// Karl opens the review of the charge he disputed: the same pictures
	// and words, and no form.
	karl.open(ts, "karl", "/c/demo/b/dm?lang=en", `#disputes li.dispute[data-dispute="2"] button.review-dispute`, 400, 860)
	markLoaded(karl)
	karl.do("karl's review",
		chromedp.Click(chromedp.CSS(`#disputes li.dispute[data-dispute="2"] button.review-dispute`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] #review-disputes li[data-dispute="2"][data-status="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] svg[data-panel="recorded"] polygon.review-arc`)))
	if n := evalIn[int](karl, `document.querySelectorAll("#review form.rule, #review button.uphold").length`); n != 0 {
		t.Errorf("karl's review offers %d ruling forms or buttons", n)
	}
	karl.shot("review-open")

	marie.open(ts, "marie", "/c/demo/b/dm?lang=en", `#map g.unit[data-unit="fr-a"][data-y="28"]`, 1280, 900)
	markLoaded(marie)

	// The umpire opens it from the dispute.
	uma.open(ts, "uma", "/c/demo/b/dm?lang=en", `#disputes li.dispute[data-dispute="2"] button.review-dispute`, 1280, 900)
	uma.do("open the review",
		chromedp.Click(chromedp.CSS(`#disputes li.dispute[data-dispute="2"] button.review-dispute`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] svg[data-panel="recorded"] polyline.review-path[data-length="6"][data-allowed="12"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] svg[data-panel="recorded"] polygon.review-arc[data-in-arc="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] svg[data-panel="recorded"] line.review-sight[data-seen="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] #rule-2-preview[data-state="idle"]`)))
	panels := evalIn[[]string](uma, `[...document.querySelectorAll("#review figure.review-panel")].map(f => f.dataset.panel)`)
	if strings.Join(panels, " ") != "before recorded" {
		t.Errorf("panels %v before the ruling, want before and recorded", panels)
	}
	words := evalIn[map[string]string](uma, `Object.fromEntries([...document.querySelectorAll("#review-geometry li")].map(li => [li.dataset.geometry + (li.dataset.enemy ? ":" + li.dataset.enemy : ""), li.textContent]))`)
	for k, want := range map[string]string{
		"path":          `Path of fr-a: 6"; 12" allowed`,
		"arc":           `au-a1 is in fr-a's front arc (K.4)`,
		"sight":         `the target is seen (K.10)`,
		"range":         `Measured 6" of a reach of 12" (K.4); hit in the front (K.8)`,
		"nearest:au-a2": `fr-a to au-a2: 0.4"; within 1" (K.2)`,
	} {
		if !strings.Contains(words[k], want) {
			t.Errorf("the review's %s says %q, want %q", k, words[k], want)
		}
	}
	if rules := evalIn[[]string](uma, `[...document.querySelectorAll("#review-rules li.rule-chip")].map(x => x.textContent + (x.classList.contains("deciding") ? "*" : ""))`); strings.Join(rules, " ") != "K.4* K.5 K.6 K.7 K.8 C.9" {
		t.Errorf("rules shown %v, want K.4 first and deciding", rules)
	}
	// The picture's geometry keeps its size in pixels on the page.
	if px := evalIn[float64](uma, `(() => { const x = document.querySelector('#review svg[data-panel="recorded"] text.review-label'); const m = x.getScreenCTM(); return parseFloat(x.getAttribute("font-size")) * Math.hypot(m.a, m.b); })()`); px < 10 || px > 12 {
		t.Errorf("the geometry's words are %.1f px on the screen, want 11", px)
	}

	// A correction the rules would not allow: the charger placed over
	// Grenadier Bn 1. The dry run refuses it, naming the rule; nothing is
	// recorded and the uphold stays disabled.
	before := ts.lastVersion2("dm")
	uma.do("an impossible correction",
		typeInto(`#rule-2-ruling`, "out of its front arc: the charge is undone"),
		chromedp.Click(chromedp.CSS(`#rule-2-add-unit`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-2 .unit-row select.u-unit`)),
		typeInto(`#rule-2 .unit-row input.u-x`, "20"),
		typeInto(`#rule-2 .unit-row input.u-y`, "30.5"),
		chromedp.WaitVisible(chromedp.CSS(`#rule-2-preview[data-state="refused"] .error[data-rule="K.2"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review-recorded-overlay .correction-ghost.refused`)))
	if unit := evalIn[string](uma, `document.querySelector("#rule-2 .unit-row select.u-unit").value`); unit != "fr-a" {
		t.Errorf("the correction's unit %q, want the charger fr-a", unit)
	}
	if !evalIn[bool](uma, `document.getElementById("rule-2-uphold").disabled`) {
		t.Error("uphold is offered for a refused correction")
	}
	if after := ts.lastVersion2("dm"); after != before {
		t.Fatalf("the dry run appended: %d events, then %d", before, after)
	}
	uma.shot("review-refused")
	uma.docShot("page-review-refused.png", "#rule-2")

	// Undone instead, checked first; then upheld.
	uma.do("the charge undone",
		chromedp.Click(chromedp.CSS(`#rule-2 .unit-row button.remove`)),
		chromedp.Click(chromedp.CSS(`#rule-2-kind-undo`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-2-preview[data-state="ok"] li[data-type="command.undone"]`)))
	if after := ts.lastVersion2("dm"); after != before {
		t.Fatalf("the dry run appended: %d events, then %d", before, after)
	}
	uma.do("uphold",
		chromedp.Click(chromedp.CSS(`#rule-2-uphold`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] #review-disputes li[data-dispute="2"][data-status="upheld"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] svg[data-panel="corrected"] polygon.review-recorded[data-unit="fr-a"]`)))
	d := ts.must(ts.do("GET", "/api/campaigns/demo/battles/dm/disputes", ts.tokens["rita"], nil), 200)
	d2 := d.body["disputes"].([]any)[1].(map[string]any)
	if d2["status"] != "upheld" || d2["ruled_by"] != "uma" || d2["ruling"] != "out of its front arc: the charge is undone" {
		t.Fatalf("after the page's ruling: %v", d2)
	}
	if c := d2["corrections"].([]any); len(c) != 1 || c[0].(map[string]any)["type"] != "command.undone" {
		t.Fatalf("corrections %v, want the charge undone", c)
	}
	panels = evalIn[[]string](uma, `[...document.querySelectorAll("#review figure.review-panel")].map(f => f.dataset.panel)`)
	if strings.Join(panels, " ") != "before recorded corrected" {
		t.Errorf("panels %v after the ruling", panels)
	}
	// As corrected, the charger and the pushed battalion stand where they
	// stood before the charge.
	changes := evalIn[map[string][]string](uma, `Object.fromEntries([...document.querySelectorAll("#review-changes tr[data-kind=unit]")].map(tr => [tr.dataset.id, [...tr.querySelectorAll("td")].map(td => td.textContent)]))`)
	if c := changes["fr-a"]; len(c) != 3 || !strings.HasPrefix(c[0], "(20, 22)") || !strings.HasPrefix(c[1], "(20, 28)") || !strings.HasPrefix(c[2], "(20, 22)") {
		t.Errorf("fr-a before, as recorded, as corrected: %q", c)
	}
	if c := changes["au-a2"]; len(c) != 3 || !strings.HasPrefix(c[1], "(15.5, 30.4)") || !strings.HasPrefix(c[2], "(15.5, 30)") {
		t.Errorf("au-a2 before, as recorded, as corrected: %q", c)
	}
	uma.shot("review-ruled")
	uma.docShot("page-review.png", "#review")

	// The players' pages show the ruling, live.
	karl.do("karl sees the ruling",
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] #review-disputes li[data-dispute="2"][data-status="upheld"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="15"] svg[data-panel="corrected"] polygon.review-recorded[data-unit="fr-a"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#ruling-2[data-status="upheld"]`)))
	if r := evalIn[string](karl, `document.getElementById("review-ruling-2").textContent`); !strings.Contains(r, "uma") || !strings.Contains(r, "out of its front arc: the charge is undone") {
		t.Errorf("karl's review shows the ruling as %q", r)
	}
	marie.do("marie sees the ruling",
		chromedp.WaitVisible(chromedp.CSS(`#ruling-2[data-status="upheld"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#disputes li.dispute.s-upheld[data-dispute="2"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="fr-a"][data-y="22"]`)))
	if r := evalIn[string](marie, `document.getElementById("ruling-2").textContent`); !strings.Contains(r, "Dispute 2 on event 15 upheld by uma") || !strings.Contains(r, "the charge is undone") {
		t.Errorf("marie's notice of the ruling: %q", r)
	}
	for _, b := range []*tab{karl, marie} {
		if !stillLoaded(b) {
			t.Errorf("%s's page reloaded", b.name)
		}
	}
	karl.shot("review-ruled")
	marie.shot("ruled")
}

// TestBrowserReviewRussian: a link to a review (#review=N) opens it; in
// Russian, on a phone, the umpire's reviews of the disputed charge (its
// ruling form with a unit's row) and of the disputed order (its inputs to
// resolve it again), and karl's review of the charge, show none of the
// catalogue's English and no key as itself.
func TestBrowserReviewRussian(t *testing.T) {
	ts := peopleServer(t)
	disputedCharge(t, ts)
	playScenario(t, ts, "do", "../../testdata/scenarios/d-order.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "dispute.uphold"
	})
	en, ru := catalogue(t, "en"), catalogue(t, "ru")
	var phrases []string
	for k, v := range en {
		if strings.HasPrefix(k, "page.") && strings.Count(strings.TrimSpace(v), " ") >= 1 && ru[k] != v && !strings.Contains(v, "{") {
			phrases = append(phrases, v)
		}
	}
	check := func(b *tab, what string) {
		t.Helper()
		// The page's own words: what the server wrote and what people
		// typed are not the page's to translate.
		text := evalIn[string](b, `(() => { const c = document.getElementById("review").cloneNode(true); c.querySelectorAll(".srv, .typed, textarea, input").forEach(x => x.remove()); document.body.append(c); const s = c.innerText; c.remove(); return s; })()`)
		for _, p := range phrases {
			if i := strings.Index(text, p); i >= 0 {
				t.Errorf("%s: English in the Russian review: %q in %q", what, p, text[max(0, i-80):min(len(text), i+len(p)+80)])
			}
		}
		for _, m := range regexp.MustCompile(`\b[a-z_]+(\.[a-z_0-9]+)+\b`).FindAllString(text, -1) {
			if _, isKey := en[m]; isKey {
				t.Errorf("%s: a catalogue key shown as itself: %q", what, m)
			}
		}
		if !strings.Contains(text, "Разбор события") || !strings.Contains(text, "Что решило") {
			t.Errorf("%s: the Russian review reads %q", what, text[:min(len(text), 400)])
		}
		if t.Failed() {
			b.shot(strings.ReplaceAll(what, " ", "-"))
		}
	}
	link := func(b *tab, who, battle string, v int, sel string) {
		t.Helper()
		b.do("open the review's link", chromedp.EmulateViewport(400, 860),
			chromedp.Navigate(fmt.Sprintf("%s/c/demo/b/%s?lang=ru#token=%s&review=%d", ts.url, battle, ts.tokens[who], v)),
			chromedp.WaitVisible(chromedp.CSS(sel)))
		if loc := evalIn[string](b, `location.hash`); loc != fmt.Sprintf("#review=%d", v) {
			t.Errorf("%s: the address keeps %q, want #review=%d", who, loc, v)
		}
	}
	newTab := browser(t)
	uma, karl := newTab("uma"), newTab("karl")
	link(uma, "uma", "dm", 15, `#review[data-version="15"] svg[data-panel="recorded"] polygon.review-arc`)
	uma.do("a unit's row", chromedp.Click(chromedp.CSS(`#rule-2-add-unit`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-2 .unit-row select.u-unit`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-2-preview[data-state="idle"]`)))
	check(uma, "the umpire's review of the charge")
	uma.shot("charge-ru")
	link(uma, "uma", "do", 8, `#review[data-version="8"] svg[data-panel="recorded"] line.review-command`)
	uma.do("the order's inputs", chromedp.Click(chromedp.CSS(`#rule-1-kind-order`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-1-dice`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-1-preview[data-state="idle"]`)))
	check(uma, "the umpire's review of the order")
	uma.shot("order-ru")
	link(karl, "karl", "dm", 15, `#review[data-version="15"] svg[data-panel="recorded"] polygon.review-arc`)
	check(karl, "karl's review")
	karl.shot("charge-ru")
}

// TestBrowserReviewOrder: on a phone, the umpire opens the review of an
// order from its entry in the log (testdata/scenarios/d-order.yaml, event
// 8: 3+3 entered, disputed: the dice showed 5 and 6); it draws Friant's
// command distance to the battalion and lists the order's dice. Resolved
// again from 5 and 6 the order fails, and the dry run refuses it (C.3:
// the battalion already moved with an action it never had) until the
// umpire also puts the battalion back where it stood, with no actions;
// then she upholds it, and the battle as corrected shows it back.
func TestBrowserReviewOrder(t *testing.T) {
	ts := peopleServer(t)
	playScenario(t, ts, "do", "../../testdata/scenarios/d-order.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "dispute.uphold"
	})
	uma := browser(t)("uma")
	uma.open(ts, "uma", "/c/demo/b/do?lang=en", `#log li[data-version="8"] button.review-open`, 400, 860)
	uma.do("review the order",
		void(chromedp.Evaluate[any](`document.querySelector('#log li[data-version="8"]').scrollIntoView({block: "center"})`)),
		chromedp.Click(chromedp.CSS(`#log li[data-version="8"] button.review-open`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] svg[data-panel="recorded"] line.review-command[data-unit="fr-a"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] #review-dice li[data-version="7"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] #rule-1-preview[data-state="idle"]`)))
	if d := evalIn[string](uma, `document.querySelector('#review-dice li[data-version="7"]').textContent`); !strings.Contains(d, "3+3") {
		t.Errorf("the order's dice shown as %q", d)
	}
	if c := evalIn[string](uma, `document.querySelector('#review-geometry li[data-geometry="command"]').textContent`); !strings.Contains(c, "fr-1-gen to fr-a") || !strings.Contains(c, "(C.7)") {
		t.Errorf("the command distance in words: %q", c)
	}
	before := ts.lastVersion2("do")
	uma.do("resolve it again from 5 and 6",
		typeInto(`#rule-1-ruling`, "the dice were 5 and 6: the order failed; the battalion goes back"),
		chromedp.Click(chromedp.CSS(`#rule-1-kind-order`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-1-dice`)),
		typeInto(`#rule-1-dice`, "5 6"),
		chromedp.WaitVisible(chromedp.CSS(`#rule-1-preview[data-state="refused"] .error[data-rule="C.3"]`)))
	if after := ts.lastVersion2("do"); after != before {
		t.Fatalf("the dry run appended: %d events, then %d", before, after)
	}
	uma.shot("order-refused")
	// Where it stood, tapped on the picture of the battle before the
	// order, then typed exactly.
	uma.do("a unit's row", chromedp.Click(chromedp.CSS(`#rule-1-add-unit`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-1 .unit-row select.u-unit`)),
		chromedp.Click(chromedp.CSS(`#rule-1 .unit-row button.pick`)),
		chromedp.WaitVisible(chromedp.CSS(`#rule-1 .unit-row button.pick.on`)))
	evalIn[any](uma, `document.getElementById("review-before").scrollIntoView({block: "center"})`)
	at := evalIn[map[string]float64](uma, `(() => { const m = document.getElementById("review-before"); const p = new DOMPoint(20, +m.dataset.tableDepth - 16).matrixTransform(m.getScreenCTM()); return {x: p.x, y: p.y}; })()`)
	uma.do("tap where it stood", chromedp.MouseClickXY(at["x"], at["y"]),
		void(chromedp.Poll[bool](`document.querySelector("#rule-1 .unit-row input.u-y").value !== ""`)))
	picked := evalIn[map[string]string](uma, `(() => { const r = document.querySelector("#rule-1 .unit-row"); return {x: r.querySelector("input.u-x").value, y: r.querySelector("input.u-y").value}; })()`)
	if x, y := parseNum(picked["x"]), parseNum(picked["y"]); x < 19.7 || x > 20.3 || y < 15.7 || y > 16.3 {
		t.Errorf("tapped at (20, 16), the row says (%s, %s)", picked["x"], picked["y"])
	}
	uma.do("the battalion put back too",
		typeInto(`#rule-1 .unit-row input.u-x`, "20"),
		typeInto(`#rule-1 .unit-row input.u-y`, "16"),
		typeInto(`#rule-1 .unit-row input.u-actions`, "0"),
		void(chromedp.Poll[bool](`(() => { const p = document.querySelector('#rule-1-preview[data-state="ok"]'); return !!p && !!p.querySelector('li[data-type="order.corrected"]') && [...p.querySelectorAll('li[data-type="unit.corrected"]')].some(li => li.textContent.includes("fr-a") && li.textContent.includes("(20.0,16.0)")); })()`)))
	if unit := evalIn[string](uma, `document.querySelector("#rule-1 .unit-row select.u-unit").value`); unit != "fr-a" {
		t.Errorf("the correction's unit %q, want fr-a, the order's", unit)
	}
	uma.do("uphold",
		void(chromedp.Evaluate[any](`document.getElementById("rule-1-uphold").scrollIntoView({block: "center"})`)),
		chromedp.Click(chromedp.CSS(`#rule-1-uphold`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] #review-disputes li[data-dispute="1"][data-status="upheld"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] svg[data-panel="corrected"] g.unit[data-unit="fr-a"][data-y="16"]`)))
	d := ts.must(ts.do("GET", "/api/campaigns/demo/battles/do/disputes", ts.tokens["rita"], nil), 200)
	d1 := d.body["disputes"].([]any)[0].(map[string]any)
	var types []string
	for _, c := range d1["corrections"].([]any) {
		types = append(types, c.(map[string]any)["type"].(string))
	}
	if d1["status"] != "upheld" || strings.Join(types, " ") != "order.corrected unit.corrected" {
		t.Fatalf("after the page's ruling: %s, corrections %v", d1["status"], types)
	}
	uma.shot("order-ruled")
}

// parseNum reads a number a field holds (NaN if none).
func parseNum(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}
