package rules

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// journal plays the service's part for retractions and disputes
// (campaign/disputes.go): it keeps each command's id, actor and events with
// their versions, and stamps the facts the log holds.
type journal struct {
	s    *State
	evs  []Event
	cmds []journalEntry
	// physical: dice are entered at the table by the actor (else digital).
	physical bool
	// successors are stamped on dispute.uphold (later battles started).
	successors []string
}

type journalEntry struct {
	id, actor   string
	first, last int // versions, 1-based, inclusive
}

func newJournal(evs []Event, s *State) *journal {
	j := &journal{s: s, evs: slices.Clone(evs)}
	if len(evs) > 0 {
		j.cmds = append(j.cmds, journalEntry{id: "setup", actor: "umpire", first: 1, last: len(evs)})
	}
	return j
}

func (j *journal) prep(c Command, actor string) Command {
	switch x := c.(type) {
	case *RequestRetract:
		x.Facts = j.retractFacts(x.CommandID, actor)
	case *RaiseDispute:
		f := &DisputeFacts{Last: uint64(len(j.evs))}
		if x.EventVersion >= 1 && int(x.EventVersion) <= len(j.evs) {
			f.EventType = j.evs[x.EventVersion-1].EventType()
		}
		x.Facts = f
	case *UpholdDispute:
		f := &DisputeFacts{Last: uint64(len(j.evs)), Log: slices.Clone(j.evs), Successors: j.successors}
		if d := j.s.Disputes.dispute(x.Dispute); d != nil {
			for _, c := range j.cmds {
				if v := int(d.EventVersion); v >= c.first && v <= c.last {
					f.First, f.End = uint64(c.first), uint64(c.last)
				}
			}
		}
		x.Facts = f
	}
	return c
}

func (j *journal) dice(actor string, vals []int) Dice {
	if j.physical {
		return &FixedDice{Values: vals, Source: SourcePhysical, EnteredBy: actor}
	}
	return NewFixedDice(vals...)
}

func (j *journal) do(t testing.TB, id, actor, name, body string, dice ...int) []Event {
	t.Helper()
	evs := mustDecide(t, j.s, j.prep(cmd(t, name, body), actor), j.dice(actor, dice))
	j.cmds = append(j.cmds, journalEntry{id: id, actor: actor, first: len(j.evs) + 1, last: len(j.evs) + len(evs)})
	j.evs = append(j.evs, evs...)
	return evs
}

func (j *journal) no(t testing.TB, actor, name, body, rule, code string, dice ...int) *Refusal {
	t.Helper()
	return refused(t, j.s, j.prep(cmd(t, name, body), actor), j.dice(actor, dice), rule, code)
}

func (j *journal) retractFacts(id, requester string) *RetractFacts {
	f := &RetractFacts{Requester: requester}
	at := -1
	for i, c := range j.cmds {
		if c.id == id {
			at = i
		}
	}
	if at < 0 {
		return f
	}
	c := j.cmds[at]
	f.Actor = c.actor
	for v := c.first; v <= c.last; v++ {
		f.Versions = append(f.Versions, uint64(v))
		f.Events = append(f.Events, j.evs[v-1])
	}
	for _, later := range j.cmds[at+1:] {
		only := true
		for v := later.first; v <= later.last; v++ {
			only = only && IsDisputeEvent(j.evs[v-1].EventType())
		}
		if later.actor == c.actor && !only && f.Later == "" {
			f.Later = later.id
		}
	}
	if c.last < len(j.evs) {
		f.Next = uint64(c.last + 1)
	}
	for v := c.last + 1; v <= len(j.evs); v++ {
		if j.evs[v-1].EventType() == EvDiceRolled {
			f.RolledSince = append(f.RolledSince, uint64(v))
		}
	}
	f.Before = given(j.evs[:c.first-1]...)
	return f
}

// TestRetractAtOnce: a player's quick undo. With nothing happened since,
// at_once takes the move back at once, no agreement asked: the request
// and the retraction in one command, both marked at_once, the unit and its
// actions restored. Once anything has happened after a command (here the
// opponent's dispute), at_once is refused, naming the event, and the
// ordinary request (the opponent to agree) still stands; a command that
// rolled is never taken back, at once or not.
func TestRetractAtOnce(t *testing.T) {
	j := newJournal(setup(t))
	j.do(t, "o1", "alice", CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`, 3, 3)
	before := j.s.Clone()
	j.do(t, "m1", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`)
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"o1","at_once":true}`, RuleRetract, "rolled")
	undo := j.do(t, "u1", "alice", CmdRetractRequest, `{"command_id":"m1","at_once":true}`)
	if len(undo) != 2 {
		t.Fatalf("undo: %s", eventsJSON(t, undo))
	}
	rr, ok1 := undo[0].(*RetractRequested)
	cr, ok2 := undo[1].(*CommandRetracted)
	if !ok1 || !ok2 || !rr.AtOnce || !cr.AtOnce || cr.Request != rr.Request || cr.CommandID != "m1" {
		t.Fatalf("undo: %s", eventsJSON(t, undo))
	}
	if got := j.s.Units["r1-inf1"]; *got != *before.Units["r1-inf1"] {
		t.Fatalf("unit not restored: %+v, want %+v", got, before.Units["r1-inf1"])
	}
	if got, want := *j.s.TurnBook.Units["r1-inf1"], *before.TurnBook.Units["r1-inf1"]; got != want {
		t.Fatalf("turn not restored: %+v, want %+v", got, want)
	}
	if d := Describe(cr); !strings.Contains(d, "taken back by its player, nothing having happened since") {
		t.Errorf("described as %q", d)
	}

	j.do(t, "m2", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`)
	moved := len(j.evs)
	j.do(t, "q1", "bob", CmdDisputeRaise, `{"event_version":`+vstr(uint64(moved))+`,"reason":"too far"}`)
	r := j.no(t, "alice", CmdRetractRequest, `{"command_id":"m2","at_once":true}`, RuleRetract, "happened_since")
	if r.Numbers["version"] != float64(moved+1) {
		t.Errorf("the refusal's numbers %v: want the dispute's version %d", r.Numbers, moved+1)
	}
	asked := j.do(t, "r2", "alice", CmdRetractRequest, `{"command_id":"m2"}`)
	if len(asked) != 1 || asked[0].(*RetractRequested).AtOnce || j.s.Units["r1-inf1"].Base.Center.Y != 16 {
		t.Fatalf("the ordinary request after a dispute: %s", eventsJSON(t, asked))
	}
}

func TestRetractWithAgreement(t *testing.T) {
	j := newJournal(setup(t))
	j.do(t, "o1", "alice", CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`, 3, 3)
	before := j.s.Clone()
	j.do(t, "m1", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`)
	if u := j.s.Units["r1-inf1"]; u.Base.Center.Y != 16 || j.s.TurnBook.Units["r1-inf1"].ActionsLeft != 1 {
		t.Fatalf("after the move: %+v", u)
	}
	// Only the actor asks; the order rolled dice; nothing unknown.
	j.no(t, "bob", CmdRetractRequest, `{"command_id":"m1"}`, RuleRetract, "not_yours")
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"o1"}`, RuleRetract, "rolled")
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"nope"}`, RuleRetract, "unknown_command")
	j.no(t, "alice", CmdRetractAgree, `{"request":1}`, RuleRetract, "no_request")
	refused(t, j.s, cmd(t, CmdRetractRequest, `{"command_id":"m1"}`), nil, RuleRetract, "no_facts")

	req := j.do(t, "r1", "alice", CmdRetractRequest, `{"command_id":"m1"}`)
	rr := req[0].(*RetractRequested)
	if rr.Request != 1 || !slices.Equal(rr.Versions, []uint64{uint64(len(j.evs) - 1)}) || len(rr.Restore.Units) != 1 || rr.Restore.Units[0].Base.Center.Y != 10 {
		t.Fatalf("request %s", eventsJSON(t, req))
	}
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"m1"}`, RuleRetract, "already_asked")
	// The request itself changes nothing on the table.
	if j.s.Units["r1-inf1"].Base.Center.Y != 16 {
		t.Fatal("the request moved the unit")
	}
	done := j.do(t, "a1", "bob", CmdRetractAgree, `{"request":1}`)
	if _, ok := done[0].(*CommandRetracted); !ok {
		t.Fatalf("agree: %s", eventsJSON(t, done))
	}
	if got := j.s.Units["r1-inf1"]; *got != *before.Units["r1-inf1"] {
		t.Fatalf("unit not restored: %+v, want %+v", got, before.Units["r1-inf1"])
	}
	if got, want := *j.s.TurnBook.Units["r1-inf1"], *before.TurnBook.Units["r1-inf1"]; got != want {
		t.Fatalf("turn not restored: %+v, want %+v", got, want)
	}
	if r := j.s.Disputes.Retracts[0]; r.Status != RetractDone {
		t.Fatalf("request %+v", r)
	}
	j.no(t, "bob", CmdRetractAgree, `{"request":1}`, RuleRetract, "not_pending")
	// The unit may move again with its restored actions.
	j.do(t, "m2", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`)
	if replay := given(j.evs...); stateJSON(t, replay) != stateJSON(t, j.s) {
		t.Fatal("replay differs from live")
	}
}

func TestRetractRefusals(t *testing.T) {
	j := newJournal(setup(t))
	j.do(t, "o1", "alice", CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1","r1-inf2"],"content":{"action":"move"}}`, 3, 3)
	j.do(t, "m1", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":13}}`)
	j.do(t, "m2", "alice", CmdUnitMove, `{"unit":"r1-inf2","to":{"x":27,"y":13}}`)
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"m1"}`, RuleRetract, "not_last")
	// A second move of the same unit: the first is no longer the last.
	j.do(t, "r2", "alice", CmdRetractRequest, `{"command_id":"m2"}`)
	j.do(t, "d2", "bob", CmdRetractDecline, `{"request":1,"reason":"no"}`)
	if j.s.Disputes.Retracts[0].Status != RetractStatusDeclined || j.s.Units["r1-inf2"].Base.Center.Y != 13 {
		t.Fatal("decline changed something")
	}
	// A dice roll since: only the umpire corrects.
	j.do(t, "o2", "alice", CmdOrderGive, `{"general":"r2-gen","units":["r2-lc"],"content":{"action":"move"}}`, 3, 3)
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"m2"}`, RuleRetract, "not_last")
	j.do(t, "m3", "alice", CmdUnitMove, `{"unit":"r2-lc","to":{"x":50,"y":14}}`)
	j.do(t, "r3", "alice", CmdRetractRequest, `{"command_id":"m3"}`)
	// A roll between request and agreement spoils it.
	j.do(t, "o3", "alice", CmdOrderGive, `{"general":"red-cinc","units":["r2-hvy"],"content":{"action":"move"}}`, 3, 3)
	j.no(t, "bob", CmdRetractAgree, `{"request":2}`, RuleRetract, "rolled_since")
	// Ending a phase cannot be taken back.
	j.do(t, "p1", "alice", CmdPhaseEnd, `{"side":"red"}`)
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"p1"}`, RuleRetract, "not_invertible")
}

func TestDisputeUpheldAndDismissed(t *testing.T) {
	j := newJournal(setup(t))
	j.do(t, "o1", "alice", CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`, 3, 3)
	j.do(t, "m1", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`)
	order := uint64(len(j.evs) - 1)
	j.no(t, "bob", CmdDisputeRaise, `{"event_version":999,"reason":"x"}`, RuleDispute, "no_event")
	j.no(t, "bob", CmdDisputeRaise, `{"event_version":3,"reason":" "}`, RuleDispute, "no_reason")
	raised := j.do(t, "q1", "bob", CmdDisputeRaise, `{"event_version":`+vstr(order)+`,"reason":"the 33rd was out of command range"}`)
	dr := raised[0].(*DisputeRaised)
	if dr.Dispute != 1 || dr.DisputedType != EvOrderResolved || dr.EventVersion != order {
		t.Fatalf("raised %s", eventsJSON(t, raised))
	}
	j.no(t, "bob", CmdDisputeRaise, `{"event_version":`+vstr(order)+`,"reason":"again"}`, RuleDispute, "already_open")
	j.no(t, "uma", CmdDisputeUphold, `{"dispute":1,"ruling":""}`, RuleDispute, "no_ruling")
	j.no(t, "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"r","corrections":[{"unit":"ghost","markers":1}]}`, RuleDispute, "bad_correction")
	j.no(t, "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"r","corrections":[{"unit":"r1-inf1","formation":"wedge"}]}`, RuleDispute, "bad_correction")
	up := j.do(t, "u1", "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"out of range: the move stands undone",
		"corrections":[{"unit":"r1-inf1","base":{"center":{"x":20,"y":10},"facing":0},"actions_left":0,"markers":1}]}`)
	if len(up) != 2 {
		t.Fatalf("uphold %s", eventsJSON(t, up))
	}
	uc := up[1].(*UnitCorrected)
	if uc.Before.Base.Center.Y != 16 || uc.Before.ActionsLeft != 1 || uc.Base.Width == 0 || uc.EventVersion != order {
		t.Fatalf("correction %s", eventsJSON(t, up))
	}
	u := j.s.Units["r1-inf1"]
	if u.Base.Center.Y != 10 || u.Markers != 1 || j.s.TurnBook.Units["r1-inf1"].ActionsLeft != 0 || u.Base.Width != uc.Before.Base.Width {
		t.Fatalf("corrected unit %+v", u)
	}
	j.no(t, "uma", CmdDisputeDismiss, `{"dispute":1,"ruling":"x"}`, RuleDispute, "closed")
	j.do(t, "q2", "alice", CmdDisputeRaise, `{"event_version":2,"reason":"deployment too close"}`)
	j.do(t, "x2", "uma", CmdDisputeDismiss, `{"dispute":2,"ruling":"the deployment was measured"}`)
	if d := j.s.Disputes.Disputes; d[0].Status != DisputeStatusUpheld || d[1].Status != DisputeStatusDismissed || d[1].Ruling == "" {
		t.Fatalf("disputes %+v", d)
	}
	// Disputes go on after the battle has ended.
	j.do(t, "end", "uma", CmdBattleEnd, `{"reason":"agreed"}`)
	j.do(t, "q3", "bob", CmdDisputeRaise, `{"event_version":3,"reason":"late objection"}`)
	j.no(t, "alice", CmdRetractRequest, `{"command_id":"m1"}`, "T.5", "battle_ended")
	if replay := given(j.evs...); stateJSON(t, replay) != stateJSON(t, j.s) {
		t.Fatal("replay differs from live")
	}
}

func vstr(v uint64) string { return strconv.FormatUint(v, 10) }

// disputeLog is a battle that emits every event type of disputes, for the
// codec and describe tests.
func disputeLog(t testing.TB) []Event {
	t.Helper()
	all, s := setup(t)
	j := newJournal(all, s)
	start := len(j.evs)
	j.do(t, "o1", "alice", CmdOrderGive, `{"general":"r1-gen","units":["r1-inf1"],"content":{"action":"move"}}`, 3, 3)
	j.do(t, "m1", "alice", CmdUnitMove, `{"unit":"r1-inf1","to":{"x":20,"y":16}}`)
	j.do(t, "r1", "alice", CmdRetractRequest, `{"command_id":"m1"}`)
	j.do(t, "d1", "bob", CmdRetractDecline, `{"request":1,"reason":"it stands"}`)
	j.do(t, "r2", "alice", CmdRetractRequest, `{"command_id":"m1"}`)
	j.do(t, "a2", "bob", CmdRetractAgree, `{"request":2}`)
	j.do(t, "q1", "bob", CmdDisputeRaise, `{"event_version":5,"reason":"why"}`)
	j.do(t, "u1", "uma", CmdDisputeUphold, `{"dispute":1,"ruling":"yes","corrections":[{"unit":"r1-inf1","status":"disordered"}]}`)
	j.do(t, "q2", "bob", CmdDisputeRaise, `{"event_version":5,"reason":"again"}`)
	j.do(t, "x2", "uma", CmdDisputeDismiss, `{"dispute":2,"ruling":"no"}`)
	return append(j.evs[start:], correctionLog(t)...)
}

func TestDisputeLogDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range disputeLog(t) {
		seen[e.EventType()] = true
		if d := Describe(e); d == "" || d == e.EventType() {
			t.Errorf("%s: no description", e.EventType())
		}
	}
	for _, typ := range []string{EvRetractRequested, EvRetractDeclined, EvCommandRetracted, EvDisputeRaised, EvDisputeUpheld, EvDisputeDismissed, EvUnitCorrected} {
		if !seen[typ] {
			t.Errorf("%s not emitted", typ)
		}
	}
}
