package main

import (
	"fmt"
	"strings"
	"testing"
)

// descriptions maps an events answer's types to their descriptions, in
// order.
func descriptions(t *testing.T, r response) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, e := range r.body["events"].([]any) {
		e := e.(map[string]any)
		out[e["type"].(string)] = append(out[e["type"].(string)], e["description"].(string))
	}
	return out
}

// TestServeEventsInRussian: the event log, the replay, the live stream and
// a command's answer describe events in the request's language: Russian
// from the catalogue's templates, filled from the payloads with the
// battle's measurement; English stays the rules' words.
func TestServeEventsInRussian(t *testing.T) {
	ts := seed(t)
	token := ts.tokens["rita"]
	const (
		orderRU = "friant: приказ отряду 33-ligne (движение); рейтинг 8, итоговый рейтинг 8; бросок 6 (3+3): C.3: 2 действия"
		moveRU  = `33-ligne прошёл 6,0" за 1 действие: (24,0; 10,0), фронт 0° → (24,0; 16,0), фронт 0°`
		moveEN  = `33-ligne moved 6.0" using 1 action: (24.0,10.0) facing 0 -> (24.0,16.0) facing 0`
	)
	ru := descriptions(t, ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events?lang=ru", token, nil), 200))
	for typ, want := range map[string]string{
		"battle.created": "сражение «Eggmuhl» создано: стол 72×48 дюймов, 2 стороны, первой ходит France, не более 6 ходов",
		"army.deployed":  "развёртывание France: главнокомандующий davout (рейтинг 9), 2 бригады: bde-friant (3 отряда), bde-montbrun (2 отряда)",
		"dice.rolled":    "бросок №1: 2D6 = 3+3 (настоящие кубики, ввёл marie) для приказа friant (33-ligne)",
		"order.resolved": orderRU,
		"unit.moved":     moveRU,
		"turn.started":   "ход 1: France, фаза командования",
	} {
		if got := ru[typ]; len(got) == 0 || !strings.Contains(got[0], want) {
			t.Errorf("%s in Russian: %q, want %q", typ, got, want)
		}
	}
	// The Accept-Language header chooses too; English is the rules' own.
	if got := descriptions(t, ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", token, nil, "Accept-Language", "ru-RU,ru;q=0.9"), 200)); got["unit.moved"][0] != moveRU {
		t.Errorf("Accept-Language ru: %q", got["unit.moved"])
	}
	en := descriptions(t, ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events?lang=en", token, nil), 200))
	if en["unit.moved"][0] != moveEN || !strings.HasPrefix(en["order.resolved"][0], "friant orders 33-ligne: rating 8") {
		t.Errorf("English: %q %q", en["unit.moved"], en["order.resolved"])
	}
	// The campaign's own events, a token shown no further than in English.
	camp := descriptions(t, ts.must(ts.do("GET", "/api/campaigns/demo/events?lang=ru", ts.tokens["uma"], nil), 200))
	if got := camp["campaign.created"]; len(got) == 0 || got[0] != "кампания «Danube 1809» создана (эпоха: наполеоновская): France против Austria" {
		t.Errorf("campaign.created: %q", got)
	}
	campEN := descriptions(t, ts.must(ts.do("GET", "/api/campaigns/demo/events?lang=en", ts.tokens["uma"], nil), 200))
	for i, d := range camp["campaign.player_added"] {
		hash := strings.TrimSuffix(campEN["campaign.player_added"][i][strings.Index(campEN["campaign.player_added"][i], "(token ")+len("(token "):], "…)")
		if !strings.Contains(d, "(токен "+hash+"…)") || len(hash) != 8 {
			t.Errorf("player_added: %q (English %q)", d, campEN["campaign.player_added"][i])
		}
	}
	if got := camp["campaign.player_added"]; len(got) < 2 || !strings.Contains(got[1], "marie — игрок стороны french") {
		t.Errorf("player_added: %q", got)
	}
	// The replay's event.
	moved := 0
	for _, e := range ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", token, nil), 200).body["events"].([]any) {
		if e := e.(map[string]any); e["type"] == "unit.moved" {
			moved = int(e["version"].(float64))
		}
	}
	at := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d&lang=ru", moved), token, nil), 200)
	if d := at.body["event"].(map[string]any)["description"]; d != moveRU {
		t.Errorf("replay: %v", d)
	}
	// A command's answer and the live stream, in Russian.
	live := openStream(t, ts, token, "", "lang=ru")
	r := ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 22}}}, "Accept-Language", "ru"), 201)
	const move2 = `33-ligne прошёл 6,0" за 1 действие: (24,0; 16,0), фронт 0° → (24,0; 22,0), фронт 0°`
	if got := descriptions(t, r)["unit.moved"]; len(got) != 1 || got[0] != move2 {
		t.Errorf("command answer: %q", got)
	}
	if ev := next(t, live); ev.data["description"] != move2 {
		t.Errorf("stream: %v", ev.data["description"])
	}
}

// TestLogInRussian plays examples/first-battle.yaml and reads the log
// with lang ru: the descriptions are Russian, with the battle's inches.
func TestLogInRussian(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/first-battle.yaml")
	en := c.ok("log", "demo-1809/eggmuhl")
	c.cfg.Lang = "ru"
	out := c.ok("log", "demo-1809/eggmuhl")
	for _, want := range []string{
		"сражение «Eggmuhl» создано: стол 72×48 дюймов",
		"friant: приказ отряду 33-ligne (движение); рейтинг 8, итоговый рейтинг 8; бросок 6 (3+3): C.3: 2 действия",
		`33-ligne прошёл 6,0" за 1 действие: (24,0; 16,0), фронт 0° → (24,0; 22,0), фронт 0°`,
		"friant: приказ отряду 48-ligne (движение); рейтинг 8, итоговый рейтинг 8; бросок 10 (6+4): C.3: приказ не выполнен (выпало больше 8); C.4: friant в этот ход больше не отдаёт приказов",
		"ход 1: France, фаза движения",
		"цепочка хешей: 27 событий, не нарушена",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger --lang ru log lacks %q", want)
		}
	}
	if strings.Contains(out, "moved 6.0") || !strings.Contains(en, `33-ligne moved 6.0" using 1 action`) {
		t.Errorf("languages mixed:\n%s\n%s", out, en)
	}
	if t.Failed() {
		t.Log(out)
	}
	// The campaign's stream too.
	if camp := c.ok("log", "demo-1809"); !strings.Contains(camp, "сражение 1 кампании: eggmuhl «Eggmuhl»") {
		t.Errorf("campaign log:\n%s", camp)
	}
}
