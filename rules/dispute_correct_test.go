package rules

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules/geom"
)

// correctionLog is the events of the dispute scenario files, for the codec
// and describe tests: every kind of correction.
func correctionLog(t testing.TB) []Event {
	t.Helper()
	files, _ := filepath.Glob("../testdata/scenarios/d-*.yaml")
	var out []Event
	for _, f := range files {
		if filepath.Base(f) == "d-campaign.yaml" {
			continue
		}
		tt, ok := t.(*testing.T)
		if !ok {
			continue
		}
		run := playScenarioFile(tt, f)
		for _, st := range run.Steps {
			out = append(out, st.Events...)
		}
	}
	return out
}

// playDisputeFile plays a d-*.yaml file and returns its run and battle b1's log.
func playDisputeFile(t *testing.T, name string) (*scenarioRun, *State, []Event) {
	t.Helper()
	run := playScenarioFile(t, "../testdata/scenarios/"+name)
	var log []Event
	for _, st := range run.Steps {
		if st.Battle == "b1" || st.Battle == "" {
			log = append(log, st.Events...)
		}
	}
	return run, run.States["b1"], log
}

// stateAfter folds battle b1's events up to and including step id.
func stateAfter(t *testing.T, run *scenarioRun, id string) *State {
	t.Helper()
	s := NewState()
	for _, st := range run.Steps {
		if st.Battle == "b1" || st.Battle == "" {
			for _, e := range st.Events {
				Apply(s, e)
			}
		}
		if st.ID == id {
			return s
		}
	}
	t.Fatalf("no step %s", id)
	return nil
}

// verifyAll checks every correction of log against the rules, as the
// audit does.
func verifyAll(t *testing.T, log []Event) int {
	t.Helper()
	n := 0
	for i, e := range log {
		if !IsCorrectionEvent(e.EventType()) {
			continue
		}
		n++
		if why := VerifyCorrection(log[:i], e); why != "" {
			t.Errorf("event %d %s: %s", i+1, e.EventType(), why)
		}
	}
	return n
}

func TestOrderCorrections(t *testing.T) {
	run, s, log := playDisputeFile(t, "d-order.yaml")
	// 1. The dice: failed, put back, Friant locked out.
	s1 := stateAfter(t, run, "r-dice")
	u, ut := s1.Units["fr-a"], s1.TurnBook.Units["fr-a"]
	if u.Base.Center != (geom.Vec{X: 20, Y: 16}) || !ut.Failed || ut.ActionsLeft != 0 || ut.ActionsGranted != 0 {
		t.Errorf("fr-a %+v, turn %+v", u.Base, ut)
	}
	if g := s1.TurnBook.Generals["fr-1-gen"]; !g.Done || g.Reason != "C.4" {
		t.Errorf("Friant's turn %+v", g)
	}
	oc := findEvent[*OrderCorrected](run.step(t, "r-dice").Events)
	if oc.Resolved.Outcome != OutcomeFailed || oc.Original.Actions != 2 || oc.Order != 8 || oc.Ruling != 11 || oc.EventVersion != 8 {
		t.Errorf("order.corrected %+v", oc)
	}
	// 2. The general: Davout's, rating 9 less one step of 12".
	oc = findEvent[*OrderCorrected](run.step(t, "r-general").Events)
	if oc.Resolved.General != "fr-cinc" || !oc.Resolved.CInC || oc.Resolved.Effective != 8 || oc.Resolved.Actions != 1 {
		t.Errorf("re-resolved as Davout's: %+v", oc.Resolved)
	}
	s2 := stateAfter(t, run, "r-general")
	if g, m := s2.TurnBook.Generals["fr-cinc"], s2.TurnBook.Generals["fr-2-gen"]; g == nil || g.Orders != 1 || (m != nil && m.Orders != 0) || s2.TurnBook.CurrentGeneral != "fr-cinc" {
		t.Errorf("Davout's turn %+v, Morand's %+v", g, m)
	}
	// 3. The road: +2, three actions.
	oc = findEvent[*OrderCorrected](run.step(t, "r-road").Events)
	if ut := stateAfter(t, run, "r-road").TurnBook.Units["fr-col"]; oc.Resolved.Effective != 9 || oc.Resolved.Actions != 3 || ut.ActionsLeft != 3 {
		t.Errorf("road: %+v, turn %+v", oc.Resolved, ut)
	}
	if m := oc.Resolved.Modifiers; len(m) != 1 || m[0].Kind != ModColumnOnRoad || m[0].Road != RoadDeclared || m[0].Value != 2 {
		t.Errorf("road modifiers %+v", m)
	}
	// 4. The blunder: retire one move; the blunder roll entered with the
	// correction is no roll of the log (counter 0).
	oc = findEvent[*OrderCorrected](run.step(t, "r-blunder").Events)
	if oc.Resolved.Outcome != OutcomeBlunder || oc.Resolved.Blunder == nil || oc.Resolved.Blunder.Counter != 0 || oc.Resolved.Blunder.Result != BlunderRetire || len(oc.Blunders) != 1 {
		t.Errorf("blunder %+v %+v", oc.Resolved, oc.Blunders)
	}
	if u := s.Units["au-a"]; u.Base.Center != (geom.Vec{X: 20, Y: 46}) || !s.TurnBook.Units["au-a"].Blundered {
		t.Errorf("au-a %+v %+v", u.Base, s.TurnBook.Units["au-a"])
	}
	if n := verifyAll(t, log); n != 5 {
		t.Errorf("%d corrections verified, want 5", n)
	}
	// A correction whose re-resolution was altered is caught.
	for i, e := range log {
		if x, ok := e.(*OrderCorrected); ok {
			bad := *x
			bad.Resolved.Actions++
			if why := VerifyCorrection(log[:i], &bad); !strings.Contains(why, "resolved") {
				t.Errorf("altered re-resolution: %q", why)
			}
			break
		}
	}
}

// TestDigitalDiceNotCorrected: a digital roll is provable and stands; its
// order may still be resolved again on other inputs.
func TestDigitalDiceNotCorrected(t *testing.T) {
	j := newJournal(setup(t))
	j.do(t, "o1", "alice", CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`, 3, 3)
	j.do(t, "q1", "bob", CmdDisputeRaise, `{"event_version":`+vstr(uint64(len(j.evs)))+`,"reason":"those were not the dice"}`)
	r := j.no(t, "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"x","order":{"dice":[5,6]}}`, RuleDispute, "digital_dice")
	if !strings.Contains(r.Message, "digital") {
		t.Errorf("message %q", r.Message)
	}
	// Without the facts the service reads from the log, no order is corrected.
	refused(t, j.s, cmd(t, CmdDisputeUphold, `{"dispute":1,"ruling":"x","order":{"general":"red-cinc"}}`), nil, RuleDispute, "no_facts")
	// The general stood 15" away: one step of 12", -1: 6 against 7, one action.
	j.no(t, "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"x","order":{"general_at":{"x":20,"y":-3}}}`, "K.3", "off_table")
	evs := j.do(t, "u1", "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"he stood farther back","order":{"general_at":{"x":5,"y":1}}}`)
	oc := evs[1].(*OrderCorrected)
	if oc.Resolved.Effective != 7 || oc.Resolved.Actions != 1 || j.s.TurnBook.Units["r1-inf1"].ActionsLeft != 1 {
		t.Errorf("re-resolved %+v; turn %+v", oc.Resolved, j.s.TurnBook.Units["r1-inf1"])
	}
	if p := j.s.Sides[0].Brigades[0].General.Position; p != (geom.Vec{X: 5, Y: 1}) {
		t.Errorf("general at %v", p)
	}
	if replay := given(j.evs...); stateJSON(t, replay) != stateJSON(t, j.s) {
		t.Fatal("replay differs from live")
	}
}

func TestMoveCorrections(t *testing.T) {
	_, s, log := playDisputeFile(t, "d-move.yaml")
	for id, want := range map[string]geom.Vec{"fr-b": {X: 59, Y: 12}, "fr-a": {X: 20, Y: 22}, "au-a2": {X: 15.5, Y: 30}, "fr-m": {X: 66, Y: 4}} {
		if got := s.Units[id].Base.Center; got != want {
			t.Errorf("%s at %v, want %v", id, got, want)
		}
	}
	if ut := s.TurnBook.Units["fr-m"]; ut != nil && ut.Marched != 0 {
		t.Errorf("fr-m's march still counted: %+v", ut)
	}
	if n := verifyAll(t, log); n != 4 {
		t.Errorf("%d corrections verified, want 4", n)
	}
}

func TestGeneralCorrections(t *testing.T) {
	_, s, log := playDisputeFile(t, "d-general.yaml")
	g := s.Sides[0].Brigades[0].General
	if g.AttachedTo != "" || g.Position != (geom.Vec{X: 24, Y: 10}) {
		t.Errorf("Friant %+v", g)
	}
	if gt := s.TurnBook.Generals["fr-1-gen"]; gt.Done || gt.Orders != 2 {
		t.Errorf("Friant's turn %+v", gt)
	}
	verifyAll(t, log)
}

func TestFlankCorrections(t *testing.T) {
	run, s, log := playDisputeFile(t, "d-flank.yaml")
	fc := findEvent[*FlankCorrected](run.step(t, "r-roll").Events)
	if fc.Set.Roll != 3 || fc.Set.ArrivalTurn != 3 || strings.Join(fc.Withdrawn, ",") != "rf-inf1" {
		t.Errorf("roll corrected %+v", fc)
	}
	m1, m2 := s.march(1), s.march(2)
	if m1.Entry != EntryOrdered || m1.ArrivalTurn != 4 || s.Units["rf-inf1"].Status != UnitOffTable || strings.Join(m1.Waiting, ",") != "rf-inf1,rf-inf2" || len(m1.Entered) != 0 {
		t.Errorf("march 1 %+v", m1)
	}
	if m2.ChosenEntry == nil || *m2.ChosenEntry != (geom.Vec{X: 72, Y: 12}) {
		t.Errorf("march 2 %+v", m2)
	}
	verifyAll(t, log)
}

func TestScoreCorrections(t *testing.T) {
	run, s, log := playDisputeFile(t, "d-score.yaml")
	rs := findEvent[*BattleRescored](run.step(t, "r-routed").Events)
	if rs.Before.Points("red") != 8 || rs.Score.Points("red") != 5 {
		t.Errorf("first rescore %+v", rs)
	}
	if sc := s.Victory.Score; sc.Points("red") != 0 || sc.Points("blue") != 5 {
		t.Errorf("score %+v", sc)
	}
	if n := verifyAll(t, log); n != 4 {
		t.Errorf("%d corrections verified, want 4", n)
	}
	// A rescore typed in, not computed, is caught.
	for i, e := range log {
		if x, ok := e.(*BattleRescored); ok {
			bad := *x
			bad.Score.Sides = slices.Clone(bad.Score.Sides)
			bad.Score.Sides[0].Points += 10
			if why := VerifyCorrection(log[:i], &bad); !strings.Contains(why, "score") {
				t.Errorf("typed-in score: %q", why)
			}
			break
		}
	}
}
