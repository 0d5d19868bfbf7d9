package rules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// scenarioFile is the part of the scenario format (campaign.Scenario,
// docs/scenario-format.md) the rules need to play a file without the
// service: commands, physical dice and expectations.
type scenarioFile struct {
	ID       string `yaml:"id"`
	Name     string `yaml:"name"`
	Campaign string `yaml:"campaign"`
	Battle   string `yaml:"battle"`
	Actor    string `yaml:"actor"`
	Steps    []struct {
		Do       string         `yaml:"do"`
		ID       string         `yaml:"id"`
		Campaign string         `yaml:"campaign"`
		Battle   string         `yaml:"battle"`
		Actor    string         `yaml:"actor"`
		Dice     []int          `yaml:"dice"`
		With     map[string]any `yaml:"with"`
		Expect   string         `yaml:"expect"`
		Note     string         `yaml:"note"`
	} `yaml:"steps"`
}

// TestCommandPhaseScenarios plays testdata/scenarios/c-*.yaml straight
// through Decide, as the service's runner would (campaign sides and era
// filled into battle.create, physical dice entered by the actor and all of
// them used), and checks every step's expectation. The service plays the
// same files through campaign.Scenario.
func TestCommandPhaseScenarios(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/c-*.yaml")
	if len(files) == 0 {
		t.Fatal("no c-*.yaml scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { playScenarioFile(t, f) })
	}
}

// TestMovementScenarios plays testdata/scenarios/m-*.yaml and k-*.yaml
// the same way: the movement phase, tactical marches and contact rules.
func TestMovementScenarios(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/m-*.yaml")
	k, _ := filepath.Glob("../testdata/scenarios/k-*.yaml")
	files = append(files, k...)
	if len(files) == 0 {
		t.Fatal("no m-*.yaml or k-*.yaml scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { playScenarioFile(t, f) })
	}
}

// TestFlankScenarioFiles plays testdata/scenarios/f-*.yaml the same way,
// with the test vault sealing and revealing flank marches as the service
// does. f-campaign.yaml is left to the service (campaign/standings_test.go):
// its refusals of destroyed units come from the campaign's rosters (V.3),
// which the rules do not hold.
func TestFlankScenarioFiles(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/f-*.yaml")
	if len(files) == 0 {
		t.Fatal("no f-*.yaml scenarios")
	}
	for _, f := range files {
		if filepath.Base(f) == "f-campaign.yaml" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { playScenarioFile(t, f) })
	}
}

// TestDisputeScenarioFiles plays testdata/scenarios/d-*.yaml the same
// way, the player stamping what the service reads from the log on each
// dispute. d-campaign.yaml is left to the service (campaign/review_test.go):
// its rosters are the campaign's.
func TestDisputeScenarioFiles(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/d-*.yaml")
	if len(files) == 0 {
		t.Fatal("no d-*.yaml scenarios")
	}
	for _, f := range files {
		if filepath.Base(f) == "d-campaign.yaml" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { playScenarioFile(t, f) })
	}
}

// playedStep is what one step of a scenario gave.
type playedStep struct {
	Number  int
	Do, ID  string
	Battle  string
	Status  string
	Events  []Event
	Refusal *Refusal
}

// scenarioRun is a scenario file played through Decide: every step's
// outcome, and each battle's state at the end.
type scenarioRun struct {
	Steps  []playedStep
	States map[string]*State
}

// step returns the step with command id id (a scenario step's `id`).
func (r *scenarioRun) step(t testing.TB, id string) playedStep {
	t.Helper()
	for _, st := range r.Steps {
		if st.ID == id {
			return st
		}
	}
	t.Fatalf("no step with id %q", id)
	return playedStep{}
}

// playScenarioFile plays f and checks every step's expectation and that
// each battle's log replays to its live state.
func playScenarioFile(t *testing.T, f string) *scenarioRun {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var sc scenarioFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		t.Fatal(err)
	}
	p := &scenarioPlayer{states: map[string]*State{}, logs: map[string][]Event{}, vault: newVault(), battle: firstNonEmpty(sc.Battle, "b1")}
	run := &scenarioRun{States: p.states}
	for i, st := range sc.Steps {
		if st.Battle != "" {
			p.battle = st.Battle
		}
		ps := p.play(t, firstNonEmpty(st.Actor, sc.Actor), st.Do, st.Dice, st.With)
		ps.Number, ps.Do, ps.ID, ps.Battle = i+1, st.Do, st.ID, p.battle
		run.Steps = append(run.Steps, ps)
		if st.Expect != "" && st.Expect != ps.Status && !(st.Expect == "refused" && strings.HasPrefix(ps.Status, "refused")) {
			t.Errorf("step %d %s (%s): expected %s, got %s", i+1, st.Do, st.Note, st.Expect, ps.Status)
		}
	}
	for battle, log := range p.logs {
		if got := stateJSON(t, replayJSON(t, log)); got != stateJSON(t, p.states[battle]) {
			t.Errorf("battle %s: replay differs from live", battle)
		}
	}
	return run
}

// scenarioPlayer plays steps as the service's runner does: the campaign's
// sides, era and ruleset filled into battle.create, flank-march orders
// sealed and revealed by a vault, physical dice entered by the actor.
type scenarioPlayer struct {
	states  map[string]*State
	logs    map[string][]Event
	spans   map[string][][2]int // each battle's commands: first and last version
	vault   *vault
	battle  string
	sides   []SideSpec
	overlay map[string]any
}

func (p *scenarioPlayer) play(t *testing.T, actor, do string, dice []int, with map[string]any) playedStep {
	t.Helper()
	if do == "campaign.create" {
		var c struct {
			Sides   []SideSpec `json:"sides"`
			Era     string     `json:"era"`
			Ruleset string     `json:"ruleset"`
		}
		raw, _ := json.Marshal(with)
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		p.sides, p.overlay = c.Sides, map[string]any{}
		p.merge(t, c.Ruleset)
		if c.Era != "" {
			p.overlay = mergeYAML(p.overlay, map[string]any{"era": c.Era}).(map[string]any)
		}
		return playedStep{Status: "accepted"}
	}
	if do == "player.add" || do == "player.reissue_token" {
		return playedStep{Status: "accepted"} // the campaign's people: the service's
	}
	if with == nil {
		with = map[string]any{}
	}
	if p.states[p.battle] == nil {
		p.states[p.battle] = NewState()
	}
	s := p.states[p.battle]
	if do == CmdBattleCreate {
		with["battle"] = p.battle
		if _, ok := with["sides"]; !ok {
			with["sides"] = p.sides
		}
		own, _ := with["ruleset"].(string)
		saved := p.overlay
		p.merge(t, own)
		if len(p.overlay) > 0 {
			out, err := yaml.Marshal(p.overlay)
			if err != nil {
				t.Fatal(err)
			}
			with["ruleset"] = string(out)
		}
		p.overlay = saved
	}
	raw, _ := json.Marshal(with)
	c, err := DecodeCommand(do, raw)
	if err != nil {
		t.Fatalf("%s: %v", do, err)
	}
	c = p.vault.prep(t, s, c)
	c = p.disputeFacts(c)
	// The service commits to each dice period's seed and reveals it when
	// the period ends: the same events, so the same versions.
	if next, reveal := DicePeriods(s, c); next != "" || reveal != "" {
		if next != "" {
			c = WithDiceCommitment(c, testSeed.Commitment())
		}
		if reveal != "" {
			c = WithDiceReveal(c, testSeed.Hex())
		}
	}
	fd := &FixedDice{Values: dice, Source: SourcePhysical, EnteredBy: actor}
	evs, err := Decide(s, c, fd)
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return playedStep{Status: "refused " + r.Rule, Refusal: r}
	case err != nil:
		return playedStep{Status: "error: " + err.Error()}
	case sumCounts(fd.Requests) != len(dice):
		return playedStep{Status: "refused dice"}
	}
	for _, e := range evs {
		Apply(s, e)
	}
	if p.spans == nil {
		p.spans = map[string][][2]int{}
	}
	n := len(p.logs[p.battle])
	p.spans[p.battle] = append(p.spans[p.battle], [2]int{n + 1, n + len(evs)})
	p.logs[p.battle] = append(p.logs[p.battle], evs...)
	return playedStep{Status: "accepted", Events: evs}
}

// disputeFacts stamps what the service reads from the log on a dispute
// (campaign/disputes.go): the disputed event's type, the log and the
// disputed command's versions.
func (p *scenarioPlayer) disputeFacts(c Command) Command {
	log := p.logs[p.battle]
	f := &DisputeFacts{Last: uint64(len(log)), Log: slices.Clone(log)}
	switch x := c.(type) {
	case *RaiseDispute:
		if v := x.EventVersion; v >= 1 && int(v) <= len(log) {
			f.EventType = log[v-1].EventType()
		}
	case *UpholdDispute:
		if d := p.states[p.battle].Disputes.dispute(x.Dispute); d != nil {
			for _, sp := range p.spans[p.battle] {
				if v := int(d.EventVersion); v >= sp[0] && v <= sp[1] {
					f.First, f.End = uint64(sp[0]), uint64(sp[1])
				}
			}
		}
	default:
		return c
	}
	return WithDisputeFacts(c, f)
}

// merge deep-merges a YAML overlay into the player's overlay.
func (p *scenarioPlayer) merge(t *testing.T, overlay string) {
	t.Helper()
	if strings.TrimSpace(overlay) == "" {
		return
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(overlay), &m); err != nil {
		t.Fatal(err)
	}
	if p.overlay == nil {
		p.overlay = map[string]any{}
	}
	p.overlay = mergeYAML(p.overlay, m).(map[string]any)
}

func sumCounts(reqs []RollRequest) int {
	n := 0
	for _, r := range reqs {
		n += r.Count
	}
	return n
}
