package loadgen_test

import (
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
