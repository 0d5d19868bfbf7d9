package rules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// scenarioFile is the part of the scenario format (campaign.Scenario,
// docs/scenario-format.md) the rules need to play a file without the
// service: commands, physical dice and expectations.
type scenarioFile struct {
	Name     string `yaml:"name"`
	Campaign string `yaml:"campaign"`
	Battle   string `yaml:"battle"`
	Actor    string `yaml:"actor"`
	Steps    []struct {
		Do     string         `yaml:"do"`
		Battle string         `yaml:"battle"`
		Actor  string         `yaml:"actor"`
		Dice   []int          `yaml:"dice"`
		With   map[string]any `yaml:"with"`
		Expect string         `yaml:"expect"`
		Note   string         `yaml:"note"`
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

func playScenarioFile(t *testing.T, f string) {
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
	s := NewState()
	var log []Event
	var sides []SideSpec
	era := ""
	for i, st := range sc.Steps {
		status := playStep(t, s, &log, &sides, &era, sc.Actor, st.Do, st.Actor, st.Dice, st.With)
		if st.Expect != "" && st.Expect != status && !(st.Expect == "refused" && strings.HasPrefix(status, "refused")) {
			t.Errorf("step %d %s (%s): expected %s, got %s", i+1, st.Do, st.Note, st.Expect, status)
		}
	}
	if got := stateJSON(t, replayJSON(t, log)); got != stateJSON(t, s) {
		t.Error("replay differs from live")
	}
}

func playStep(t *testing.T, s *State, log *[]Event, sides *[]SideSpec, era *string, actor, do, stepActor string, dice []int, with map[string]any) string {
	t.Helper()
	if stepActor != "" {
		actor = stepActor
	}
	if do == "campaign.create" {
		var c struct {
			Sides []SideSpec `json:"sides"`
			Era   string     `json:"era"`
		}
		raw, _ := json.Marshal(with)
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		*sides, *era = c.Sides, c.Era
		return "accepted"
	}
	if with == nil {
		with = map[string]any{}
	}
	if do == CmdBattleCreate {
		with["battle"] = "b1"
		if _, ok := with["sides"]; !ok {
			with["sides"] = *sides
		}
		if *era != "" {
			with["ruleset"] = "era: " + *era
		}
	}
	raw, _ := json.Marshal(with)
	c, err := DecodeCommand(do, raw)
	if err != nil {
		t.Fatalf("%s: %v", do, err)
	}
	fd := &FixedDice{Values: dice, Source: SourcePhysical, EnteredBy: actor}
	evs, err := Decide(s, c, fd)
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return "refused " + r.Rule
	case err != nil:
		return "error: " + err.Error()
	case sumCounts(fd.Requests) != len(dice):
		return "refused dice"
	}
	for _, e := range evs {
		Apply(s, e)
	}
	*log = append(*log, evs...)
	return "accepted"
}

func sumCounts(reqs []RollRequest) int {
	n := 0
	for _, r := range reqs {
		n += r.Count
	}
	return n
}
