package main

import (
	"strings"
	"testing"
)

// TestOddsModifiersInRussian: ledger --lang ru odds says each C.7
// modifier's reason in Russian (a general's distance, an enemy near, an
// attack column), as it did when the reasons were read back from their
// English (issue 29): now said by the door from their format and values
// (rules.Modifier.Words, app.Odds.ReasonsSaid).
func TestOddsModifiersInRussian(t *testing.T) {
	c := newCLI(t)
	c.cfg.Lang = "ru"
	dir := t.TempDir()
	write := writeIn(t, dir)
	c.ok("campaign", "create", "danube-1809", "--name", "D", "--side", "french:France:france", "--side", "austrians:Austria:austria")
	c.ok("battle", "create", "danube-1809/essling", "--file", write("b.yaml", "name: Essling\nmeasurement: cm\ntable: {width: 180, depth: 120}\nfirst_side: austrians\n"))
	c.ok("battle", "deploy", "danube-1809/essling", "--side", "french", "--file", write("fr.yaml", `c_in_c: {id: massena, name: Massena, rating: 8, position: {x: 90, y: 110}}
brigades:
  - {id: b-legrand, name: Legrand, order: attack, general: {id: legrand, name: Legrand, rating: 7, position: {x: 60, y: 100}},
     units: [{id: 26-leger, type: light_infantry, formation: open_order, position: {x: 60, y: 27}, facing: 180}]}
`))
	c.ok("battle", "deploy", "danube-1809/essling", "--side", "austrians", "--file", write("au.yaml", `c_in_c: {id: charles, name: Charles, rating: 9, position: {x: 90, y: 5}}
brigades:
  - {id: b-hohenzollern, name: Hohenzollern, order: defend, general: {id: hohenzollern, name: Hohenzollern, rating: 8, position: {x: 60, y: 15}},
     units: [{id: ir-15, type: infantry, formation: attack_column, position: {x: 60, y: 20}, facing: 0}]}
`))
	c.ok("battle", "start", "danube-1809/essling")
	odds := c.ok("odds", "danube-1809/essling", "--general", "charles", "--units", "ir-15")
	want := "charles отдаёт приказ ir-15 (2D6): рейтинг 9; модификаторы: C.7 -1 (генерал в 30,2 см от ir-15: 1 полный шаг по 20,0 см); C.7 -1 (противник 26-leger в 3,2 см от ir-15, в пределах 10,0 см); C.7 +1 (в построении колонна к атаке); итоговый рейтинг 8\n"
	if !strings.HasPrefix(odds, want) {
		t.Errorf("odds:\n%s\nwant it to start with\n%s", odds, want)
	}
	c.cfg.Lang = "en"
	if odds := c.ok("odds", "danube-1809/essling", "--general", "charles", "--units", "ir-15"); !strings.Contains(odds, "(general 30.2 cm from ir-15: 1 full step of 20 cm); C.7 -1 (enemy 26-leger 3.2 cm from ir-15, within 10 cm); C.7 +1 (in attack_column)") {
		t.Errorf("odds in English:\n%s", odds)
	}
}
