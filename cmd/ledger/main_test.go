package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/internal/dicetest"
)

// testCLI runs the ledger's Main on a fresh data folder, as a user would,
// with configuration set directly rather than from files and flags.
type testCLI struct {
	t   *testing.T
	cfg config.Config
	// entropy fixes the service's dice for the whole test (dicetest).
	entropy io.Reader
}

func newCLI(t *testing.T) *testCLI {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	return &testCLI{t: t, cfg: cfg, entropy: dicetest.Entropy(t)}
}

// run returns the exit code, standard output and standard error.
func (c *testCLI) run(args ...string) (int, string, string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb, &c.cfg, c.entropy)
	return code, out.String(), errb.String()
}

func (c *testCLI) ok(args ...string) string {
	c.t.Helper()
	code, out, errs := c.run(args...)
	if code != 0 {
		c.t.Fatalf("ledger %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

func TestDemo(t *testing.T) {
	c := newCLI(t)
	out := c.ok("demo")
	for _, want := range []string{
		"#10 order.give [marie, dice [3 3]]: accepted",
		"C.3: 2 actions",
		"refused C.17",
		`C.17: infantry moves 6" per action; 33-ligne has 1 action left, enough for 6.0"; this move is 6.1" and needs 2 actions`,
		"failed (roll above 8)",
		"== state of demo-1809/eggmuhl",
		"33-ligne", "24.0  22.0",
		"dice.revealed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if !regexp.MustCompile(`hash chain: \d+ events, intact; head [0-9a-f]{64}`).MatchString(out) {
		t.Error("demo output lacks an intact hash chain with its head")
	}
	if t.Failed() {
		t.Log(out)
	}
}

func TestCommandsAndExitCodes(t *testing.T) {
	c := newCLI(t)
	c.ok("campaign", "create", "pen", "--name", "Peninsula", "--side", "french:France:france", "--side", "british:Britain:britain")
	dir := t.TempDir()
	write := writeIn(t, dir)
	battle := write("battle.yaml", "name: Talavera\nmeasurement: cm\ntable: {width: 180, depth: 120}\nfirst_side: british\n")
	c.ok("battle", "create", "pen/talavera", "--file", battle)
	fr := write("fr.yaml", `c_in_c: {id: victor, name: Victor, rating: 8, position: {x: 90, y: 110}}
brigades:
  - {id: b-ruffin, name: Ruffin, order: attack, general: {id: ruffin, name: Ruffin, rating: 7, position: {x: 60, y: 100}},
     units: [{id: 9-leger, type: light_infantry, position: {x: 60, y: 95}, facing: 180}]}
`)
	br := write("br.yaml", `c_in_c: {id: wellesley, name: Wellesley, rating: 9, position: {x: 90, y: 5}}
brigades:
  - {id: b-hill, name: Hill, order: defend, general: {id: hill, name: Hill, rating: 8, position: {x: 60, y: 15}},
     units: [{id: 29-foot, type: infantry, position: {x: 60, y: 20}, facing: 0}]}
`)
	c.ok("battle", "deploy", "pen/talavera", "--side", "french", "--file", fr)
	c.ok("battle", "deploy", "pen/talavera", "--side", "british", "--file", br)
	c.ok("battle", "start", "pen/talavera")
	out := c.ok("order", "pen/talavera", "--general", "hill", "--units", "29-foot", "--dice", "2,2", "--id", "ord-1")
	if !strings.Contains(out, "C.3: 3 actions") {
		t.Fatalf("order output:\n%s", out)
	}
	// The same command id again appends nothing and says so.
	if out := c.ok("order", "pen/talavera", "--general", "hill", "--units", "29-foot", "--dice", "2,2", "--id", "ord-1"); !strings.Contains(out, "already applied") {
		t.Fatalf("repeat:\n%s", out)
	}
	// In centimetres infantry moves 10 cm per action (C.17): 10.5 with one
	// action is refused, exit 3 (actions omitted, it would take two).
	code, _, errs := c.run("move", "pen/talavera", "29-foot", "--to", "60,30.5", "--actions", "1")
	if code != exitRefused || !strings.Contains(errs, "C.17") || !strings.Contains(errs, "10 cm") {
		t.Fatalf("move refusal: exit %d: %s", code, errs)
	}
	// The same refusal in Russian: the rule id stays, the numbers in cm.
	c.cfg.Lang = "ru"
	code, _, errs = c.run("move", "pen/talavera", "29-foot", "--to", "60,30.5", "--actions", "1")
	if code != exitRefused || !strings.Contains(errs, "отказано: C.17:") || !strings.Contains(errs, "10,0 см за действие") || !strings.Contains(errs, "10,5 см") {
		t.Fatalf("Russian refusal: exit %d: %s", code, errs)
	}
	c.cfg.Lang = "en"
	c.ok("move", "pen/talavera", "29-foot", "--to", "60,30")
	// The odds of the next order, before rolling: Victor is not phasing.
	if code, _, errs := c.run("odds", "pen/talavera", "--general", "ruffin", "--units", "9-leger"); code != exitRefused || !strings.Contains(errs, "T.2") {
		t.Fatalf("odds out of turn: exit %d %s", code, errs)
	}
	odds := c.ok("odds", "pen/talavera", "--general", "wellesley", "--units", "29-foot")
	for _, want := range []string{"rating 9", "C.7 -1 (general 35.4 cm from 29-foot", "effective rating 8", "failed   0        9/36", "blunder  0        1/36", "actions  3        10/36"} {
		if !strings.Contains(odds, want) {
			t.Errorf("odds lack %q:\n%s", want, odds)
		}
	}
	// Moves as measured at the table: 5 cm due east, then 5 cm towards
	// the French light infantry at (60, 95).
	c.ok("move", "pen/talavera", "29-foot", "--by", "5", "--heading", "90")
	c.ok("move", "pen/talavera", "29-foot", "--by", "5", "--toward", "9-leger")
	dx, dy := 60.0-65, 95.0-30
	d := math.Hypot(dx, dy)
	wantX, wantY := 65+5*dx/d, 30+5*dy/d
	for _, args := range [][]string{{"--to", "1,1", "--by", "3"}, {"--by", "3"}, {"--heading", "3", "--toward", "9-leger"}, {"--toward", "nobody"}, {"--to", "NaN,NaN"}, {"--to", "1,Inf"}} {
		if code, _, _ := c.run(append([]string{"move", "pen/talavera", "29-foot"}, args...)...); code != exitUsage {
			t.Errorf("move %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	var st struct {
		Units []struct {
			Unit string  `json:"unit"`
			X    float64 `json:"x"`
			Y    float64 `json:"y"`
		} `json:"units"`
		Version int `json:"version"`
	}
	if err := json.Unmarshal([]byte(c.ok("state", "pen/talavera", "-o", "json")), &st); err != nil {
		t.Fatal(err)
	}
	// The header names the side playing as people do (Britain), not by
	// its id (british), in both languages.
	if head, _, _ := strings.Cut(c.ok("state", "pen/talavera"), "\n"); !strings.Contains(head, "command phase of Britain") {
		t.Errorf("state's header: %q, want the phasing side's name", head)
	}
	lang := c.cfg.Lang
	c.cfg.Lang = "ru"
	if head, _, _ := strings.Cut(c.ok("state", "pen/talavera"), "\n"); !strings.Contains(head, "стороны Britain") || strings.Contains(head, "british") {
		t.Errorf("state's header in Russian: %q, want the phasing side's name", head)
	}
	c.cfg.Lang = lang
	for _, u := range st.Units {
		if u.Unit == "29-foot" && (math.Abs(u.X-wantX) > 1e-6 || math.Abs(u.Y-wantY) > 1e-6) {
			t.Fatalf("29-foot at %v,%v, want %v,%v", u.X, u.Y, wantX, wantY)
		}
	}
	if code, _, _ := c.run("order", "pen/talavera"); code != exitUsage {
		t.Fatalf("missing flags: exit %d, want %d", code, exitUsage)
	}
	if code, _, errs := c.run("state", "pen/nowhere"); code != exitError || !strings.Contains(errs, "no battle pen/nowhere") {
		t.Fatalf("unknown battle: exit %d %s", code, errs)
	}
	if out := c.ok("log", "pen/talavera"); !strings.Contains(out, "hash chain: ") || !strings.Contains(out, "intact") {
		t.Fatalf("log:\n%s", out)
	}
	if out := c.ok("campaign", "show", "pen"); !strings.Contains(out, "talavera") {
		t.Fatalf("campaign show:\n%s", out)
	}
}

// TestScenarios plays every scenario under testdata/scenarios and
// examples/ through `ledger play`, each into a fresh ledger: every step's
// expectation is an assertion.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/scenarios/*.yaml")
	ex, _ := filepath.Glob("../../examples/*.yaml")
	for _, f := range ex {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "\nsteps:") {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no scenarios found")
	}
	type step struct {
		Step   int    `json:"step"`
		Status string `json:"status"`
	}
	play := func(c *testCLI, f string) (int, []step, string) {
		code, out, errs := c.run("-o", "json", "play", f)
		var steps []step
		if err := json.Unmarshal([]byte(out), &steps); err != nil {
			t.Fatalf("play -o json: %v\n%s\n%s", err, out, errs)
		}
		return code, steps, errs
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := newCLI(t)
			code, first, errs := play(c, f)
			if code != 0 {
				for _, st := range first {
					t.Logf("step %d: %s", st.Step, st.Status)
				}
				t.Fatalf("exit %d: %s", code, errs)
			}
			// Playing it again appends nothing for the steps accepted the
			// first time: each answers with its recorded outcome. (A step
			// refused the first time is decided again on the later state.)
			_, again, _ := play(c, f)
			if len(again) != len(first) {
				t.Fatalf("%d steps, then %d", len(first), len(again))
			}
			for i, st := range again {
				if first[i].Status == "accepted" && st.Status != "duplicate" {
					t.Errorf("step %d was accepted, then %s when played again", st.Step, st.Status)
				}
			}
		})
	}
}

// writeIn returns a function that writes a file of body named name in
// dir and returns its path, failing t if it cannot.
func writeIn(t *testing.T, dir string) func(name, body string) string {
	t.Helper()
	return func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}
