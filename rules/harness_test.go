package rules

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// given folds events into a fresh state.
func given(evs ...Event) *State {
	s := NewState()
	for _, e := range evs {
		Apply(s, e)
	}
	return s
}

// decode turns a JSON command body into a Command, failing the test on error.
func cmd(t testing.TB, name, body string) Command {
	t.Helper()
	c, err := DecodeCommand(name, []byte(body))
	if err != nil {
		t.Fatalf("decode %s %s: %v", name, body, err)
	}
	return c
}

// mustDecide decides and applies, returning the events.
func mustDecide(t testing.TB, s *State, c Command, dice Dice) []Event {
	t.Helper()
	before := stateJSON(t, s)
	evs, err := Decide(s, c, dice)
	if err != nil {
		t.Fatalf("%s: unexpected refusal: %v", c.CommandName(), err)
	}
	if after := stateJSON(t, s); after != before {
		t.Fatalf("%s: Decide mutated the state", c.CommandName())
	}
	for _, e := range evs {
		Apply(s, e)
	}
	return evs
}

// refused asserts that Decide refuses c citing rule (and code if not empty).
func refused(t testing.TB, s *State, c Command, dice Dice, rule, code string) *Refusal {
	t.Helper()
	before := stateJSON(t, s)
	evs, err := Decide(s, c, dice)
	if err == nil {
		t.Fatalf("%s: want refusal %s, got events %s", c.CommandName(), rule, eventsJSON(t, evs))
	}
	if len(evs) != 0 || stateJSON(t, s) != before {
		t.Fatalf("%s: refused but emitted %d events or changed the state", c.CommandName(), len(evs))
	}
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("%s: want *Refusal %s, got %v", c.CommandName(), rule, err)
	}
	if r.Rule != rule || (code != "" && r.Code != code) {
		t.Fatalf("%s: want refusal %s/%s, got %s/%s: %v", c.CommandName(), rule, code, r.Rule, r.Code, r)
	}
	return r
}

func stateJSON(t testing.TB, s *State) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal state: %v", err)
	}
	return string(b)
}

func eventsJSON(t testing.TB, evs []Event) string {
	t.Helper()
	var parts []string
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal %s: %v", e.EventType(), err)
		}
		parts = append(parts, e.EventType()+" "+string(b))
	}
	return strings.Join(parts, "\n")
}

// The standard test battle: 72"x48" table, red (south) and blue (north).
const createBody = `{"battle":"b1","campaign":"c1","name":"Test","measurement":"in",
	"table":{"width":72,"depth":48},
	"sides":[{"id":"red","name":"Red","nation":"france"},{"id":"blue","name":"Blue","nation":"austria"}],
	"first_side":"red","turn_limit":4}`

const redBody = `{"side":"red",
	"c_in_c":{"id":"red-cinc","name":"Marshal","rating":9,"position":{"x":36,"y":2}},
	"brigades":[
	 {"id":"r1","name":"1st Brigade","order":"attack","general":{"id":"r1-gen","name":"Gen A","rating":8,"position":{"x":20,"y":8}},
	  "units":[
	   {"id":"r1-inf1","name":"1st Bn","type":"infantry","position":{"x":20,"y":10},"facing":0},
	   {"id":"r1-inf2","name":"2nd Bn","type":"infantry","position":{"x":27,"y":10},"facing":0},
	   {"id":"r1-col","name":"3rd Bn","type":"infantry","formation":"march_column","position":{"x":34,"y":10},"facing":0}
	  ]},
	 {"id":"r2","name":"Cavalry","order":"support","general":{"id":"r2-gen","name":"Gen B","rating":7,"position":{"x":50,"y":8}},
	  "units":[
	   {"id":"r2-lc","name":"Hussars","type":"light_cavalry","position":{"x":50,"y":10},"facing":0},
	   {"id":"r2-hvy","name":"Heavy guns","type":"heavy_artillery","position":{"x":60,"y":10},"facing":0},
	   {"id":"r2-med","name":"Medium guns","type":"medium_artillery","position":{"x":66,"y":10},"facing":0}
	  ]}
	]}`

const blueBody = `{"side":"blue",
	"c_in_c":{"id":"blue-cinc","name":"Archduke","rating":8,"position":{"x":36,"y":46}},
	"brigades":[
	 {"id":"b1","name":"Grenadiers","order":"defend","general":{"id":"b1-gen","name":"Gen C","rating":8,"position":{"x":20,"y":40}},
	  "units":[
	   {"id":"b1-inf1","name":"Grenadier Bn","type":"infantry","position":{"x":20,"y":38},"facing":180}
	  ]}
	]}`

// setup returns the events of a created, deployed and started battle (turn
// 1, red's command phase), and the state they fold into.
func setup(t testing.TB) ([]Event, *State) {
	t.Helper()
	s := NewState()
	var all []Event
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleCreate, createBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, redBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, blueBody), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleStart, ``), nil)...)
	return all, s
}

func findEvent[T Event](evs []Event) T {
	for _, e := range evs {
		if x, ok := e.(T); ok {
			return x
		}
	}
	var zero T
	return zero
}

func sameJSON(t testing.TB, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}
