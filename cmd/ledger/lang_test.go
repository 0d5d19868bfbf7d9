package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
)

// TestRussianCLI plays the Aspern example and a battle in progress with
// --lang ru and reads the state table, the log, the audit report, the
// standings and refusals: every word is Russian, but for ids (units,
// generals, sides, people, names), rule numbers, event types, hashes and
// the commands and flags a user types.
func TestRussianCLI(t *testing.T) {
	c := newCLI(t)
	c.cfg.Lang = "ru"
	played := c.ok("play", "../../examples/aspern-turn.yaml")
	for _, want := range []string{
		"#8 initiative.take [marie]: принято",
		"#10 unit.move [marie]: отказ C.3",
		"C.3: у отряда 1-leger в этот ход осталось 0 действий; это передвижение требует 1: отказано",
		"v25  combat.recorded    jaeger: потери, маркеры потерь 0 → 1",
	} {
		if !strings.Contains(played, want) {
			t.Errorf("play lacks %q:\n%s", want, played)
		}
	}
	ids := c.ids("danube-1809/aspern")

	// A battle in progress beside it, in centimetres, with a refusal.
	dir := t.TempDir()
	write := writeIn(t, dir)
	c.ok("battle", "create", "danube-1809/essling", "--file", write("b.yaml", "name: Essling\nmeasurement: cm\ntable: {width: 180, depth: 120}\nfirst_side: austrians\n"))
	c.ok("battle", "deploy", "danube-1809/essling", "--side", "french", "--file", write("fr.yaml", `c_in_c: {id: massena, name: Massena, rating: 8, position: {x: 90, y: 110}}
brigades:
  - {id: b-legrand, name: Legrand, order: attack, general: {id: legrand, name: Legrand, rating: 7, position: {x: 60, y: 100}},
     units: [{id: 26-leger, type: light_infantry, formation: open_order, position: {x: 60, y: 95}, facing: 180}]}
`))
	c.ok("battle", "deploy", "danube-1809/essling", "--side", "austrians", "--file", write("au.yaml", `c_in_c: {id: charles, name: Charles, rating: 9, position: {x: 90, y: 5}}
brigades:
  - {id: b-hohenzollern, name: Hohenzollern, order: defend, general: {id: hohenzollern, name: Hohenzollern, rating: 8, position: {x: 60, y: 15}},
     units: [{id: ir-15, type: infantry, formation: attack_column, position: {x: 60, y: 20}, facing: 0}]}
`))
	c.ok("battle", "start", "danube-1809/essling")
	c.ok("order", "danube-1809/essling", "--general", "hohenzollern", "--units", "ir-15", "--dice", "2,2", "--actor", "karl")
	code, _, errs := c.run("move", "danube-1809/essling", "ir-15", "--to", "60,30.5", "--actions", "1", "--actor", "karl")
	if code != exitRefused || !strings.Contains(errs, "отказано: C.17: пехота: 10,0 см за действие; 1 действие позволяет 10,0 см, а это передвижение — 10,5 см, ему нужно 2 действия") {
		t.Errorf("refusal: exit %d: %s", code, errs)
	}
	refusals := errs
	// A refusal of the campaign's own (not a numbered rule).
	code, _, errs = c.run("player", "add", "danube-1809", "marie", "--role", "player", "--side", "french")
	if code != exitRefused || !strings.Contains(errs, "отказано: кампания: «marie» уже участвует в кампании") {
		t.Errorf("campaign refusal: exit %d: %s", code, errs)
	}
	refusals += errs
	for k := range c.ids("danube-1809/essling") {
		ids[k] = true
	}

	state := c.ok("state", "danube-1809/essling")
	for _, want := range []string{
		": идёт, ход 1, фаза командования стороны Austria (стол 180×120 см)",
		"ОТРЯД     СТОРОНА    БРИГАДА         РОД ВОЙСК      ПОСТРОЕНИЕ       X     Y     ФРОНТ  МАРКЕРЫ  СОСТОЯНИЕ  ОСТАЛОСЬ ДЕЙСТВИЙ",
		"ir-15     austrians  b-hohenzollern  пехота         колонна к атаке  60,0  20,0  0      0        в порядке  3",
		"26-leger  french     b-legrand       лёгкая пехота  рассыпной строй  60,0  95,0  180    0        в порядке  0",
		"ГЕНЕРАЛ       СТОРОНА    БРИГАДА         РЕЙТИНГ  X     Y",
	} {
		if !strings.Contains(state, want) {
			t.Errorf("state lacks %q:\n%s", want, state)
		}
	}
	ended := c.ok("state", "danube-1809/aspern")
	if !strings.Contains(ended, ": окончено, ход 2") {
		t.Errorf("ended state:\n%s", ended)
	}
	log := c.ok("log", "danube-1809/aspern")
	for _, want := range []string{"№   ПОЗИЦИЯ  ВРЕМЯ", "оператор за marie", "1-leger прошёл 4,0 см за 1 действие", "цепочка хешей: 32 события, не нарушена; вершина "} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	audited := c.ok("audit", "danube-1809/aspern")
	pending := c.ok("audit", "danube-1809/essling")
	for _, want := range []string{"ПРОВЕРКА  ", "цепочка        пройдена", "каждое раскрытое зерно совпадает со своим обязательством", "ГРАНИ 1..N", "проверка пройдена"} {
		if !strings.Contains(audited, want) {
			t.Errorf("audit lacks %q:\n%s", want, audited)
		}
	}
	standings := c.ok("standings", "danube-1809")
	campaignShown := c.ok("campaign", "show", "danube-1809")
	odds := c.ok("odds", "danube-1809/essling", "--general", "charles", "--units", "ir-15")
	if !strings.Contains(odds, "charles отдаёт приказ ir-15 (2D6): рейтинг 9;") || !strings.Contains(odds, "провал") {
		t.Errorf("odds:\n%s", odds)
	}

	for name, out := range map[string]string{"state": state + ended, "log": log, "audit": audited + pending, "refusals": refusals,
		"standings": standings, "campaign": campaignShown, "odds": odds} {
		if w := englishIn(out, ids); len(w) > 0 {
			t.Errorf("%s: English words %v in:\n%s", name, w, out)
		}
	}
}

// ids are the names a battle's and its campaign's people gave (units,
// generals, sides, brigades, people, battles and their names, dice
// periods, the reason the umpire gave for the end), as the JSON output
// has them.
func (c *testCLI) ids(battle string) map[string]bool {
	c.t.Helper()
	out := map[string]bool{"operator": true, "umpire": true}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (k == "name" || k == "unit" || k == "general" || k == "side" || k == "brigade" || k == "player" || k == "id" ||
					k == "battle" || k == "campaign" || k == "phasing_side" || k == "actor" || k == "on_behalf_of" || k == "period" || k == "reason") {
					// The standings head the sides' columns with their ids
					// in capitals.
					for _, w := range regexp.MustCompile(`[A-Za-z]+`).FindAllString(s, -1) {
						out[w], out[strings.ToUpper(w)] = true, true
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	camp, _, _ := strings.Cut(battle, "/")
	for _, args := range [][]string{{"state", battle}, {"campaign", "show", camp}, {"log", battle}, {"audit", battle}} {
		var v any
		if err := json.Unmarshal([]byte(c.ok(append(args, "-o", "json")...)), &v); err != nil {
			c.t.Fatal(err)
		}
		walk(v)
	}
	return out
}

var latinWord = regexp.MustCompile(`(?:--)?[A-Za-z][A-Za-z0-9]*(?:[._\-:/][A-Za-z0-9]+)*`)

// englishIn returns the Latin words of out that are none of: ids, words
// with a digit, dot, dash or underscore (rule numbers, event types, ids,
// hashes, 2D6, flags such as --head), hex, and the letters the tables use
// for coordinates and dice (X, Y, D, N).
func englishIn(out string, ids map[string]bool) []string {
	var found []string
	seen := map[string]bool{}
	for _, w := range latinWord.FindAllString(out, -1) {
		if ids[w] || strings.ContainsAny(w, "0123456789._-:/") || regexp.MustCompile(`^[0-9a-f]+$`).MatchString(w) ||
			w == "X" || w == "Y" || w == "D" || w == "N" || w == "v" || seen[w] {
			continue
		}
		seen[w] = true
		found = append(found, w)
	}
	return found
}

// TestRefusalsOfScenariosInRussian plays every scenario of testdata/ and
// the examples in English (-o json: the refusals met) and again in Russian
// (as the CLI prints them): each refusal must be said in Russian, by a
// format of its code (or a wrapper's) from its format and values, not fall
// back to its English words.
func TestRefusalsOfScenariosInRussian(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/scenarios/*.yaml")
	files = append(files, "../../examples/first-battle.yaml", "../../examples/aspern-turn.yaml")
	n := 0
	for _, f := range files {
		c := newCLI(t)
		_, out, errs := c.run("play", f, "-o", "json")
		var steps []struct {
			Step    int            `json:"step"`
			Refusal *rules.Refusal `json:"refusal"`
		}
		if err := json.Unmarshal([]byte(out), &steps); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", f, err, out, errs)
		}
		ru := newCLI(t)
		ru.cfg.Lang = "ru"
		_, said, _ := ru.run("play", f)
		for _, s := range steps {
			if s.Refusal == nil {
				continue
			}
			n++
			if strings.Contains(said, s.Refusal.Message) {
				t.Errorf("%s step %d: %s %s in English only: %s", filepath.Base(f), s.Step, s.Refusal.Rule, s.Refusal.Code, s.Refusal.Message)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d refusals met", n)
	}
}
