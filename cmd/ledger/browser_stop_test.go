package main

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserMoveStopsShort: at Aspern marie moves the 2/26e straight at
// the jaeger, typed as a distance toward it (issue 26: "shows ... where
// C.9 would stop it"). Before she confirms, the ruler says it stops the
// contact gap short of the jaeger (C.9) and the map draws its base where
// it would stop; once confirmed, the log's unit.moved stopped short
// exactly there.
func TestBrowserMoveStopsShort(t *testing.T) {
	ts := peopleServer(t)
	aspern(t, ts, "", "unit.reform")
	st := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/state", ts.tokens["marie"], nil), 200)
	centre := map[string][2]float64{}
	for _, x := range st.body["units"].([]any) {
		u := x.(map[string]any)
		centre[u["unit"].(string)] = [2]float64{u["x"].(float64), u["y"].(float64)}
	}
	from, to := centre["2-leger"], centre["jaeger"]
	d := math.Hypot(to[0]-from[0], to[1]-from[1])
	if d == 0 {
		t.Fatalf("the 2/26e and the jaeger in the state: %v", centre)
	}

	b := browser(t)("marie")
	b.open(ts, "marie", "/c/demo/b/aspern?lang=en", "#play #turn-text[data-phase=command]", 1280, 900)
	// The list of units heads each brigade by the army list's name for it.
	if h := evalIn[string](b, `document.querySelector('#unit-list .units-brigade[data-brigade="bde-claparede"] h4').textContent`); h != "Claparede's brigade" {
		t.Errorf("the unit list heads bde-claparede %q, want the army list's name", h)
	}
	// The filter above the list keeps what its text names.
	shown := `[...document.querySelectorAll("#unit-list button.unit-pick")].filter(x => !x.closest("[hidden]")).map(x => x.dataset.unit || "general:" + x.dataset.general)`
	all := evalIn[[]string](b, shown)
	b.do("filter the list", typeInto(`#unit-filter`, "JAEG"))
	if got := evalIn[[]string](b, shown); len(got) != 1 || got[0] != "jaeger" {
		t.Errorf("the list filtered by %q shows %v, want the jaeger alone", "JAEG", got)
	}
	b.do("filter by brigade", typeInto(`#unit-filter`, "claparede"))
	if got := evalIn[[]string](b, shown); !slices.Contains(got, "2-leger") || !slices.Contains(got, "general:claparede") || slices.Contains(got, "jaeger") {
		t.Errorf("the list filtered by the brigade's name shows %v", got)
	}
	b.do("clear the filter", void(chromedp.Evaluate[any](`(f => { f.value = ""; f.dispatchEvent(new Event("input", {bubbles: true})); })(document.getElementById("unit-filter"))`)))
	if got := evalIn[[]string](b, shown); !slices.Equal(got, all) || len(all) < 10 {
		t.Errorf("the list with the filter cleared shows %v, was %v", got, all)
	}
	tapUnit(b, "2-leger")
	b.do("move tool", chromedp.Click(chromedp.CSS(`#do-move`)), chromedp.WaitVisible(chromedp.CSS(`#move-toward`)))
	b.do("toward the jaeger, as far as its centre",
		chromedp.SetValue(chromedp.CSS(`#move-toward`), "jaeger"),
		void(chromedp.Evaluate[any](`document.getElementById("move-toward").dispatchEvent(new Event("change"))`)),
		typeInto(`#move-distance`, strconv.FormatFloat(d, 'f', 2, 64)),
		chromedp.WaitVisible(chromedp.CSS(`#ruler-short`)),
		chromedp.WaitVisible(chromedp.CSS(`#overlay g.move-stop`)))
	if e := evalIn[string](b, `document.getElementById("ruler-short").dataset.enemy`); e != "jaeger" {
		t.Errorf("the ruler stops it short of %q, want the jaeger", e)
	}
	if s := evalIn[string](b, `document.getElementById("ruler-short").textContent`); !regexpC9.MatchString(s) {
		t.Errorf("the ruler says %q, want 'stopped … short of … (C.9)'", s)
	}
	drawnX, _ := strconv.ParseFloat(evalIn[string](b, `document.querySelector("#overlay g.move-stop").dataset.x`), 64)
	drawnY, _ := strconv.ParseFloat(evalIn[string](b, `document.querySelector("#overlay g.move-stop").dataset.y`), 64)
	b.shot("stops-short")
	b.do("confirm", chromedp.Click(chromedp.CSS(`#move-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#play-result .ok[data-command="unit.move"] li[data-type="unit.moved"]`)))
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/aspern/events", ts.tokens["uma"], nil), 200).body["events"].([]any)
	last := evs[len(evs)-1].(map[string]any)
	p, _ := last["payload"].(map[string]any)
	if last["type"] != "unit.moved" || p["stopped_short"] != true || p["enemy"] != "jaeger" {
		t.Fatalf("the move recorded as %v", last)
	}
	c := p["to"].(map[string]any)["center"].(map[string]any)
	if math.Abs(c["x"].(float64)-drawnX) > 1e-6 || math.Abs(c["y"].(float64)-drawnY) > 1e-6 {
		t.Errorf("the map drew the stop at (%v, %v); the unit stopped at (%v, %v)", drawnX, drawnY, c["x"], c["y"])
	}
}

var regexpC9 = regexp.MustCompile(`^stopped \d+(\.\d+)? (cm|") short of .+ \(C\.9\)$`)
