package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// rng is a small deterministic generator (xorshift64*), so the package's
// tests need no math/rand either.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return x * 2685821657736338717
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) float(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.next()>>11)/float64(1<<53)
}

func (r *rng) pick(xs []string) string { return xs[r.intn(len(xs))] }

// replayJSON encodes events, decodes them by type and folds them into a new
// state: what a projection rebuilt from the log does.
func replayJSON(t testing.TB, log []Event) *State {
	t.Helper()
	s := NewState()
	for _, e := range log {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeEvent(e.EventType(), b)
		if err != nil {
			t.Fatal(err)
		}
		Apply(s, back)
	}
	return s
}

// TestReplay: folding Apply over the emitted events (through their JSON
// form) equals the state Decide-and-Apply produced live.
func TestReplay(t *testing.T) {
	log, s := setup(t)
	step := func(name, body string, dice ...int) {
		log = append(log, mustDecide(t, s, cmd(t, name, body), NewFixedDice(dice...))...)
	}
	step(CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1","r1-inf2"],"content":{"action":"move","text":"forward"}}`, 3, 3)
	step(CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":22},"actions":2}`)
	step(CmdUnitMove, `{"unit":"r1-inf2","path":[{"x":27,"y":13}],"to":{"x":28.5,"y":14.5},"facing":20}`)
	step(CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"content":{"action":"charge"}}`, 6, 6, 5)
	step(CmdOrderGive, `{"general":"red-cinc","units":["r1-col"],"content":{"action":"move"}}`, 6, 5)
	step(CmdUnitMove, `{"unit":"r1-col","to":{"x":34,"y":14}}`)
	for i := 0; i < 3; i++ {
		step(CmdPhaseEnd, fmt.Sprintf(`{"side":%q}`, s.Phasing))
	}
	step(CmdOrderGive, `{"general":"b1-gen","units":["b1-inf1"],"content":{"action":"move"}}`, 2, 3)
	step(CmdUnitMove, `{"unit":"b1-inf1","to":{"x":20,"y":32}}`)
	step(CmdBattleEnd, `{"reason":"umpire"}`)
	live := stateJSON(t, s)
	if got := stateJSON(t, replayJSON(t, log)); got != live {
		t.Fatalf("replay differs from live\nlive   %s\nreplay %s", live, got)
	}
	// Clone is deep: changing the clone leaves the original alone.
	c := s.Clone()
	c.Units["r1-inf1"].Base.Center.X = 1
	c.Sides[0].Brigades[0].Units[0] = "x"
	c.TurnBook.unit("r1-inf1").ActionsLeft = 99
	if stateJSON(t, s) != live {
		t.Fatal("Clone shares mutable parts")
	}
}

// TestProperties drives random command sequences from fixed seeds: Decide
// never mutates the state, refusals always cite a rule, Apply never panics,
// and the replay of the accepted events equals the live state.
func TestProperties(t *testing.T) {
	setupLog, _ := setup(t)
	bc := *setupLog[0].(*BattleCreated)
	bc.TurnLimit = 0 // a long battle: the sequence should not end at turn 4
	setupLog[0] = &bc
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rng(seed*0x9E3779B97F4A7C15 + 1)
			s := given(setupLog...)
			log := append([]Event(nil), setupLog...)
			units := append(s.sortedUnitIDs(), "ghost")
			generals := []string{"r1-gen", "r2-gen", "red-cinc", "b1-gen", "blue-cinc", "ghost"}
			sides := []string{"red", "blue", "green"}
			accepted, refusals := 0, 0
			codes := map[string]int{}
			for i := 0; i < 400; i++ {
				var name, body string
				switch k := r.intn(20); {
				case k < 8:
					n := 1 + r.intn(3)
					gen, pool := r.pick(generals), units
					if sd := s.side(s.Phasing); sd != nil && r.intn(4) > 0 {
						// Mostly sensible: a general of the phasing side and units of his brigade.
						b := sd.Brigades[r.intn(len(sd.Brigades))]
						gen, pool = b.General.ID, b.Units
						n = 1 + r.intn(2)
					}
					var us []string
					for j := 0; j < n; j++ {
						us = append(us, fmt.Sprintf("%q", r.pick(pool)))
					}
					name = CmdOrderGive
					body = fmt.Sprintf(`{"general":%q,"units":[%s],"content":{"action":%q,"formation":%q}}`,
						gen, strings.Join(us, ","), r.pick([]string{"move", "move", "charge", "formation", "sing"}), r.pick([]string{"line", "march_column", "limbered"}))
				case k < 16:
					u := r.pick(units)
					if r.intn(3) > 0 {
						// Mostly a unit that has actions left.
						for _, id := range s.sortedUnitIDs() {
							if ut := s.TurnBook.peekUnit(id); ut.ActionsLeft > 0 || ut.FailedMoves > 0 {
								u = id
								break
							}
						}
					}
					x, y := r.float(-5, 80), r.float(-5, 55)
					if cur := s.Units[u]; cur != nil && r.intn(4) > 0 {
						x, y = cur.Base.Center.X+r.float(-5, 5), cur.Base.Center.Y+r.float(-5, 5)
					}
					name = CmdUnitMove
					body = fmt.Sprintf(`{"unit":%q,"to":{"x":%g,"y":%g},"facing":%g,"actions":%d}`, u, x, y, r.float(-400, 400), r.intn(3))
				case k < 19:
					name, body = CmdPhaseEnd, fmt.Sprintf(`{"side":%q}`, r.pick(sides))
					if s.Phase != PhaseCommand && r.intn(2) == 0 {
						name, body = CmdPhaseEnd, fmt.Sprintf(`{"side":%q}`, s.Phasing)
					}
				default:
					switch r.intn(4) {
					case 0:
						name, body = CmdBattleStart, ``
					case 1:
						name, body = CmdArmyDeploy, redBody
					case 2:
						name, body = CmdBattleCreate, createBody
					default:
						name, body = CmdPhaseEnd, fmt.Sprintf(`{"side":%q}`, s.Phasing)
					}
				}
				c := cmd(t, name, body)
				faces := make([]int, 4)
				for j := range faces {
					faces[j] = 1 + r.intn(6)
				}
				if r.intn(50) == 0 {
					faces[0] = 7
				}
				before := stateJSON(t, s)
				evs, err := Decide(s, c, NewFixedDice(faces...))
				if after := stateJSON(t, s); after != before {
					t.Fatalf("step %d %s %s: Decide mutated the state", i, name, body)
				}
				if err != nil {
					var ref *Refusal
					if errors.As(err, &ref) {
						if ref.Rule == "" || ref.Code == "" || ref.Message == "" {
							t.Fatalf("step %d %s %s: refusal without rule/code/message: %#v", i, name, body, ref)
						}
						refusals++
						codes[ref.Rule+"/"+ref.Code]++
						continue
					}
					if !errors.Is(err, ErrBadRoll) {
						t.Fatalf("step %d %s %s: unexpected error %v", i, name, body, err)
					}
					continue
				}
				for _, e := range evs {
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Fatalf("step %d: Apply(%s) panicked: %v", i, e.EventType(), p)
							}
						}()
						Apply(s, e)
					}()
				}
				log = append(log, evs...)
				accepted++
			}
			if accepted < 40 || refusals < 40 {
				t.Fatalf("weak sequence: %d accepted, %d refused: %v", accepted, refusals, codes)
			}
			if got, want := stateJSON(t, replayJSON(t, log)), stateJSON(t, s); got != want {
				t.Fatalf("replay differs from live\nlive   %s\nreplay %s", want, got)
			}
			// Apply never panics, even on events that do not fit the state.
			for _, e := range log {
				mustNotPanic(t, NewState(), e)
				mustNotPanic(t, s.Clone(), e)
			}
			for _, et := range EventTypes() {
				for _, payload := range []string{`{}`, `{"unit":"ghost","side":"ghost","units":["ghost"],"general":"ghost","closed_general":"ghost"}`} {
					e, err := DecodeEvent(et.Name, []byte(payload))
					if err != nil {
						t.Fatal(err)
					}
					mustNotPanic(t, NewState(), e)
					mustNotPanic(t, s.Clone(), e)
					mustNotPanic(t, &State{}, e)
				}
			}
			t.Logf("%d accepted, %d refused, %d events; refusals %v", accepted, refusals, len(log), codes)
		})
	}
}

func mustNotPanic(t *testing.T, s *State, e Event) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("Apply(%s) panicked: %v", e.EventType(), p)
		}
	}()
	Apply(s, e)
	// Decide on whatever Apply made must not panic either.
	for _, name := range CommandNames() {
		c, _ := DecodeCommand(name, []byte(`{}`))
		_, _ = Decide(s, c, NewFixedDice(1, 1, 1, 1))
	}
}
