// The events of retractions and disputes, how they apply and how they read.

package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

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
	// AtOnce: nothing had happened in the battle since the command, so it
	// is taken back at once, the command.retracted following in the same
	// command, with no opponent to ask.
	AtOnce bool `json:"at_once,omitempty"`
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
	// AtOnce: taken back by its own player with nothing happened since
	// (no agreement asked); else the opponent agreed.
	AtOnce bool `json:"at_once,omitempty"`
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
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	// Ruling is the version of the dispute.upheld it follows (absent in
	// events recorded before corrections carried it).
	Ruling      uint64     `json:"ruling,omitempty"`
	Unit        string     `json:"unit"`
	Base        *geom.Base `json:"base,omitempty"`
	Formation   string     `json:"formation,omitempty"`
	Markers     *int       `json:"markers,omitempty"`
	Status      string     `json:"status,omitempty"`
	ActionsLeft *int       `json:"actions_left,omitempty"`
	Before      UnitValues `json:"before"`
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
			if ev.Status == UnitDisordered && u.Status != UnitDisordered {
				// Disordered as the umpire rules: now (M.8 re-forms in the movement phase that follows).
				u.DisorderedTurn, u.DisorderedPhase = s.Turn, s.Phase
			}
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
		then := "the opponent agrees or declines"
		if ev.AtOnce {
			then = "nothing has happened since: taken back at once"
		}
		return fmt.Sprintf("retraction %d asked: take back command %s (events %s: %s); restores %s; %s",
			ev.Request, ev.CommandID, versionsText(ev.Versions), strings.Join(ev.Types, ", "), restoreText(ev.Restore), then)
	case *RetractDeclined:
		s := fmt.Sprintf("retraction %d of command %s declined; nothing changes", ev.Request, ev.CommandID)
		if ev.Reason != "" {
			s += ": " + ev.Reason
		}
		return s
	case *CommandRetracted:
		how := "by agreement"
		if ev.AtOnce {
			how = "by its player, nothing having happened since"
		}
		return fmt.Sprintf("command %s taken back %s (retraction %d): events %s stay in the log; restored %s",
			ev.CommandID, how, ev.Request, versionsText(ev.Versions), restoreText(ev.Restore))
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
