package campaign_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// overlayCase is a ruleset overlay and what its refusal says, in English
// and in Russian; named are the values the Russian may keep in Latin
// letters (the key path and the value given).
type overlayCase struct {
	overlay, en, ru string
	named           []string
}

// overlayRefusals are overlays refused by what they hold, each naming the
// overlay's own line.
var overlayRefusals = []overlayCase{
	// Nested past MaxDepth: said as such (found by this stop's tester:
	// "more than 65536 bytes" before).
	{strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n", "the ruleset overlay is nested more than 32 deep",
		"дополнение к правилам вложено глубже 32 уровней", nil},
	{"doc: x\nversion: 2\n  bad: 1\n", "the ruleset overlay is not YAML at its line 3", "дополнение к правилам не читается: ошибка в его строке 3", nil},
	{"doc: x\ncommand:\n  rating_max: abc\n", `line 3: command.rating_max: want a whole number, got "abc"`,
		"строка 3: command.rating_max: нужно целое число, а дано «abc»", []string{"command.rating_max", "abc"}},
	{"command:\n  group_distance: {in: six}\n", `line 2: command.group_distance.in: want a number, got "six"`,
		"строка 2: command.group_distance.in: нужно число, а дано «six»", []string{"command.group_distance.in", "six"}},
	{"doc: x\n\ncommand:\n  ratng_max: 3\n", "line 4: command.ratng_max: the ruleset has no such key",
		"строка 4: command.ratng_max: в правилах нет такого ключа", []string{"command.ratng_max"}},
	{"formations:\n  line:\n    close_order: maybe\n", `line 3: formations.line.close_order: want true or false, got "maybe"`,
		"строка 3: formations.line.close_order: нужно true или false, а дано «maybe»", []string{"formations.line.close_order", "maybe", "true", "false"}},
	{"turn:\n  phases: command\n", "line 2: turn.phases: want a list",
		"строка 2: turn.phases: нужен список", []string{"turn.phases"}},
	{"name: x\ndoc: \"\\e[31m red\"\n", "line 2 of the ruleset overlay: control character U+001B is not allowed",
		"строка 2 дополнения к правилам: управляющий символ U+001B не допускается", nil},
	{"doc: ok\n\"\\u202E\": x\n", "line 2 of the ruleset overlay: bidirectional control character U+202E is not allowed",
		"строка 2 дополнения к правилам: управляющий символ направления текста U+202E не допускается", nil},
	{"formations:\n  line: {doc: \"a\\0b\"}\n", "line 2 of the ruleset overlay: control character U+0000 is not allowed",
		"строка 2 дополнения к правилам: управляющий символ U+0000 не допускается", nil},
	{"unknown: [\"\\x07\"]\n", "line 1 of the ruleset overlay: control character U+0007 is not allowed",
		"строка 1 дополнения к правилам: управляющий символ U+0007 не допускается", nil},
	{"doc: \"one\\ntwo\\tthree\"\nunit_types: {x: 1}\n", "line 2: unit_types.x: want keys and values (a mapping)",
		"строка 2: unit_types.x: нужны ключи и значения (словарь)", []string{"unit_types.x"}},
	{"command:\n  rating_max: [1, 2]\n", "line 2: command.rating_max: want one value, not a list or a mapping",
		"строка 2: command.rating_max: нужно одно значение, а не список или словарь", []string{"command.rating_max"}},
	{"doc: a\ndoc: b\n", "line 2: doc: given twice", "строка 2: doc: ключ указан дважды", []string{"doc"}},
	{"- a\n- b\n", "line 1: the ruleset overlay is keys and values (a mapping)",
		"строка 1: дополнение к правилам — это ключи и значения (словарь)", nil},
}

// TestOverlayRefusalsNameTheirLine: a battle.create's and a
// campaign.create's overlay is refused naming the line of the overlay the
// user wrote (before: a line of the campaign's and the battle's overlays
// merged, or of the ruleset re-encoded) and, for a value of the wrong kind
// or an unknown key, its key path and what was wanted in words (before:
// "cannot unmarshal !!str `abc` into int"), in English and in Russian
// without English words.
func TestOverlayRefusalsNameTheirLine(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	exec(t, svc, "create", campaign.CmdCreate, "", map[string]any{"name": "C1", "ruleset": "doc: the campaign's\nversion: 3\nturn:\n  ordinary_moves: movement_table\n",
		"sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	for i, c := range overlayRefusals {
		for _, cmd := range []string{rules.CmdBattleCreate, campaign.CmdCreate} {
			b := map[string]any{"name": "B", "measurement": "in", "table": map[string]float64{"width": 72, "depth": 48}, "first_side": "red", "ruleset": c.overlay}
			req := campaign.Request{ID: "o", Principal: campaign.Operator("alice"), Campaign: "c1", Battle: "b9", Name: cmd}
			if cmd == campaign.CmdCreate {
				b = map[string]any{"name": "C2", "ruleset": c.overlay, "sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}}
				req.Campaign, req.Battle = "c2", ""
			}
			req.ID = strings.ReplaceAll(cmd, ".", "-") + "-" + string(rune('a'+i))
			req.Body = body(t, b)
			_, err := svc.Execute(context.Background(), req)
			var r *rules.Refusal
			if !errors.As(err, &r) {
				t.Errorf("%s %q: %v, want a refusal", cmd, c.overlay, err)
				continue
			}
			if r.Message != c.en {
				t.Errorf("%s %q: %q, want %q", cmd, c.overlay, r.Message, c.en)
			}
			ru := cat.Refusal("ru", r, i18n.Vars{})
			if !strings.Contains(ru, c.ru) {
				t.Errorf("%s %q: Russian %q, want %q", cmd, c.overlay, ru, c.ru)
			}
			if latinOutside(ru, c.named...) {
				t.Errorf("%s %q: Russian %q has English words", cmd, c.overlay, ru)
			}
		}
	}
}

// TestOverlaysStillAccepted: overlays the ruleset takes are taken as
// before: YAML's anchors, aliases and merge keys, nulls, a whole number
// written 10.0, a text's escaped line breaks and tabs, a key of a map
// (unit_types, formations) the default ruleset does not have.
func TestOverlaysStillAccepted(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	exec(t, svc, "create", campaign.CmdCreate, "", map[string]any{"name": "C1", "ruleset": "doc: \"the campaign's\\n\\tfirst\"\nversion: 3\n",
		"sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	for i, o := range []string{
		"",
		"doc: ~\n",
		"command:\n  rating_max: 10.0\n",
		"formations:\n  line: &l {doc: \"a line\", close_order: true}\n  wedge: *l\n",
		"formations:\n  line: &l {doc: \"a line\", close_order: true}\n  wedge:\n    <<: *l\n    doc: \"a wedge\"\n",
		"command:\n  group_distance: {in: 6, cm: 10.5}\n",
		// YAML 1.1's words for true and false, which the rules' decoding
		// has always taken (found by this stop's tester: refused by the
		// first checkOverlay).
		"formations:\n  line: {close_order: yes}\n  column: {close_order: off}\n",
		"formations:\n  line: {close_order: on}\n  column: {close_order: No}\n",
	} {
		exec(t, svc, "b"+string(rune('a'+i)), rules.CmdBattleCreate, "b"+string(rune('a'+i)), map[string]any{"name": "B", "measurement": "in",
			"table": map[string]float64{"width": 72, "depth": 48}, "first_side": "red", "ruleset": o})
	}
}
