package rules

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// TestOrderRolls: given a started battle, when general r1-gen (rating 8)
// orders a unit beside him, then the roll is read by C.3.
func TestOrderRolls(t *testing.T) {
	cases := []struct {
		name     string
		dice     []int
		outcome  string
		actions  int
		blunder  string // blunder table result
		failMove []string
	}{
		{"an order roll of (3,3) against rating 8 gives 2 actions", []int{3, 3}, OutcomeActions, 2, "", nil},
		{"an order roll of (6,4) against rating 8 fails", []int{6, 4}, OutcomeFailed, 0, "", nil},
		{"(4,4) is R: 1 action", []int{4, 4}, OutcomeActions, 1, "", nil},
		{"(3,4) is R-1: 1 action", []int{3, 4}, OutcomeActions, 1, "", nil},
		{"(1,4) is R-3: 3 actions", []int{1, 4}, OutcomeActions, 3, "", nil},
		{"(1,1) is far below R: 3 actions", []int{1, 1}, OutcomeActions, 3, "", nil},
		{"(6,6) is a blunder, table roll 2: hold", []int{6, 6, 2}, OutcomeBlunder, 0, "hold", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs, _ := setup(t)
			s := given(evs...)
			dice := NewFixedDice(tc.dice...)
			out := mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move","text":"advance to the wood"}}`), dice)
			rolls := 1
			if tc.blunder != "" {
				rolls = 2
			}
			extra := 0
			if tc.blunder != "" {
				extra = 1 // blunder.carried_out
			}
			if len(out) != rolls+1+extra {
				t.Fatalf("want %d dice.rolled + order.resolved, got\n%s", rolls, eventsJSON(t, out))
			}
			dr := out[0].(*DiceRolled)
			if dr.Counter != 1 || dr.Purpose != "order:r1-gen:r1-inf1" || dr.Count != 2 || dr.Sides != 6 || dr.Command != CmdOrderGive || dr.Source != SourceDigital {
				t.Fatalf("dice.rolled: %+v", dr)
			}
			res := out[rolls].(*OrderResolved)
			if res.Outcome != tc.outcome || res.Actions != tc.actions || res.BaseRating != 8 || res.Effective != 8 {
				t.Fatalf("order.resolved: %s", eventsJSON(t, out[rolls:]))
			}
			if tc.blunder != "" {
				if res.Blunder == nil || res.Blunder.Result != tc.blunder || res.Blunder.Counter != 2 {
					t.Fatalf("blunder: %+v", res.Blunder)
				}
				if out[1].(*DiceRolled).Purpose != "blunder:r1-gen:r1-inf1" {
					t.Fatalf("blunder purpose %q", out[1].(*DiceRolled).Purpose)
				}
			}
			ut := s.TurnBook.peekUnit("r1-inf1")
			if ut.ActionsLeft != tc.actions || ut.Failed != (tc.outcome != OutcomeActions) {
				t.Fatalf("turn book %+v", ut)
			}
			if s.RollCounter != uint64(rolls) {
				t.Fatalf("roll counter %d", s.RollCounter)
			}
			if tc.outcome != OutcomeActions {
				// C.4: neither the unit nor the general gets another order.
				refused(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf2"],"content":{"action":"move"}}`), NewFixedDice(1, 1), "C.4", "general_failed")
				refused(t, s, cmd(t, CmdOrderGive, `{"general":"red-cinc","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(1, 1), "C.11", "unit_failed")
				if !strings.Contains(res.Summary, "C.4") {
					t.Fatalf("summary %q", res.Summary)
				}
			}
		})
	}
}

// TestC3C5AllOutcomes enumerates all 36 2D6 outcomes for every effective
// rating 2..12 against C.3 and C.5 as the text states them.
func TestC3C5AllOutcomes(t *testing.T) {
	cr := DefaultRuleset().Command
	for r := 2; r <= 12; r++ {
		for a := 1; a <= 6; a++ {
			for b := 1; b <= 6; b++ {
				roll := a + b
				wantOut, wantAct := OutcomeFailed, 0
				switch {
				case a == 6 && b == 6:
					wantOut = OutcomeBlunder
				case roll > r:
				case roll >= r-1:
					wantOut, wantAct = OutcomeActions, 1
				case roll == r-2:
					wantOut, wantAct = OutcomeActions, 2
				default:
					wantOut, wantAct = OutcomeActions, 3
				}
				out, act := cr.Resolve([]int{a, b}, r)
				if out != wantOut || act != wantAct {
					t.Errorf("R=%d roll %d+%d: got %s/%d, want %s/%d", r, a, b, out, act, wantOut, wantAct)
				}
			}
		}
	}
}

// TestMoveDistance: C.17 distance per action against the centre's path.
func TestMoveDistance(t *testing.T) {
	evs, _ := setup(t)
	s := given(evs...)
	mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3)) // 2 actions
	// r1-inf1 stands at (20,10). 6.1" north with 1 action: refused, naming
	// the actions the distance needs.
	r := refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16.1},"actions":1}`), nil, "C.17", "move_too_far")
	want := `C.17: infantry moves 6" per action, 6.0" in 1 action; this move is 6.1" and needs 2 actions: refused`
	if r.Error() != want {
		t.Fatalf("message\n got %s\nwant %s", r.Error(), want)
	}
	if math.Abs(r.Numbers["distance"]-6.1) > 1e-9 || r.Numbers["allowed"] != 6 || r.Numbers["actions"] != 1 || r.Numbers["actions_needed"] != 2 {
		t.Fatalf("numbers %v", r.Numbers)
	}
	// Actions omitted: the fewest that cover the move, here both.
	two := mustDecide(t, s.Clone(), cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16.1}}`), nil)
	if mv := two[0].(*UnitMoved); mv.ActionsUsed != 2 || mv.Distance != 6.1 {
		t.Fatalf("auto actions: %+v", mv)
	}
	// More than the unit has: the refusal says what it needs and has.
	r = refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":22.1}}`), nil, "C.17", "move_too_far")
	want = `C.17: infantry moves 6" per action; r1-inf1 has 2 actions left, enough for 12.0"; this move is 12.1" and needs 3 actions: refused`
	if r.Error() != want || r.Numbers["actions_needed"] != 3 || r.Numbers["actions_left"] != 2 {
		t.Fatalf("message\n got %s %v\nwant %s", r.Error(), r.Numbers, want)
	}
	// Exactly 6" is allowed.
	out := mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`), nil)
	mv := out[0].(*UnitMoved)
	if mv.Distance != 6 || mv.ActionsUsed != 1 || mv.To.Center != (geom.Vec{X: 20, Y: 16}) || mv.From.Center != (geom.Vec{X: 20, Y: 10}) {
		t.Fatalf("unit.moved %+v", mv)
	}
	// A waypoint path is measured along the path: 3 east + 5 north = 8 > 6 with the 1 action left.
	refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","path":[{"x":17,"y":16}],"to":{"x":17,"y":21}}`), nil, "C.17", "move_too_far")
	// Two actions asked, one left.
	refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":20},"actions":2}`), nil, "C.3", "no_actions_left")
	// Turning costs what the outer corner travels (movement.turn_cost):
	// a quarter turn of a 4.5"x1.5" base is 2.37" x pi/2 = 3.73".
	r = refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","path":[{"x":17,"y":16}],"to":{"x":17,"y":19},"facing":270}`), nil, "C.17", "move_too_far")
	if math.Abs(r.Numbers["turns"]-3.7255) > 1e-3 || r.Numbers["path"] != 6 {
		t.Fatalf("numbers %v", r.Numbers)
	}
	mv = mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","path":[{"x":18,"y":16}],"to":{"x":18,"y":16.2},"facing":270}`), nil)[0].(*UnitMoved)
	if u := s.Units["r1-inf1"]; u.Base.Center != (geom.Vec{X: 18, Y: 16.2}) || u.Base.Facing != 270 || math.Abs(mv.Cost-5.9255) > 1e-3 {
		t.Fatalf("unit %+v, cost %v", u.Base, mv.Cost)
	}
	refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":17,"y":20}}`), nil, "C.3", "no_actions_left")
}

// TestMoveRefusals: given a started battle, when a move breaks a rule, then
// it is refused citing that rule.
func TestMoveRefusals(t *testing.T) {
	evs, _ := setup(t)
	orders := func(s *State) {
		mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1","r1-inf2"],"content":{"action":"move"}}`), NewFixedDice(1, 1))
		mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r2-gen","units":["r2-hvy"],"content":{"action":"move"}}`), NewFixedDice(1, 1))
		mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"red-cinc","units":["r2-med"],"content":{"action":"move"}}`), NewFixedDice(1, 1))
	}
	cases := []struct {
		name, body, rule, code string
	}{
		{"no order, no actions", `{"unit":"r1-col","to":{"x":34,"y":12}}`, "C.3", "no_order"},
		{"ends on a friend", `{"unit":"r1-inf1","to":{"x":26,"y":10}}`, "K.1", "friend_contact"},
		{"ends in base contact with a friend", `{"unit":"r1-inf1","to":{"x":22.5,"y":10}}`, "K.1", "friend_contact"},
		{"ends off the table", `{"unit":"r1-inf1","to":{"x":2,"y":10},"actions":3}`, "K.3", "off_table"},
		{"heavy artillery unlimbered cannot move", `{"unit":"r2-hvy","to":{"x":60,"y":11}}`, "C.17", "cannot_move"},
		{"manhandled medium guns: one move a turn", `{"unit":"r2-med","to":{"x":66,"y":14},"actions":2}`, "C.17", "moves_per_turn"},
		{"not the phasing side", `{"unit":"b1-inf1","to":{"x":20,"y":37}}`, "T.2", "not_phasing"},
		{"unknown unit", `{"unit":"nobody","to":{"x":20,"y":37}}`, RuleInput, "unknown_unit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := given(evs...)
			orders(s)
			refused(t, s, cmd(t, CmdUnitMove, tc.body), nil, tc.rule, tc.code)
		})
	}
	t.Run("within 1 inch of an enemy", func(t *testing.T) {
		s := given(evs...)
		orders(s)
		// blue b1-inf1 at (20,38) facing south, depth 1.5: its south edge at y=37.25.
		// Move r1-inf1 with 3 actions (18") to y=28 is fine; put it 0.5" short instead.
		mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":28},"actions":3}`), nil)
		s2 := given(evs...)
		orders(s2)
		s2.Units["b1-inf1"].Base.Center.Y = 30 // an enemy in the way (test set-up)
		// Without a charge order it stops 1" short: at y=27.5, not 28 (C.9).
		m := findEvent[*UnitMoved](mustDecide(t, s2, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":28},"actions":3}`), nil))
		if m == nil || !m.StoppedShort || m.To.Center != gv(20, 27.5) || m.ActionsUsed != 3 {
			t.Fatalf("%+v", m)
		}
	})
	t.Run("manhandled medium guns move 3 inches once", func(t *testing.T) {
		s := given(evs...)
		orders(s)
		refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r2-med","to":{"x":66,"y":13.5}}`), nil, "C.17", "move_too_far")
		mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r2-med","to":{"x":66,"y":13}}`), nil)
		refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r2-med","to":{"x":66,"y":14}}`), nil, "C.17", "moves_per_turn")
	})
}

// TestC12FailedMove: a unit in march column that failed (not blundered) may
// still make one move.
func TestC12FailedMove(t *testing.T) {
	evs, _ := setup(t)
	s := given(evs...)
	out := mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-col"],"content":{"action":"move"}}`), NewFixedDice(6, 5))
	res := findEvent[*OrderResolved](out)
	// 13.2" from the general: -1; march column off road: +1; effective 8; 11 fails.
	if res.Outcome != OutcomeFailed || res.Effective != 8 || len(res.FailedMoves) != 1 {
		t.Fatalf("%s", eventsJSON(t, out))
	}
	refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":17},"actions":2}`), nil, "C.12", "one_move")
	mv := mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":16}}`), nil)
	if !mv[0].(*UnitMoved).FailedMove {
		t.Fatal("want failed_move")
	}
	refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":17}}`), nil, "C.4", "unit_failed")
}

// TestOrderModifiers checks C.7 with their reasons.
func TestOrderModifiers(t *testing.T) {
	evs, _ := setup(t)
	t.Run("distance: -1 per full 12 inches", func(t *testing.T) {
		s := given(evs...)
		// red-cinc at (36,2) to r1-inf1 (nearest point (22.25,9.25)): 15.5" -> 1 full step.
		out := mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"red-cinc","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3))
		res := findEvent[*OrderResolved](out)
		if res.Effective != 8 || len(res.Modifiers) != 1 || res.Modifiers[0].Value != -1 || !strings.Contains(res.Modifiers[0].Reason, `15.5"`) {
			t.Fatalf("%s", eventsJSON(t, out))
		}
		// 6 vs effective 8: 2 actions.
		if res.Actions != 2 {
			t.Fatalf("actions %d", res.Actions)
		}
		if !strings.HasPrefix(res.Summary, `rating 9; C.7: general 15.5" from r1-inf1: 1 full step of 12": -1; effective rating 8; rolled 6 (3+3): C.3: 2 actions`) {
			t.Fatalf("summary %q", res.Summary)
		}
	})
	t.Run("march column off road +1, declared on road +2", func(t *testing.T) {
		s := given(evs...)
		res := findEvent[*OrderResolved](mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-col"],"content":{"action":"move"},"on_road":["r1-col"]}`), NewFixedDice(4, 4)))
		// 8, -1 for 13.2" from the general, +2 on a road: 9; 8 rolled is R-1: 1 action.
		if res.Effective != 9 || res.Actions != 1 {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("enemy within 6 inches -1; 12 inches in the ЧП variant", func(t *testing.T) {
		s := given(evs...)
		s.Units["b1-inf1"].Base.Center.Y = 20 // 8.5" from r1-inf1's front edge
		res := findEvent[*OrderResolved](mustDecide(t, s.Clone(), cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3)))
		if res.Effective != 8 {
			t.Fatalf("6\" rule: %+v", res.Modifiers)
		}
		rs, err := LoadRuleset(nil, []byte("command: {modifiers: {enemy_near: {use_variant: true}}}"))
		if err != nil {
			t.Fatal(err)
		}
		s.Ruleset = rs
		res = findEvent[*OrderResolved](mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3)))
		if res.Effective != 7 || !strings.Contains(res.Modifiers[0].Reason, "ЧП") {
			t.Fatalf("ЧП variant: %+v", res.Modifiers)
		}
	})
	t.Run("attack column +1, not in awi", func(t *testing.T) {
		s := given(evs...)
		s.Units["r1-inf1"].Formation = "attack_column"
		res := findEvent[*OrderResolved](mustDecide(t, s.Clone(), cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3)))
		if res.Effective != 9 {
			t.Fatalf("%+v", res.Modifiers)
		}
		rs, _ := LoadRuleset(nil, []byte("era: awi"))
		s.Ruleset = rs
		res = findEvent[*OrderResolved](mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(3, 3)))
		if res.Effective != 8 {
			t.Fatalf("awi: %+v", res.Modifiers)
		}
	})
}

// TestOrderRefusals: who may order whom, when.
func TestOrderRefusals(t *testing.T) {
	evs, _ := setup(t)
	cases := []struct {
		name, body, rule, code string
	}{
		{"unit of another brigade", `{"general":"r1-gen","units":["r2-lc"],"content":{"action":"move"}}`, "C.2", "not_in_brigade"},
		{"enemy unit", `{"general":"red-cinc","units":["b1-inf1"],"content":{"action":"move"}}`, "C.2", "not_own_unit"},
		{"not the phasing side", `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, "T.2", "not_command_phase"},
		{"unknown general", `{"general":"nobody","units":["r1-inf1"],"content":{"action":"move"}}`, "C.2", "unknown_general"},
		{"no recipients", `{"general":"r1-gen","units":[],"content":{"action":"move"}}`, "C.2", "no_recipients"},
		{"group apart", `{"general":"r1-gen","units":["r1-inf1","r1-col"],"content":{"action":"move"}}`, "C.8", "group_apart"},
		{"group of two brigades", `{"general":"red-cinc","units":["r1-col","r2-lc"],"content":{"action":"move"}}`, "C.8", "group_brigades"},
		{"bad action", `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"dance"}}`, "C.6", "bad_action"},
		{"bad formation", `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"formation","formation":"limbered"}}`, "C.16", "unknown_formation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, given(evs...), cmd(t, CmdOrderGive, tc.body), NewFixedDice(1, 1), tc.rule, tc.code)
		})
	}
	t.Run("C.10 no return to an earlier general", func(t *testing.T) {
		s := given(evs...)
		mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(1, 1))
		mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf2"],"content":{"action":"move"}}`), NewFixedDice(1, 1))
		res := findEvent[*OrderResolved](mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"content":{"action":"move"}}`), NewFixedDice(1, 1)))
		if res.ClosedGeneral != "r1-gen" {
			t.Fatalf("closed %q", res.ClosedGeneral)
		}
		refused(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-col"],"content":{"action":"move"}}`), NewFixedDice(1, 1), "C.10", "general_passed")
	})
	t.Run("C.11 a failed C-in-C closes the phase", func(t *testing.T) {
		s := given(evs...)
		res := findEvent[*OrderResolved](mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"red-cinc","units":["r2-lc"],"content":{"action":"move"}}`), NewFixedDice(6, 5)))
		if !res.OrdersClosed {
			t.Fatal("want orders_closed")
		}
		refused(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(1, 1), "C.11", "orders_closed")
	})
	t.Run("group order: one roll for a connected group", func(t *testing.T) {
		s := given(evs...)
		out := mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1","r1-inf2"],"content":{"action":"move"}}`), NewFixedDice(2, 2))
		if len(out) != 2 || out[0].(*DiceRolled).Purpose != "order:r1-gen:r1-inf1+r1-inf2" {
			t.Fatalf("%s", eventsJSON(t, out))
		}
		if s.TurnBook.peekUnit("r1-inf1").ActionsLeft != 3 || s.TurnBook.peekUnit("r1-inf2").ActionsLeft != 3 {
			t.Fatalf("turn book %+v", s.TurnBook.Units)
		}
	})
}

// TestDiceErrors: a missing or broken dice source is an error, not a refusal, and nothing is emitted.
func TestDiceErrors(t *testing.T) {
	evs, _ := setup(t)
	s := given(evs...)
	c := cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`)
	if _, err := Decide(s, c, nil); !errors.Is(err, ErrNoDice) {
		t.Fatalf("nil dice: %v", err)
	}
	if _, err := Decide(s, c, NewFixedDice(7, 1)); !errors.Is(err, ErrBadRoll) {
		t.Fatalf("face 7: %v", err)
	}
	if _, err := Decide(s, c, &FixedDice{Values: []int{1, 1}, Source: SourcePhysical}); !errors.Is(err, ErrBadRoll) {
		t.Fatalf("physical without entered_by: %v", err)
	}
	out, err := Decide(s, c, &FixedDice{Values: []int{1, 1}, Source: SourcePhysical, EnteredBy: "alice"})
	if err != nil || out[0].(*DiceRolled).EnteredBy != "alice" {
		t.Fatalf("physical: %v %v", out, err)
	}
}

// TestTurnSequence: T.1-T.5 through phase.end, and the turn limit.
func TestTurnSequence(t *testing.T) {
	evs, s := setup(t)
	if s.Status != StatusInProgress || s.Turn != 1 || s.Phasing != "red" || s.Phase != PhaseCommand {
		t.Fatalf("after start: %s", stateJSON(t, s))
	}
	if ts := findEvent[*TurnStarted](evs); ts == nil || ts.Turn != 1 || ts.Side != "red" {
		t.Fatalf("turn.started %+v", ts)
	}
	refused(t, s, cmd(t, CmdPhaseEnd, `{"side":"blue"}`), nil, "T.1", "not_phasing")
	refused(t, s, cmd(t, CmdBattleStart, ``), nil, RuleBattle, "already_started")
	var seen []string
	for i := 0; i < 12; i++ {
		out := mustDecide(t, s, cmd(t, CmdPhaseEnd, fmt.Sprintf(`{"side":%q}`, s.Phasing)), nil)
		for _, e := range out[1:] {
			switch x := e.(type) {
			case *PhaseStarted:
				seen = append(seen, fmt.Sprintf("%d:%s:%s", x.Turn, x.Side, x.Phase))
			case *TurnStarted:
				seen = append(seen, fmt.Sprintf("%d:%s:%s", x.Turn, x.Side, x.Phase))
			case *BattleEnded:
				seen = append(seen, "ended")
			}
		}
		if s.Status == StatusEnded {
			break
		}
	}
	want := "1:red:movement 1:red:combat 2:blue:command 2:blue:movement 2:blue:combat 3:red:command 3:red:movement 3:red:combat 4:blue:command 4:blue:movement 4:blue:combat ended"
	if got := strings.Join(seen, " "); got != want {
		t.Fatalf("sequence\n got %s\nwant %s", got, want)
	}
	refused(t, s, cmd(t, CmdPhaseEnd, `{"side":"blue"}`), nil, "T.5", "battle_ended")
	// Orders only in the command phase.
	s2 := given(evs...)
	mustDecide(t, s2, cmd(t, CmdPhaseEnd, `{"side":"red"}`), nil)
	refused(t, s2, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(1, 1), "T.2", "not_command_phase")
	// The turn book is reset at the next turn.
	s3 := given(evs...)
	mustDecide(t, s3, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(6, 5))
	for i := 0; i < 3; i++ {
		mustDecide(t, s3, cmd(t, CmdPhaseEnd, fmt.Sprintf(`{"side":%q}`, s3.Phasing)), nil)
	}
	if s3.Turn != 2 || len(s3.TurnBook.Units) != 0 {
		t.Fatalf("turn book not reset: %s", stateJSON(t, s3))
	}
}

// TestBattleLifeCycle: create, deploy and end refusals.
func TestBattleLifeCycle(t *testing.T) {
	s := NewState()
	refused(t, s, cmd(t, CmdArmyDeploy, redBody), nil, RuleBattle, "no_battle")
	refused(t, s, cmd(t, CmdBattleCreate, strings.Replace(createBody, `"b1"`, `"B 1"`, 1)), nil, RuleInput, "bad_battle_id")
	refused(t, s, cmd(t, CmdBattleCreate, strings.Replace(createBody, `"first_side":"red"`, `"first_side":"green"`, 1)), nil, "T.1", "bad_first_side")
	refused(t, s, cmd(t, CmdBattleCreate, strings.Replace(createBody, `"turn_limit":4`, `"turn_limit":4,"ruleset":"command: {results: []}"`, 1)), nil, RuleInput, "bad_ruleset")
	refused(t, s, cmd(t, CmdBattleCreate, strings.Replace(createBody, `"turn_limit":4`, `"turn_limit":4,"ruleset":"nonsense_key: 1"`, 1)), nil, RuleInput, "bad_ruleset")
	evs := mustDecide(t, s, cmd(t, CmdBattleCreate, strings.Replace(createBody, `"turn_limit":4`, `"turn_limit":4,"ruleset":"era: awi"`, 1)), nil)
	bc := evs[0].(*BattleCreated)
	if bc.Ruleset == nil || bc.Ruleset.Era != "awi" || bc.Ruleset.UnitTypes["infantry"].MovePerAction.In != 6 {
		t.Fatalf("battle.created ruleset %+v", bc.Ruleset)
	}
	refused(t, s, cmd(t, CmdBattleCreate, createBody), nil, RuleBattle, "battle_exists")
	refused(t, s, cmd(t, CmdBattleStart, ``), nil, "T.1", "not_deployed")
	cases := []struct{ name, from, to, rule, code string }{
		{"unknown side", `"side":"red"`, `"side":"green"`, RuleInput, "unknown_side"},
		{"unknown type", `"type":"light_cavalry"`, `"type":"camels"`, RuleInput, "unknown_unit_type"},
		{"formation not of the type", `"formation":"march_column"`, `"formation":"limbered"`, RuleInput, "unknown_formation"},
		{"duplicate id", `"id":"r1-inf2"`, `"id":"r1-inf1"`, RuleInput, "duplicate_id"},
		{"id differing only in case", `"id":"r1-inf2"`, `"id":"R1-Inf1"`, RuleInput, "duplicate_id"},
		{"off the table", `"position":{"x":20,"y":10}`, `"position":{"x":1,"y":10}`, "K.3", "off_table"},
		{"overlap", `"position":{"x":27,"y":10}`, `"position":{"x":24,"y":10}`, "K.1", "overlap"},
		{"rating out of range", `"rating":8,`, `"rating":13,`, "C.3", "bad_rating"},
		{"bad brigade order", `"order":"attack"`, `"order":"charge"`, "T.6", "bad_brigade_order"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(redBody, tc.from) {
				t.Fatalf("fixture lacks %s", tc.from)
			}
			refused(t, s, cmd(t, CmdArmyDeploy, strings.Replace(redBody, tc.from, tc.to, 1)), nil, tc.rule, tc.code)
		})
	}
	mustDecide(t, s, cmd(t, CmdArmyDeploy, redBody), nil)
	refused(t, s, cmd(t, CmdArmyDeploy, redBody), nil, RuleBattle, "already_deployed")
	// The other side's ids are held to red's, case folded: a charge of
	// one at the other would name two units that read alike.
	if !strings.Contains(blueBody, `"id":"b1-gen"`) {
		t.Fatal("fixture lacks b1-gen")
	}
	r := refused(t, s, cmd(t, CmdArmyDeploy, strings.Replace(blueBody, `"id":"b1-gen"`, `"id":"R1-INF1"`, 1)), nil, RuleInput, "duplicate_id")
	if want := `id "R1-INF1" differs from "r1-inf1", already used by a unit, only in case`; !strings.Contains(r.Error(), want) {
		t.Errorf("refusal %q, want it to say %q", r.Error(), want)
	}
	// Base sizes come from the ruleset by type and formation.
	if b := s.Units["r1-col"].Base; b.Width != 1.5 || b.Depth != 4.5 {
		t.Fatalf("march column base %+v", b)
	}
	if b := s.Units["r1-inf1"].Base; b.Width != 4.5 || b.Depth != 1.5 {
		t.Fatalf("line base %+v", b)
	}
	refused(t, s, cmd(t, CmdBattleEnd, `{"reason":""}`), nil, "T.5", "no_reason")
	mustDecide(t, s, cmd(t, CmdBattleEnd, `{"reason":"umpire: thunderstorm"}`), nil)
	if s.Status != StatusEnded {
		t.Fatal("not ended")
	}
}

// TestCentimetres: a battle in cm reads the cm column of the ruleset.
func TestCentimetres(t *testing.T) {
	s := NewState()
	mustDecide(t, s, cmd(t, CmdBattleCreate, strings.Replace(strings.Replace(createBody, `"measurement":"in"`, `"measurement":"cm"`, 1), `"width":72,"depth":48`, `"width":180,"depth":120`, 1)), nil)
	red := strings.NewReplacer(`"x":27,`, `"x":30,`, `"x":34,`, `"x":40,`).Replace(redBody)
	mustDecide(t, s, cmd(t, CmdArmyDeploy, red), nil)
	mustDecide(t, s, cmd(t, CmdArmyDeploy, blueBody), nil)
	mustDecide(t, s, cmd(t, CmdBattleStart, ``), nil)
	if b := s.Units["r1-inf1"].Base; b.Width != 7.5 || b.Depth != 2.5 {
		t.Fatalf("cm base %+v", b)
	}
	mustDecide(t, s, cmd(t, CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`), NewFixedDice(4, 4))
	r := refused(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":20.2}}`), nil, "C.17", "move_too_far")
	if want := `C.17: infantry moves 10 cm per action; r1-inf1 has 1 action left, enough for 10.0 cm; this move is 10.2 cm and needs 2 actions: refused`; r.Error() != want {
		t.Fatalf("got %s", r.Error())
	}
	mustDecide(t, s, cmd(t, CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":20}}`), nil)
}
