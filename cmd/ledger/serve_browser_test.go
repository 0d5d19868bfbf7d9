package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/picture"
	"github.com/clubledger/ledger/rules/geom"
)

// browserPath finds Chromium: LEDGER_CHROMIUM, else chromium or
// google-chrome on the PATH. Without one the browser test fails where a
// browser is required (CI: .ci/run installs chromium and sets
// LEDGER_REQUIRE_BROWSER=1), and is skipped, saying so, on a machine that
// has only Go and gcc (the README's promise). LEDGER_SKIP_BROWSER=1 skips
// it anywhere.
func browserPath(t *testing.T) string {
	t.Helper()
	if os.Getenv("LEDGER_SKIP_BROWSER") == "1" {
		t.Skip("LEDGER_SKIP_BROWSER=1: the browser test is skipped")
	}
	if p := os.Getenv("LEDGER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found: install it (apt-get install -y chromium) or point LEDGER_CHROMIUM at it"
	if os.Getenv("LEDGER_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; the browser test is skipped (LEDGER_REQUIRE_BROWSER=1 makes this a failure, as in CI)")
	return ""
}

// TestBrowserBattlePage opens the battle page in headless Chromium, moves
// the timeline back to the 33e's move and checks that the unit is drawn
// (by web/svg, inlined by the page) where the API's replay puts it at that
// event; it saves a screenshot (LEDGER_WEB_SCREENSHOT, else in the test's
// temporary folder).
func TestBrowserBattlePage(t *testing.T) {
	exe := browserPath(t)
	ts := seed(t)
	// One more move, so that the slider has somewhere to go back to.
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 22}}}), 201)
	last := ts.lastVersion()
	firstMove := last - 1 // the seed's move to (24, 16)

	want := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d", firstMove), ts.tokens["rita"], nil), 200)
	var wantX, wantY, wantFacing, depth float64
	depth = want.body["table_depth"].(float64)
	for _, u := range want.body["units"].([]any) {
		if u := u.(map[string]any); u["unit"] == "33-ligne" {
			wantX, wantY, wantFacing = u["x"].(float64), u["y"].(float64), u["facing"].(float64)
		}
	}

	ctx := browserContext(t, exe)

	unit := chromedp.CSS(`#map g.unit[data-unit="33-ligne"]`)
	mapAt := func(v int) chromedp.CSS { return chromedp.CSS(fmt.Sprintf(`#map[data-version="%d"]`, v)) }
	err := chromedp.Do(ctx,
		// The reader's token goes where the page keeps it.
		chromedp.Navigate(ts.url+"/"),
		void(chromedp.Evaluate[any](fmt.Sprintf(`localStorage.setItem("ledger.token", %q)`, ts.tokens["rita"]))),
		chromedp.Navigate(ts.url+"/c/demo/b/b1?lang=en"),
		chromedp.WaitVisible(mapAt(last)),
		chromedp.WaitVisible(chromedp.CSS(`#dice svg.dice-chart`)),
		// Move the slider back to the first move, as a user dragging it.
		chromedp.SetValue(chromedp.CSS(`#timeline`), strconv.Itoa(firstMove)),
		void(chromedp.Evaluate[any](`document.getElementById("timeline").dispatchEvent(new Event("input", {bubbles: true}))`)),
		chromedp.WaitVisible(mapAt(firstMove)),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	attr := func(name string) string {
		t.Helper()
		a, err := chromedp.Run(ctx, chromedp.AttributeValue(unit, name))
		if err != nil || !a.Exists {
			t.Fatalf("33-ligne's %s: %v (exists %v)", name, err, a.Exists)
		}
		return a.Value
	}
	transform, dataX, dataY := attr("transform"), attr("data-x"), attr("data-y")
	if class := attr("class"); !strings.Contains(class, "moved") {
		t.Errorf("33-ligne at its move is not marked moved: class %q", class)
	}
	slider, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#timeline`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	// web/svg's hooks: the transform in the picture's coordinates (y
	// flipped, picture.Num), data-x and data-y the table's, exactly.
	wantTransform := fmt.Sprintf("translate(%s,%s) rotate(%s)", picture.Num(wantX), picture.Num(depth-wantY), picture.Num(wantFacing))
	if transform != wantTransform || dataX != num(wantX) || dataY != num(wantY) {
		t.Errorf("33-ligne drawn at transform %q data (%s,%s); the replay at event %d says %q (%g,%g)",
			transform, dataX, dataY, firstMove, wantTransform, wantX, wantY)
	}
	if slider != strconv.Itoa(firstMove) {
		t.Errorf("slider at %s, want %d", slider, firstMove)
	}
	path := os.Getenv("LEDGER_WEB_SCREENSHOT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "ledger-web.png")
	}
	if err := os.WriteFile(path, screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)

	// The same page in Russian on a tablet held upright.
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(820, 1180),
		chromedp.Navigate(ts.url+"/c/demo/b/b1?lang=ru"),
		chromedp.WaitVisible(mapAt(last)),
	)
	if err != nil {
		t.Fatalf("browser, ru: %v", err)
	}
	if title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.battle h2`))); err != nil || title != "Поле боя" {
		t.Errorf("Russian page: first heading %q (%v)", title, err)
	}
	// Its event log describes the events in Russian, from the catalogue.
	if desc, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`li[data-type="unit.moved"] .desc`))); err != nil || !strings.Contains(desc, `33-ligne прошёл 6,0" за 1 действие`) {
		t.Errorf("Russian page: the move described as %q (%v)", desc, err)
	}
	tablet, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	ru := strings.TrimSuffix(path, ".png") + "-ru-tablet.png"
	if err := os.WriteFile(ru, tablet, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", ru)
}

// TestBrowserChargePicture plays, over HTTP, the setup of
// testdata/scenarios/k-charge.yaml up to its first charge (the 33e's first
// battalion round the farm onto the grenadiers' front) in a battle kc, opens
// its page as the reader, presses the "picture" button of the
// charge.declared in the event log and checks that the battlefield then
// shows the charge's overlay: the charger's base before and after at the
// event's from and to, its path and the side hit, and the charger itself
// drawn where the event put it. Screenshots at a laptop's and a tablet's
// width (LEDGER_WEB_SCREENSHOT with -charge.png and -charge-tablet.png).
func TestBrowserChargePicture(t *testing.T) {
	exe := browserPath(t)
	ts := seed(t)
	playUntilCharge(t, ts, "kc", "../../testdata/scenarios/k-charge.yaml")
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/kc/events", ts.tokens["rita"], nil), 200)
	var chargeV int
	var from, to geom.Base
	for _, e := range evs.body["events"].([]any) {
		e := e.(map[string]any)
		if e["type"] == "charge.declared" {
			chargeV = int(e["version"].(float64))
			raw, _ := json.Marshal(e["payload"])
			var p struct{ From, To geom.Base }
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			from, to = p.From, p.To
		}
	}
	if chargeV == 0 {
		t.Fatalf("no charge.declared the reader may read: %s", evs.raw)
	}
	last := int(evs.body["last"].(float64))

	ctx := browserContext(t, exe)
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.url+"/"),
		void(chromedp.Evaluate[any](fmt.Sprintf(`localStorage.setItem("ledger.token", %q)`, ts.tokens["rita"]))),
		chromedp.Navigate(ts.url+"/c/demo/b/kc?lang=en"),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map[data-version="%d"]`, last))),
		// Away from the charge first: no overlay there.
		chromedp.Click(chromedp.CSS(`#tl-first`)),
		chromedp.WaitVisible(chromedp.CSS(`#map[data-version="1"]`)),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#map g.charge").length`)); err != nil || n != 0 {
		t.Fatalf("overlay at event 1: %d (%v)", n, err)
	}
	picture := chromedp.CSS(fmt.Sprintf(`#log li[data-version="%d"] button.picture[data-charge="%d"]`, chargeV, chargeV))
	err = chromedp.Do(ctx,
		chromedp.Click(picture),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map[data-charge="%d"] g.charge polygon.charge-after`, chargeV))),
	)
	if err != nil {
		t.Fatalf("browser, picture: %v", err)
	}
	points := func(sel string) string {
		t.Helper()
		a, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), "points"))
		if err != nil || !a.Exists {
			t.Fatalf("%s: %v (exists %v)", sel, err, a.Exists)
		}
		return a.Value
	}
	sameBase(t, "before", points(`#map g.charge polygon.charge-before`), from)
	sameBase(t, "after", points(`#map g.charge polygon.charge-after`), to)
	for _, sel := range []string{`#map g.charge polyline.charge-path`, `#map g.charge line.charge-side[data-side-hit="front"]`, `#log li.pictured[data-type="charge.declared"]`} {
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))); err != nil || n != 1 {
			t.Errorf("%s: %d (%v)", sel, n, err)
		}
	}
	// The charger is drawn where the charge put it.
	charger, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](
		`(() => { const g = document.querySelector('#map g.unit[data-unit="fr-1-a"]'); return {x: g.dataset.x, y: g.dataset.y, facing: g.dataset.facing}; })()`))
	if err != nil || charger["x"] != num(to.Center.X) || charger["y"] != num(to.Center.Y) || charger["facing"] != num(to.Facing) {
		t.Errorf("fr-1-a drawn at %v (%v); the charge put it at %v", charger, err, to)
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "ledger-"+name+".png")
		if p := os.Getenv("LEDGER_WEB_SCREENSHOT"); p != "" {
			path = strings.TrimSuffix(p, ".png") + "-" + name + ".png"
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	shot("charge")
	// A tablet held upright: the battlefield above the log, the same picture.
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(820, 1180),
		chromedp.Navigate(ts.url+"/c/demo/b/kc?lang=en"),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map[data-version="%d"]`, last))),
		chromedp.Click(picture),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map[data-charge="%d"] g.charge`, chargeV))),
	)
	if err != nil {
		t.Fatalf("browser, tablet: %v", err)
	}
	shot("charge-tablet")
}

// playUntilCharge plays a scenario's steps over HTTP, as the umpire, in
// battle b of campaign demo (whose sides are the scenario's): its
// battle.create, deployments, start and orders, up to and including its
// first accepted unit.charge.
func playUntilCharge(t *testing.T, ts *testServer, b, file string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Steps []struct {
			Do     string         `yaml:"do"`
			With   map[string]any `yaml:"with"`
			Dice   []int          `yaml:"dice"`
			Expect string         `yaml:"expect"`
		} `yaml:"steps"`
	}
	if err := yaml.Unmarshal(raw, &sc); err != nil {
		t.Fatal(err)
	}
	for _, st := range sc.Steps {
		if st.Do == "campaign.create" {
			continue
		}
		if st.Expect != "" && st.Expect != "accepted" {
			continue
		}
		body := map[string]any{}
		if st.With != nil {
			body["command"] = st.With
		}
		if st.Dice != nil {
			body["dice"] = st.Dice
		}
		ts.must(ts.command("uma", b, st.Do, body), 201)
		if st.Do == "unit.charge" {
			return
		}
	}
	t.Fatalf("%s: no charge", file)
}

// chromiumOptions are the options every browser test starts headless
// Chromium at exe with: 1,280 by 900 pixels, a profile of the test's own.
func chromiumOptions(t *testing.T, exe string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
}

// browserContext starts headless Chromium at exe for the test (60 s at most).
func browserContext(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := chromiumOptions(t, exe)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		cancel()
		cancelCtx()
		cancelAlloc()
	})
	return ctx
}

// void drops an action's value, to run it among steps.
func void[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, t)
		return chromedp.Void{}, err
	}
}

// num renders a number as JavaScript's String() does for these values.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
