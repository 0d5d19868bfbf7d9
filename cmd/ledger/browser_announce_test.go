package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// What a screen reader says is what the browser's accessibility tree
// holds: each control's role and computed name, its states, and the live
// regions whose changes are read out. No screen reader runs here; these
// tests read that tree from Chromium (the DevTools Accessibility domain),
// the same one NVDA, TalkBack and VoiceOver are given.

// axNode is one node of Chromium's accessibility tree, as a screen reader
// is given it.
type axNode struct {
	Role, Name string
	Ignored    bool
	Props      map[string]string
}

// axOf reads the accessibility node of the element expr evaluates to.
func axOf(b *tab, expr string) axNode {
	b.t.Helper()
	ev, err := chromedp.Call(b.ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr})
	if err != nil || ev.Result == nil || ev.Result.ObjectID == "" {
		b.t.Fatalf("%s: %s: no element (%v)", b.name, expr, err)
	}
	defer chromedp.Call(b.ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: ev.Result.ObjectID})
	no := false
	tree, err := chromedp.Call(b.ctx, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{ObjectID: ev.Result.ObjectID, FetchRelatives: &no})
	if err != nil || len(tree.Nodes) == 0 {
		b.t.Fatalf("%s: the accessibility node of %s: %v", b.name, expr, err)
	}
	n := tree.Nodes[0]
	str := func(v *accessibility.Value) string {
		if v == nil || len(v.Value) == 0 {
			return ""
		}
		var s any
		if err := json.Unmarshal(v.Value, &s); err != nil {
			return string(v.Value)
		}
		return fmt.Sprint(s)
	}
	out := axNode{Role: str(n.Role), Name: strings.TrimSpace(str(n.Name)), Ignored: n.Ignored, Props: map[string]string{}}
	for _, p := range n.Properties {
		out.Props[string(p.Name)] = str(p.Value)
	}
	return out
}

// rawWords are what a name must not say: an id of the code's
// (light_infantry), or a value the script failed to fill.
var rawWords = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|\bundefined\b|\bnull\b|\bNaN\b|\[object`)

// announcedStops walks b's page with the Tab key from its top round to the
// first stop again, reads what a screen reader is given at each stop, and
// fails the test for a stop hidden from it, without a name or a role, named
// in code words, or named as another is; and for fewer than least stops.
func announcedStops(t *testing.T, b *tab, what string, least int) {
	t.Helper()
	evalIn[any](b, `document.activeElement && document.activeElement.blur()`)
	k := &keyboard{b: b}
	var stops []string
	seen := map[string]int{}
	first := ""
	for i := 0; i < 300; i++ {
		k.press(kb.Tab)
		where := evalIn[string](b, `(() => { const a = document.activeElement; if (!a || a === document.body) return ""; if (!a.dataset.axStop) a.dataset.axStop = String(Math.random()); return a.dataset.axStop; })()`)
		if where == "" || where == first {
			break
		}
		if first == "" {
			first = where
		}
		n := axOf(b, `document.activeElement`)
		el := k.focused()
		stop := n.Role + " " + fmt.Sprintf("%q", n.Name)
		// Where a screen reader says it is: the named toolbar, group,
		// region or dialog around it (three maps' "Zoom in" are told apart
		// by their toolbars).
		where = evalIn[string](b, `(() => { const a = document.activeElement;
		  const c = a.parentElement && a.parentElement.closest("[role=toolbar][aria-label], [role=group][aria-label], [role=region][aria-label], [role=dialog][aria-label], section[aria-label], nav[aria-label]");
		  return c ? c.getAttribute("aria-label") : ""; })()`)
		stops = append(stops, stop)
		switch {
		case n.Ignored:
			t.Errorf("%s: Tab stop %d (%s) is hidden from a screen reader", what, len(stops), el)
		case n.Name == "":
			t.Errorf("%s: Tab stop %d (%s, %s) has no name: a screen reader says only %q", what, len(stops), el, n.Role, n.Role)
		case rawWords.MatchString(n.Name):
			t.Errorf("%s: Tab stop %d (%s) is named %q: not words", what, len(stops), el, n.Name)
		case n.Role == "generic" || n.Role == "none" || n.Role == "":
			t.Errorf("%s: Tab stop %d (%s, %q) has no role a screen reader names (%q)", what, len(stops), el, n.Name, n.Role)
		}
		// A screen reader lists a page's buttons and links apart from
		// what is around them: two that say the same do not say which is
		// which (each event's "Review" was one such name 20 times).
		// (Links may repeat: a link's name says where it goes, and every
		// "#8" goes to event 8.)
		if j, ok := seen[stop+where]; ok && n.Role != "link" {
			t.Errorf("%s: Tab stops %d and %d are both %s (in %q)", what, j+1, len(stops), stop, where)
		}
		seen[stop+where] = len(stops) - 1
	}
	t.Logf("%s, %d Tab stops: %s", what, len(stops), strings.Join(stops, " · "))
	if len(stops) < least {
		t.Errorf("%s: only %d Tab stops, want at least %d", what, len(stops), least)
	}
}

// TestBrowserAnnounced: what a screen reader says on karl's battle page
// on a phone (400 px) at Aspern, read from Chromium's accessibility tree.
// Every stop of the Tab key, from the top of the page round to it again,
// is a control with a role and a name in words (no code id, no
// "undefined"), no two alike; the unit list's buttons say the unit's name and type and
// whether it is chosen (pressed); the page has a polite live region
// (status) that says each change of turn, phase or side playing, and
// whether it is the reader's, as marie ends her phases, and marie's
// dispute when she raises one. In Russian the same button names the unit's
// type in Russian. The landing page, the campaign page and the umpire's
// review of a disputed order are walked with the Tab key as the battle
// page is.
func TestBrowserAnnounced(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "phase.end")
	newTab := browser(t)
	karl := newTab("karl")
	karl.open(ts, "karl", "/c/demo/b/aspern?lang=en", "#play #turn-text", 400, 860)
	settled(karl, ts, "aspern")
	if _, err := chromedp.Call(karl.ctx, accessibility.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}

	announcedStops(t, karl, "karl's battle page", 15)

	// The unit list: each button names its unit and type, and says
	// whether it is the one chosen.
	ir := axOf(karl, `document.querySelector('#units button.unit-pick[data-unit="ir-14"]')`)
	if ir.Role != "button" || !strings.Contains(ir.Name, "IR 14 Klebek") || !strings.Contains(ir.Name, "infantry") || ir.Props["pressed"] != "false" {
		t.Errorf("IR 14's button in the unit list: %+v, want a button named for the unit and its type, not pressed", ir)
	}
	karl.do("ir-14 chosen", chromedp.Click(chromedp.CSS(`#units button.unit-pick[data-unit="ir-14"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#units button.unit-pick[data-unit="ir-14"][aria-pressed="true"]`)))
	if ir := axOf(karl, `document.querySelector('#units button.unit-pick[data-unit="ir-14"]')`); ir.Props["pressed"] != "true" {
		t.Errorf("IR 14's button once chosen: %+v, want pressed", ir)
	}

	// The live region, and what it says as the battle moves on.
	an := axOf(karl, `document.getElementById("announcer")`)
	if an.Ignored || an.Role != "status" || an.Props["live"] != "polite" {
		t.Errorf("the announcer: %+v, want a status, live politely, not hidden from a screen reader", an)
	}
	said := func(what, want string) {
		t.Helper()
		karl.do(what, void(chromedp.Poll[bool](fmt.Sprintf(`document.getElementById("announcer").textContent === %q`, want))))
	}
	end := func() {
		ts.must(ts.command("marie", "aspern", "phase.end", map[string]any{"command": map[string]any{"side": "french"}}), 201)
	}
	end()
	said("the French movement phase said", "Turn 1: movement phase of France. The opponent plays.")
	end()
	end()
	said("the Austrian turn said", "Turn 2: command phase of Austria. Your side plays.")
	ts.must(ts.command("marie", "aspern", "dispute.raise", map[string]any{"command": map[string]any{"event_version": 3, "reason": "the road is not there"}}), 201)
	karl.do("the dispute said", void(chromedp.Poll[bool](`document.getElementById("announcer").textContent.startsWith("marie raised a dispute: ")`)))

	// In Russian.
	marie := newTab("marie")
	marie.open(ts, "marie", "/c/demo/b/aspern?lang=ru", "#play #turn-text", 400, 860)
	leger := axOf(marie, `document.querySelector('#units button.unit-pick[data-unit="1-leger"]')`)
	if !strings.Contains(leger.Name, "лёгкая пехота") || strings.Contains(leger.Name, "infantry") {
		t.Errorf("the 1/26e's button in Russian: %q, want its type in Russian", leger.Name)
	}

	// The other views: the landing page, the campaign, and the umpire's
	// review of a disputed order.
	playScenario(t, ts, "do", "../../testdata/scenarios/d-order.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "dispute.uphold"
	})
	marie.open(ts, "marie", "/?lang=en", `#campaigns li[data-campaign="demo"]`, 400, 860)
	announcedStops(t, marie, "the landing page", 5)
	marie.open(ts, "marie", "/c/demo?lang=en", `#standings table`, 400, 860)
	announcedStops(t, marie, "the campaign page", 8)
	uma := newTab("uma")
	uma.do("open the review", chromedp.EmulateViewport(400, 860),
		chromedp.Navigate(fmt.Sprintf("%s/c/demo/b/do?lang=en#token=%s&review=8", ts.url, ts.tokens["uma"])),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-version="8"] #rule-1-preview[data-state="idle"]`)))
	announcedStops(t, uma, "the umpire's review of event 8", 15)
}
