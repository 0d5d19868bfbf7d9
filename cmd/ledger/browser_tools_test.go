package main

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// unitAttr reads a data- attribute of a unit as the map draws it.
func unitAttr(b *tab, unit, name string) float64 {
	b.t.Helper()
	v := evalIn[string](b, fmt.Sprintf(`document.querySelector('#map g.unit[data-unit=%q]').dataset.%s`, unit, name))
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		b.t.Fatalf("%s's %s: %q", unit, name, v)
	}
	return f
}

// typeInto replaces an input's value and tells the page it changed.
func typeInto(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.SetValue(chromedp.CSS(sel), value),
		void(chromedp.Evaluate[any](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event("input", {bubbles: true}))`, sel))),
		void(chromedp.Evaluate[any](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event("change", {bubbles: true}))`, sel))),
	)
}

// TestBrowserPlayTools plays the rest of a turn's commands through the
// page: at Aspern the 1/26e declines its initiative; Claparede orders the
// 2/26e to form attack column (dice entered); it re-forms, moves 10 cm
// north entered as a distance and a direction (no drag), and turns on the
// spot (to 45° the rules refuse, M.10: its flank toward the jaeger; to
// 315° they allow); in the m-march scenario's movement phase the French declare
// Friant's brigade's tactical march and march the 1/33e 18" north, entered
// the same way. Each on the map where the command put it.
func TestBrowserPlayTools(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "initiative.take")
	b := browser(t)("marie")
	b.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", 1280, 900)

	tapUnit(b, "1-leger")
	b.do("decline the initiative", chromedp.Click(chromedp.CSS(`#do-initiative`)),
		chromedp.WaitVisible(chromedp.CSS(`#init-preview[data-state="ok"]`)),
		chromedp.Click(chromedp.CSS(`#init-decline`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="initiative.decline"] li[data-type="initiative.declined"]`)))

	tapUnit(b, "2-leger")
	b.do("order a formation change", chromedp.Click(chromedp.CSS(`#do-order`)),
		chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)),
		typeInto(`#order-action`, "formation"),
		typeInto(`#order-formation`, "attack_column"),
		chromedp.WaitVisible(chromedp.CSS(`#odds table.odds-table`)),
		chromedp.Click(chromedp.CSS(`#order-dice-pad button[data-face="2"]`)),
		chromedp.Click(chromedp.CSS(`#order-dice-pad button[data-face="3"]`)),
		chromedp.Click(chromedp.CSS(`#order-give`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="order.give"] li[data-type="order.resolved"]`)))

	tapUnit(b, "2-leger")
	b.do("re-form", chromedp.Click(chromedp.CSS(`#do-formation`)),
		typeInto(`#reform-formation`, "attack_column"),
		chromedp.WaitVisible(chromedp.CSS(`#reform-preview[data-state="ok"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#overlay .reform-ghost`)),
		chromedp.Click(chromedp.CSS(`#reform-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.reform"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="2-leger"][data-formation="attack_column"]`)))

	y0 := unitAttr(b, "2-leger", "y")
	tapUnit(b, "2-leger")
	b.do("move by distance and direction", chromedp.Click(chromedp.CSS(`#do-move`)),
		typeInto(`#move-distance`, "10"),
		typeInto(`#move-heading`, "0"),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-legal`)),
		chromedp.Click(chromedp.CSS(`#move-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.move"]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#map g.unit[data-unit="2-leger"][data-y="%s"]`, num(y0+10)))))

	tapUnit(b, "2-leger")
	b.do("turn", chromedp.Click(chromedp.CSS(`#do-turn`)),
		// +45° would show its left flank to the jaeger, 7.6 cm away (M.10)...
		chromedp.Click(chromedp.CSS(`#tool .quick button:nth-child(3)`)),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-illegal[data-rule="M.10"]`)),
		// ... -45° faces them.
		typeInto(`#move-facing`, "315"),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-legal`)),
		chromedp.Click(chromedp.CSS(`#move-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.move"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="2-leger"][data-facing="315"]`)))
	b.shot("aspern-tools")

	// A tactical march, in another battle: the m-march scenario up to the
	// French movement phase.
	playScenario(t, ts, "mm", "../../testdata/scenarios/m-march.yaml", func(st scenarioStep) (bool, bool) {
		return true, st.Do == "march.declare" && st.Expect == "accepted"
	})
	b.open(ts, "marie", "/c/demo/b/mm?lang=en", "#play #turn-text[data-phase=movement]", 1280, 900)
	b.do("declare the march", chromedp.Click(chromedp.CSS(`#do-tactical`)),
		typeInto(`#march-brigade`, "fr-1"),
		chromedp.WaitVisible(chromedp.CSS(`#march-preview[data-state="ok"]`)),
		chromedp.Click(chromedp.CSS(`#march-declare`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="march.declare"] li[data-type="march.declared"]`)))
	tapUnit(b, "fr-1-a")
	b.do("march", chromedp.Click(chromedp.CSS(`#do-march`)),
		typeInto(`#move-distance`, "18.5"),
		typeInto(`#move-heading`, "0"),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-illegal[data-rule="M.12"]`)),
		typeInto(`#move-distance`, "18"),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-legal`)),
		chromedp.Click(chromedp.CSS(`#move-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.march"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#map g.unit[data-unit="fr-1-a"][data-y="26"]`)))
	b.shot("march")
}
