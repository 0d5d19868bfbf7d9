package main

import (
	"context"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// byRuleParams are Network.emulateNetworkConditionsByRule's parameters as
// both the Chromium that cdproto v0.159 describes and Chromium 148 take
// them: 148 wants "offline" beside the rules (without it every call is
// "Invalid parameters", -32602), the older one in each rule; each ignores
// the other's.
type byRuleParams struct {
	Offline                  bool                  `json:"offline"`
	MatchedNetworkConditions []*network.Conditions `json:"matchedNetworkConditions"`
}

var emulateByRule = cdp.Command[byRuleParams, network.EmulateNetworkConditionsByRuleResult]{Method: network.CommandEmulateNetworkConditionsByRule}

// cutNetwork makes the tab's network fail as a phone's does when the
// club's Wi-Fi drops (every request fails, navigator.onLine is false, the
// page hears "offline"), or, with commandsOnly, fails only the commands'
// posts while the page and its reads load (a Wi-Fi that drops the odd
// request); restore gives it back, and the page hears "online".
func cutNetwork(b *tab, commandsOnly bool) {
	b.t.Helper()
	pattern := ""
	if commandsOnly {
		pattern = "http://127.0.0.1:*/api/campaigns/*/battles/*/commands/*"
	}
	if _, err := chromedp.Call(b.ctx, network.Enable, network.EnableParams{}); err != nil {
		b.t.Fatal(err)
	}
	if _, err := chromedp.Call(b.ctx, emulateByRule, byRuleParams{
		Offline:                  true,
		MatchedNetworkConditions: []*network.Conditions{{URLPattern: pattern, Offline: true, DownloadThroughput: -1, UploadThroughput: -1}},
	}); err != nil {
		b.t.Fatalf("cut the network: %v", err)
	}
	if _, err := chromedp.Call(b.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: !commandsOnly, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		b.t.Fatalf("cut the network: %v", err)
	}
}

func restoreNetwork(b *tab) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, emulateByRule, byRuleParams{MatchedNetworkConditions: []*network.Conditions{}}); err != nil {
		b.t.Fatalf("restore the network: %v", err)
	}
	if _, err := chromedp.Call(b.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: false, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		b.t.Fatalf("restore the network: %v", err)
	}
}

// commandEvents counts battle b's events of type typ appended by command
// id, read by the umpire from the server (not through the tab).
func commandEvents(ts *testServer, b, typ, id string) int {
	ts.t.Helper()
	r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/"+b+"/events", ts.tokens["uma"], nil), 200)
	n := 0
	for _, e := range r.body["events"].([]any) {
		m := e.(map[string]any)
		if m["type"] == typ && m["command_id"] == id {
			n++
		}
	}
	return n
}

// TestBrowserOutbox plays at Aspern on a phone while the Wi-Fi drops
// (issue 26, "patient with the Wi-Fi"). With the network cut, marie
// declines the 1/26e's initiative and moves the 2/26e 40 cm (one action,
// which it does not have): the ruler says it cannot check, and both
// commands wait on the phone, "waiting to send", recorded nowhere. The page
// is reloaded with only the commands' posts failing: both are still there,
// and a try sends nothing. With the network back, "Send now" sends them
// once, in the order made: the decline is recorded (once, with the id it
// was made with), the move's refusal is shown against it, with its rule,
// until dismissed; a reload after that finds the outbox empty.
func TestBrowserOutbox(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	b := browser(t)("marie")
	const page = "/c/demo/b/aspern?lang=en"
	b.open(ts, "marie", page, "#play #turn-text[data-phase=command]", 400, 860)
	before := ts.lastVersion2("aspern")

	cutNetwork(b, false)
	tapUnit(b, "1-leger")
	b.do("decline the initiative without a network", chromedp.Click(chromedp.CSS(`#do-initiative`)),
		chromedp.Click(chromedp.CSS(`#init-decline`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .queued[data-command="initiative.decline"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox li[data-command="initiative.decline"][data-state="waiting"]`)))
	declineID := evalIn[string](b, `document.querySelector('#outbox li[data-command="initiative.decline"]').dataset.id`)
	tapUnit(b, "2-leger")
	b.do("move without a network", chromedp.Click(chromedp.CSS(`#do-move`)),
		typeInto(`#move-distance`, "40"),
		typeInto(`#move-heading`, "0"),
		chromedp.WaitVisible(chromedp.CSS(`#move-preview[data-state="offline"]`)),
		chromedp.Click(chromedp.CSS(`#move-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox li[data-command="unit.move"][data-state="waiting"]`)))
	b.docShot("page-outbox-phone.png", "#play")
	if got := evalIn[string](b, `document.getElementById("outbox-title").textContent`); got != "Waiting to send (2)" {
		t.Errorf("the outbox's title %q, want %q", got, "Waiting to send (2)")
	}
	if v := ts.lastVersion2("aspern"); v != before {
		t.Fatalf("with the network cut the battle went from version %d to %d", before, v)
	}

	// A reload on a Wi-Fi that loses the commands' posts: the page loads,
	// the outbox is still there, and its try sends nothing.
	cutNetwork(b, true)
	b.open(ts, "marie", page, "#play #turn-text[data-phase=command]", 400, 860)
	b.do("the outbox after a reload", chromedp.WaitVisible(chromedp.CSS(`#outbox li[data-command="initiative.decline"][data-state="waiting"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox li[data-command="unit.move"][data-state="waiting"]`)),
		chromedp.Click(chromedp.CSS(`#outbox-send`)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox-send`)))
	if v := ts.lastVersion2("aspern"); v != before {
		t.Fatalf("with the commands' posts failing the battle went from version %d to %d", before, v)
	}

	restoreNetwork(b)
	b.do("send them now", chromedp.Click(chromedp.CSS(`#outbox-send`)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox li[data-command="unit.move"][data-state="refused"] .error`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#outbox li[data-state="waiting"]`)))
	if n := commandEvents(ts, "aspern", "initiative.declined", declineID); n != 1 {
		t.Errorf("the queued decline %s was recorded %d times, want once", declineID, n)
	}
	refusal := evalIn[string](b, `document.querySelector('#outbox li[data-command="unit.move"]').innerText`)
	t.Logf("the move's refusal, against it: %q", refusal)
	if v := ts.lastVersion2("aspern"); v != before+1 {
		t.Errorf("after sending, the battle is at version %d, want %d (the decline only)", v, before+1)
	}
	b.shot("outbox-sent")

	// The refusal stays, through a reload, until dismissed.
	b.open(ts, "marie", page, "#play #turn-text[data-phase=command]", 400, 860)
	b.do("dismiss the refusal", chromedp.Click(chromedp.CSS(`#outbox li[data-command="unit.move"][data-state="refused"] button`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#outbox`)))
	b.open(ts, "marie", page, "#play #turn-text[data-phase=command]", 400, 860)
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelectorAll("#outbox li").length`)); err != nil || n != 0 {
		t.Errorf("after dismissing, a reload shows %v commands in the outbox (%v)", n, err)
	}
}

// TestBrowserInstallable: the page is installable (issue 26): it links a
// web app manifest in its language, with icons of 192 and 512 px that the
// server serves as PNG of those sizes, and a service worker that, once
// the page has been opened, opens it again with the network cut: the
// shell is drawn (not the browser's "no internet"), the battle's place
// says it cannot load, and the battle is drawn by itself when the network
// returns. The ledger's data is never answered from the worker's copy.
func TestBrowserInstallable(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")

	mres, err := http.Get(ts.url + "/manifest.webmanifest?lang=ru")
	if err != nil {
		t.Fatal(err)
	}
	mres.Body.Close()
	if ct := mres.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/manifest+json") {
		t.Errorf("the manifest's Content-Type %q", ct)
	}
	r := ts.must(ts.do("GET", "/manifest.webmanifest?lang=ru", "", nil), 200)
	if r.body["name"] != "Журнал кампании" || r.body["display"] != "standalone" || r.body["start_url"] != "/?lang=ru" {
		t.Errorf("the manifest: %v", r.body)
	}
	sizes := map[string]bool{}
	for _, i := range r.body["icons"].([]any) {
		icon := i.(map[string]any)
		if icon["type"] != "image/png" {
			continue
		}
		res, err := http.Get(ts.url + icon["src"].(string))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.DecodeConfig(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("icon %v: %d %v", icon["src"], res.StatusCode, err)
		}
		if got := fmt.Sprintf("%dx%d", img.Width, img.Height); got != icon["sizes"] {
			t.Errorf("icon %v is %s, the manifest says %v", icon["src"], got, icon["sizes"])
		}
		sizes[icon["sizes"].(string)] = true
	}
	if !sizes["192x192"] || !sizes["512x512"] {
		t.Errorf("PNG icons of %v, want 192x192 and 512x512", sizes)
	}

	b := browser(t)("marie")
	const page = "/c/demo/b/aspern?lang=en"
	b.open(ts, "marie", page, "#play #turn-text[data-phase=command]", 400, 860)
	if href := evalIn[string](b, `document.querySelector('link[rel="manifest"]').href`); !strings.HasSuffix(href, "/manifest.webmanifest?lang=en") {
		t.Errorf("the page's manifest link %q", href)
	}
	// The worker installed and controlling the page (it claims the pages
	// open when it activates).
	b.do("the service worker", void(chromedp.Poll[bool](`navigator.serviceWorker.controller && navigator.serviceWorker.controller.state === "activated"`)))
	b.open(ts, "marie", page, "#play #turn-text[data-phase=command]", 400, 860) // its copy of the shell made

	cutNetwork(b, false)
	before := ts.lastVersion2("aspern")
	tapUnit(b, "1-leger")
	b.do("decline the initiative without a network", chromedp.Click(chromedp.CSS(`#do-initiative`)),
		chromedp.Click(chromedp.CSS(`#init-decline`)),
		chromedp.WaitVisible(chromedp.CSS(`#outbox li[data-command="initiative.decline"][data-state="waiting"]`)))
	declineID := evalIn[string](b, `document.querySelector('#outbox li[data-command="initiative.decline"]').dataset.id`)
	// Reopened without a network, the page cannot draw the battle, but
	// it says what this device still holds for it.
	b.do("open the page without a network", chromedp.Navigate(ts.url+page),
		chromedp.WaitVisible(chromedp.CSS(`header.top #brand`)),
		chromedp.WaitVisible(chromedp.CSS(`#main > .error[data-offline]`)),
		chromedp.WaitVisible(chromedp.CSS(`#main #offline-outbox li[data-command="initiative.decline"][data-state="waiting"]`)))
	if id := evalIn[string](b, `document.querySelector('#offline-outbox li').dataset.id`); id != declineID {
		t.Errorf("the page without a network shows command %q waiting, want %q", id, declineID)
	}
	if n := evalIn[float64](b, `document.querySelectorAll("#play").length`); n != 0 {
		t.Errorf("without a network the page drew the battle (%v play panels): from a copy of the ledger's data", n)
	}
	b.shot("offline-shell")
	restoreNetwork(b)
	b.do("the battle, when the network returns", chromedp.WaitVisible(chromedp.CSS(`#play #turn-text[data-phase=command]`)))
	// The decline is sent once the page has its battle again: wait for the
	// ledger to record it (the outbox's list is drawn again meanwhile, so
	// its having no waiting entry at some instant says nothing), then for
	// the outbox to let it go.
	deadline := time.Now().Add(30 * time.Second)
	for commandEvents(ts, "aspern", "initiative.declined", declineID) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if commandEvents(ts, "aspern", "initiative.declined", declineID) == 0 {
		t.Fatalf("the decline made offline was not recorded 30 s after the network returned; the outbox: %s",
			evalIn[string](b, `(document.querySelector('#outbox') || {}).outerHTML || "none"`))
	}
	b.do("the decline sent", void(chromedp.Poll[bool](`!document.querySelector('#outbox li')`)))
	if n := commandEvents(ts, "aspern", "initiative.declined", declineID); n != 1 || ts.lastVersion2("aspern") != before+1 {
		t.Errorf("the decline made offline was recorded %d times (battle at version %d, was %d), want once", n, ts.lastVersion2("aspern"), before)
	}
}

// spyAlertsJS records, in the page, each notification the page raises and
// each vibration it asks for (the browser's own Notification still runs:
// the spy extends it).
const spyAlertsJS = `(() => {
  window.__notes = []; window.__buzz = [];
  const N = window.Notification;
  window.Notification = class extends N {
    constructor(title, opts) { window.__notes.push({ title, body: (opts || {}).body, tag: (opts || {}).tag }); super(title, opts); }
  };
  navigator.vibrate = p => { window.__buzz.push(p); return true; };
})()`

// TestBrowserTurnAlert: karl turns on "Alert me on my turn" on his phone
// (the browser has granted the page notifications); while marie ends the
// French phases, his page says nothing until the battle passes to the
// Austrians, then raises one notification, "Your turn: command, turn 2",
// and vibrates; a dispute marie raises raises another, naming her. Her
// own page, alerts off, raises none.
func TestBrowserTurnAlert(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "phase.end")
	newTab := browser(t)
	karl, marie := newTab("karl"), newTab("marie")
	if _, err := chromedp.Call(karl.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: ts.url, BrowserContextID: chromedp.FromContext(karl.ctx).BrowserContextID}); err != nil {
		t.Fatal(err)
	}
	karl.open(ts, "karl", "/c/demo/b/aspern?lang=en", "#play #turn-text", 400, 860)
	marie.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text", 400, 860)
	for _, b := range []*tab{karl, marie} {
		evalIn[any](b, spyAlertsJS)
	}
	karl.do("turn alerts on", chromedp.Click(chromedp.CSS(`#alerts`)),
		chromedp.WaitVisible(chromedp.CSS(`#alerts[aria-pressed="true"]`)),
		void(chromedp.Poll[bool](`document.getElementById("alerts-note").textContent.includes("notifications")`)))

	end := func() {
		ts.must(ts.command("marie", "aspern", "phase.end", map[string]any{"command": map[string]any{"side": "french"}}), 201)
	}
	end()
	end()
	// The French movement and fire phases: still France's; nothing for karl.
	karl.do("the French phases seen", chromedp.WaitVisible(chromedp.CSS(`#turn-text[data-phase="combat"]`)))
	if n := evalIn[float64](karl, `window.__notes.length`); n != 0 {
		t.Errorf("karl was alerted %v times during France's phases", n)
	}
	end()
	karl.do("the Austrian turn", void(chromedp.Poll[bool](`window.__notes.length > 0`)))
	notes := evalIn[[]map[string]any](karl, `window.__notes`)
	if len(notes) != 1 || notes[0]["title"] != "Your turn: command, turn 2" || notes[0]["tag"] != "phase" {
		t.Errorf("karl's alerts at the Austrian turn: %v, want one, \"Your turn: command, turn 2\"", notes)
	}
	if n := evalIn[float64](karl, `window.__buzz.length`); n < 1 {
		t.Errorf("karl's phone did not vibrate")
	}

	ts.must(ts.command("marie", "aspern", "dispute.raise", map[string]any{"command": map[string]any{"event_version": 3, "reason": "the road is not there"}}), 201)
	karl.do("the dispute", void(chromedp.Poll[bool](`window.__notes.some(n => n.title === "marie raised a dispute")`)))
	if notes := evalIn[[]map[string]any](karl, `window.__notes`); len(notes) != 2 {
		t.Errorf("karl's alerts after the dispute: %v, want the turn's and the dispute's only", notes)
	}
	if n := evalIn[float64](marie, `window.__notes.length + window.__buzz.length`); n != 0 {
		t.Errorf("marie, alerts off, was alerted %v times", n)
	}
}
