package campaign_test

import (
	"testing"

	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// constDice answers every roll with the first faces of vals, so that one
// Dice serves any number of Decide calls.
type constDice struct{ vals []int }

func (d constDice) Roll(req rules.RollRequest) (rules.Rolled, error) {
	return rules.Rolled{Values: append([]int(nil), d.vals[:req.Count]...), Source: rules.SourcePhysical, EnteredBy: "umpire"}, nil
}

// benchStep is one command of a synthetic battle with the state it was
// decided on and the events it gave.
type benchStep struct {
	name   string
	before *rules.State
	cmd    rules.Command
	dice   rules.Dice
	evs    []rules.Event
}

// benchBattle plays turns side turns of the loadgen script straight
// through the rules engine and returns every step.
func benchBattle(tb testing.TB, turns int) []benchStep {
	tb.Helper()
	gen := loadgen.NewBattle("bench", "b1", 1)
	gen.TurnLimit = turns
	var seed dice.Seed
	seed[0] = 1
	s := rules.NewState()
	var steps []benchStep
	for i := 0; !gen.Ended(); i++ {
		if i > 100000 {
			tb.Fatal("the script never ends")
		}
		req := gen.Next()
		cmd, err := rules.DecodeCommand(req.Name, req.Body)
		if err != nil {
			tb.Fatal(err)
		}
		if cb, ok := cmd.(*rules.CreateBattle); ok {
			cb.Battle, cb.Sides = "b1", []rules.SideSpec{{ID: "red"}, {ID: "blue"}}
		}
		next, reveal := rules.DicePeriods(s, cmd)
		if next != "" {
			cmd = rules.WithDiceCommitment(cmd, seed.Commitment())
		}
		if reveal != "" {
			cmd = rules.WithDiceReveal(cmd, seed.Hex())
		}
		var d rules.Dice
		if len(req.Dice.Values) > 0 {
			d = constDice{vals: req.Dice.Values}
		}
		evs, err := rules.Decide(s, cmd, d)
		if err != nil {
			tb.Fatalf("%s %s: %v", req.ID, req.Name, err)
		}
		steps = append(steps, benchStep{name: req.Name, before: s.Clone(), cmd: cmd, dice: d, evs: evs})
		for _, e := range evs {
			rules.Apply(s, e)
		}
	}
	return steps
}

// BenchmarkDecide times rules.Decide per command, on the state of a battle
// in its tenth turn (the first of each command name after turn 10).
func BenchmarkDecide(b *testing.B) {
	steps := benchBattle(b, 20)
	seen := map[string]bool{}
	for i, st := range steps {
		if seen[st.name] || (i >= loadgen.Setup && st.before.Turn < 10 && st.name != rules.CmdBattleEnd) {
			continue
		}
		seen[st.name] = true
		b.Run(st.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rules.Decide(st.before, st.cmd, st.dice); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApply times rules.Apply per event type, applying each event to
// a fresh copy of the state it was decided on (copies made off the clock).
func BenchmarkApply(b *testing.B) {
	steps := benchBattle(b, 20)
	seen := map[string]bool{}
	for i, st := range steps {
		if i >= loadgen.Setup && st.before.Turn < 10 && st.name != rules.CmdBattleEnd {
			continue
		}
		s := st.before.Clone()
		for _, ev := range st.evs {
			typ, base := ev.EventType(), s.Clone()
			rules.Apply(s, ev)
			if seen[typ] {
				continue
			}
			seen[typ] = true
			b.Run(typ, func(b *testing.B) {
				b.ReportAllocs()
				const chunk = 256
				states := make([]*rules.State, chunk)
				n := 0
				for b.Loop() {
					if n%chunk == 0 {
						b.StopTimer()
						for j := range states {
							states[j] = base.Clone()
						}
						b.StartTimer()
					}
					rules.Apply(states[n%chunk], ev)
					n++
				}
			})
		}
	}
}

// BenchmarkReplay folds a whole battle (20 side turns, about 240 events)
// through rules.Apply from a new state: what loading a battle costs.
func BenchmarkReplay(b *testing.B) {
	steps := benchBattle(b, 20)
	var evs []rules.Event
	for _, st := range steps {
		evs = append(evs, st.evs...)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := rules.NewState()
		for _, e := range evs {
			rules.Apply(s, e)
		}
	}
	b.ReportMetric(float64(len(evs)), "events/op")
}
