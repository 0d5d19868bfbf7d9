package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/rules"
)

// Scenario is a scripted sequence of commands (docs/scenario-format.md).
type Scenario struct {
	// ID prefixes the default command ids, so that playing the same
	// scenario twice into one ledger appends nothing the second time.
	ID string `yaml:"id"`
	// Name is shown when the scenario is played.
	Name string `yaml:"name"`
	// Campaign is the default campaign of every step.
	Campaign string `yaml:"campaign"`
	// Battle is the default battle of every step.
	Battle string `yaml:"battle"`
	// Actor is the default actor of every step: the person of the campaign
	// each command is entered for. Default "umpire": whoever plays the file
	// (the operator), for nobody else.
	Actor string `yaml:"actor"`
	// Steps are played in order.
	Steps []Step `yaml:"steps"`

	dir string
}

// Step is one command of a scenario, and optionally what it must give.
type Step struct {
	// Do is the command name (campaign.create, battle.create, order.give...).
	Do string `yaml:"do"`
	// ID is the command id; default "<scenario id>-<step number>".
	ID string `yaml:"id"`
	// Campaign, Battle and Actor override the scenario's defaults; a
	// battle named here becomes the default for the following steps.
	Campaign string `yaml:"campaign"`
	Battle   string `yaml:"battle"`
	Actor    string `yaml:"actor"`
	// Dice are physical dice entered for the command; absent: digital.
	Dice []int `yaml:"dice"`
	// With is the command's body.
	With map[string]any `yaml:"with"`
	// WithFile reads the body from a YAML file, relative to the scenario.
	WithFile string `yaml:"with_file"`
	// Expect is "accepted", "duplicate", "refused" or "refused <rule>"
	// ("refused C.17"); a step that gives anything else fails the run.
	Expect string `yaml:"expect"`
	// Note is printed before the step.
	Note string `yaml:"note"`
}

// StepResult is what one step gave.
type StepResult struct {
	Number  int
	Step    Step
	Request Request
	Outcome Outcome
	// Refusal is set when the rules refused the command.
	Refusal *rules.Refusal
	// Err is set when the command failed for another reason.
	Err error
	// Mismatch says how the result differs from the step's Expect.
	Mismatch string
}

// StepState is a step's outcome in parts: what it gave (StepResult.State)
// or what it expects (Step.Expected).
type StepState struct {
	// Outcome is "accepted", "duplicate", "refused" or "error" (what a
	// step expects may be anything its file says).
	Outcome string
	// Rule is the rule a refusal cites ("C.17"); empty for another
	// outcome, or an expected refusal that names no rule.
	Rule string
}

// String says it as a step's expect: does: "accepted", "refused C.17".
func (s StepState) String() string {
	if s.Rule != "" {
		return s.Outcome + " " + s.Rule
	}
	return s.Outcome
}

// State is what the step gave.
func (r StepResult) State() StepState {
	switch {
	case r.Refusal != nil:
		return StepState{Outcome: "refused", Rule: r.Refusal.Rule}
	case r.Err != nil:
		return StepState{Outcome: "error"}
	case r.Outcome.Duplicate:
		return StepState{Outcome: "duplicate"}
	default:
		return StepState{Outcome: "accepted"}
	}
}

// Status is State in words: "accepted", "duplicate", "refused <rule>" or
// "error".
func (r StepResult) Status() string { return r.State().String() }

// Expected is the step's Expect in parts: "refused C.17" is a refusal
// citing C.17; anything else is an outcome as it is.
func (st Step) Expected() StepState {
	if rule, ok := strings.CutPrefix(st.Expect, "refused "); ok && rule != "" {
		return StepState{Outcome: "refused", Rule: rule}
	}
	return StepState{Outcome: st.Expect}
}

// ErrExpectation is returned by Play when a step did not give what it expected.
var ErrExpectation = errors.New("scenario: a step did not give what it expected")

// LoadScenario reads a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	sc, err := ParseScenario(b)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	sc.dir = filepath.Dir(path)
	if sc.ID == "" {
		sc.ID = slug(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	return sc, nil
}

var expectPattern = regexp.MustCompile(`^(accepted|duplicate|refused( [A-Za-z]+(\.[0-9]+)?)?)$`)

// ParseScenario parses and checks a scenario document.
func ParseScenario(b []byte) (*Scenario, error) {
	var sc Scenario
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if sc.Actor == "" {
		sc.Actor = "umpire"
	}
	if sc.ID == "" {
		sc.ID = slug(sc.Name)
	}
	if len(sc.Steps) == 0 {
		return nil, errors.New("no steps")
	}
	for i, st := range sc.Steps {
		n := i + 1
		if st.Do == "" {
			return nil, fmt.Errorf("step %d: no command (do:)", n)
		}
		if st.With != nil && st.WithFile != "" {
			return nil, fmt.Errorf("step %d: with and with_file together", n)
		}
		if st.Expect != "" && !expectPattern.MatchString(st.Expect) {
			return nil, fmt.Errorf("step %d: expect %q: want accepted, duplicate, refused or refused <rule>", n, st.Expect)
		}
	}
	return &sc, nil
}

// Executor runs commands: the Service itself, or the ledger's one door
// (the app package) when a scenario is played through it.
type Executor interface {
	Execute(ctx context.Context, req Request) (Outcome, error)
}

// ScenarioUmpire is the actor that stands for whoever plays the file.
const ScenarioUmpire = "umpire"

// Play runs every step in order through exec, as principal as, calling
// report after each. A step's actor other than "umpire" is the person of
// the campaign the command is entered for (Request.For): recorded as
// entered by as on their behalf, and authorised as theirs. It goes on after
// a refusal (refusals are outcomes a scenario may expect) and returns
// ErrExpectation if any step's expectation failed, or the first error that
// is neither a refusal nor a mismatch.
func (sc *Scenario) Play(ctx context.Context, exec Executor, as Principal, report func(StepResult)) error {
	campaignID, battle, failed := sc.Campaign, sc.Battle, false
	for i, st := range sc.Steps {
		n := i + 1
		if st.Campaign != "" {
			campaignID = st.Campaign
		}
		if st.Battle != "" {
			battle = st.Battle
		}
		req := Request{
			ID:        st.ID,
			Principal: as,
			Campaign:  campaignID,
			Name:      st.Do,
			Dice:      DiceInput{Values: st.Dice},
		}
		if actor := firstNonEmpty(st.Actor, sc.Actor); actor != ScenarioUmpire {
			req.For = actor
		}
		if req.ID == "" {
			req.ID = fmt.Sprintf("%s-%d", sc.ID, n)
		}
		if !IsCampaignCommand(st.Do) {
			req.Battle = battle
		}
		body, err := sc.body(st)
		if err != nil {
			return fmt.Errorf("scenario step %d: %w", n, err)
		}
		req.Body = body
		res := StepResult{Number: n, Step: st, Request: req}
		res.Outcome, err = exec.Execute(ctx, req)
		if err != nil {
			var r *rules.Refusal
			if errors.As(err, &r) {
				res.Refusal = r
			} else {
				res.Err = err
			}
		}
		res.Mismatch = mismatch(st.Expect, res)
		if res.Mismatch != "" {
			failed = true
		}
		if report != nil {
			report(res)
		}
		if res.Err != nil {
			return fmt.Errorf("scenario step %d (%s): %w", n, st.Do, res.Err)
		}
	}
	if failed {
		return ErrExpectation
	}
	return nil
}

func (sc *Scenario) body(st Step) (json.RawMessage, error) {
	v := any(st.With)
	if st.WithFile != "" {
		b, err := os.ReadFile(filepath.Join(sc.dir, st.WithFile))
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", st.WithFile, err)
		}
		v = m
	}
	if st.With == nil && st.WithFile == "" {
		v = map[string]any{}
	}
	return json.Marshal(v)
}

func mismatch(expect string, r StepResult) string {
	if expect == "" {
		return ""
	}
	got := r.Status()
	switch {
	case expect == got:
		return ""
	case expect == "refused" && r.Refusal != nil:
		return ""
	case expect == "accepted" && got == "duplicate":
		// Accepted before, with the same command id: the recorded outcome.
		return ""
	}
	return fmt.Sprintf("expected %s, got %s", expect, got)
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

var nonSlug = regexp.MustCompile(`[^a-z0-9_-]+`)

func slug(s string) string {
	s = nonSlug.ReplaceAllString(strings.ToLower(s), "-")
	s = strings.Trim(s, "-")
	if s == "" {
		return "scenario"
	}
	return s
}

// LastBattle returns the battle the scenario's last steps address.
func (sc *Scenario) LastBattle() string {
	b := sc.Battle
	for _, st := range sc.Steps {
		if st.Battle != "" {
			b = st.Battle
		}
	}
	return b
}
