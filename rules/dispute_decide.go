// Decisions of retractions and disputes (docs/disputes.md).

package rules

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clubledger/ledger/rules/geom"
)

// maxText bounds a reason or a ruling, in characters (as the service's
// input limits count them: a Russian reason is not held to half).
const maxText = 2000

// retractOpen refuses a retraction once the battle has ended: from then on
// a command is disputed, not taken back.
func retractOpen(s *State) *Refusal {
	if s.Status == StatusEnded {
		return refuse("T.5", "battle_ended", "the battle has ended (%s): a command is no longer taken back; raise a dispute", s.EndReason)
	}
	return nil
}

// decideRetractDecline judges command.retract_decline: the opponent
// declines, or the requester withdraws; nothing changes.
func decideRetractDecline(s *State, c *DeclineRetract) ([]Event, *Refusal) {
	r := s.Disputes.retract(c.Request)
	if r == nil || r.Status != RetractPending {
		return nil, noPending(s, c.Request)
	}
	if n := utf8.RuneCountInString(c.Reason); n > maxText {
		return nil, refuse(RuleRetract, "long_reason", "a reason is at most %d characters; %d given", maxText, n)
	}
	return []Event{&RetractDeclined{Request: r.N, CommandID: r.CommandID, Reason: strings.TrimSpace(c.Reason)}}, nil
}

// decideDismiss judges dispute.dismiss: the umpire dismisses an open
// dispute with a ruling; nothing changes.
func decideDismiss(s *State, c *DismissDispute) ([]Event, *Refusal) {
	d, r := openDispute(s, c.Dispute, c.Ruling)
	if r != nil {
		return nil, r
	}
	return []Event{&DisputeDismissed{Dispute: d.N, EventVersion: d.EventVersion, DisputedType: d.EventType, Ruling: strings.TrimSpace(c.Ruling)}}, nil
}

func noPending(s *State, n int) *Refusal {
	if r := s.Disputes.retract(n); r != nil {
		return refuse(RuleRetract, "not_pending", "retraction request %d is %s, not pending", n, r.Status).with("request", n)
	}
	return refuse(RuleRetract, "no_request", "there is no retraction request %d", n).with("request", n)
}

func decideRetractRequest(s *State, c *RequestRetract) ([]Event, *Refusal) {
	if r := retractOpen(s); r != nil {
		return nil, r
	}
	f := c.Facts
	switch {
	case strings.TrimSpace(c.CommandID) == "":
		return nil, refuse(RuleRetract, "no_command", "name the command to take back: command_id")
	case f == nil:
		return nil, refuse(RuleRetract, "no_facts", "the service did not supply what the log says of command %s", c.CommandID)
	case len(f.Events) == 0:
		return nil, refuse(RuleRetract, "unknown_command", "the battle has no command %s", c.CommandID)
	case f.Actor != f.Requester:
		return nil, refuse(RuleRetract, "not_yours", "command %s was given by %s, not %s: a player takes back only their own command", c.CommandID, f.Actor, f.Requester)
	}
	for _, e := range f.Events {
		if IsDisputeEvent(e.EventType()) {
			return nil, refuse(RuleRetract, "not_invertible", "command %s is itself a retraction or a dispute: it cannot be taken back", c.CommandID)
		}
		if d, ok := e.(*DiceRolled); ok {
			return nil, refuse(RuleRetract, "rolled", "command %s rolled dice (roll #%d): after a roll only the umpire corrects, by upholding a dispute", c.CommandID, d.Counter).with("counter", d.Counter)
		}
	}
	if f.Later != "" {
		return nil, refuse(RuleRetract, "not_last", "command %s is not %s's last command: %s came after it", c.CommandID, f.Actor, f.Later)
	}
	if len(f.RolledSince) > 0 {
		return nil, refuse(RuleRetract, "rolled_since", "dice were rolled after command %s (event %d): after a roll only the umpire corrects, by upholding a dispute", c.CommandID, f.RolledSince[0]).with("version", f.RolledSince[0])
	}
	if c.AtOnce && f.Next != 0 {
		return nil, refuse(RuleRetract, "happened_since", "command %s is no longer the last thing that happened (event %d came after it): only the opponent's agreement takes it back now", c.CommandID, f.Next).with("version", f.Next)
	}
	for _, r := range s.Disputes.Retracts {
		if r.CommandID == c.CommandID && r.Status != RetractStatusDeclined {
			return nil, refuse(RuleRetract, "already_asked", "command %s already has retraction request %d (%s)", c.CommandID, r.N, r.Status).with("request", r.N)
		}
	}
	before := f.Before
	if before == nil {
		before = NewState()
	}
	after := before.Clone()
	for _, e := range f.Events {
		Apply(after, e)
	}
	restore, current, why := diffRestore(before, after)
	if why != "" {
		return nil, refuse(RuleRetract, "not_invertible", "command %s cannot be taken back exactly: %s; the umpire may correct it through a dispute", c.CommandID, why)
	}
	if restore.empty() {
		return nil, refuse(RuleRetract, "not_invertible", "command %s changed nothing a retraction restores", c.CommandID)
	}
	if s.Turn != after.Turn || s.Phase != after.Phase {
		return nil, refuse(RuleRetract, "moved_on", "command %s was given in turn %d, %s phase; it is now turn %d, %s phase", c.CommandID, after.Turn, after.Phase, s.Turn, s.Phase)
	}
	if why := standsNow(s, current); why.Format != "" {
		return nil, refuse(RuleRetract, "changed_since", "what command %s did has changed since: %s", c.CommandID, why)
	}
	types := make([]string, len(f.Events))
	for i, e := range f.Events {
		types[i] = e.EventType()
	}
	n := len(s.Disputes.Retracts) + 1
	asked := &RetractRequested{Request: n, CommandID: c.CommandID, Versions: slices.Clone(f.Versions),
		Types: types, Turn: s.Turn, Phase: s.Phase, RollCounter: s.RollCounter, Restore: restore, Current: current, AtOnce: c.AtOnce}
	if !asked.AtOnce {
		return []Event{asked}, nil
	}
	// A quick undo: nothing has happened since, nobody has acted on the
	// command, and its player takes it back at once, recorded as such.
	return []Event{asked, &CommandRetracted{Request: n, CommandID: c.CommandID, Versions: slices.Clone(f.Versions), Restore: restore.clone(), AtOnce: true}}, nil
}

func decideRetractAgree(s *State, c *AgreeRetract) ([]Event, *Refusal) {
	if r := retractOpen(s); r != nil {
		return nil, r
	}
	r := s.Disputes.retract(c.Request)
	if r == nil || r.Status != RetractPending {
		return nil, noPending(s, c.Request)
	}
	if s.RollCounter != r.RollCounter {
		return nil, refuse(RuleRetract, "rolled_since", "dice were rolled since retraction request %d (roll #%d): after a roll only the umpire corrects", r.N, s.RollCounter).with("counter", s.RollCounter)
	}
	if s.Turn != r.Turn || s.Phase != r.Phase {
		return nil, refuse(RuleRetract, "moved_on", "retraction request %d was made in turn %d, %s phase; it is now turn %d, %s phase", r.N, r.Turn, r.Phase, s.Turn, s.Phase)
	}
	if why := standsNow(s, r.Current); why.Format != "" {
		return nil, refuse(RuleRetract, "changed_since", "what command %s did has changed since the request: %s", r.CommandID, why)
	}
	return []Event{&CommandRetracted{Request: r.N, CommandID: r.CommandID, Versions: slices.Clone(r.Versions), Restore: r.Restore.clone()}}, nil
}

// diffRestore compares the state before a command and after it: restore
// holds the prior values of what changed, current the values the command
// left. why says what changed that a retraction cannot set back.
func diffRestore(before, after *State) (restore, current Restore, why string) {
	restore, current, why = diffRecords(before, after)
	if why == "" && restOf(before, false) != restOf(after, false) {
		why = "it changed more than units, generals and the turn's actions (the phase, the turn, orders, marches, dice or the battle itself)"
	}
	return restore, current, why
}

// diffRecords compares what a retraction or a correction sets: whole unit
// records, generals' places, units' and generals' records of the turn.
func diffRecords(before, after *State) (restore, current Restore, why string) {
	if !slices.Equal(slices.Sorted(maps.Keys(before.Units)), slices.Sorted(maps.Keys(after.Units))) {
		return restore, current, "units joined or left the battle"
	}
	for _, id := range slices.Sorted(maps.Keys(before.Units)) {
		b, a := before.Units[id], after.Units[id]
		if b == nil || a == nil {
			continue
		}
		if *b != *a {
			restore.Units = append(restore.Units, *b)
			current.Units = append(current.Units, *a)
		}
	}
	bg, ag := generalPlaces(before), generalPlaces(after)
	if len(bg) != len(ag) {
		return restore, current, "generals joined or left the battle"
	}
	for i := range bg {
		if bg[i].General != ag[i].General {
			return restore, current, "generals joined or left the battle"
		}
		if bg[i] != ag[i] {
			restore.Generals = append(restore.Generals, bg[i])
			current.Generals = append(current.Generals, ag[i])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(mergeKeys(before.TurnBook.Units, after.TurnBook.Units))) {
		b, a := before.TurnBook.Units[id], after.TurnBook.Units[id]
		if !samePtr(b, a) {
			restore.UnitTurns = append(restore.UnitTurns, UnitTurnEntry{Unit: id, Turn: copyPtr(b)})
			current.UnitTurns = append(current.UnitTurns, UnitTurnEntry{Unit: id, Turn: copyPtr(a)})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(mergeKeys(before.TurnBook.Generals, after.TurnBook.Generals))) {
		b, a := before.TurnBook.Generals[id], after.TurnBook.Generals[id]
		if !samePtr(b, a) {
			restore.GeneralTurns = append(restore.GeneralTurns, GeneralTurnEntry{General: id, Turn: copyPtr(b)})
			current.GeneralTurns = append(current.GeneralTurns, GeneralTurnEntry{General: id, Turn: copyPtr(a)})
		}
	}
	return restore, current, ""
}

// standsNow says what of current (what a command left) no longer stands in
// s (phrase.retract_why), or nothing (Words{}).
func standsNow(s *State, current Restore) Words {
	for _, u := range current.Units {
		if now := s.Units[u.ID]; now == nil || *now != u {
			return words("unit %s has changed", u.ID)
		}
	}
	places := map[string]GeneralPlace{}
	for _, g := range generalPlaces(s) {
		places[g.General] = g
	}
	for _, g := range current.Generals {
		if places[g.General] != g {
			return words("general %s has moved", g.General)
		}
	}
	for _, e := range current.UnitTurns {
		if !samePtr(s.TurnBook.Units[e.Unit], e.Turn) {
			return words("unit %s has acted", e.Unit)
		}
	}
	for _, e := range current.GeneralTurns {
		if !samePtr(s.TurnBook.Generals[e.General], e.Turn) {
			return words("general %s has acted", e.General)
		}
	}
	return Words{}
}

// generalPlaces lists every general's place in the order of the sides.
func generalPlaces(s *State) []GeneralPlace {
	var out []GeneralPlace
	for _, sd := range s.Sides {
		if c := sd.CInC; c != nil {
			out = append(out, GeneralPlace{General: c.ID, Position: c.Position, AttachedTo: c.AttachedTo})
		}
		for _, b := range sd.Brigades {
			out = append(out, GeneralPlace{General: b.General.ID, Position: b.General.Position, AttachedTo: b.General.AttachedTo})
		}
	}
	return out
}

// restOf is s without what a retraction restores (and, with flags, the
// turn's order flags a correction sets too), as JSON: two states whose
// rest differs differ in something a retraction cannot set back.
func restOf(s *State, flags bool) string {
	c := s.Clone()
	c.Units, c.TurnBook.Units, c.TurnBook.Generals, c.Ruleset = nil, nil, nil, nil
	if flags {
		c.TurnBook.CurrentGeneral, c.TurnBook.OrdersClosed, c.TurnBook.InitiativeClosed = "", false, false
	}
	for i := range c.Sides {
		if ci := c.Sides[i].CInC; ci != nil {
			ci.Position, ci.AttachedTo = geom.Vec{}, ""
		}
		for j := range c.Sides[i].Brigades {
			g := &c.Sides[i].Brigades[j].General
			g.Position, g.AttachedTo = geom.Vec{}, ""
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}

func mergeKeys[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func decideRaise(s *State, c *RaiseDispute) ([]Event, *Refusal) {
	reason := strings.TrimSpace(c.Reason)
	switch {
	case reason == "":
		return nil, refuse(RuleDispute, "no_reason", "a dispute needs a reason")
	case utf8.RuneCountInString(reason) > maxText:
		return nil, refuse(RuleDispute, "long_reason", "a reason is at most %d characters; %d given", maxText, utf8.RuneCountInString(reason))
	case c.Facts == nil:
		return nil, refuse(RuleDispute, "no_facts", "the service did not supply what the log says of event %d", c.EventVersion)
	case c.EventVersion == 0 || c.Facts.EventType == "":
		return nil, refuse(RuleDispute, "no_event", "the battle has no event %d (its events are 1 to %d)", c.EventVersion, c.Facts.Last).
			with("event_version", c.EventVersion, "last", c.Facts.Last)
	}
	for _, d := range s.Disputes.Disputes {
		if d.EventVersion == c.EventVersion && d.Status == DisputeOpen {
			return nil, refuse(RuleDispute, "already_open", "event %d is already disputed (dispute %d, open)", c.EventVersion, d.N).with("dispute", d.N)
		}
	}
	return []Event{&DisputeRaised{Dispute: len(s.Disputes.Disputes) + 1, EventVersion: c.EventVersion, DisputedType: c.Facts.EventType, Reason: reason}}, nil
}

func openDispute(s *State, n int, ruling string) (*Dispute, *Refusal) {
	d := s.Disputes.dispute(n)
	switch {
	case d == nil:
		return nil, refuse(RuleDispute, "no_dispute", "there is no dispute %d", n).with("dispute", n)
	case d.Status != DisputeOpen:
		return nil, refuse(RuleDispute, "closed", "dispute %d is already %s", n, d.Status).with("dispute", n)
	case strings.TrimSpace(ruling) == "":
		return nil, refuse(RuleDispute, "no_ruling", "a ruling on dispute %d needs its reasons: ruling", n)
	case utf8.RuneCountInString(ruling) > maxText:
		return nil, refuse(RuleDispute, "long_ruling", "a ruling is at most %d characters; %d given", maxText, utf8.RuneCountInString(ruling))
	}
	return d, nil
}
