package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"
)

// These tests look at the page as players do, in real headless Chromium:
// the Aspern example (a 180 x 120 cm table) on a 400 px phone and a 1,280
// px tablet, measured in the browser.

// peopleServer starts a server with campaign demo (sides french and
// austrians) and its people: uma the umpire, marie (french), karl
// (austrians) and rita, a reader; no battle yet.
func peopleServer(t *testing.T) *testServer {
	t.Helper()
	ts := startServer(t)
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"id": "create", "command": map[string]any{
		"name": "Danube 1809", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}},
	}}), 201)
	for _, p := range []map[string]string{
		{"player": "uma", "role": "umpire"},
		{"player": "marie", "role": "player", "side": "french"},
		{"player": "karl", "role": "player", "side": "austrians"},
		{"player": "rita", "role": "reader"},
	} {
		r := ts.must(ts.command("admin", "", "player.add", map[string]any{"command": p}), 201)
		ts.tokens[p["player"]] = r.body["token"].(string)
	}
	return ts
}

// scenarioStep is a step of a scenario file, as playScenario reads it.
type scenarioStep struct {
	Do     string         `yaml:"do"`
	With   map[string]any `yaml:"with"`
	Dice   []int          `yaml:"dice"`
	Actor  string         `yaml:"actor"`
	Expect string         `yaml:"expect"`
}

// playScenario plays a scenario file's accepted steps over HTTP into battle
// b of campaign demo, each by its actor's token (the file's umpire is uma),
// from the first step from says to play until one it says ends the play
// (nil: every step).
func playScenario(t *testing.T, ts *testServer, b, file string, which func(st scenarioStep) (play, end bool)) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Steps []scenarioStep `yaml:"steps"`
	}
	if err := yaml.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	for _, st := range sc.Steps {
		if which != nil {
			play, end := which(st)
			if end {
				return
			}
			if !play {
				continue
			}
		}
		if strings.HasPrefix(st.Do, "campaign.") || strings.HasPrefix(st.Do, "player.") || (st.Expect != "" && st.Expect != "accepted") {
			continue
		}
		who := st.Actor
		if who == "" || who == "umpire" {
			who = "uma"
		}
		body := map[string]any{}
		if st.With != nil {
			body["command"] = st.With
		}
		if st.Dice != nil {
			body["dice"] = st.Dice
		}
		ts.must(ts.command(who, b, st.Do, body), 201)
	}
}

// aspern plays examples/aspern-turn.yaml into battle aspern: the steps
// from the first named from ("": the first) up to, not including, the
// first named until after it ("": to the end).
func aspern(t *testing.T, ts *testServer, from, until string) {
	t.Helper()
	started := from == ""
	playScenario(t, ts, "aspern", "../../examples/aspern-turn.yaml", func(st scenarioStep) (bool, bool) {
		if !started && st.Do == from {
			started = true
			return true, false
		}
		return started, started && until != "" && st.Do == until
	})
}

// tab is one browser tab of a test, in its own browser context (its own
// storage: two players' pages do not share a token).
type tab struct {
	t    *testing.T
	ctx  context.Context
	name string
}

// browser starts headless Chromium for the test and returns a function that
// opens a tab in a new browser context. Console messages and exceptions of
// the page go to the test's log.
func browser(t *testing.T) func(name string) *tab {
	t.Helper()
	exe := browserPath(t)
	opts := chromiumOptions(t, exe)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	if err := chromedp.Do(bctx); err != nil {
		cancelB()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	root, cancelRoot := context.WithTimeout(bctx, 150*time.Second)
	t.Cleanup(func() {
		cancelRoot()
		cancelB()
		cancelAlloc()
	})
	return func(name string) *tab {
		ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
		if err := chromedp.Do(ctx); err != nil {
			t.Fatalf("%s: new tab: %v", name, err)
		}
		go func() {
			for m, err := range chromedp.Console(ctx) {
				if err != nil {
					return
				}
				if m.Source == "network" {
					continue // a refusal's 4xx, which the page shows
				}
				t.Logf("%s console %s: %s %s:%d", name, m.Type, m.Text, m.URL, m.Line)
			}
		}()
		return &tab{t: t, ctx: ctx, name: name}
	}
}

// do runs steps; on failure it saves a screenshot (in LEDGER_WEB_SCREENSHOT's
// folder, else the test's temporary folder) and fails the test.
func (b *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	for i, step := range steps {
		// The page redraws its panels as events arrive live: a node found
		// by a query may be replaced before the action reaches it. Such a
		// step did nothing; it is taken again on the new node.
		var err error
		for try := 0; try < 5; try++ {
			if err = chromedp.Do(ctx, step); err == nil || !replacedNode(err) {
				break
			}
		}
		if err != nil {
			path := b.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
			// A CI log keeps no screenshot: what the tool panel and the
			// result box said is written beside the failure.
			panel, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`["#tool", "#play-result"].map(s => { const e = document.querySelector(s); return s + ": " + (e ? e.innerText.replace(/\s+/g, " ").slice(0, 600) : "(none)"); }).join(" | ")`))
			b.t.Fatalf("%s: %s: step %d of %d: %v (screenshot %s; the page: %s)", b.name, what, i+1, len(steps), err, path, panel)
		}
	}
}

// replacedNode recognises the DevTools errors of a node that was removed
// or replaced between a query and the action on it.
func replacedNode(err error) bool {
	m := err.Error()
	return strings.Contains(m, "Could not find node with given id") || strings.Contains(m, "Node is detached") ||
		strings.Contains(m, "No node with given id found")
}

// eval evaluates a JavaScript expression in the page.
func evalIn[T any](b *tab, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		path := b.shot("failed-eval")
		b.t.Fatalf("%s: %s: %v (screenshot %s)", b.name, expr, err, path)
	}
	return v
}

// shot saves a full-page screenshot named name and returns its path.
func (b *tab) shot(name string) string {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("%s: screenshot: %v", b.name, err)
		return ""
	}
	dir := b.t.TempDir()
	if p := os.Getenv("LEDGER_WEB_SCREENSHOT"); p != "" {
		dir = filepath.Dir(p)
	}
	test := strings.TrimPrefix(strings.ReplaceAll(b.t.Name(), "/", "-"), "Test")
	path := filepath.Join(dir, "ledger-"+test+"-"+b.name+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("%s: %v", b.name, err)
		return ""
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

// docShot saves a picture of the element sel for the documentation when
// LEDGER_DOCS_IMG names a folder (docs/img: the README's pictures of
// playing a turn on the page are made this way).
func (b *tab) docShot(name, sel string) {
	b.t.Helper()
	dir := os.Getenv("LEDGER_DOCS_IMG")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("%s: picture of %s: %v", b.name, sel, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("documentation picture: %s", filepath.Join(dir, name))
}

// open loads path with who's token in the page's storage (as the token
// link does) and waits for sel.
func (b *tab) open(ts *testServer, who, path, sel string, width, height int64) {
	b.t.Helper()
	link := ts.url + path
	if strings.Contains(link, "#") {
		b.t.Fatalf("open %s: a path with a fragment", path)
	}
	b.do("open "+path,
		chromedp.EmulateViewport(width, height),
		chromedp.Navigate(link+"#token="+ts.tokens[who]),
		chromedp.WaitVisible(chromedp.CSS(sel)),
	)
}

// labelsJS measures, in the page, every label of the map as drawn: its
// font size in CSS pixels on the screen and its box, and which pairs of
// unit labels overlap (by more than a hundredth of a pixel each way).
const labelsJS = `(() => {
  const map = document.getElementById("map");
  const out = { labels: [], overlaps: [] };
  const shown = x => x.getClientRects().length > 0 && getComputedStyle(x).display !== "none";
  for (const x of map.querySelectorAll("text.label, text.coord")) {
    if (!shown(x)) continue;
    const m = x.getScreenCTM();
    const px = parseFloat(getComputedStyle(x).fontSize) * Math.hypot(m.a, m.b);
    const r = x.getBoundingClientRect();
    out.labels.push({ cls: x.getAttribute("class"), text: x.textContent, px, x: r.x, y: r.y, w: r.width, h: r.height });
  }
  const units = out.labels.filter(l => l.cls.includes("unit-label"));
  for (let i = 0; i < units.length; i++) for (let j = i + 1; j < units.length; j++) {
    const a = units[i], b = units[j];
    const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x), h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
    if (w > 0.01 && h > 0.01) out.overlaps.push(a.text + " / " + b.text + " (" + w.toFixed(1) + " x " + h.toFixed(1) + " px)");
  }
  out.units = units.length;
  out.width = map.getBoundingClientRect().width;
  return out;
})()`

type labelReport struct {
	Labels []struct {
		Cls, Text      string
		Px, X, Y, W, H float64
	}
	Overlaps []string
	Units    int
	Width    float64
}

// TestBrowserMapReadable: on the Aspern table in centimetres (180 x 120
// cm), on a 400 px phone and a 1,280 px tablet, every label of the map is
// at least 10 CSS pixels high and no two unit labels overlap, measured on
// the boxes Chromium draws; zoomed in and out on the phone, the same; the
// picture's grid has coordinates; a pinch zooms in. Before the first move
// and at the end of the French turn.
func TestBrowserMapReadable(t *testing.T) {
	ts := peopleServer(t)
	newTab := browser(t)
	b := newTab("marie")
	check := func(what string, wantUnits int) {
		t.Helper()
		rep := evalIn[labelReport](b, labelsJS)
		if rep.Units != wantUnits {
			t.Errorf("%s: %d unit labels drawn, want %d", what, rep.Units, wantUnits)
		}
		for _, l := range rep.Labels {
			if l.Px < 10 {
				t.Errorf("%s: label %q (%s) is %.1f px", what, l.Text, l.Cls, l.Px)
			}
		}
		for _, o := range rep.Overlaps {
			t.Errorf("%s: unit labels overlap: %s", what, o)
		}
		if t.Failed() {
			b.shot(strings.ReplaceAll(what, " ", "-"))
		}
		t.Logf("%s: %d labels, %d unit labels, map %.0f px wide, smallest %.1f px", what, len(rep.Labels), rep.Units, rep.Width, smallest(rep))
	}
	aspern(t, ts, "", "initiative.take")
	for _, vp := range []struct {
		name string
		w, h int64
	}{{"phone", 400, 860}, {"tablet", 1280, 900}} {
		b.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#map g.unit", vp.w, vp.h)
		check(vp.name+" at deployment", 7)
		b.shot(vp.name + "-deployed")
	}
	// The French turn played: units closer together.
	aspern(t, ts, "initiative.take", "combat.record")
	b.open(ts, "marie", "/c/demo/b/aspern?lang=ru", "#map g.unit", 400, 860)
	check("phone after the French turn", 7)
	coords := evalIn[int](b, `document.querySelectorAll("#map text.coord:not(.minor)").length`)
	if coords != 7+5 { // x 0..180 and y 0..120 every 30 cm
		t.Errorf("coordinates along the edges: %d, want 12", coords)
	}
	b.shot("phone-ru-turn")
	// Zoomed in twice on the phone, then out: labels keep their size and
	// stay apart.
	b.do("zoom in", chromedp.Click(chromedp.CSS(`#map-zoom-in`)), chromedp.Click(chromedp.CSS(`#map-zoom-in`)))
	check("phone zoomed in", 7)
	b.shot("phone-zoomed")
	b.do("fit", chromedp.Click(chromedp.CSS(`#map-fit`)), chromedp.Click(chromedp.CSS(`#map-zoom-out`)))
	check("phone zoomed out", 7)
	// Two fingers moving apart on the map zoom in.
	b.do("fit again", chromedp.Click(chromedp.CSS(`#map-fit`)))
	before := evalIn[float64](b, `document.getElementById("map").viewBox.baseVal.width`)
	pinch(b, 90, 60, 20, 70)
	after := evalIn[float64](b, `document.getElementById("map").viewBox.baseVal.width`)
	if after > before/2.5 || after < before/4.5 {
		t.Errorf("a pinch from 40 to 140 px apart: the view %g wide, from %g; want about a third", after, before)
	}
	check("phone pinched", 7)
	b.shot("phone-pinched")
	b.open(ts, "karl", "/c/demo/b/aspern?lang=en", "#map g.unit", 1280, 900)
	check("tablet after the French turn", 7)
	b.shot("tablet-turn")
}

// pinch puts two fingers on the map around the table point (x, y), from
// and px apart, and spreads them to to px apart, in steps.
func pinch(b *tab, x, y, from, to float64) {
	b.t.Helper()
	cx, cy := screenAt(b, x, y)
	ids := [2]float64{1, 2}
	points := func(d float64) []*input.TouchPoint {
		return []*input.TouchPoint{{X: cx - d/2, Y: cy, ID: &ids[0]}, {X: cx + d/2, Y: cy, ID: &ids[1]}}
	}
	touch := func(typ input.DispatchTouchEventType, pts []*input.TouchPoint) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: pts})
			return err
		})
	}
	steps := []chromedp.Action[chromedp.Void]{touch(input.DispatchTouchEventTypeTouchStart, points(from))}
	for i := 1; i <= 10; i++ {
		steps = append(steps, touch(input.DispatchTouchEventTypeTouchMove, points(from+(to-from)*float64(i)/10)))
	}
	steps = append(steps, touch(input.DispatchTouchEventTypeTouchEnd, []*input.TouchPoint{}))
	b.do("pinch", steps...)
}

func smallest(r labelReport) float64 {
	m := 1e9
	for _, l := range r.Labels {
		m = min(m, l.Px)
	}
	return m
}

// TestBrowserTokenLink: a token handed out as a link (#token=...) is kept
// and taken out of the address bar, never sent in a URL; the token field
// is not one browsers save as a password; "forget this device" removes it;
// the landing page lists the campaigns this token has opened.
func TestBrowserTokenLink(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	b := browser(t)("marie")
	b.open(ts, "marie", "/c/demo?lang=en", "#you", 1280, 900)
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil || strings.Contains(loc, "token") || strings.Contains(loc, ts.tokens["marie"]) {
		t.Fatalf("the address still carries the token: %q (%v)", loc, err)
	}
	kept := evalIn[map[string]any](b, `JSON.parse(localStorage.getItem("ledger.token.v2"))`)
	if kept["token"] != ts.tokens["marie"] || kept["used"] == nil {
		t.Fatalf("kept %v", kept)
	}
	// The landing page lists the campaign, with marie's role.
	b.do("home", chromedp.Navigate(ts.url+"/?lang=en"), chromedp.WaitVisible(chromedp.CSS(`#campaigns li[data-campaign="demo"]`)))
	if text := evalIn[string](b, `document.querySelector('#campaigns li[data-campaign="demo"]').textContent`); !strings.Contains(text, "Danube 1809") || !strings.Contains(text, "marie, player") || !strings.Contains(text, "Aspern") {
		t.Errorf("campaign listed as %q", text)
	}
	// The token field: plain text, not autocompleted, not a password.
	b.do("change token", chromedp.Click(chromedp.CSS(`#token-change`)), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	attrs := evalIn[map[string]string](b, `(() => { const i = document.getElementById("token"); return {type: i.type, autocomplete: i.getAttribute("autocomplete"), form: i.form.getAttribute("autocomplete")}; })()`)
	if attrs["type"] != "text" || attrs["autocomplete"] != "off" || attrs["form"] != "off" {
		t.Errorf("token field %v", attrs)
	}
	// Forget this device.
	b.do("cancel", chromedp.Click(chromedp.CSS(`#token-form button[type=button]`)), chromedp.WaitVisible(chromedp.CSS(`#forget-device`)))
	b.do("forget", chromedp.Click(chromedp.CSS(`#forget-device`)), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	if left := evalIn[string](b, `(localStorage.getItem("ledger.token.v2") || "") + (sessionStorage.getItem("ledger.token.v2") || "")`); left != "" {
		t.Errorf("left on the device after forgetting: %q", left)
	}
	// An expired token is dropped: used 15 days ago.
	b.do("expire", chromedp.Navigate(ts.url+"/?lang=en"), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	evalIn[any](b, fmt.Sprintf(`localStorage.setItem("ledger.token.v2", JSON.stringify({token: %q, saved: Date.now() - 20*86400e3, used: Date.now() - 15*86400e3}))`, ts.tokens["marie"]))
	b.do("reload", chromedp.Navigate(ts.url+"/?lang=en"), chromedp.WaitVisible(chromedp.CSS(`#token-expired`)))
	if left := evalIn[string](b, `localStorage.getItem("ledger.token.v2") || ""`); left != "" {
		t.Errorf("an expired token kept: %q", left)
	}
}
