package rules

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// step is one command of a given/when test: its name, JSON body and dice.
type step struct {
	name, body string
	dice       []int
}

func do(name, body string, dice ...int) step { return step{name, body, dice} }

// ruleCase is one case of the C rules' table: given a battle (near: the
// armies within 12", see nearSetup) and the given steps, when the command,
// then either a refusal citing refuse ("C.15/no_enemy_near"; nothing emitted,
// state unchanged) or acceptance, checked by check.
type ruleCase struct {
	rule, name string
	near       bool
	tweak      func(*State) // test set-up the fixtures lack
	given      []step
	when       step
	refuse     string
	check      func(t *testing.T, evs []Event, s *State)
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	far, _ := setup(t)
	near, _ := nearSetup(t)
	for _, tc := range cases {
		t.Run(tc.rule+" "+tc.name, func(t *testing.T) {
			s := given(far...)
			if tc.near {
				s = given(near...)
			}
			if tc.tweak != nil {
				tc.tweak(s)
			}
			for _, g := range tc.given {
				mustDecide(t, s, cmd(t, g.name, g.body), NewFixedDice(g.dice...))
			}
			c := cmd(t, tc.when.name, tc.when.body)
			if tc.refuse != "" {
				rule, code, _ := strings.Cut(tc.refuse, "/")
				refused(t, s, c, NewFixedDice(tc.when.dice...), rule, code)
				return
			}
			evs := mustDecide(t, s, c, NewFixedDice(tc.when.dice...))
			if tc.check != nil {
				tc.check(t, evs, s)
			}
		})
	}
}

// stoppedShort checks a move that stopped 1" short of enemy (C.9): where
// it ended and was going, the distance moved and the actions it used.
func stoppedShort(enemy string, at, planned geom.Vec, distance float64, actions int) func(*testing.T, []Event, *State) {
	return func(t *testing.T, evs []Event, s *State) {
		t.Helper()
		m := findEvent[*UnitMoved](evs)
		if m == nil || !m.StoppedShort || m.Enemy != enemy || m.Planned == nil || *m.Planned != planned || m.ActionsUsed != actions {
			t.Fatalf("%s", eventsJSON(t, evs))
		}
		if geom.Dist(m.To.Center, at) > 1e-6 || math.Abs(m.Distance-distance) > 1e-6 || s.Units[m.Unit].Base != m.To {
			t.Fatalf("stopped at %v after %v: %s", m.To.Center, m.Distance, eventsJSON(t, evs))
		}
		if d := geom.Distance(m.To, s.Units[enemy].Base); math.Abs(d-m.Short) > 1e-6 || m.Short != 1 {
			t.Fatalf("%v from %s, short %v", d, enemy, m.Short)
		}
		if d := Describe(m); !strings.Contains(d, "stopped 1 short of "+enemy+" (C.9") {
			t.Fatalf("%q", d)
		}
	}
}

func order(general, units, content string, dice ...int) step {
	return do(CmdOrderGive, fmt.Sprintf(`{"general":%q,"units":[%s],"content":%s}`, general, units, content), dice...)
}

const mv = `{"action":"move"}`

func resolved(t *testing.T, evs []Event) *OrderResolved {
	t.Helper()
	r := findEvent[*OrderResolved](evs)
	if r == nil {
		t.Fatalf("no order.resolved in %s", eventsJSON(t, evs))
	}
	return r
}

func wantActions(n int) func(*testing.T, []Event, *State) {
	return func(t *testing.T, evs []Event, s *State) {
		r := resolved(t, evs)
		if r.Outcome != OutcomeActions || r.Actions != n {
			t.Fatalf("want %d actions: %s", n, r.Summary)
		}
	}
}

// TestRulesC: one table per rule of docs/rules.md C, valid and refused cases.
func TestRulesC(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// C.1: initiative, then generals' orders.
		{rule: "C.1", name: "initiative first, then a general's order closes initiative", near: true,
			given: []step{do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`)},
			when:  order("r1-gen", `"r1-inf2"`, mv, 1, 1),
			check: func(t *testing.T, evs []Event, s *State) {
				r := resolved(t, evs)
				if !r.InitiativeClosed || strings.Join(r.InitiativeForfeited, ",") != "r1-inf1" || s.TurnBook.peekUnit("r1-inf1").ActionsLeft != 0 {
					t.Fatalf("initiative not closed: %s", r.Summary)
				}
			}},
		{rule: "C.1", name: "no initiative after a general's order", near: true,
			given: []step{order("r1-gen", `"r1-inf2"`, mv, 1, 1)},
			when:  do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`), refuse: "C.1/initiative_closed"},
		// C.2: recipients and content.
		{rule: "C.2", name: "the whole brigade's connected units, one roll", when: order("r1-gen", `"r1-inf1","r1-inf2"`, mv, 2, 2), check: wantActions(3)},
		{rule: "C.2", name: "a unit of another brigade", when: order("r1-gen", `"r2-lc"`, mv, 1, 1), refuse: "C.2/not_in_brigade"},
		{rule: "C.2", name: "no recipients", when: order("r1-gen", ``, mv, 1, 1), refuse: "C.2/no_recipients"},
		{rule: "C.2", name: "no content", when: order("r1-gen", `"r1-inf1"`, `{}`, 1, 1), refuse: "C.2/no_content"},
		{rule: "C.2", name: "an enemy unit", when: order("red-cinc", `"b1-inf1"`, mv, 1, 1), refuse: "C.2/not_own_unit"},
		// C.3: the roll against the rating (r1-gen 8, r1-inf1 beside him).
		{rule: "C.3", name: "8 or 7 against 8: 1 action", when: order("r1-gen", `"r1-inf1"`, mv, 4, 3), check: wantActions(1)},
		{rule: "C.3", name: "6 against 8: 2 actions", when: order("r1-gen", `"r1-inf1"`, mv, 3, 3), check: wantActions(2)},
		{rule: "C.3", name: "5 against 8: 3 actions", when: order("r1-gen", `"r1-inf1"`, mv, 1, 4), check: wantActions(3)},
		{rule: "C.3", name: "no order, no action", when: do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":12}}`), refuse: "C.3/no_order"},
		{rule: "C.3", name: "no action left", given: []step{order("r1-gen", `"r1-inf1"`, mv, 4, 4)},
			when: do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":22},"actions":2}`), refuse: "C.3/no_actions_left"},
		// C.4: a failure locks out the unit and the general.
		{rule: "C.4", name: "9 against 8 fails, the general is done", when: order("r1-gen", `"r1-inf1"`, mv, 5, 4),
			check: func(t *testing.T, evs []Event, s *State) {
				if r := resolved(t, evs); r.Outcome != OutcomeFailed || !r.GeneralDone || !s.TurnBook.peekUnit("r1-inf1").Failed {
					t.Fatalf("%s", r.Summary)
				}
			}},
		{rule: "C.4", name: "the general gives no more orders", given: []step{order("r1-gen", `"r1-inf1"`, mv, 5, 4)},
			when: order("r1-gen", `"r1-inf2"`, mv, 1, 1), refuse: "C.4/general_failed"},
		{rule: "C.4", name: "the failed unit does nothing", given: []step{order("r1-gen", `"r1-inf1"`, mv, 5, 4)},
			when: do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":12}}`), refuse: "C.4/unit_failed"},
		// C.5: 6+6, the blunder table and its execution.
		{rule: "C.5", name: "6+6 then 5 on the table: advance, stopping 1 inch short", near: true,
			tweak: func(s *State) { s.Units["b1-inf1"].Base.Center.Y = 15 }, // front edge at 14.25
			when:  order("r1-gen", `"r1-inf1"`, mv, 6, 6, 5),
			check: func(t *testing.T, evs []Event, s *State) {
				b := findEvent[*BlunderCarriedOut](evs)
				if b == nil || b.Result != BlunderAdvance || b.Distance != 2.5 || !strings.Contains(b.Stopped, "b1-inf1") || s.Units["r1-inf1"].Base.Center.Y != 12.5 {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.5", name: "6+6 then 6: charges the nearest enemy by the charge rules (K.4-K.8)", near: true, when: order("r1-gen", `"r1-inf1"`, mv, 6, 6, 6),
			check: func(t *testing.T, evs []Event, s *State) {
				b := findEvent[*BlunderCarriedOut](evs)
				if b.Target != "b1-inf1" || !b.Contact || b.Stopped != "" || !geom.Touching(s.Units["r1-inf1"].Base, s.Units["b1-inf1"].Base) {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.5", name: "6+6 then 6, the enemy beyond twice the speed: advances instead", when: order("r1-gen", `"r1-inf1"`, mv, 6, 6, 6),
			check: func(t *testing.T, evs []Event, s *State) {
				b := findEvent[*BlunderCarriedOut](evs)
				if b.Target == "" || b.Contact || b.Distance != 6 || !strings.Contains(b.Stopped, "K.4") || !strings.Contains(b.Stopped, "advances instead") {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.5", name: "6+6 then 3 for a group: each moves left in turn", when: order("r1-gen", `"r1-inf1","r1-inf2"`, mv, 6, 6, 3),
			check: func(t *testing.T, evs []Event, s *State) {
				// r1-inf1 goes 6" left; r1-inf2 follows and stops short of touching it.
				if x := s.Units["r1-inf1"].Base.Center.X; x != 14 {
					t.Fatalf("r1-inf1 at x=%v", x)
				}
				if x := s.Units["r1-inf2"].Base.Center.X; x <= 18.5 || x > 21 {
					t.Fatalf("r1-inf2 at x=%v: %s", x, eventsJSON(t, evs))
				}
			}},
		{rule: "C.5", name: "a blundered unit makes no move of its own", given: []step{order("r1-gen", `"r1-col"`, mv, 6, 6, 2)},
			when: do(CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":12}}`), refuse: "C.5/blundered"},
		// C.6: an action is a move, a formation change or a charge.
		{rule: "C.6", name: "a charge is an action", near: true, given: []step{order("r1-gen", `"r1-inf2"`, `{"action":"charge"}`, 1, 1)},
			when: do(CmdUnitCharge, `{"unit":"r1-inf2","target":"b1-inf1","actions":3}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if ut := s.TurnBook.peekUnit("r1-inf2"); ut.ActionsLeft != 0 || ut.Charged != "b1-inf1" {
					t.Fatalf("%+v", ut)
				}
			}},
		{rule: "C.6", name: "dancing is not an action", when: order("r1-gen", `"r1-inf1"`, `{"action":"dance"}`, 1, 1), refuse: "C.6/bad_action"},
		// C.7: modifiers (more in TestOrderModifiers).
		{rule: "C.7", name: "enemy within 6 inches: -1", near: true, tweak: func(s *State) { s.Units["b1-inf1"].Base.Center.Y = 15 },
			when: order("r1-gen", `"r1-inf1"`, mv, 3, 3),
			check: func(t *testing.T, evs []Event, s *State) {
				if r := resolved(t, evs); r.Effective != 7 || len(r.Modifiers) != 1 || !strings.Contains(r.Modifiers[0].Reason, "b1-inf1") {
					t.Fatalf("%s", r.Summary)
				}
			}},
		{rule: "C.7", name: "march column on a declared road: +2", when: do(CmdOrderGive, `{"general":"r1-gen","units":["r1-col"],"content":{"action":"move"},"on_road":["r1-col"]}`, 4, 4),
			check: func(t *testing.T, evs []Event, s *State) {
				if r := resolved(t, evs); r.Effective != 9 {
					t.Fatalf("%s", r.Summary)
				}
			}},
		{rule: "C.7", name: "a road declared for a unit not ordered", when: do(CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"},"on_road":["r1-col"]}`, 4, 4), refuse: "C.7/bad_on_road"},
		// C.8: one roll for a connected group of one brigade.
		{rule: "C.8", name: "a group within 6 inches rolls once", when: order("r1-gen", `"r1-inf1","r1-inf2","r1-col"`, mv, 2, 2),
			check: func(t *testing.T, evs []Event, s *State) {
				if n := len(evs); n != 2 || s.TurnBook.peekUnit("r1-col").ActionsLeft != 3 {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.8", name: "a unit too far from the rest", when: order("r1-gen", `"r1-inf1","r1-col"`, mv, 1, 1), refuse: "C.8/group_apart"},
		{rule: "C.8", name: "two brigades", when: order("red-cinc", `"r1-col","r2-lc"`, mv, 1, 1), refuse: "C.8/group_brigades"},
		// C.9: a charge only if ordered; otherwise stop 1" short.
		{rule: "C.9", name: "a move may end exactly 1 inch short", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			when: do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":19.5},"actions":2}`)},
		{rule: "C.9", name: "ending 0.9 inch short, it stops 1 inch short", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			when:  do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":19.6},"actions":2}`),
			check: stoppedShort("b1-inf1", gv(20, 19.5), gv(20, 19.6), 9.5, 2)},
		{rule: "C.9", name: "reaching the enemy on the way, it stops there, 1 inch short", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			when:  do(CmdUnitMove, `{"unit":"r1-inf1","path":[{"x":20,"y":20.5}],"to":{"x":20,"y":15},"actions":3}`),
			check: stoppedShort("b1-inf1", gv(20, 19.5), gv(20, 15), 9.5, 2)},
		{rule: "C.9", name: "it pays the actions its shortened move takes", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			tweak: func(s *State) { s.Units["b1-inf1"].Base.Center.Y = 16 }, // its front edge at 15.25
			when:  do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":21},"actions":3}`),
			check: stoppedShort("b1-inf1", gv(20, 13.5), gv(20, 21), 3.5, 1)},
		{rule: "C.9", name: "along a path with a turn: short on the leg where it comes within 1 inch", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			when: do(CmdUnitMove, `{"unit":"r1-inf1","path":[{"x":14,"y":12,"facing":45}],"to":{"x":22,"y":20},"facing":0,"actions":3}`),
			check: func(t *testing.T, evs []Event, s *State) {
				m := findEvent[*UnitMoved](evs)
				if m == nil || !m.StoppedShort || m.To.Facing != 45 || len(m.Route) != 1 || m.Planned == nil || *m.Planned != gv(22, 20) {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
				if d := geom.Distance(m.To, s.Units["b1-inf1"].Base); d < 1-1e-9 || d > 1+1e-6 {
					t.Fatalf("stopped %v from the enemy", d)
				}
			}},
		{rule: "C.9", name: "exactly 1 inch short is no stop", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			when: do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":19.5},"actions":2}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if m := findEvent[*UnitMoved](evs); m == nil || m.StoppedShort || m.Planned != nil {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.9", name: "already 1 inch away, no nearer", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			tweak: func(s *State) { s.Units["r1-inf1"].Base.Center.Y = 19.5 },
			when:  do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":20}}`), refuse: "C.9/no_room_short"},
		{rule: "C.9", name: "stopping short where a friend stands is refused", near: true, given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			tweak: func(s *State) { s.Units["r1-inf2"].Base.Center = gv(21, 19.5) },
			when:  do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":19.6},"actions":2}`), refuse: "K.1/friend_contact"},
		{rule: "C.9", name: "with a charge order a move is not a charge: refused, use unit.charge", near: true, given: []step{order("r1-gen", `"r1-inf1"`, `{"action":"charge","target":"b1-inf1"}`, 1, 1)},
			when: do(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":19.6},"actions":2}`), refuse: "C.9/enemy_too_close"},
		{rule: "C.9", name: "no charge without a charge order", near: true, given: []step{order("r1-gen", `"r1-inf2"`, mv, 1, 1)},
			when: do(CmdUnitCharge, `{"unit":"r1-inf2","target":"b1-inf1","actions":3}`), refuse: "C.9/no_charge_order"},
		{rule: "C.9", name: "a charge order reaches contact", near: true, given: []step{order("r1-gen", `"r1-inf1"`, `{"action":"charge","target":"b1-inf1"}`, 1, 1)},
			when: do(CmdUnitCharge, `{"unit":"r1-inf1","target":"b1-inf1","actions":2}`),
			check: func(t *testing.T, evs []Event, s *State) {
				c := findEvent[*ChargeDeclared](evs)
				if !c.Contact || c.Distance != 10.5 || s.Units["r1-inf1"].Base.Center.Y != 20.5 {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.9", name: "a charge beyond twice the speed is refused (K.4)", near: true,
			tweak: func(s *State) { s.Units["b1-inf1"].Base.Center.Y = 24 }, // 12.5" from the leader point
			given: []step{order("r1-gen", `"r1-inf1"`, `{"action":"charge"}`, 1, 1)},
			when:  do(CmdUnitCharge, `{"unit":"r1-inf1","target":"b1-inf1","actions":3}`), refuse: "K.4/out_of_range"},
		{rule: "C.9", name: "a target outside the front arc is refused, not left pending (K.4)", near: true,
			tweak: func(s *State) {
				s.Units["b1-inf1"].Base = geom.Base{Center: gv(12, 10), Facing: 90, Width: 4.5, Depth: 1.5}
			}, // on r1-inf1's left flank
			given: []step{order("r1-gen", `"r1-inf1"`, `{"action":"charge"}`, 1, 1)},
			when:  do(CmdUnitCharge, `{"unit":"r1-inf1","target":"b1-inf1","actions":3}`), refuse: "K.4/not_in_front_arc"},
		// C.10: generals in sequence, no return.
		{rule: "C.10", name: "moving on to another general", given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1)},
			when: order("r2-gen", `"r2-lc"`, mv, 1, 1),
			check: func(t *testing.T, evs []Event, s *State) {
				if resolved(t, evs).ClosedGeneral != "r1-gen" {
					t.Fatal("r1-gen not closed")
				}
			}},
		{rule: "C.10", name: "no return to an earlier general", given: []step{order("r1-gen", `"r1-inf1"`, mv, 1, 1), order("r2-gen", `"r2-lc"`, mv, 1, 1)},
			when: order("r1-gen", `"r1-inf2"`, mv, 1, 1), refuse: "C.10/general_passed"},
		// C.11: the C-in-C.
		{rule: "C.11", name: "the C-in-C orders any unit", given: []step{order("red-cinc", `"r1-inf1"`, mv, 1, 1)},
			when: order("red-cinc", `"r2-lc"`, mv, 1, 1), check: wantActions(3)},
		{rule: "C.11", name: "but not one that failed", given: []step{order("r1-gen", `"r1-inf1"`, mv, 5, 4)},
			when: order("red-cinc", `"r1-inf1"`, mv, 1, 1), refuse: "C.11/unit_failed"},
		{rule: "C.11", name: "his failure ends all orders", given: []step{order("red-cinc", `"r2-lc"`, mv, 6, 5)},
			when: order("r1-gen", `"r1-inf1"`, mv, 1, 1), refuse: "C.11/orders_closed"},
		// C.12: one move after a failure in march column, square, limbered.
		{rule: "C.12", name: "a failed march column still moves once", given: []step{order("r1-gen", `"r1-col"`, mv, 6, 5)},
			when: do(CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":16}}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if !findEvent[*UnitMoved](evs).FailedMove {
					t.Fatal("not a C.12 move")
				}
			}},
		{rule: "C.12", name: "one move only", given: []step{order("r1-gen", `"r1-col"`, mv, 6, 5)},
			when: do(CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":20},"actions":2}`), refuse: "C.12/one_move"},
		{rule: "C.12", name: "a move, not a formation change", given: []step{order("r1-gen", `"r1-col"`, mv, 6, 5)},
			when: do(CmdUnitReform, `{"unit":"r1-col","formation":"line"}`), refuse: "C.12/no_formation_change"},
		// C.13: "Follow me!".
		{rule: "C.13", name: "success: the general joins, three actions", when: do(CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"special":"follow_me"}`, 4, 3),
			check: func(t *testing.T, evs []Event, s *State) {
				r := resolved(t, evs)
				ut := s.TurnBook.peekUnit("r2-lc")
				if r.Outcome != OutcomeSuccess || ut.ActionsLeft != 3 || !ut.MayCharge || s.Sides[0].Brigades[1].General.AttachedTo != "r2-lc" || !r.GeneralDone {
					t.Fatalf("%s %+v", r.Summary, ut)
				}
			}},
		{rule: "C.13", name: "above the rating: failed", when: do(CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"special":"follow_me"}`, 4, 4),
			check: func(t *testing.T, evs []Event, s *State) {
				if r := resolved(t, evs); r.Outcome != OutcomeFailed || r.Attached != "" || !s.TurnBook.peekUnit("r2-lc").Failed {
					t.Fatalf("%s", r.Summary)
				}
			}},
		{rule: "C.13", name: "his last order", given: []step{do(CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"special":"follow_me"}`, 1, 1)},
			when: order("r2-gen", `"r2-hvy"`, mv, 1, 1), refuse: "C.13/last_order_given"},
		{rule: "C.13", name: "one unit only", when: do(CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1","r1-inf2"],"special":"follow_me"}`, 1, 1), refuse: "C.13/one_unit"},
		{rule: "C.13", name: "within 12 inches", when: do(CmdOrderGive, `{"general":"r2-gen","units":["r2-med"],"special":"follow_me"}`, 1, 1), refuse: "C.13/out_of_range"},
		// C.14: "Steady!".
		{rule: "C.14", name: "success: one marker off, the C-in-C joins", near: true, when: do(CmdOrderGive, `{"general":"red-cinc","units":["r2-hvy"],"special":"steady"}`, 2, 3),
			check: func(t *testing.T, evs []Event, s *State) {
				if r := resolved(t, evs); r.MarkersRemoved != 1 || s.Units["r2-hvy"].Markers != 1 || s.Sides[0].CInC.AttachedTo != "r2-hvy" {
					t.Fatalf("%s", r.Summary)
				}
			}},
		{rule: "C.14", name: "never the last marker", near: true, tweak: func(s *State) { s.Units["r2-hvy"].Markers = 1 },
			when: do(CmdOrderGive, `{"general":"red-cinc","units":["r2-hvy"],"special":"steady"}`, 1, 1), refuse: "C.14/last_marker"},
		{rule: "C.14", name: "within 12 inches", near: true, when: do(CmdOrderGive, `{"general":"red-cinc","units":["r1-inf1"],"special":"steady"}`, 1, 1), refuse: "C.14/out_of_range"},
		{rule: "C.14", name: "his last order", near: true, given: []step{do(CmdOrderGive, `{"general":"red-cinc","units":["r2-hvy"],"special":"steady"}`, 1, 1)},
			when: order("red-cinc", `"r2-lc"`, mv, 1, 1), refuse: "C.14/last_order_given"},
		// C.15: initiative.
		{rule: "C.15", name: "an enemy within 12 inches: one action, no roll", near: true,
			when: do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`),
			check: func(t *testing.T, evs []Event, s *State) {
				it := findEvent[*InitiativeTaken](evs)
				if len(evs) != 1 || it.Enemy != "b1-inf1" || it.Distance != 10.5 || s.TurnBook.peekUnit("r1-inf1").ActionsLeft != 1 {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.15", name: "no enemy within 12 inches", when: do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`), refuse: "C.15/no_enemy_near"},
		{rule: "C.15", name: "no general's order after initiative", near: true, given: []step{do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`)},
			when: order("red-cinc", `"r1-inf1"`, mv, 1, 1), refuse: "C.15/acted_on_initiative"},
		{rule: "C.15", name: "the declared action only", near: true, given: []step{do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`)},
			when: do(CmdUnitReform, `{"unit":"r1-inf1","formation":"square"}`), refuse: "C.15/wrong_action"},
		{rule: "C.15", name: "once", near: true, given: []step{do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`)},
			when: do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`), refuse: "C.15/already_taken"},
		{rule: "C.15", name: "a unit may decline and wait", near: true, when: do(CmdInitiativeDecline, `{"unit":"r1-inf1"}`)},
		{rule: "C.15", name: "and then takes none", near: true, given: []step{do(CmdInitiativeDecline, `{"unit":"r1-inf1"}`)},
			when: do(CmdInitiativeTake, `{"unit":"r1-inf1","content":{"action":"move"}}`), refuse: "C.15/declined"},
		// C.16: formation change.
		{rule: "C.16", name: "a whole action; the command point stays", given: []step{order("r1-gen", `"r1-inf1"`, mv, 4, 4)},
			when: do(CmdUnitReform, `{"unit":"r1-inf1","formation":"attack_column"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				u := s.Units["r1-inf1"]
				if u.Formation != "attack_column" || u.Base.Width != 3 || u.Base.FrontCenter() != gv(20, 10.75) || s.TurnBook.peekUnit("r1-inf1").ActionsLeft != 0 {
					t.Fatalf("%+v", u)
				}
			}},
		{rule: "C.16", name: "horse artillery limbers for free", tweak: func(s *State) { s.Units["r2-med"].Type = "horse_artillery" },
			given: []step{order("r2-gen", `"r2-med"`, mv, 2, 3)},
			when:  do(CmdUnitReform, `{"unit":"r2-med","formation":"limbered"}`),
			check: func(t *testing.T, evs []Event, s *State) {
				if r := findEvent[*UnitReformed](evs); !r.Free || r.ActionsUsed != 0 || s.TurnBook.peekUnit("r2-med").ActionsLeft != 1 {
					t.Fatalf("%s", eventsJSON(t, evs))
				}
			}},
		{rule: "C.16", name: "other guns pay an action", given: []step{order("r2-gen", `"r2-med"`, mv, 2, 3), do(CmdUnitReform, `{"unit":"r2-med","formation":"limbered"}`)},
			when: do(CmdUnitReform, `{"unit":"r2-med","formation":"unlimbered"}`), refuse: "C.16/no_actions_left"},
		{rule: "C.16", name: "a formation the type lacks", given: []step{order("r1-gen", `"r1-inf1"`, mv, 4, 4)},
			when: do(CmdUnitReform, `{"unit":"r1-inf1","formation":"limbered"}`), refuse: "C.16/unknown_formation"},
		{rule: "C.16", name: "the new base may not overlap a friend", tweak: func(s *State) { s.Units["r1-inf2"].Base.Center.X = 26.5 },
			given: []step{order("r1-gen", `"r1-inf1"`, mv, 4, 4)},
			when:  do(CmdUnitReform, `{"unit":"r1-inf1","formation":"march_column","facing":270}`), refuse: "K.1/friend_contact"},
		// C.17: distance per action.
		{rule: "C.17", name: "light cavalry 12 inches", given: []step{order("r2-gen", `"r2-lc"`, mv, 4, 3)},
			when: do(CmdUnitMove, `{"unit":"r2-lc","to":{"x":50,"y":22}}`)},
		{rule: "C.17", name: "not 12.1", given: []step{order("r2-gen", `"r2-lc"`, mv, 4, 3)},
			when: do(CmdUnitMove, `{"unit":"r2-lc","to":{"x":50,"y":22.1}}`), refuse: "C.17/move_too_far"},
		{rule: "C.17", name: "heavy guns 0 inches", given: []step{order("r2-gen", `"r2-hvy"`, mv, 1, 1)},
			when: do(CmdUnitMove, `{"unit":"r2-hvy","to":{"x":60,"y":11}}`), refuse: "C.17/cannot_move"},
		{rule: "C.17", name: "manhandled medium guns once a turn", given: []step{order("r2-gen", `"r2-med"`, mv, 1, 1), do(CmdUnitMove, `{"unit":"r2-med","to":{"x":66,"y":13}}`)},
			when: do(CmdUnitMove, `{"unit":"r2-med","to":{"x":66,"y":14}}`), refuse: "C.17/moves_per_turn"},
	})
}

// TestC9StopShortTable: at the boundary of C.9's 1" (2.5 cm on a cm
// table): a move ending exactly the gap from the enemy is made as given;
// one ending nearer, touching or beyond the enemy stops the gap short
// along its path, and says so.
func TestC9StopShortTable(t *testing.T) {
	_, near := nearSetup(t)
	cm := NewState()
	mustDecide(t, cm, cmd(t, CmdBattleCreate, strings.NewReplacer(`"measurement":"in"`, `"measurement":"cm"`, `"width":72,"depth":48`, `"width":180,"depth":120`).Replace(createBody)), nil)
	mustDecide(t, cm, cmd(t, CmdArmyDeploy, `{"side":"red","c_in_c":{"id":"red-cinc","rating":9,"position":{"x":60,"y":2}},
		"brigades":[{"id":"r1","order":"attack","general":{"id":"r1-gen","rating":8,"position":{"x":90,"y":6}},
		 "units":[{"id":"r1-inf1","type":"infantry","position":{"x":90,"y":10},"facing":0}]}]}`), nil)
	mustDecide(t, cm, cmd(t, CmdArmyDeploy, `{"side":"blue","c_in_c":{"id":"blue-cinc","rating":8,"position":{"x":60,"y":118}},
		"brigades":[{"id":"b1","order":"defend","general":{"id":"b1-gen","rating":8,"position":{"x":90,"y":110}},
		 "units":[{"id":"b1-inf1","type":"infantry","position":{"x":90,"y":40},"facing":180}]}]}`), nil)
	mustDecide(t, cm, cmd(t, CmdBattleStart, ``), nil)
	for _, tc := range []struct {
		name      string
		battle    *State
		toY, endY float64 // where it was going and where it ends
		short     bool
	}{
		// in: r1-inf1's front edge at y+0.75, the enemy's at 21.25.
		{"1.01 inches away", near, 19.49, 19.49, false},
		{"exactly 1 inch away", near, 19.5, 19.5, false},
		{"0.99 inches away", near, 19.51, 19.5, true},
		{"touching", near, 20.5, 19.5, true},
		{"beyond the enemy", near, 25, 19.5, true},
		// cm: the front edge at y+1.25, the enemy's at 38.75.
		{"2.5 cm away", cm, 35, 35, false},
		{"2.4 cm away", cm, 35.1, 35, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.battle.Clone()
			mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(1, 1))
			x := s.Units["r1-inf1"].Base.Center.X
			evs := mustDecide(t, s, cmd(t, CmdUnitMove, fmt.Sprintf(`{"unit":"r1-inf1","to":{"x":%g,"y":%g},"actions":3}`, x, tc.toY)), nil)
			m := findEvent[*UnitMoved](evs)
			if m == nil || m.StoppedShort != tc.short || math.Abs(m.To.Center.Y-tc.endY) > 1e-6 {
				t.Fatalf("%s", eventsJSON(t, evs))
			}
			gap := s.Ruleset.Contact.Gap.For(s.Measurement)
			if d := geom.Distance(m.To, s.Units["b1-inf1"].Base); d < gap-1e-6 {
				t.Fatalf("ended %v from the enemy", d)
			}
			if tc.short && (m.Short != gap || !strings.Contains(Describe(m), fmt.Sprintf("stopped %g short of b1-inf1", gap))) {
				t.Fatalf("%q", Describe(m))
			}
		})
	}
}

// TestC9StopShortScenario: c-stop-short.yaml's grenadiers stop 1" short of
// the guns at the bridge, paying two of their three actions; a move ending
// exactly 1" away is made as given; along a path with a turn the unit stops
// on the leg after the turn, facing as on that leg.
func TestC9StopShortScenario(t *testing.T) {
	run := playScenarioFile(t, "../testdata/scenarios/c-stop-short.yaml")
	s := run.States["b1"]
	m := findEvent[*UnitMoved](run.step(t, "c9-guns").Events)
	if m == nil || !m.StoppedShort || m.Enemy != "au-guns" || m.To.Center != gv(20, 26.75) || m.Distance != 10.75 || m.ActionsUsed != 2 || *m.Planned != gv(20, 28) {
		t.Fatalf("the grenadiers: %+v", m)
	}
	if ut := s.TurnBook.peekUnit("fr-gren"); ut.ActionsLeft != 1 {
		t.Fatalf("fr-gren has %d actions left", ut.ActionsLeft)
	}
	if m := findEvent[*UnitMoved](run.step(t, "c9-exactly").Events); m == nil || m.StoppedShort {
		t.Fatalf("exactly 1\": %+v", m)
	}
	m = findEvent[*UnitMoved](run.step(t, "c9-turn").Events)
	if m == nil || !m.StoppedShort || m.Enemy != "au-e" || m.To.Facing != 45 || len(m.Route) != 1 || *m.Route[0].Facing != 45 {
		t.Fatalf("with a turn: %+v", m)
	}
	if d := geom.Distance(m.To, s.Units["au-e"].Base); math.Abs(d-1) > 1e-6 {
		t.Fatalf("stopped %v from the guns", d)
	}
}
