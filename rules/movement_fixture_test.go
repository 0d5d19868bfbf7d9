package rules

import (
	"math"
	"strings"
	"testing"
)

// The movement battle: France (red, south, facing north) against Austria
// (blue, north, facing south) on a 72"x48" table with a wood (difficult),
// a farm (impassable) and a road.
//
//	red  f1 attack  f1-a (10,8) company_column, f1-b (18,8) division_column; f1-gen (10,6)
//	     f2 support f2-hus (40,8) light cavalry squadron column, f2-ha (46,8) horse artillery limbered
//	     f3 move    f3-a (60,8), f3-b (68,8) company columns
//	     f4 defend  f4-a (28,16) line, f4-b (28,20) line; f4-gen (28,14)
//	     f5 reserve f5-drag (6,30) dragoons, f5-lan (14,30) lancers, lines
//	blue a1 attack  a1-gren (60,46) line facing south
//	     a2 move    a2-col (48,46) company column, a2-ha (30,46) horse artillery limbered
//	     a3 support a3-hus (40,46) light cavalry squadron column
//	terrain: wood "Bois" difficult x 30-36, y 28-34; farm "Ferme" impassable
//	x 1-5, y 14-18; road "Chaussée" x 0-72, y 2.5-3.5.
const mCreate = `{"battle":"m1","name":"Movement","measurement":"in","table":{"width":72,"depth":48},
	"sides":[{"id":"red","nation":"france"},{"id":"blue","nation":"austria"}],"first_side":"red","turn_limit":6,
	"terrain":[
	 {"name":"Bois","kind":"difficult,blocks-sight","outline":[{"x":30,"y":28},{"x":36,"y":28},{"x":36,"y":34},{"x":30,"y":34}]},
	 {"name":"Ferme","kind":"impassable","outline":[{"x":1,"y":14},{"x":5,"y":14},{"x":5,"y":18},{"x":1,"y":18}]},
	 {"name":"Chaussée","kind":"road","outline":[{"x":0,"y":2.5},{"x":72,"y":2.5},{"x":72,"y":3.5},{"x":0,"y":3.5}]}
	]RULESET}`

const mRed = `{"side":"red","c_in_c":{"id":"red-cinc","name":"Napoleon","rating":9,"position":{"x":36,"y":1}},
	"brigades":[
	 {"id":"f1","name":"Friant","order":"attack","general":{"id":"f1-gen","rating":8,"position":{"x":10,"y":6}},
	  "units":[{"id":"f1-a","type":"infantry","formation":"company_column","position":{"x":10,"y":8},"facing":0},
	           {"id":"f1-b","type":"infantry","formation":"division_column","position":{"x":18,"y":8},"facing":0}]},
	 {"id":"f2","name":"Montbrun","order":"support","general":{"id":"f2-gen","rating":7,"position":{"x":40,"y":6}},
	  "units":[{"id":"f2-hus","type":"light_cavalry","formation":"squadron_column","position":{"x":40,"y":8},"facing":0},
	           {"id":"f2-ha","type":"horse_artillery","formation":"limbered","position":{"x":46,"y":8},"facing":0}]},
	 {"id":"f3","name":"Gudin","order":"move","general":{"id":"f3-gen","rating":8,"position":{"x":64,"y":6}},
	  "units":[{"id":"f3-a","type":"infantry","formation":"company_column","position":{"x":60,"y":8},"facing":0},
	           {"id":"f3-b","type":"infantry","formation":"company_column","position":{"x":68,"y":8},"facing":0}]},
	 {"id":"f4","name":"Morand","order":"defend","general":{"id":"f4-gen","rating":8,"position":{"x":28,"y":14}},
	  "units":[{"id":"f4-a","type":"infantry","position":{"x":28,"y":16},"facing":0},
	           {"id":"f4-b","type":"infantry","position":{"x":28,"y":20},"facing":0}]},
	 {"id":"f5","name":"Grouchy","order":"reserve","general":{"id":"f5-gen","rating":8,"position":{"x":10,"y":27}},
	  "units":[{"id":"f5-drag","type":"dragoons","position":{"x":6,"y":30},"facing":0},
	           {"id":"f5-lan","type":"lancers","position":{"x":14,"y":30},"facing":0}]}
	]}`

const mBlue = `{"side":"blue","c_in_c":{"id":"blue-cinc","name":"Charles","rating":8,"position":{"x":36,"y":47}},
	"brigades":[
	 {"id":"a1","name":"Grenadiers","order":"attack","general":{"id":"a1-gen","rating":8,"position":{"x":60,"y":43}},
	  "units":[{"id":"a1-gren","type":"infantry","position":{"x":60,"y":46},"facing":180}]},
	 {"id":"a2","name":"Vukassovich","order":"move","general":{"id":"a2-gen","rating":7,"position":{"x":60,"y":40}},
	  "units":[{"id":"a2-col","type":"infantry","formation":"company_column","position":{"x":48,"y":46},"facing":180},
	           {"id":"a2-ha","type":"horse_artillery","formation":"limbered","position":{"x":30,"y":46},"facing":180}]},
	 {"id":"a3","name":"Klenau","order":"support","general":{"id":"a3-gen","rating":7,"position":{"x":40,"y":41}},
	  "units":[{"id":"a3-hus","type":"light_cavalry","formation":"squadron_column","position":{"x":40,"y":46},"facing":180}]}
	]}`

// mSetup returns the movement battle's events (turn 1, red's command phase)
// under a ruleset overlay ("" for the default).
func mSetup(t testing.TB, overlay string) []Event {
	t.Helper()
	create := strings.Replace(mCreate, "RULESET", "", 1)
	if overlay != "" {
		create = strings.Replace(mCreate, "RULESET", `,"ruleset":`+jsonString(overlay), 1)
	}
	s := NewState()
	var all []Event
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleCreate, create), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, mRed), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdArmyDeploy, mBlue), nil)...)
	all = append(all, mustDecide(t, s, cmd(t, CmdBattleStart, ``), nil)...)
	return all
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// movementTable is the T.7 overlay giving units a normal move in the movement phase.
const movementTable = "turn: {ordinary_moves: movement_table}"

// mCase is one case of the M and K tables: given the movement battle under
// overlay, tweaked, and the given steps, when the command, then a refusal
// ("M.13/march_ended": nothing emitted, state unchanged) whose numbers
// include nums (within 0.01) and whose message contains msg, or acceptance
// checked by check.
type mCase struct {
	rule, name string
	overlay    string
	tweak      func(*State)
	given      []step
	when       step
	refuse     string
	nums       map[string]float64
	msg        string
	check      func(t *testing.T, evs []Event, s *State)
}

func runMCases(t *testing.T, cases []mCase) {
	t.Helper()
	setups := map[string][]Event{}
	for _, tc := range cases {
		t.Run(tc.rule+" "+tc.name, func(t *testing.T) {
			if _, ok := setups[tc.overlay]; !ok {
				setups[tc.overlay] = mSetup(t, tc.overlay)
			}
			s := given(setups[tc.overlay]...)
			if tc.tweak != nil {
				tc.tweak(s)
			}
			for _, g := range tc.given {
				mustDecide(t, s, cmd(t, g.name, g.body), NewFixedDice(g.dice...))
			}
			c := cmd(t, tc.when.name, tc.when.body)
			if tc.refuse != "" {
				rule, code, _ := strings.Cut(tc.refuse, "/")
				r := refused(t, s, c, NewFixedDice(tc.when.dice...), rule, code)
				for k, v := range tc.nums {
					if got, ok := r.Numbers[k]; !ok || math.Abs(got-v) > 0.01 {
						t.Errorf("number %s = %v (present %v), want %v: %v", k, got, ok, v, r)
					}
				}
				if tc.msg != "" && !strings.Contains(r.Error(), tc.msg) {
					t.Errorf("message %q lacks %q", r.Error(), tc.msg)
				}
				return
			}
			evs := mustDecide(t, s, c, NewFixedDice(tc.when.dice...))
			if tc.check != nil {
				tc.check(t, evs, s)
			}
		})
	}
}

// Steps that recur.
var (
	redEnds  = do(CmdPhaseEnd, `{"side":"red"}`)
	blueEnds = do(CmdPhaseEnd, `{"side":"blue"}`)
	redHands = do(CmdMovementHandOver, `{"side":"red"}`)
)

// toTurn3Movement ends phases from turn 1's command phase to turn 3's
// movement phase (red again).
var toTurn3Movement = []step{redEnds, redEnds, redEnds, blueEnds, blueEnds, blueEnds, redEnds}

func center(t *testing.T, s *State, id string, x, y float64) {
	t.Helper()
	c := s.Units[id].Base.Center
	if math.Abs(c.X-x) > 1e-6 || math.Abs(c.Y-y) > 1e-6 {
		t.Fatalf("%s at %v, want (%g,%g)", id, c, x, y)
	}
}

func place(id string, x, y, facing float64) func(*State) {
	return func(s *State) {
		u := s.Units[id]
		u.Base.Center.X, u.Base.Center.Y, u.Base.Facing = x, y, facing
	}
}

func status(id, st string) func(*State) {
	return func(s *State) { s.Units[id].Status = st }
}

func tweaks(fs ...func(*State)) func(*State) {
	return func(s *State) {
		for _, f := range fs {
			f(s)
		}
	}
}

func with(steps ...[]step) []step {
	var out []step
	for _, s := range steps {
		out = append(out, s...)
	}
	return out
}

func one(s ...step) []step { return s }

// movementPhaseLog plays turn 1 of the movement battle through a movement
// phase that emits every event type of the M rules, generals and combat
// outcomes, and returns its events and the final state.
func movementPhaseLog(t testing.TB) ([]Event, *State) {
	t.Helper()
	log := mSetup(t, "")
	s := given(log...)
	step := func(name, body string, dice ...int) {
		t.Helper()
		log = append(log, mustDecide(t, s, cmd(t, name, body), NewFixedDice(dice...))...)
	}
	step(CmdUnitFire, `{"unit":"f4-b","target":"a3-hus","entered_by":"alice"}`)
	step(CmdCombatRecord, `{"unit":"a2-col","result":"retreat","toward":{"x":33,"y":22},"distance":24,"entered_by":"umpire"}`)
	step(CmdCombatRecord, `{"unit":"a2-col","result":"rally"}`)
	step(CmdCombatRecord, `{"unit":"f4-b","result":"disorder"}`)
	step(CmdCombatRecord, `{"unit":"f2-hus","result":"casualties","markers":1}`)
	step(CmdBrigadeOrder, `{"brigade":"f3","order":"attack","by_umpire":true}`)
	step(CmdPhaseEnd, `{"side":"red"}`)
	step(CmdUnitReform, `{"unit":"f4-b","formation":"line"}`, 5)
	step(CmdGeneralMove, `{"general":"f4-gen","to":{"x":28,"y":15.25},"join":"f4-a"}`)
	step(CmdGeneralDetach, `{"general":"f4-gen"}`)
	step(CmdMarchDeclare, `{"brigade":"f1"}`)
	step(CmdUnitMarch, `{"unit":"f1-a","to":{"x":10,"y":20}}`)
	step(CmdMovementHandOver, `{"side":"red"}`)
	step(CmdPhaseEnd, `{"side":"blue"}`)
	return log, s
}

func TestMovementPhaseLog(t *testing.T) {
	log, s := movementPhaseLog(t)
	if got := stateJSON(t, replayJSON(t, log)); got != stateJSON(t, s) {
		t.Fatalf("replay differs from live")
	}
	if ft := findEvent[*FormationTested](log); ft == nil || !ft.Passed || ft.Enemy != "a2-col" {
		t.Fatalf("formation test %+v", ft)
	}
	if s.Phase != PhaseCombat || s.Units["f4-b"].Status != UnitOK || s.Units["f1-a"].Base.Center.Y != 20 {
		t.Fatalf("state %s %+v", s.Phase, s.Units["f4-b"])
	}
	for _, e := range log {
		if d := Describe(e); d == "" || d == e.EventType() {
			t.Errorf("%s: no description", e.EventType())
		}
	}
}
