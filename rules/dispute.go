package rules

import (
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// Retractions, disputes and corrections (docs/principles.md principle 2;
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

// IsDisputeEvent reports whether typ is an event of retractions and
// disputes, corrections included.
func IsDisputeEvent(typ string) bool {
	switch typ {
	case EvRetractRequested, EvRetractDeclined, EvCommandRetracted, EvDisputeRaised, EvDisputeUpheld, EvDisputeDismissed, EvUnitCorrected,
		EvOrderCorrected, EvCommandUndone, EvGeneralCorrected, EvFlankCorrected, EvObjectiveCorrected, EvBattleRescored:
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
	// Next is the version of the battle's first event after the command's
	// last (0: nothing has happened since, and an at_once request takes
	// it back at once).
	Next uint64
	// Before is the battle's state just before the command's first event.
	Before *State
}

// DisputeFacts are what only the log knows about a disputed event.
type DisputeFacts struct {
	// EventType is the type of the event at the disputed version ("": none).
	EventType string
	// Last is the battle's last version.
	Last uint64
	// For dispute.uphold: Log is the battle's events in order (Log[i] is
	// version i+1, up to Last); First and End are the versions of the first
	// and last event of the command that recorded the disputed event.
	Log        []Event
	First, End uint64
	// Successors are the campaign's later battles that have started (for
	// a rescore, which does not rewrite them).
	Successors []string
}

// RequestRetract (command.retract_request) asks to take back CommandID, the
// requester's last command. With AtOnce (a quick undo), it is taken back
// at once, no agreement asked, when nothing at all has happened in the
// battle since it; else refused. Facts is stamped by the service, never
// read from JSON.
type RequestRetract struct {
	CommandID string        `json:"command_id"`
	AtOnce    bool          `json:"at_once,omitempty"`
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
// corrections it orders (docs/disputes.md): units' values (Corrections),
// generals, the disputed order resolved again from corrected inputs
// (Order), the disputed command's moves undone (Undo), a flank march
// (Flank), who held objectives (Objectives). An ended battle whose score
// the corrections change is scored again by the rules (battle.rescored).
// Facts is stamped by the service, never read from JSON.
type UpholdDispute struct {
	Dispute     int                   `json:"dispute"`
	Ruling      string                `json:"ruling"`
	Corrections []Correction          `json:"corrections,omitempty"`
	Generals    []GeneralCorrection   `json:"generals,omitempty"`
	Order       *OrderCorrection      `json:"order,omitempty"`
	Undo        bool                  `json:"undo,omitempty"`
	Flank       *FlankCorrection      `json:"flank,omitempty"`
	Objectives  []ObjectiveCorrection `json:"objectives,omitempty"`
	Facts       *DisputeFacts         `json:"-"`
}

// OrderCorrection is what was wrong in the inputs of the disputed order:
// the order is resolved again from them by the rules' own code. Dice are
// the order roll as thrown (physical dice only: digital ones are provable
// and are not corrected); BlunderDice the blunder-table roll as thrown,
// when the corrected roll blunders (C.5); General who gave the order;
// GeneralAt where he stood (the C.7 distance); OnRoad the recipients on a
// road (C.7; [] for none).
type OrderCorrection struct {
	Dice        []int     `json:"dice,omitempty"`
	BlunderDice []int     `json:"blunder_dice,omitempty"`
	General     string    `json:"general,omitempty"`
	GeneralAt   *geom.Vec `json:"general_at,omitempty"`
	OnRoad      *[]string `json:"on_road,omitempty"`
}

// GeneralCorrection sets what the umpire rules of a general: Position,
// AttachedTo (a unit of his side; "" leaves his unit), Done (whether he
// gives no more orders this turn). Only the fields given change.
type GeneralCorrection struct {
	General    string    `json:"general"`
	Position   *geom.Vec `json:"position,omitempty"`
	AttachedTo *string   `json:"attached_to,omitempty"`
	Done       *bool     `json:"done,omitempty"`
}

// FlankCorrection corrects a flank march (F.2-F.9): Dice, the arrival roll
// as thrown (physical only), read again on the arrival table;
// ArrivalTurn, the turn it may enter; Entry, the point the opponent chose
// (F.4); Lost, whether it is lost (F.2 roll 6, F.9). March defaults to the
// disputed event's.
type FlankCorrection struct {
	March       int       `json:"march,omitempty"`
	Dice        []int     `json:"dice,omitempty"`
	ArrivalTurn *int      `json:"arrival_turn,omitempty"`
	Entry       *geom.Vec `json:"entry,omitempty"`
	Lost        *bool     `json:"lost,omitempty"`
}

// ObjectiveCorrection says who held an objective ("" nobody), V.2.
type ObjectiveCorrection struct {
	Objective string `json:"objective"`
	Side      string `json:"side"`
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

// WithDisputeFacts returns cmd (a dispute.raise or dispute.uphold)
// carrying the facts the service read from the log. Other commands are
// unchanged.
func WithDisputeFacts(cmd Command, f *DisputeFacts) Command {
	switch c := cmd.(type) {
	case *RaiseDispute:
		c.Facts = f
	case *UpholdDispute:
		c.Facts = f
	}
	return cmd
}

// IsCorrectionEvent reports whether typ is a correction of an upheld
// dispute: it points at the dispute, its ruling and the disputed event.
func IsCorrectionEvent(typ string) bool {
	switch typ {
	case EvUnitCorrected, EvOrderCorrected, EvCommandUndone, EvGeneralCorrected, EvFlankCorrected, EvObjectiveCorrected, EvBattleRescored:
		return true
	}
	return false
}

// CorrectionRef says what a correction event points at: its dispute, the
// disputed event and its ruling's version (0 in events recorded before
// corrections carried it); ok is false for any other event.
func CorrectionRef(e Event) (dispute int, event, ruling uint64, ok bool) {
	switch x := e.(type) {
	case *UnitCorrected:
		return x.Dispute, x.EventVersion, x.Ruling, true
	case *OrderCorrected:
		return x.Dispute, x.EventVersion, x.Ruling, true
	case *CommandUndone:
		return x.Dispute, x.EventVersion, x.Ruling, true
	case *GeneralCorrected:
		return x.Dispute, x.EventVersion, x.Ruling, true
	case *FlankCorrected:
		return x.Dispute, x.EventVersion, x.Ruling, true
	case *ObjectiveCorrected:
		return x.Dispute, x.EventVersion, x.Ruling, true
	case *BattleRescored:
		return x.Dispute, x.EventVersion, x.Ruling, true
	}
	return 0, 0, 0, false
}
