package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Retractions, disputes and corrections (PRODUCT.md principle 2;
// docs/disputes.md). Nothing is ever edited or deleted: a mistake is
// corrected by a new event that points at the one it corrects, and the
// original stays in the log.
//
// A player may take back their own last command while no die has been
// rolled since, if the opponent agrees: command.retract_request, then
// command.retract_agree by the other side, then command.retracted restores
// exactly what the command changed (units, generals, the turn's actions).
// Who gave a command and what the log holds around it are not in the
// state: the service reads them from the log and stamps them on the
// request (RetractFacts, WithRetractFacts), as it stamps dice seeds. A
// command that rolled dice, or whose effects cannot be inverted exactly,
// is refused: after a roll only the umpire corrects, by upholding a
// dispute (dispute.raise, dispute.uphold with corrections, or
// dispute.dismiss).

// Command names of retractions and disputes.
const (
	// CmdRetractRequest asks to take back the requester's last command.
	CmdRetractRequest = "command.retract_request"
	// CmdRetractAgree is the opponent's agreement: the retraction happens.
	CmdRetractAgree = "command.retract_agree"
	// CmdRetractDecline refuses (or, by the requester, withdraws) a request.
	CmdRetractDecline = "command.retract_decline"
	// CmdDisputeRaise disputes an event, with a reason.
	CmdDisputeRaise = "dispute.raise"
	// CmdDisputeUphold is the umpire's ruling for a dispute, with corrections.
	CmdDisputeUphold = "dispute.uphold"
	// CmdDisputeDismiss is the umpire's ruling against a dispute.
	CmdDisputeDismiss = "dispute.dismiss"
)

// Event types of retractions and disputes: persisted forever.
const (
	EvRetractRequested = "command.retract_requested"
	EvRetractDeclined  = "command.retract_declined"
	EvCommandRetracted = "command.retracted"
	EvDisputeRaised    = "dispute.raised"
	EvDisputeUpheld    = "dispute.upheld"
	EvDisputeDismissed = "dispute.dismissed"
	EvUnitCorrected    = "unit.corrected"
)

// RuleRetract and RuleDispute are the rule ids of the refusals here: the
// ledger's own rules, not the wargame's.
const (
	RuleRetract = "retract"
	RuleDispute = "dispute"
)

// Statuses of retraction requests and disputes.
const (
	RetractPending         = "pending"
	RetractDone            = "retracted"
	RetractStatusDeclined  = "declined"
	DisputeOpen            = "open"
	DisputeStatusUpheld    = "upheld"
	DisputeStatusDismissed = "dismissed"
)

func init() {
	for k, v := range map[string]func() Command{
		CmdRetractRequest: func() Command { return &RequestRetract{} },
		CmdRetractAgree:   func() Command { return &AgreeRetract{} },
		CmdRetractDecline: func() Command { return &DeclineRetract{} },
		CmdDisputeRaise:   func() Command { return &RaiseDispute{} },
		CmdDisputeUphold:  func() Command { return &UpholdDispute{} },
		CmdDisputeDismiss: func() Command { return &DismissDispute{} },
	} {
		commandFactories[k] = v
	}
	for k, v := range map[string]eventInfo{
		EvRetractRequested: {1, "A player asked to take back their last command (no die rolled since); what it would restore, and what the command left, are recorded. The opponent agrees or declines.", func() Event { return &RetractRequested{} }},
		EvRetractDeclined:  {1, "A retraction request was declined by the opponent or withdrawn; nothing changes.", func() Event { return &RetractDeclined{} }},
		EvCommandRetracted: {1, "A command was taken back with the opponent's agreement: its events stay in the log, and this compensating event restores exactly what they changed (units, generals, the turn's actions).", func() Event { return &CommandRetracted{} }},
		EvDisputeRaised:    {1, "A player disputed an event of the battle, with a reason; the umpire rules on it.", func() Event { return &DisputeRaised{} }},
		EvDisputeUpheld:    {1, "The umpire upheld a dispute, with a ruling; the corrections that follow point at the disputed event, which stays in the log.", func() Event { return &DisputeUpheld{} }},
		EvDisputeDismissed: {1, "The umpire dismissed a dispute, with a ruling; nothing changes.", func() Event { return &DisputeDismissed{} }},
		EvUnitCorrected:    {1, "The umpire corrected a unit (base, formation, markers, status, actions left) as an upheld dispute ruled; the values before are recorded.", func() Event { return &UnitCorrected{} }},
	} {
		eventRegistry[k] = v
	}
}

// IsDisputeCommand reports whether name is a retraction or dispute command:
// such commands are not "the last command" a player may retract, and they
// reach the rules after the battle has ended too (disputes are taken then;
// retractions are refused).
func IsDisputeCommand(name string) bool {
	switch name {
	case CmdRetractRequest, CmdRetractAgree, CmdRetractDecline, CmdDisputeRaise, CmdDisputeUphold, CmdDisputeDismiss:
		return true
	}
	return false
}

// IsDisputeEvent reports whether typ is an event of retractions and disputes.
func IsDisputeEvent(typ string) bool {
	switch typ {
	case EvRetractRequested, EvRetractDeclined, EvCommandRetracted, EvDisputeRaised, EvDisputeUpheld, EvDisputeDismissed, EvUnitCorrected:
		return true
	}
	return false
}

// DisputeBook is the battle's retraction requests and disputes.
type DisputeBook struct {
	Retracts []RetractRequest `json:"retracts,omitempty"`
	Disputes []Dispute        `json:"disputes,omitempty"`
}

func (b DisputeBook) clone() DisputeBook {
	c := DisputeBook{Retracts: slices.Clone(b.Retracts), Disputes: slices.Clone(b.Disputes)}
	for i := range c.Retracts {
		c.Retracts[i].Versions = slices.Clone(c.Retracts[i].Versions)
		c.Retracts[i].Restore = c.Retracts[i].Restore.clone()
		c.Retracts[i].Current = c.Retracts[i].Current.clone()
	}
	return c
}

// RetractRequest is one request to take a command back.
type RetractRequest struct {
	N         int      `json:"n"`
	CommandID string   `json:"command_id"`
	Versions  []uint64 `json:"versions"`
	// Turn, Phase and RollCounter are when it was asked: the agreement must
	// come in the same phase with no die rolled in between.
	Turn        int    `json:"turn"`
	Phase       string `json:"phase"`
	RollCounter uint64 `json:"roll_counter"`
	// Restore is what the retraction sets back; Current what the command
	// left, which must still stand when the opponent agrees.
	Restore Restore `json:"restore"`
	Current Restore `json:"current"`
	Status  string  `json:"status"`
}

// Dispute is one disputed event and the umpire's ruling on it.
type Dispute struct {
	N            int    `json:"n"`
	EventVersion uint64 `json:"event_version"`
	EventType    string `json:"event_type"`
	Reason       string `json:"reason"`
	Status       string `json:"status"`
	Ruling       string `json:"ruling,omitempty"`
	Corrections  int    `json:"corrections,omitempty"`
}

func (b *DisputeBook) retract(n int) *RetractRequest {
	for i := range b.Retracts {
		if b.Retracts[i].N == n {
			return &b.Retracts[i]
		}
	}
	return nil
}

func (b *DisputeBook) dispute(n int) *Dispute {
	for i := range b.Disputes {
		if b.Disputes[i].N == n {
			return &b.Disputes[i]
		}
	}
	return nil
}

// Restore is a set of prior values: whole unit records, generals' places,
// and units' and generals' records of the current turn.
type Restore struct {
	Units        []Unit             `json:"units,omitempty"`
	Generals     []GeneralPlace     `json:"generals,omitempty"`
	UnitTurns    []UnitTurnEntry    `json:"unit_turns,omitempty"`
	GeneralTurns []GeneralTurnEntry `json:"general_turns,omitempty"`
}

// GeneralPlace is where a general stands and whom he is with.
type GeneralPlace struct {
	General    string   `json:"general"`
	Position   geom.Vec `json:"position"`
	AttachedTo string   `json:"attached_to,omitempty"`
}

// UnitTurnEntry is a unit's record of the turn; Turn absent: it had none.
type UnitTurnEntry struct {
	Unit string    `json:"unit"`
	Turn *UnitTurn `json:"turn,omitempty"`
}

// GeneralTurnEntry is a general's record of the turn; Turn absent: none.
type GeneralTurnEntry struct {
	General string       `json:"general"`
	Turn    *GeneralTurn `json:"turn,omitempty"`
}

func (r Restore) clone() Restore {
	c := Restore{Units: slices.Clone(r.Units), Generals: slices.Clone(r.Generals),
		UnitTurns: slices.Clone(r.UnitTurns), GeneralTurns: slices.Clone(r.GeneralTurns)}
	for i, e := range c.UnitTurns {
		if e.Turn != nil {
			t := *e.Turn
			c.UnitTurns[i].Turn = &t
		}
	}
	for i, e := range c.GeneralTurns {
		if e.Turn != nil {
			t := *e.Turn
			c.GeneralTurns[i].Turn = &t
		}
	}
	return c
}

func (r Restore) empty() bool {
	return len(r.Units) == 0 && len(r.Generals) == 0 && len(r.UnitTurns) == 0 && len(r.GeneralTurns) == 0
}

// RetractFacts are what only the log knows about a retraction request:
// the service reads them and stamps them on the command (WithRetractFacts).
type RetractFacts struct {
	// Actor gave the command; Requester asks to take it back.
	Actor     string
	Requester string
	// Versions and Events are the command's events, in order (none: the
	// battle has no such command).
	Versions []uint64
	Events   []Event
	// Later is a later command by the same actor that is not itself a
	// retraction or dispute command ("": none).
	Later string
	// RolledSince are the versions of dice.rolled events after the command.
	RolledSince []uint64
	// Before is the battle's state just before the command's first event.
	Before *State
}

// DisputeFacts are what only the log knows about a disputed event.
type DisputeFacts struct {
	// EventType is the type of the event at the disputed version ("": none).
	EventType string
	// Last is the battle's last version.
	Last uint64
}

// RequestRetract (command.retract_request) asks to take back CommandID, the
// requester's last command. Facts is stamped by the service, never read
// from JSON.
type RequestRetract struct {
	CommandID string        `json:"command_id"`
	Facts     *RetractFacts `json:"-"`
}

// CommandName implements Command.
func (*RequestRetract) CommandName() string { return CmdRetractRequest }

// AgreeRetract (command.retract_agree) is the opponent's agreement to
// request Request.
type AgreeRetract struct {
	Request int `json:"request"`
}

// CommandName implements Command.
func (*AgreeRetract) CommandName() string { return CmdRetractAgree }

// DeclineRetract (command.retract_decline) declines a pending request.
type DeclineRetract struct {
	Request int    `json:"request"`
	Reason  string `json:"reason,omitempty"`
}

// CommandName implements Command.
func (*DeclineRetract) CommandName() string { return CmdRetractDecline }

// RaiseDispute (dispute.raise) disputes the event at EventVersion.
type RaiseDispute struct {
	EventVersion uint64        `json:"event_version"`
	Reason       string        `json:"reason"`
	Facts        *DisputeFacts `json:"-"`
}

// CommandName implements Command.
func (*RaiseDispute) CommandName() string { return CmdDisputeRaise }

// UpholdDispute (dispute.uphold) upholds a dispute with a ruling and the
// corrections it orders.
type UpholdDispute struct {
	Dispute     int          `json:"dispute"`
	Ruling      string       `json:"ruling"`
	Corrections []Correction `json:"corrections,omitempty"`
}

// CommandName implements Command.
func (*UpholdDispute) CommandName() string { return CmdDisputeUphold }

// Correction sets what the umpire rules a unit should be: only the fields
// given change. A base without width and depth keeps the unit's.
type Correction struct {
	Unit        string     `json:"unit"`
	Base        *geom.Base `json:"base,omitempty"`
	Formation   string     `json:"formation,omitempty"`
	Markers     *int       `json:"markers,omitempty"`
	Status      string     `json:"status,omitempty"`
	ActionsLeft *int       `json:"actions_left,omitempty"`
}

// DismissDispute (dispute.dismiss) dismisses a dispute with a ruling.
type DismissDispute struct {
	Dispute int    `json:"dispute"`
	Ruling  string `json:"ruling"`
}

// CommandName implements Command.
func (*DismissDispute) CommandName() string { return CmdDisputeDismiss }

// WithRetractFacts returns cmd (a command.retract_request) carrying the
// facts the service read from the log. Other commands are unchanged.
func WithRetractFacts(cmd Command, f *RetractFacts) Command {
	if c, ok := cmd.(*RequestRetract); ok {
		c.Facts = f
	}
	return cmd
}

// WithDisputeFacts returns cmd (a dispute.raise) carrying the facts the
// service read from the log. Other commands are unchanged.
func WithDisputeFacts(cmd Command, f *DisputeFacts) Command {
	if c, ok := cmd.(*RaiseDispute); ok {
		c.Facts = f
	}
	return cmd
}

// RetractRequested records a request to take back a command.
type RetractRequested struct {
	Request     int      `json:"request"`
	CommandID   string   `json:"command_id"`
	Versions    []uint64 `json:"versions"`
	Types       []string `json:"types"`
	Turn        int      `json:"turn"`
	Phase       string   `json:"phase"`
	RollCounter uint64   `json:"roll_counter"`
	Restore     Restore  `json:"restore"`
	Current     Restore  `json:"current"`
}

// EventType implements Event.
func (*RetractRequested) EventType() string { return EvRetractRequested }

// Audience implements Event.
func (*RetractRequested) Audience() string { return AudienceAll }

// RetractDeclined records a declined or withdrawn request.
type RetractDeclined struct {
	Request   int    `json:"request"`
	CommandID string `json:"command_id"`
	Reason    string `json:"reason,omitempty"`
}

// EventType implements Event.
func (*RetractDeclined) EventType() string { return EvRetractDeclined }

// Audience implements Event.
func (*RetractDeclined) Audience() string { return AudienceAll }

// CommandRetracted is the compensating event of a retraction: it points at
// the command's events (Versions) and restores what they changed.
type CommandRetracted struct {
	Request   int      `json:"request"`
	CommandID string   `json:"command_id"`
	Versions  []uint64 `json:"versions"`
	Restore   Restore  `json:"restore"`
}

// EventType implements Event.
func (*CommandRetracted) EventType() string { return EvCommandRetracted }

// Audience implements Event.
func (*CommandRetracted) Audience() string { return AudienceAll }

// DisputeRaised records a disputed event and the reason.
type DisputeRaised struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	DisputedType string `json:"event_type"`
	Reason       string `json:"reason"`
}

// EventType implements Event.
func (*DisputeRaised) EventType() string { return EvDisputeRaised }

// Audience implements Event.
func (*DisputeRaised) Audience() string { return AudienceAll }

// DisputeUpheld records the umpire's ruling for a dispute; Corrections
// counts the unit.corrected events that follow it.
type DisputeUpheld struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	DisputedType string `json:"event_type"`
	Ruling       string `json:"ruling"`
	Corrections  int    `json:"corrections"`
}

// EventType implements Event.
func (*DisputeUpheld) EventType() string { return EvDisputeUpheld }

// Audience implements Event.
func (*DisputeUpheld) Audience() string { return AudienceAll }

// DisputeDismissed records the umpire's ruling against a dispute.
type DisputeDismissed struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	DisputedType string `json:"event_type"`
	Ruling       string `json:"ruling"`
}

// EventType implements Event.
func (*DisputeDismissed) EventType() string { return EvDisputeDismissed }

// Audience implements Event.
func (*DisputeDismissed) Audience() string { return AudienceAll }

// UnitCorrected is one correction of an upheld dispute: the fields set,
// and Before, the unit's values they replace. It points at the dispute and
// the disputed event.
type UnitCorrected struct {
	Dispute      int        `json:"dispute"`
	EventVersion uint64     `json:"event_version"`
	Unit         string     `json:"unit"`
	Base         *geom.Base `json:"base,omitempty"`
	Formation    string     `json:"formation,omitempty"`
	Markers      *int       `json:"markers,omitempty"`
	Status       string     `json:"status,omitempty"`
	ActionsLeft  *int       `json:"actions_left,omitempty"`
	Before       UnitValues `json:"before"`
}

// UnitValues are the values of a unit a correction may change.
type UnitValues struct {
	Base        geom.Base `json:"base"`
	Formation   string    `json:"formation"`
	Markers     int       `json:"markers"`
	Status      string    `json:"status"`
	ActionsLeft int       `json:"actions_left"`
}

// EventType implements Event.
func (*UnitCorrected) EventType() string { return EvUnitCorrected }

// Audience implements Event.
func (*UnitCorrected) Audience() string { return AudienceAll }

// maxText bounds a reason or a ruling.
const maxText = 2000

func decideDispute(s *State, cmd Command) ([]Event, *Refusal) {
	switch cmd.(type) {
	case *RequestRetract, *AgreeRetract:
		if s.Status == StatusEnded {
			return nil, refuse("T.5", "battle_ended", "the battle has ended (%s): a command is no longer taken back; raise a dispute", s.EndReason)
		}
	}
	switch c := cmd.(type) {
	case *RequestRetract:
		return decideRetractRequest(s, c)
	case *AgreeRetract:
		return decideRetractAgree(s, c)
	case *DeclineRetract:
		r := s.Disputes.retract(c.Request)
		if r == nil || r.Status != RetractPending {
			return nil, noPending(s, c.Request)
		}
		if len(c.Reason) > maxText {
			return nil, refuse(RuleRetract, "long_reason", "a reason is at most %d characters; %d given", maxText, len(c.Reason))
		}
		return []Event{&RetractDeclined{Request: r.N, CommandID: r.CommandID, Reason: strings.TrimSpace(c.Reason)}}, nil
	case *RaiseDispute:
		return decideRaise(s, c)
	case *UpholdDispute:
		return decideUphold(s, c)
	case *DismissDispute:
		d, r := openDispute(s, c.Dispute, c.Ruling)
		if r != nil {
			return nil, r
		}
		return []Event{&DisputeDismissed{Dispute: d.N, EventVersion: d.EventVersion, DisputedType: d.EventType, Ruling: strings.TrimSpace(c.Ruling)}}, nil
	}
	return nil, refuse(RuleInput, "unknown_command", "unknown command %q", cmd.CommandName())
}

func noPending(s *State, n int) *Refusal {
	if r := s.Disputes.retract(n); r != nil {
		return refuse(RuleRetract, "not_pending", "retraction request %d is %s, not pending", n, r.Status).with("request", n)
	}
	return refuse(RuleRetract, "no_request", "there is no retraction request %d", n).with("request", n)
}

func decideRetractRequest(s *State, c *RequestRetract) ([]Event, *Refusal) {
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
	if why := standsNow(s, current); why != "" {
		return nil, refuse(RuleRetract, "changed_since", "what command %s did has changed since: %s", c.CommandID, why)
	}
	types := make([]string, len(f.Events))
	for i, e := range f.Events {
		types[i] = e.EventType()
	}
	return []Event{&RetractRequested{Request: len(s.Disputes.Retracts) + 1, CommandID: c.CommandID, Versions: slices.Clone(f.Versions),
		Types: types, Turn: s.Turn, Phase: s.Phase, RollCounter: s.RollCounter, Restore: restore, Current: current}}, nil
}

func decideRetractAgree(s *State, c *AgreeRetract) ([]Event, *Refusal) {
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
	if why := standsNow(s, r.Current); why != "" {
		return nil, refuse(RuleRetract, "changed_since", "what command %s did has changed since the request: %s", r.CommandID, why)
	}
	return []Event{&CommandRetracted{Request: r.N, CommandID: r.CommandID, Versions: slices.Clone(r.Versions), Restore: r.Restore.clone()}}, nil
}

// diffRestore compares the state before a command and after it: restore
// holds the prior values of what changed, current the values the command
// left. why says what changed that a retraction cannot set back.
func diffRestore(before, after *State) (restore, current Restore, why string) {
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
	if rest(before) != rest(after) {
		return restore, current, "it changed more than units, generals and the turn's actions (the phase, the turn, orders, marches, dice or the battle itself)"
	}
	return restore, current, ""
}

// standsNow says what of current (what a command left) no longer stands in s.
func standsNow(s *State, current Restore) string {
	for _, u := range current.Units {
		if now := s.Units[u.ID]; now == nil || *now != u {
			return "unit " + u.ID + " has changed"
		}
	}
	places := map[string]GeneralPlace{}
	for _, g := range generalPlaces(s) {
		places[g.General] = g
	}
	for _, g := range current.Generals {
		if places[g.General] != g {
			return "general " + g.General + " has moved"
		}
	}
	for _, e := range current.UnitTurns {
		if !samePtr(s.TurnBook.Units[e.Unit], e.Turn) {
			return "unit " + e.Unit + " has acted"
		}
	}
	for _, e := range current.GeneralTurns {
		if !samePtr(s.TurnBook.Generals[e.General], e.Turn) {
			return "general " + e.General + " has acted"
		}
	}
	return ""
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

// rest is s without what a retraction restores, as JSON: two states whose
// rest differs differ in something a retraction cannot set back.
func rest(s *State) string {
	c := s.Clone()
	c.Units, c.TurnBook.Units, c.TurnBook.Generals, c.Ruleset = nil, nil, nil, nil
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
	case len(reason) > maxText:
		return nil, refuse(RuleDispute, "long_reason", "a reason is at most %d characters; %d given", maxText, len(reason))
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
	case len(ruling) > maxText:
		return nil, refuse(RuleDispute, "long_ruling", "a ruling is at most %d characters; %d given", maxText, len(ruling))
	}
	return d, nil
}

func decideUphold(s *State, c *UpholdDispute) ([]Event, *Refusal) {
	d, r := openDispute(s, c.Dispute, c.Ruling)
	if r != nil {
		return nil, r
	}
	evs := []Event{&DisputeUpheld{Dispute: d.N, EventVersion: d.EventVersion, DisputedType: d.EventType, Ruling: strings.TrimSpace(c.Ruling), Corrections: len(c.Corrections)}}
	seen := map[string]bool{}
	for i, k := range c.Corrections {
		u := s.Units[k.Unit]
		switch {
		case u == nil:
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: no unit %q", i+1, k.Unit)
		case seen[k.Unit]:
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: unit %s is corrected twice; give one correction per unit", i+1, k.Unit)
		case k.Base == nil && k.Formation == "" && k.Markers == nil && k.Status == "" && k.ActionsLeft == nil:
			return nil, refuse(RuleDispute, "bad_correction", "correction %d of %s changes nothing: give base, formation, markers, status or actions_left", i+1, k.Unit)
		case k.Status != "" && !slices.Contains(unitStatuses, k.Status):
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: status %q: want one of %s", i+1, k.Status, strings.Join(unitStatuses, ", "))
		case k.Markers != nil && *k.Markers < 0:
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: markers %d: want 0 or more", i+1, *k.Markers)
		case k.ActionsLeft != nil && *k.ActionsLeft < 0:
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: actions_left %d: want 0 or more", i+1, *k.ActionsLeft)
		}
		seen[k.Unit] = true
		if k.Formation != "" {
			if t, ok := typeOf(s, u.Type); ok && !t.HasFormation(k.Formation) {
				return nil, refuse(RuleDispute, "bad_correction", "correction %d: a %s stands in %s, not %q", i+1, u.Type, strings.Join(t.Formations, ", "), k.Formation)
			}
		}
		ev := &UnitCorrected{Dispute: d.N, EventVersion: d.EventVersion, Unit: k.Unit, Formation: k.Formation, Status: k.Status,
			Markers: copyPtr(k.Markers), ActionsLeft: copyPtr(k.ActionsLeft),
			Before: UnitValues{Base: u.Base, Formation: u.Formation, Markers: u.Markers, Status: u.Status, ActionsLeft: s.TurnBook.peekUnit(k.Unit).ActionsLeft}}
		if k.Base != nil {
			b := *k.Base
			if !finite(b.Center.X) || !finite(b.Center.Y) || !finite(b.Facing) || !finite(b.Width) || !finite(b.Depth) || b.Width < 0 || b.Depth < 0 {
				return nil, refuse(RuleDispute, "bad_correction", "correction %d: the base of %s is not a finite position", i+1, k.Unit)
			}
			if b.Width == 0 || b.Depth == 0 {
				b.Width, b.Depth = u.Base.Width, u.Base.Depth
			}
			ev.Base = &b
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// applyDispute folds the events of retractions and disputes into s.
func applyDispute(s *State, e Event) {
	b := &s.Disputes
	switch ev := e.(type) {
	case *RetractRequested:
		b.Retracts = append(b.Retracts, RetractRequest{N: ev.Request, CommandID: ev.CommandID, Versions: slices.Clone(ev.Versions),
			Turn: ev.Turn, Phase: ev.Phase, RollCounter: ev.RollCounter, Restore: ev.Restore.clone(), Current: ev.Current.clone(), Status: RetractPending})
	case *RetractDeclined:
		if r := b.retract(ev.Request); r != nil {
			r.Status = RetractStatusDeclined
		}
	case *CommandRetracted:
		if r := b.retract(ev.Request); r != nil {
			r.Status = RetractDone
		}
		restoreState(s, ev.Restore)
	case *DisputeRaised:
		b.Disputes = append(b.Disputes, Dispute{N: ev.Dispute, EventVersion: ev.EventVersion, EventType: ev.DisputedType, Reason: ev.Reason, Status: DisputeOpen})
	case *DisputeUpheld:
		if d := b.dispute(ev.Dispute); d != nil {
			d.Status, d.Ruling, d.Corrections = DisputeStatusUpheld, ev.Ruling, ev.Corrections
		}
	case *DisputeDismissed:
		if d := b.dispute(ev.Dispute); d != nil {
			d.Status, d.Ruling = DisputeStatusDismissed, ev.Ruling
		}
	case *UnitCorrected:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		if ev.Base != nil {
			u.Base = *ev.Base
			s.followUnit(ev.Unit)
		}
		if ev.Formation != "" {
			u.Formation = ev.Formation
		}
		if ev.Markers != nil {
			u.Markers = *ev.Markers
		}
		if ev.Status != "" {
			u.Status = ev.Status
			if ev.Status != UnitDisordered {
				u.DisorderedTurn, u.DisorderedPhase = 0, ""
			}
			if !u.active() {
				s.detachFrom(ev.Unit)
			}
		}
		if ev.ActionsLeft != nil {
			s.TurnBook.unit(ev.Unit).ActionsLeft = *ev.ActionsLeft
		}
	}
}

// restoreState sets back the values of r.
func restoreState(s *State, r Restore) {
	for _, u := range r.Units {
		if s.Units[u.ID] != nil {
			uc := u
			s.Units[u.ID] = &uc
		}
	}
	for _, g := range r.Generals {
		if att, pos := s.generalPtrs(g.General); pos != nil {
			*att, *pos = g.AttachedTo, g.Position
		}
	}
	for _, e := range r.UnitTurns {
		if e.Turn == nil {
			delete(s.TurnBook.Units, e.Unit)
			continue
		}
		*s.TurnBook.unit(e.Unit) = *e.Turn
	}
	for _, e := range r.GeneralTurns {
		if e.Turn == nil {
			delete(s.TurnBook.Generals, e.General)
			continue
		}
		*s.TurnBook.general(e.General) = *e.Turn
	}
}

// describeDispute says a retraction or dispute event in words.
func describeDispute(e Event) string {
	switch ev := e.(type) {
	case *RetractRequested:
		return fmt.Sprintf("retraction %d asked: take back command %s (events %s: %s); restores %s; the opponent agrees or declines",
			ev.Request, ev.CommandID, versionsText(ev.Versions), strings.Join(ev.Types, ", "), restoreText(ev.Restore))
	case *RetractDeclined:
		s := fmt.Sprintf("retraction %d of command %s declined; nothing changes", ev.Request, ev.CommandID)
		if ev.Reason != "" {
			s += ": " + ev.Reason
		}
		return s
	case *CommandRetracted:
		return fmt.Sprintf("command %s taken back by agreement (retraction %d): events %s stay in the log; restored %s",
			ev.CommandID, ev.Request, versionsText(ev.Versions), restoreText(ev.Restore))
	case *DisputeRaised:
		return fmt.Sprintf("dispute %d raised on event %d (%s): %s", ev.Dispute, ev.EventVersion, ev.DisputedType, ev.Reason)
	case *DisputeUpheld:
		return fmt.Sprintf("dispute %d on event %d (%s) upheld: %s; %s", ev.Dispute, ev.EventVersion, ev.DisputedType, ev.Ruling, plural(ev.Corrections, "correction follows", "corrections follow"))
	case *DisputeDismissed:
		return fmt.Sprintf("dispute %d on event %d (%s) dismissed: %s", ev.Dispute, ev.EventVersion, ev.DisputedType, ev.Ruling)
	case *UnitCorrected:
		var parts []string
		if ev.Base != nil {
			parts = append(parts, fmt.Sprintf("(%.1f,%.1f) facing %.0f -> (%.1f,%.1f) facing %.0f", ev.Before.Base.Center.X, ev.Before.Base.Center.Y, ev.Before.Base.Facing,
				ev.Base.Center.X, ev.Base.Center.Y, ev.Base.Facing))
		}
		if ev.Formation != "" {
			parts = append(parts, fmt.Sprintf("formation %s -> %s", ev.Before.Formation, ev.Formation))
		}
		if ev.Markers != nil {
			parts = append(parts, fmt.Sprintf("markers %d -> %d", ev.Before.Markers, *ev.Markers))
		}
		if ev.Status != "" {
			parts = append(parts, fmt.Sprintf("status %s -> %s", ev.Before.Status, ev.Status))
		}
		if ev.ActionsLeft != nil {
			parts = append(parts, fmt.Sprintf("actions left %d -> %d", ev.Before.ActionsLeft, *ev.ActionsLeft))
		}
		return fmt.Sprintf("%s corrected by the umpire (dispute %d on event %d): %s", ev.Unit, ev.Dispute, ev.EventVersion, strings.Join(parts, "; "))
	}
	return ""
}

func versionsText(v []uint64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func restoreText(r Restore) string {
	var parts []string
	for _, u := range r.Units {
		parts = append(parts, fmt.Sprintf("%s to (%.1f,%.1f) facing %.0f, %s", u.ID, u.Base.Center.X, u.Base.Center.Y, u.Base.Facing, u.Formation))
	}
	for _, g := range r.Generals {
		parts = append(parts, fmt.Sprintf("general %s to (%.1f,%.1f)", g.General, g.Position.X, g.Position.Y))
	}
	for _, e := range r.UnitTurns {
		left := 0
		if e.Turn != nil {
			left = e.Turn.ActionsLeft
		}
		parts = append(parts, fmt.Sprintf("%s's actions left %d", e.Unit, left))
	}
	if len(r.GeneralTurns) > 0 {
		parts = append(parts, plural(len(r.GeneralTurns), "general's turn record", "generals' turn records"))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}
