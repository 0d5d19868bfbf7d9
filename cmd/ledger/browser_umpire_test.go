package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserUmpireEndsBattle: at Aspern after the French turn, the
// umpire's page records a hussars' retreat, whose die (M.17) it asks for
// before sending, and a combat result the players agreed (T.4) for the
// jaeger, then ends the battle with a reason, after its dry run; both
// pages then say the battle has ended (not "live"), karl's without
// reloading, and karl's play panel offers no more commands.
func TestBrowserUmpireEndsBattle(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "combat.record")
	newTab := browser(t)
	uma, karl := newTab("uma"), newTab("karl")
	karl.open(ts, "karl", "/c/demo/b/aspern?lang=en", "#map g.unit", 400, 860)
	markLoaded(karl)
	uma.open(ts, "uma", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=combat]", 1280, 900)

	// A cavalry retreat rolls (M.17): with the table's dice chosen and none
	// entered, the page asks for them (the dry run says the command would
	// roll) and sends nothing; with the die entered, it is recorded.
	tapUnit(uma, "8-hussards")
	before := ts.lastVersion2("aspern")
	uma.do("retreat without its die",
		chromedp.WaitVisible(chromedp.CSS(`#unit-title[data-unit="8-hussards"]`)),
		chromedp.Click(chromedp.CSS(`#do-combat`)),
		chromedp.SetValue(chromedp.CSS(`#combat-result`), "retreat"),
		chromedp.SendKeys(chromedp.CSS(`#combat-toward-x`), "125"),
		chromedp.SendKeys(chromedp.CSS(`#combat-toward-y`), "100"),
		chromedp.Click(chromedp.CSS(`#combat-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .refused[data-command="combat.record"]`)))
	if msg := evalIn[string](uma, `document.querySelector("#play-result .refused").textContent`); !strings.Contains(msg, "enter the dice thrown") {
		t.Errorf("a retreat without its die: %q", msg)
	}
	if after := ts.lastVersion2("aspern"); after != before {
		t.Fatalf("the page sent a retreat with no die: %d events, then %d", before, after)
	}
	uma.do("retreat with its die",
		chromedp.Click(chromedp.CSS(`#combat-dice-pad button[data-face="4"]`)),
		chromedp.Click(chromedp.CSS(`#combat-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="combat.record"] li[data-type="dice.rolled"]`)))
	if d := evalIn[string](uma, `document.querySelector('#play-result li[data-type="dice.rolled"]').textContent`); !strings.Contains(d, "= 4 (physical by uma)") {
		t.Errorf("the retreat's die recorded as %q", d)
	}

	tapUnit(uma, "jaeger")
	uma.do("combat result",
		chromedp.WaitVisible(chromedp.CSS(`#unit-title[data-unit="jaeger"]`)),
		chromedp.Click(chromedp.CSS(`#do-combat`)),
		chromedp.SetValue(chromedp.CSS(`#combat-result`), "casualties"),
		chromedp.SendKeys(chromedp.CSS(`#combat-markers`), "1"),
		chromedp.SendKeys(chromedp.CSS(`#combat-note`), "skirmish fire from the 1/26e"),
		chromedp.Click(chromedp.CSS(`#combat-confirm`)),
		// This result, not the hussars' still shown: it names the jaeger.
		void(chromedp.Poll[bool](`[...document.querySelectorAll('#play-result .ok[data-command="combat.record"] li[data-type="combat.recorded"]')].some(li => li.textContent.includes("jaeger"))`)))
	karl.do("karl sees the result", void(chromedp.Poll[bool](`[...document.querySelectorAll('#log li[data-type="combat.recorded"]')].some(li => li.textContent.includes("jaeger"))`)))

	before = ts.lastVersion2("aspern")
	uma.do("end the battle",
		chromedp.Click(chromedp.CSS(`#do-battle`)),
		chromedp.SendKeys(chromedp.CSS(`#end-reason`), "nightfall"),
		chromedp.Click(chromedp.CSS(`#end-check`)),
		chromedp.WaitVisible(chromedp.CSS(`#end-preview[data-state="ok"] li[data-type="battle.ended"]`)))
	if after := ts.lastVersion2("aspern"); after != before {
		r := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/aspern/events?after=%d", before), ts.tokens["uma"], nil), 200)
		t.Errorf("the dry run appended: the log went from %d to %d events: %s", before, after, r.raw)
	}
	uma.do("confirm", chromedp.Click(chromedp.CSS(`#end-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="battle.end"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#ended-banner`)))
	karl.do("karl's page says ended", chromedp.WaitVisible(chromedp.CSS(`#ended-banner`)), chromedp.WaitVisible(chromedp.CSS(`#live.ended`)))
	for _, b := range []*tab{uma, karl} {
		live := evalIn[string](b, `document.getElementById("live").textContent`)
		status := evalIn[string](b, `document.getElementById("battle-status").textContent`)
		if strings.Contains(live, "live") || live != "ended" || status != "ended" {
			t.Errorf("%s: the ended battle shows %q, status %q", b.name, live, status)
		}
		if banner := evalIn[string](b, `document.getElementById("ended-banner").textContent`); !strings.Contains(banner, "nightfall") {
			t.Errorf("%s: banner %q", b.name, banner)
		}
	}
	if n := evalIn[int](karl, `document.querySelectorAll("#unit-tools button, #phase-end").length`); n != 0 {
		t.Errorf("karl's page still offers %d commands after the end", n)
	}
	if !stillLoaded(karl) {
		t.Error("karl's page reloaded")
	}
	karl.shot("ended")
	uma.shot("ended")
}

// lastVersion2 is battle b's last event version, read as the umpire.
func (ts *testServer) lastVersion2(b string) int {
	ts.t.Helper()
	r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/"+b+"/events", ts.tokens["uma"], nil), 200)
	return int(r.body["last"].(float64))
}

// TestBrowserFlankMarchSealed: marie declares a flank march on the page
// (its orders sealed, a die thrown on the table); her page shows its
// composition and marks its entry point on the map; karl's page, updated
// live, shows only the edge: none of the march's units, brigade, general
// or entry point is anywhere in his page. Then it arrives: marie brings
// its first unit on from the page, and karl's map shows that unit.
func TestBrowserFlankMarchSealed(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	newTab := browser(t)
	marie, karl := newTab("marie"), newTab("karl")
	karl.open(ts, "karl", "/c/demo/b/aspern?lang=en", "#map g.unit", 1280, 900)
	marie.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", 1280, 900)
	marie.do("flank tool",
		chromedp.Click(chromedp.CSS(`#do-flank`)),
		chromedp.WaitVisible(chromedp.CSS(`#flank-declare`)),
		chromedp.SetValue(chromedp.CSS(`#flank-edge`), "west"),
		chromedp.SendKeys(chromedp.CSS(`#flank-entry-x`), "0"),
		chromedp.SendKeys(chromedp.CSS(`#flank-entry-y`), "61.5"),
		chromedp.SendKeys(chromedp.CSS(`#flank-brigades .b-id`), "bde-secret"),
		chromedp.SendKeys(chromedp.CSS(`#flank-brigades .b-name`), "Secret brigade"),
		chromedp.SendKeys(chromedp.CSS(`#flank-brigades .g-id`), "gen-secret"),
		chromedp.SendKeys(chromedp.CSS(`#flank-brigades .b-units`), "secret-1 infantry\nsecret-2 light_infantry"),
		chromedp.Click(chromedp.CSS(`#flank-declare-check`)),
		chromedp.WaitVisible(chromedp.CSS(`#flank-declare-preview[data-state="ok"]`)),
		chromedp.Click(chromedp.CSS(`#flank-dice-pad button[data-face="1"]`)), // arrives this turn (F.2)
		chromedp.Click(chromedp.CSS(`#flank-declare-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="flank.declare"] li[data-type="flank.declared"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#flank-list li.sealed[data-march="1"] .orders`)),
		chromedp.WaitVisible(chromedp.CSS(`#overlay .flank-entry.sealed`)),
	)
	own := evalIn[string](marie, `document.querySelector('#flank-list li[data-march="1"]').textContent`)
	for _, s := range []string{"bde-secret", "gen-secret", "secret-1", "secret-2", "61.5"} {
		if !strings.Contains(own, s) {
			t.Errorf("marie's page lacks %q of her own march: %q", s, own)
		}
	}
	marie.shot("flank-own")
	karl.do("karl sees the edge live", chromedp.WaitVisible(chromedp.CSS(`#map line.flank-march[data-edge="west"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="flank.declared"]`)),
		// and the strip his units keep out of (F.8), as deep as the state says
		chromedp.WaitVisible(chromedp.CSS(`#overlay g.flank-zone[data-edge="west"][data-side="french"]`)))
	zs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/state", ts.tokens["karl"], nil), 200).body["flank_zones"].([]any)
	if len(zs) != 1 {
		t.Fatalf("the state's flank zones: %v", zs)
	}
	if d, want := evalIn[string](karl, `document.querySelector('#overlay g.flank-zone').dataset.distance`), num(zs[0].(map[string]any)["distance"].(float64)); d != want || want == "0" {
		t.Errorf("karl's map shades %s deep along the west edge; the state says %s", d, want)
	}
	karl.do("karl's flank tool", chromedp.Click(chromedp.CSS(`#do-flank`)), chromedp.WaitVisible(chromedp.CSS(`#flank-list li[data-march="1"]`)))
	page := evalIn[string](karl, `document.documentElement.outerHTML`)
	for _, s := range []string{"bde-secret", "Secret brigade", "gen-secret", "secret-1", "secret-2", "61.5"} {
		if strings.Contains(page, s) {
			t.Errorf("karl's page shows %q of the sealed march", s)
		}
	}
	if n := evalIn[int](karl, `document.querySelectorAll("#overlay .flank-entry").length`); n != 0 {
		t.Errorf("karl's map marks %d flank entry points", n)
	}
	if label := evalIn[string](karl, `document.querySelector("#map text.flank-label").textContent`); label != "flank march 1 · France" {
		t.Errorf("the march's label on karl's map: %q", label)
	}
	karl.shot("flank-opponent")

	// The march arrives: marie ends the command phase and brings its first
	// unit on at the entry point; karl's map shows it, live.
	marie.do("end the command phase", chromedp.Click(chromedp.CSS(`#phase-end`)),
		chromedp.WaitVisible(chromedp.CSS(`#phase-end-confirm`)),
		chromedp.Click(chromedp.CSS(`#phase-end-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#turn-text[data-phase="movement"]`)))
	marie.do("bring it on", chromedp.Click(chromedp.CSS(`#do-flank`)),
		chromedp.WaitVisible(chromedp.CSS(`#flank-enter-1`)),
		typeInto(`#enter-unit-1`, "secret-1"),
		chromedp.Click(chromedp.CSS(`#flank-enter-confirm-1`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="flank.enter"] li[data-type="flank.unit_entered"]`)))
	karl.do("karl sees it arrive", chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="secret-1"]`)))
	if n := evalIn[int](karl, `document.querySelectorAll('#map g.unit[data-unit="secret-2"]').length`); n != 0 {
		t.Error("karl's map shows secret-2, still off the table")
	}
}

// TestBrowserWitnessedHeads: the page shows the battle's head, keeps the
// hashes it has seen, and warns loudly when the history the ledger shows
// later does not extend them: an event seen with another hash, or one past
// the end. Here the rewritten history is simulated the only way a test
// can: by what the page remembers having seen.
func TestBrowserWitnessedHeads(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/events", ts.tokens["rita"], nil), 200)
	list := evs.body["events"].([]any)
	last := list[len(list)-1].(map[string]any)
	lastHash := last["hash"].(string)
	b := browser(t)("rita")
	b.open(ts, "rita", "/c/demo/b/aspern?lang=en", "#map g.unit", 1280, 900)
	b.do("head", chromedp.WaitVisible(chromedp.CSS(`#head-hash`)))
	if shown := evalIn[string](b, `document.getElementById("head-hash").title`); shown != lastHash {
		t.Errorf("the page shows head %q; the log's last event has hash %q", shown, lastHash)
	}
	kept := evalIn[map[string][]map[string]any](b, `JSON.parse(localStorage.getItem("ledger.heads"))`)["demo/aspern"]
	if len(kept) != len(list) || kept[len(kept)-1]["h"] != lastHash {
		t.Fatalf("kept heads %v, want the %d events' hashes", kept, len(list))
	}
	if n := evalIn[int](b, `document.querySelectorAll("#heads-broken").length`); n != 0 {
		t.Fatal("a warning on an untouched history")
	}
	// What this device saw differs from what the ledger now shows.
	evalIn[any](b, fmt.Sprintf(`(() => { const all = JSON.parse(localStorage.getItem("ledger.heads")); const l = all["demo/aspern"];
		l[2].h = "%s"; l.push({v: %d, h: "ab", at: 1}); localStorage.setItem("ledger.heads", JSON.stringify(all)); })()`, strings.Repeat("0", 64), len(list)+5))
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#heads-broken`)))
	warning := evalIn[string](b, `document.getElementById("heads-broken").textContent`)
	if !strings.Contains(warning, "event 3 had hash 0000000000000000…") || !strings.Contains(warning, fmt.Sprintf("event %d (hash ab…) was seen", len(list)+5)) {
		t.Errorf("warning %q", warning)
	}
	b.shot("heads-broken")
}
