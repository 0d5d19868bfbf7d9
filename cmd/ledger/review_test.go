package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
)

// TestReviewCLI plays the dispute scenarios and reviews their decisions at
// the CLI: `ledger review` prints the rules, the dice, the geometry with its
// numbers, the disputes and the corrected state; `ledger picture --review`
// draws before, as recorded and as corrected, with the geometry.
func TestReviewCLI(t *testing.T) {
	c := newCLI(t)
	for _, f := range []string{"d-move", "d-order", "d-flank"} {
		c.ok("play", "../../testdata/scenarios/"+f+".yaml")
	}
	// The disputed charge (d-move v15): arc, sight, range, path, pushes undone.
	out := c.ok("review", "d-move/b1", "15")
	for _, want := range []string{
		"event 15 (charge.declared)", "rules: K.4, K.5, K.6, K.7, K.8, C.9",
		"front arc (K.4)", "sight (K.10)", "6.0\" of 12.0\", side hit front", "within 1.0\" (K.2)",
		"dispute 2 raised by karl", "upheld by operator", "command.undone", "as corrected (after event 19)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("review of the charge lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`au-a1 in fr-a's front arc\s+yes`).MatchString(out) {
		t.Errorf("review of the charge: the target in the front arc:\n%s", out)
	}
	var rv app.Review
	if err := json.Unmarshal([]byte(c.ok("review", "d-move/b1", "15", "-o", "json")), &rv); err != nil {
		t.Fatal(err)
	}
	if rv.Geometry.Arc == nil || !rv.Geometry.Arc.InArc || !rv.Geometry.Arc.Seen || rv.First != 15 || rv.End != 16 || rv.Corrected == nil || rv.CorrectedAt != 19 || len(rv.Corrections) != 1 {
		t.Errorf("review JSON: %+v", rv)
	}
	svg := c.ok("picture", "d-move/b1", "--review", "15")
	for _, want := range []string{`class="review"`, `data-rules="K.4 K.5 K.6 K.7 K.8 C.9"`, `data-panel="before"`, `data-panel="recorded"`, `data-panel="corrected"`,
		`class="review-arc" data-in-arc="true"`, `class="review-sight" data-seen="true"`, `class="review-path"`, `class="charge"`, `class="review-recorded" data-unit="fr-a"`,
		`class="review-recorded" data-unit="au-a2"`, "as recorded: after event 16", "as corrected: after event 19"} {
		if !strings.Contains(svg, want) {
			t.Errorf("review picture of the charge lacks %s", want)
		}
	}
	// An order: the general's command distance in steps (C.7).
	out = c.ok("review", "d-move/b1", "8")
	if !regexp.MustCompile(`command \(C.7\)\s+fr-1-gen to fr-b`).MatchString(out) || !strings.Contains(out, "20.1\": 1 full steps of 12.0\"") || !strings.Contains(out, "rules: C.3, C.7") {
		t.Errorf("review of the order:\n%s", out)
	}
	if svg := c.ok("picture", "d-move/b1", "--review", "8"); !strings.Contains(svg, `class="review-command" data-general="fr-1-gen" data-unit="fr-b"`) || !strings.Contains(svg, `class="review-step" data-step="1"`) {
		t.Errorf("order picture lacks the command distance")
	}
	// A march: the M.13 stop distance.
	if svg := c.ok("picture", "d-move/b1", "--review", "28"); !strings.Contains(svg, `class="review-march-stop" data-stop="20"`) {
		t.Error("march picture lacks the 20\" stop")
	}
	// A move: the nearest enemies and the 1" zone (K.2); the order's dice.
	out = c.ok("review", "d-order/b1", "9")
	if !regexp.MustCompile(`nearest enemy\s+fr-a to au-a`).MatchString(out) || !strings.Contains(out, "rules: C.17") {
		t.Errorf("review of a move:\n%s", out)
	}
	out = c.ok("review", "d-order/b1", "8")
	if !strings.Contains(out, "dice v7: roll #1 2D6 = 3+3 (physical by operator)") || !strings.Contains(out, "order.corrected") {
		t.Errorf("review of the corrected order:\n%s", out)
	}
	// A flank marcher's entry: the F.8 edge it keeps enemies from.
	if svg := c.ok("picture", "d-flank/b1", "--review", "12"); !strings.Contains(svg, `class="review-flank-edge" data-edge="west" data-distance="12"`) {
		t.Error("flank entry picture lacks the F.8 edge")
	}
	// A correction after a battle's end: the standings say what it changed.
	c.ok("play", "../../testdata/scenarios/d-campaign.yaml")
	out = c.ok("standings", "d-campaign")
	for _, want := range []string{"b1 scored again (dispute 1 on event 7, v15): red 3 (won) -> 0 (lost), blue 0 (lost) -> 3 (won)",
		"rosters: r1-inf1 present -> destroyed, b1-inf1 destroyed -> present", "b2 had already started: it stands as played"} {
		if !strings.Contains(out, want) {
			t.Errorf("standings lack %q:\n%s", want, out)
		}
	}
	// In Russian, the panels' titles.
	c.cfg.Lang = "ru"
	if svg := c.ok("picture", "d-move/b1", "--review", "15"); !strings.Contains(svg, "как исправлено: после события 19") {
		t.Error("Russian review titles")
	}
	if out := c.ok("review", "d-move/b1", "15"); !strings.Contains(out, "au-a1 во фронтальном секторе fr-a") || !strings.Contains(out, "6,0\" из 12,0\", удар во фронт") ||
		!strings.Contains(out, "спор №2 поднял karl") || !strings.Contains(out, "после исправления (после события 19)") {
		t.Errorf("the review in Russian:\n%s", out)
	}
	if out := c.ok("standings", "d-campaign"); !strings.Contains(out, "b1 пересчитано (спор №1 о событии 7, событие 15): red 3 (победа) → 0 (поражение)") ||
		!strings.Contains(out, "r1-inf1: в составе → уничтожен") {
		t.Errorf("standings in Russian:\n%s", out)
	}
	c.cfg.Lang = "en"
	// Bad usage and events that do not exist.
	if code, _, errs := c.run("picture", "d-move/b1", "--review", "15", "--at", "3"); code != exitUsage || !strings.Contains(errs, "give one") {
		t.Errorf("--review with --at: exit %d %s", code, errs)
	}
	if code, _, errs := c.run("review", "d-move/b1", "999"); code == 0 || !strings.Contains(errs, "events 1 to") {
		t.Errorf("review of event 999: exit %d %s", code, errs)
	}
}

// TestReviewHTTP: GET .../review?version=N answers the review to anyone who
// may read the battle, JSON or (format=svg) the picture; after the umpire
// upholds a dispute on a move with the move undone, it shows as corrected.
func TestReviewHTTP(t *testing.T) {
	ts := seed(t)
	move := ts.lastVersion()
	ts.must(ts.command("karl", "b1", "dispute.raise", map[string]any{"command": map[string]any{"event_version": move, "reason": "it went through the marsh"}}), 201)
	// The refusal says so before the umpire rules: a dry run of a correction
	// that would leave the battalion off the table is refused (K.3), and
	// nothing is appended.
	before := ts.lastVersion()
	r := ts.command("uma", "b1", "dispute.uphold", map[string]any{"dry_run": true, "command": map[string]any{"dispute": 1, "ruling": "x",
		"corrections": []map[string]any{{"unit": "33-ligne", "base": map[string]any{"center": map[string]float64{"x": 71.5, "y": 10}, "facing": 0}}}}})
	if r.status != 422 || r.errorField("rule") != "K.3" || ts.lastVersion() != before {
		t.Fatalf("dry run of an impossible correction: %d %s", r.status, r.raw)
	}
	up := ts.must(ts.command("uma", "b1", "dispute.uphold", map[string]any{"command": map[string]any{"dispute": 1, "ruling": "the move is undone", "undo": true}}), 201)
	evs := up.body["events"].([]any)
	if len(evs) != 2 || evs[1].(map[string]any)["type"] != "command.undone" {
		t.Fatalf("uphold: %s", up.raw)
	}
	path := fmt.Sprintf("/api/campaigns/demo/battles/b1/review?version=%d", move)
	r = ts.must(ts.do("GET", path, ts.tokens["rita"], nil), 200)
	var rv app.Review
	if err := json.Unmarshal(r.raw, &rv); err != nil {
		t.Fatal(err)
	}
	if rv.Event.Type != "unit.moved" || rv.Rules[0] != "C.17" || rv.Corrected == nil || len(rv.Disputes) != 1 || rv.Disputes[0].Status != "upheld" || rv.Geometry.Path == nil {
		t.Fatalf("review: %s", r.raw)
	}
	for _, u := range rv.Corrected.Units {
		if u.Unit == "33-ligne" && (u.Y != 10 || u.ActionsLeft != 2) {
			t.Errorf("as corrected, 33-ligne %+v", u)
		}
	}
	req, _ := http.NewRequest("GET", ts.url+path+"&format=svg", nil)
	req.Header.Set("Authorization", "Bearer "+ts.tokens["marie"])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/svg+xml") {
		t.Errorf("svg: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, c := range []struct {
		q      string
		status int
	}{{"", 400}, {"?version=x", 400}, {"?version=1&format=png", 400}, {"?version=999", 404}} {
		if r := ts.do("GET", "/api/campaigns/demo/battles/b1/review"+c.q, ts.tokens["rita"], nil); r.status != c.status {
			t.Errorf("review%s: %d, want %d: %s", c.q, r.status, c.status, r.raw)
		}
	}
	if r := ts.do("GET", path, "", nil); r.status != 401 {
		t.Errorf("without a token: %d", r.status)
	}
}
