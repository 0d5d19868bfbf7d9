package loadgen_test

import (
	"encoding/json"
	"testing"

	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// TestScriptIsAccepted plays several scripts straight through the rules
// engine (the service adds only I/O around the same Decide and Apply): every
// command is accepted, and a turn limit ends the battle.
func TestScriptIsAccepted(t *testing.T) {
	for n := uint64(1); n <= 4; n++ {
		b := loadgen.NewBattle("c", "b1", n)
		b.TurnLimit = 30
		s := rules.NewState()
		var seed dice.Seed // the service draws it and seals it in the vault
		kinds := map[string]int{}
		for i := 0; !b.Ended(); i++ {
			if i > 10000 {
				t.Fatal("the script never ends")
			}
			req := b.Next()
			cmd, err := rules.DecodeCommand(req.Name, req.Body)
			if err != nil {
				t.Fatalf("%s %s: %v", req.ID, req.Name, err)
			}
			if cb, ok := cmd.(*rules.CreateBattle); ok {
				cb.Battle = "b1"
				cb.Sides = []rules.SideSpec{{ID: "red"}, {ID: "blue"}}
			}
			if next, _ := rules.DicePeriods(s, cmd); next != "" {
				cmd = rules.WithDiceCommitment(cmd, seed.Commitment())
			}
			if _, reveal := rules.DicePeriods(s, cmd); reveal != "" {
				cmd = rules.WithDiceReveal(cmd, seed.Hex())
			}
			var d rules.Dice
			if len(req.Dice.Values) > 0 {
				d = &rules.FixedDice{Values: req.Dice.Values, Source: rules.SourcePhysical, EnteredBy: "umpire"}
			}
			evs, err := rules.Decide(s, cmd, d)
			if err != nil {
				t.Fatalf("seed %d: %s %s %s: %v", n, req.ID, req.Name, req.Body, err)
			}
			for _, e := range evs {
				kinds[e.EventType()]++
				rules.Apply(s, e)
				if res, ok := e.(*rules.OrderResolved); ok && res.Outcome != rules.OutcomeActions {
					t.Fatalf("seed %d: %s: order %s", n, req.ID, res.Outcome)
				}
			}
		}
		if kinds[rules.EvUnitMoved] != 60 || kinds[rules.EvDiceRolled] != 30 {
			t.Fatalf("seed %d: events %v", n, kinds)
		}
	}
}

// faces answers the digital orders of a script with chosen faces, one
// order after another (cycling), and every other roll (the blunder table)
// with the next of table.
type faces struct {
	orders [][]int
	table  []int
	n, t   int
}

func (f *faces) Roll(req rules.RollRequest) (rules.Rolled, error) {
	var v []int
	if req.Count == 2 {
		v = f.orders[f.n%len(f.orders)]
		f.n++
	} else {
		v = []int{f.table[f.t%len(f.table)]}
		f.t++
	}
	return rules.Rolled{Values: append([]int(nil), v...), Source: rules.SourceDigital}, nil
}

// playLeague plays one league script through the rules engine, the digital
// orders answered by digital, and returns the events by type and the
// commands by name. Every command must be accepted.
func playLeague(t *testing.T, b *loadgen.Battle, digital rules.Dice) (map[string]int, map[string]int) {
	t.Helper()
	s := rules.NewState()
	var seed dice.Seed
	kinds, names := map[string]int{}, map[string]int{}
	for i := 0; !b.Ended(); i++ {
		if i > 10000 {
			t.Fatal("the script never ends")
		}
		req := b.Next()
		names[req.Name]++
		cmd, err := rules.DecodeCommand(req.Name, req.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", req.ID, req.Name, err)
		}
		if cb, ok := cmd.(*rules.CreateBattle); ok {
			cb.Battle = b.ID
			cb.Sides = []rules.SideSpec{{ID: "red"}, {ID: "blue"}}
		}
		if next, _ := rules.DicePeriods(s, cmd); next != "" {
			cmd = rules.WithDiceCommitment(cmd, seed.Commitment())
		}
		if _, reveal := rules.DicePeriods(s, cmd); reveal != "" {
			cmd = rules.WithDiceReveal(cmd, seed.Hex())
		}
		d := digital
		if len(req.Dice.Values) > 0 {
			d = &rules.FixedDice{Values: req.Dice.Values, Source: rules.SourcePhysical, EnteredBy: "umpire"}
		}
		evs, err := rules.Decide(s, cmd, d)
		if err != nil {
			t.Fatalf("%s %s %s: %v", req.ID, req.Name, req.Body, err)
		}
		for _, e := range evs {
			kinds[e.EventType()]++
			rules.Apply(s, e)
			raw, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Observe(e.EventType(), raw); err != nil {
				t.Fatal(err)
			}
		}
		// The umpire sets up, starts and ends; a player gives the rest.
		umpire := req.Name == rules.CmdBattleCreate || req.Name == rules.CmdBattleStart || req.Name == rules.CmdBattleEnd
		if umpire != (b.Side() == "") {
			t.Fatalf("%s %s: side %q", req.ID, req.Name, b.Side())
		}
	}
	return kinds, names
}

// TestLeagueMixIsAccepted plays the league mix with every outcome of a
// digital order: actions, a failure (the side's units stay put) and a
// blunder (with every result of the blunder table: the umpire ends the
// battle). Every command is accepted whatever the dice say.
func TestLeagueMixIsAccepted(t *testing.T) {
	// All orders succeed: the battle runs to its turn limit.
	b := loadgen.NewLeagueBattle("c", "b1", 1)
	b.TurnLimit = 12
	kinds, names := playLeague(t, b, &faces{orders: [][]int{{1, 2}}, table: []int{1}})
	if names[rules.CmdDiceAddSeed] != 2 || names[rules.CmdUnitFire] != 12 || names[rules.CmdCombatRecord] != 6 ||
		names[rules.CmdOrderGive] != 12 || kinds[rules.EvUnitMoved] != 24 || names[rules.CmdBattleEnd] != 1 {
		t.Fatalf("commands %v, events %v", names, kinds)
	}
	// Every digital order fails: those turns have no moves.
	b = loadgen.NewLeagueBattle("c", "b2", 2)
	b.TurnLimit = 12
	kinds, names = playLeague(t, b, &faces{orders: [][]int{{6, 5}}})
	if names[rules.CmdOrderGive] != 12 || kinds[rules.EvUnitMoved] != 2*(12-12/3) {
		t.Fatalf("failed orders: commands %v, events %v", names, kinds)
	}
	// A blunder, whatever the table says, ends the battle at once.
	for roll := 1; roll <= 6; roll++ {
		b = loadgen.NewLeagueBattle("c", "b3", uint64(roll))
		b.TurnLimit = 12
		kinds, names = playLeague(t, b, &faces{orders: [][]int{{6, 6}}, table: []int{roll}})
		if names[rules.CmdOrderGive] != 3 || names[rules.CmdBattleEnd] != 1 || kinds[rules.EvBlunderCarriedOut] == 0 {
			t.Fatalf("blunder table %d: commands %v, events %v", roll, names, kinds)
		}
	}
}

// TestObserveBeforeNext: a digital order's outcome must be observed before
// the script goes on.
func TestObserveBeforeNext(t *testing.T) {
	b := loadgen.NewBattle("c", "b1", 1)
	b.Mix.Digital = 1
	for range loadgen.Setup {
		b.Next()
	}
	if req := b.Next(); req.Name != rules.CmdOrderGive || len(req.Dice.Values) != 0 {
		t.Fatalf("want a digital order, got %s %v", req.Name, req.Dice.Values)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Next went on without the order's outcome")
		}
	}()
	b.Next()
}
