package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserPath finds Chromium: LEDGER_CHROMIUM, else chromium or
// google-chrome on the PATH. Without one the browser test fails (CI
// installs chromium) unless LEDGER_SKIP_BROWSER=1 says to skip it.
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
	t.Fatal("no Chromium found: install it (apt-get install -y chromium), point LEDGER_CHROMIUM at it, or set LEDGER_SKIP_BROWSER=1 to skip this test")
	return ""
}

// TestBrowserBattlePage opens the battle page in headless Chromium, moves
// the timeline back to the 33e's move and checks that the unit is drawn
// where the API's replay puts it at that event; it saves a screenshot
// (LEDGER_WEB_SCREENSHOT, else in the test's temporary folder).
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
	slider, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#timeline`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	wantTransform := fmt.Sprintf("translate(%s,%s) rotate(%s)", num(wantX), num(depth-wantY), num(wantFacing))
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

// browserContext starts headless Chromium at exe for the test (60 s at most).
func browserContext(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
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
