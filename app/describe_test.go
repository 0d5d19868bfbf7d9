package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// battleWords plays the start of a battle in centimetres through the rules
// (battle.create, army.deploy: one brigade of one light infantry battalion)
// and returns its events as the log holds them, with a move of 10 cm and a
// change to attack column after them.
func battleWords(t *testing.T) []events.Envelope {
	t.Helper()
	st := &rules.State{}
	var out []events.Envelope
	add := func(ev rules.Event) {
		rules.Apply(st, ev)
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		info, ok := campaign.Registry().Lookup(ev.EventType())
		if !ok {
			t.Fatalf("%s: no such event type", ev.EventType())
		}
		out = append(out, events.Envelope{Campaign: "c", Battle: "b", Type: ev.EventType(), Schema: info.Schema,
			Version: uint64(len(out) + 1), Payload: payload, Time: time.Unix(0, 0), Actor: "operator"})
	}
	decide := func(cmd rules.Command) {
		evs, err := rules.Decide(st, cmd, nil)
		if err != nil {
			t.Fatalf("%s: %v", cmd.CommandName(), err)
		}
		for _, ev := range evs {
			add(ev)
		}
	}
	decide(&rules.CreateBattle{Battle: "b", Name: "Eggmuhl", Measurement: rules.Centimetres, Table: geom.Table{Width: 180, Depth: 120},
		Sides: []rules.SideSpec{{ID: "french", Name: "France"}, {ID: "austrians", Name: "Austria"}}, FirstSide: "french"})
	decide(&rules.DeployArmy{Side: "french", CInC: rules.CommanderSpec{ID: "davout", Rating: 9, Position: geom.Vec{X: 90, Y: 10}},
		Brigades: []rules.BrigadeSpec{{ID: "b1", Order: "attack", General: rules.GeneralSpec{ID: "friant", Rating: 8, Position: geom.Vec{X: 80, Y: 10}},
			Units: []rules.UnitSpec{{ID: "tirailleurs", Type: "light_infantry", Position: geom.Vec{X: 60, Y: 20}}}}}})
	u := st.Units["tirailleurs"]
	if u == nil {
		t.Fatal("the unit was not deployed")
	}
	to := u.Base
	to.Center.Y += 10
	add(&rules.TurnStarted{Turn: 1, Side: "french", Phase: rules.PhaseCommand})
	add(&rules.UnitMoved{Turn: 1, Unit: u.ID, From: u.Base, To: to, Distance: 10, ActionsUsed: 1})
	add(&rules.UnitReformed{Turn: 1, Unit: u.ID, FromFormation: "line", ToFormation: "attack_column", From: to, To: to, ActionsUsed: 3})
	return out
}

// TestDescriberSaysTermsUnitsAndPlurals: what the timeline says of a
// battle, in English and in Russian, names sides by their names and
// formations by their words, never by ids; a length carries its unit; a
// count agrees with its noun.
func TestDescriberSaysTermsUnitsAndPlurals(t *testing.T) {
	cat := i18n.MustLoad()
	evs := battleWords(t)
	want := map[string]map[string][]string{
		"en": {
			rules.EvArmyDeployed:  {"France deployed", "1 brigade: b1 (1 unit)"},
			rules.EvTurnStarted:   {"turn 1: the command phase of France"},
			rules.EvUnitMoved:     {"tirailleurs moved 10.0 cm using 1 action"},
			rules.EvUnitReformed:  {"formed attack column from line using 3 actions"},
			rules.EvBattleCreated: {"France first"},
		},
		"ru": {
			rules.EvArmyDeployed:  {"развёртывание France", "1 бригада: b1 (1 отряд)"},
			rules.EvTurnStarted:   {"ход 1: France, фаза командования"},
			rules.EvUnitMoved:     {"tirailleurs прошёл 10,0 см за 1 действие"},
			rules.EvUnitReformed:  {"линия → колонна к атаке, за 3 действия"},
			rules.EvBattleCreated: {"первой ходит France"},
		},
	}
	raw := []string{"french", "attack_column", "light_infantry", "in_progress", "1 brigades", "1 units", "3 action "}
	for _, lang := range i18n.Languages {
		d := NewDescriber(cat, lang, nil)
		seen := map[string]bool{}
		for _, e := range evs {
			got := d.Describe(e)
			for _, w := range want[lang][e.Type] {
				if !strings.Contains(got, w) {
					t.Errorf("%s %s: %q lacks %q", lang, e.Type, got, w)
				}
			}
			seen[e.Type] = true
			if e.Type == rules.EvBattleCreated {
				continue // it names the sides by id and by name
			}
			for _, w := range raw {
				if strings.Contains(got, w) {
					t.Errorf("%s %s: %q says %q", lang, e.Type, got, w)
				}
			}
		}
		for typ := range want[lang] {
			if !seen[typ] {
				t.Errorf("%s: no %s played", lang, typ)
			}
		}
	}
}

// TestDescriberAsksForTheBattle: a describer that has not seen the
// battle.created asks once for the battle's measurement and sides.
func TestDescriberAsksForTheBattle(t *testing.T) {
	cat := i18n.MustLoad()
	evs := battleWords(t)
	for _, lang := range i18n.Languages {
		measures, sides := 0, 0
		d := NewDescriber(cat, lang, func(events.Key) string { measures++; return rules.Centimetres }).
			WithSides(func(events.Key) map[string]string { sides++; return map[string]string{"french": "France"} })
		var moved, turn string
		for _, e := range evs[1:] {
			switch e.Type {
			case rules.EvUnitMoved:
				moved = d.Describe(e)
			case rules.EvTurnStarted:
				turn = d.Describe(e)
			default:
				d.Describe(e)
			}
		}
		if measures != 1 || sides != 1 {
			t.Errorf("%s: asked %d times for the measurement and %d for the sides", lang, measures, sides)
		}
		if !strings.Contains(moved, "10") || !strings.Contains(moved, map[string]string{"en": "10.0 cm", "ru": "10,0 см"}[lang]) {
			t.Errorf("%s: %q", lang, moved)
		}
		if !strings.Contains(turn, "France") || strings.Contains(turn, "french") {
			t.Errorf("%s: %q", lang, turn)
		}
	}
}
