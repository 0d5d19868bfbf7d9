package i18n

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/rules"
)

// eventTypes are every event type a page may show: the rules' and the
// campaign's own (campaign.Registry holds both).
func eventTypes(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, et := range rules.EventTypes() {
		seen[et.Name] = true
		out = append(out, et.Name)
	}
	for _, ti := range campaign.Registry().Types() {
		if !seen[ti.Name] {
			out = append(out, ti.Name)
		}
	}
	if len(out) < 45 {
		t.Fatalf("only %d event types", len(out))
	}
	return out
}

// TestWebEventTemplatesComplete: ru.json describes every event type, and
// every template's sub-templates (each=KEY) exist.
func TestWebEventTemplatesComplete(t *testing.T) {
	c := MustLoad()
	types := eventTypes(t)
	for _, name := range types {
		if !c.HasEvent("ru", name) {
			t.Errorf("ru.json lacks event.%s", name)
		}
	}
	if !slicesContain(types, "campaign.token_reissued") || !slicesContain(types, "order.resolved") {
		t.Errorf("event types: %v", types)
	}
	each := regexp.MustCompile(`each=([^|}]+)`)
	for _, k := range c.Keys("ru") {
		for _, m := range each.FindAllStringSubmatch(c.texts["ru"][k], -1) {
			if _, ok := c.texts["ru"][m[1]]; !ok {
				t.Errorf("%s names %s, which ru.json lacks", k, m[1])
			}
		}
	}
	// Description keys stay off the page's texts.
	for k := range c.Page("ru") {
		if strings.HasPrefix(k, "event.") || strings.HasPrefix(k, "term.") {
			t.Errorf("page texts hold %s", k)
		}
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestWebEventZeroPayloads renders every type's zero payload: nothing
// panics, and what comes out is Russian or the English given.
func TestWebEventZeroPayloads(t *testing.T) {
	c := MustLoad()
	for _, et := range rules.EventTypes() {
		ev, err := rules.DecodeEvent(et.Name, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(ev)
		got := c.Event("ru", et.Name, raw, "in", "EN")
		if got == "" {
			t.Errorf("%s: empty", et.Name)
		}
	}
	if got := c.Event("ru", "unit.moved", json.RawMessage(`not json`), "in", "EN"); got != "EN" {
		t.Errorf("bad payload: %q", got)
	}
}

// TestWebEventFallback: English is the rules' words but where en.json has
// a template (a length with its unit); a type without a template and a
// template naming a field the payload lacks give the rules' words.
func TestWebEventFallback(t *testing.T) {
	c := MustLoad()
	moved := json.RawMessage(`{"turn":1,"unit":"33-ligne","from":{"center":{"x":24,"y":10},"facing":0},"to":{"center":{"x":24,"y":16},"facing":0},"distance":6,"actions_used":1}`)
	en := `33-ligne moved 6.0 using 1 action: (24.0,10.0) facing 0 -> (24.0,16.0) facing 0`
	if got := c.Event("en", "unit.moved", moved, "in", en); got != `33-ligne moved 6.0" using 1 action: (24.0,10.0) facing 0 -> (24.0,16.0) facing 0` {
		t.Errorf("en: %q", got)
	}
	if got := c.Event("en", "unit.moved", moved, "cm", en); got != `33-ligne moved 6.0 cm using 1 action: (24.0,10.0) facing 0 -> (24.0,16.0) facing 0` {
		t.Errorf("en cm: %q", got)
	}
	if got := c.Event("en", "dice.rolled", moved, "in", "EN"); got != "EN" {
		t.Errorf("en without a template: %q", got)
	}
	if got := c.Event("ru", "unit.moved", moved, "in", en); got != `33-ligne прошёл 6,0" за 1 действие: (24,0; 10,0), фронт 0° → (24,0; 16,0), фронт 0°` {
		t.Errorf("ru: %q", got)
	}
	if got := c.Event("ru", "no.such_event", moved, "in", en); got != en {
		t.Errorf("no template: %q", got)
	}
	noDistance := json.RawMessage(`{"turn":1,"unit":"33-ligne","from":{"center":{"x":24,"y":10},"facing":0},"to":{"center":{"x":24,"y":16},"facing":0},"actions_used":1}`)
	if got := c.Event("ru", "unit.moved", noDistance, "in", en); got != en {
		t.Errorf("missing field: %q", got)
	}
	// A language without a catalogue falls back too.
	if got := c.Event("fr", "unit.moved", moved, "in", en); got != en {
		t.Errorf("fr: %q", got)
	}
}

// TestWebEventFormats checks the template language on payloads of events
// the example scenarios do not produce.
func TestWebEventFormats(t *testing.T) {
	c := MustLoad()
	for _, tc := range []struct {
		typ, measurement, payload string
		want                      []string
		not                       []string
	}{
		{"order.resolved", "in", `{"turn":1,"side":"french","general":"friant","units":["33-ligne","48-ligne"],"content":{"action":"charge","target":"ir-4"},"values":[2,3],"total":5,"base_rating":8,
			"modifiers":[{"rule":"C.7","reason":"general 13.0\" from 48-ligne: 2 full steps of 6\"","value":-2},{"rule":"C.7","reason":"in attack_column","value":1}],
			"effective_rating":7,"outcome":"actions","actions":2,"general_done":false,"failed_moves":["x"],"summary":"rating 8; ..."}`,
			[]string{"friant: приказ отрядам 33-ligne, 48-ligne (атака на ir-4)", "рейтинг 8, модификаторы: C.7 -2, C.7 +1, итоговый рейтинг 7", "бросок 5 (2+3)", "C.3: 2 действия", "C.12: x ещё могут"}, []string{"rating", "summary"}},
		{"order.resolved", "in", `{"general":"davout","c_in_c":true,"units":["ir-4"],"content":{"action":""},"values":[5,6],"total":11,"base_rating":9,"modifiers":[],"effective_rating":9,"outcome":"failed","actions":0,"special":"steady","general_done":true,"orders_closed":false}`,
			[]string{"davout (главнокомандующий): «Не дрейфь!» — приказ отряду ir-4;", "C.14: приказ не выполнен (выпало больше 9)", "C.14: это последний приказ davout"}, []string{"()"}},
		{"order.resolved", "in", `{"general":"davout","units":["u"],"content":{"action":"move"},"values":[6,6],"total":12,"base_rating":9,"modifiers":[],"effective_rating":9,"outcome":"blunder","actions":0,"blunder":{"roll":6,"result":"retire"},"orders_closed":true,"general_done":true}`,
			[]string{"C.5: грубая ошибка, таблица ошибок 6: отход", "; C.11: в этот ход приказов больше нет"}, []string{"C.4"}},
		{"unit.corrected", "cm", `{"dispute":2,"event_version":11,"unit":"33-ligne","base":{"center":{"x":24,"y":15.5},"facing":0},"markers":0,"before":{"base":{"center":{"x":24,"y":16},"facing":0},"formation":"line","markers":1,"status":"ok","actions_left":0}}`,
			[]string{"посредник исправил 33-ligne (спор №2 о событии 11): (24,0; 16,0), фронт 0° → (24,0; 15,5), фронт 0°; маркеры потерь 1 → 0"}, []string{"построение", "осталось"}},
		{"dispute.upheld", "in", `{"dispute":1,"event_version":7,"event_type":"unit.moved","ruling":"the move was 6.5","corrections":2}`,
			[]string{"спор №1 о событии 7 (unit.moved) признан: the move was 6.5; далее 2 исправления"}, nil},
		{"command.retract_requested", "in", `{"request":1,"command_id":"move-2","versions":[12,13],"types":["unit.moved","dice.rolled"],"restore":{"units":[{"id":"33-ligne","base":{"center":{"x":24,"y":16},"facing":0},"formation":"line"}],"unit_turns":[{"unit":"33-ligne","turn":{"actions_left":1}}]}}`,
			[]string{"просьба об отмене №1: отменить команду move-2 (события 12, 13: unit.moved, dice.rolled); вернёт: 33-ligne в (24,0; 16,0), фронт 0°, линия; у 33-ligne осталось действий: 1;"}, []string{"ничего"}},
		{"command.retracted", "in", `{"request":1,"command_id":"move-2","versions":[12],"restore":{}}`,
			[]string{"восстановлено: ничего"}, nil},
		{"combat.recorded", "cm", `{"unit":"fr-2-hus","result":"retreat","markers_before":0,"markers":0,"status_before":"ok","status":"retreating","to":{"center":{"x":52,"y":7},"facing":0},"distance":13,"fixed":18,"fraction":0.5,"roll":{"total":4},"entered_by":"umpire"}`,
			[]string{"fr-2-hus: отступление, 13,0 см (0,5 × 18 + 4 по броску, M.17) до (52,0; 7,0), в порядке → отступает (ввёл umpire)"}, []string{"маркеры"}},
		{"brigade.order_changed", "in", `{"brigade":"fr-1","from":"attack","to":"defend","by":"initiative","roll":{"total":5},"at_most":7,"changed":true}`,
			[]string{"приказ бригады fr-1 сменён с «атака» на «оборона» по инициативе бригадира: выпало 5, нужно не больше 7 (M.15)"}, nil},
		{"flank.fight_resolved", "in", `{"edge":"north","measure":"units","winner":"red","loser":"blue","percent":50,"result":"loser_delayed","marches":[{"march":1,"side":"red","size":3,"entry_kind":"ordered","arrival_turn":2},{"march":2,"side":"blue","size":2,"entry_kind":"lost"}]}`,
			[]string{"у северного края (F.10): red превосходит blue на 50%: слабейший задерживается; марш №1 red (3): в назначенную точку, ход 2; марш №2 blue (2): потерян"}, nil},
		{"formation.tested", "in", `{"unit":"ir-4","formation":"square","enemy":"7-chasseurs","distance":5.26,"roll":{"total":3},"pass_at_least":4,"passed":false}`,
			[]string{"ir-4 проходит проверку построения (каре), противник 7-chasseurs в 5,3\" (M.9): выпало 3, нужно 4: провал"}, nil},
		{"campaign.player_added", "", `{"player":"marie","role":"player","side":"french","token_hash":"0123456789abcdef0123456789abcdef"}`,
			[]string{"marie — игрок стороны french (токен 01234567…)"}, []string{"89abcdef"}},
		{"campaign.token_reissued", "", `{"player":"karl","token_hash":"fedcba9876543210"}`,
			[]string{"karl получил новый токен (fedcba98…); старый больше не действует"}, []string{"76543210"}},
		{"general.detached", "in", `{"general":"friant","unit":"33-ligne"}`, []string{"генерал friant покинул отряд 33-ligne (M.2)"}, nil},
		{"battle.created", "", `{"battle":"b1","name":"Aspern","measurement":"cm","table":{"width":180,"depth":120},"sides":[{},{}],"first_side":"french","ruleset":{"name":"default","version":1}}`,
			[]string{"сражение «Aspern» создано: стол 180×120 см, 2 стороны, первой ходит french, правила default v1"}, []string{"не более"}},
	} {
		en := "ENGLISH"
		got := c.Event("ru", tc.typ, json.RawMessage(tc.payload), tc.measurement, en)
		if got == en {
			t.Errorf("%s: fell back to English", tc.typ)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s:\n got %s\nlacks %s", tc.typ, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %s has %q", tc.typ, got, w)
			}
		}
	}
}

func TestWebPlural(t *testing.T) {
	forms := []string{"действие", "действия", "действий"}
	for n, want := range map[float64]string{0: "действий", 1: "действие", 2: "действия", 4: "действия", 5: "действий", 11: "действий", 12: "действий", 21: "действие", 22: "действия", 111: "действий", 1.5: "действия"} {
		if got := pluralForm("ru", n, forms); got != want {
			t.Errorf("%v: %s, want %s", n, got, want)
		}
	}
}

// TestWebDicePurposeInWords: a roll's purpose is said in words in Russian
// (rules.PurposeWords, phrase.purpose), not as its key ("для
// order:friant:33-ligne"); a purpose of no known shape is kept as it is.
func TestWebDicePurposeInWords(t *testing.T) {
	c := MustLoad()
	roll := func(purpose string) json.RawMessage {
		return json.RawMessage(`{"counter":1,"count":2,"sides":6,"values":[3,3],"source":"physical","entered_by":"marie","purpose":"` + purpose + `"}`)
	}
	for purpose, want := range map[string]string{
		"order:friant:33-ligne+48-ligne": "для приказа friant (33-ligne, 48-ligne)",
		"blunder:friant:33-ligne":        "для проверки грубой ошибки friant (33-ligne)",
		"retreat:hr-3":                   "для дистанции отступления hr-3",
		"flank:french:north":             "для флангового марша french с северного края",
		"formation_test:33-ligne":        "для проверки построения 33-ligne",
		"order_initiative:bde-friant":    "для инициативы приказа бригады bde-friant",
		"something:else":                 "для something:else",
	} {
		if got := c.Event("ru", "dice.rolled", roll(purpose), "in", "EN"); !strings.HasSuffix(got, want) {
			t.Errorf("%s: %q, want it to end %q", purpose, got, want)
		}
	}
}
