// The events of corrections beyond a unit's values (docs/disputes.md): an
// order resolved again, a command's moves undone, a general, a flank march,
// an objective corrected, and a battle scored again. Each points at the
// dispute, its ruling (the dispute.upheld's version) and the disputed
// event; the originals stay in the log.

package rules

import (
	"fmt"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Event types of corrections: persisted forever.
const (
	EvOrderCorrected     = "order.corrected"
	EvCommandUndone      = "command.undone"
	EvGeneralCorrected   = "general.corrected"
	EvFlankCorrected     = "flank.corrected"
	EvObjectiveCorrected = "objective.corrected"
	EvBattleRescored     = "battle.rescored"
)

// TurnFlags are the turn's order bookkeeping an order correction may set
// (C.1, C.10, C.11, C.15).
type TurnFlags struct {
	CurrentGeneral   string `json:"current_general,omitempty"`
	OrdersClosed     bool   `json:"orders_closed,omitempty"`
	InitiativeClosed bool   `json:"initiative_closed,omitempty"`
}

// Setting is what a correction sets, exactly: whole unit records,
// generals' places, turn records of units and generals, and (when they
// change) the turn's order flags. It is computed by the rules and applied
// as it is, so replaying it needs nothing but the event.
type Setting struct {
	Restore
	Flags *TurnFlags `json:"flags,omitempty"`
}

func (t Setting) empty() bool { return t.Restore.empty() && t.Flags == nil }

// OrderCorrected is order.corrected: an order resolved again by the rules'
// own code from its corrected inputs (the dice as thrown, the general who
// gave it, where he stood, who was on a road), and what follows from it
// set on the table now: actions granted or taken away, a blunder made or
// undone, a general's lock-out (Set, replacing Before).
type OrderCorrected struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	// Ruling is the version of the dispute.upheld this correction follows.
	Ruling uint64 `json:"ruling,omitempty"`
	// Order is the version of the order.resolved corrected; Versions
	// those of its command's events.
	Order    uint64          `json:"order"`
	Versions []uint64        `json:"versions"`
	Inputs   OrderCorrection `json:"inputs"`
	// Original is the order as recorded; Resolved as the rules resolve
	// it from the corrected inputs. A blunder-table roll that was never in
	// the log (entered with the correction) has counter 0.
	Original OrderResolved       `json:"original"`
	Resolved OrderResolved       `json:"resolved"`
	Blunders []BlunderCarriedOut `json:"blunders,omitempty"`
	Before   Setting             `json:"before"`
	Set      Setting             `json:"set"`
}

// EventType implements Event.
func (*OrderCorrected) EventType() string { return EvOrderCorrected }

// Audience implements Event.
func (*OrderCorrected) Audience() string { return AudienceAll }

// CommandUndone is command.undone: the moves of the disputed command (a
// move, a march, a charge with the pushes it caused, a formation change,
// a flank marcher's entry, a general's move) undone: what the battle
// would be without them, the later events standing (Set, replacing
// Before). Its events stay in the log.
type CommandUndone struct {
	Dispute      int      `json:"dispute"`
	EventVersion uint64   `json:"event_version"`
	Ruling       uint64   `json:"ruling,omitempty"`
	Versions     []uint64 `json:"versions"`
	Types        []string `json:"types"`
	Before       Setting  `json:"before"`
	Set          Setting  `json:"set"`
}

// EventType implements Event.
func (*CommandUndone) EventType() string { return EvCommandUndone }

// Audience implements Event.
func (*CommandUndone) Audience() string { return AudienceAll }

// GeneralValues are what a correction may change of a general.
type GeneralValues struct {
	Position   geom.Vec `json:"position"`
	AttachedTo string   `json:"attached_to,omitempty"`
	Done       bool     `json:"done,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// GeneralCorrected is general.corrected: a general's position, the unit
// he is with, or whether he gives more orders this turn, as the umpire
// ruled; Before the values replaced.
type GeneralCorrected struct {
	Dispute      int           `json:"dispute"`
	EventVersion uint64        `json:"event_version"`
	Ruling       uint64        `json:"ruling,omitempty"`
	General      string        `json:"general"`
	Position     *geom.Vec     `json:"position,omitempty"`
	AttachedTo   *string       `json:"attached_to,omitempty"`
	Done         *bool         `json:"done,omitempty"`
	Before       GeneralValues `json:"before"`
}

// EventType implements Event.
func (*GeneralCorrected) EventType() string { return EvGeneralCorrected }

// Audience implements Event.
func (*GeneralCorrected) Audience() string { return AudienceAll }

// FlankValues are what a correction may change of a flank march.
type FlankValues struct {
	Roll               int       `json:"roll"`
	Entry              string    `json:"entry_kind"`
	ArrivalTurn        int       `json:"arrival_turn,omitempty"`
	ArtilleryExtraMove bool      `json:"artillery_extra_move,omitempty"`
	ChosenEntry        *geom.Vec `json:"chosen_entry,omitempty"`
}

// FlankCorrected is flank.corrected: a flank march's arrival (the roll as
// thrown read on the arrival table, or the turn the umpire rules), the
// point the opponent chose, or its loss (F.2-F.9). Withdrawn are its
// units taken back off the table, to wait (or, lost, to take no part).
type FlankCorrected struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	Ruling       uint64 `json:"ruling,omitempty"`
	March        int    `json:"march"`
	// Values are the arrival roll's dice as thrown, when corrected.
	Values    []int       `json:"values,omitempty"`
	Set       FlankValues `json:"set"`
	Before    FlankValues `json:"before"`
	Withdrawn []string    `json:"withdrawn,omitempty"`
}

// EventType implements Event.
func (*FlankCorrected) EventType() string { return EvFlankCorrected }

// Audience implements Event.
func (*FlankCorrected) Audience() string { return AudienceAll }

// ObjectiveCorrected is objective.corrected: who held an objective, as
// the umpire ruled (V.2); Side "" is nobody.
type ObjectiveCorrected struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	Ruling       uint64 `json:"ruling,omitempty"`
	Objective    string `json:"objective"`
	Side         string `json:"side,omitempty"`
	Before       string `json:"before,omitempty"`
	Value        int    `json:"value"`
}

// EventType implements Event.
func (*ObjectiveCorrected) EventType() string { return EvObjectiveCorrected }

// Audience implements Event.
func (*ObjectiveCorrected) Audience() string { return AudienceAll }

// BattleRescored is battle.rescored: an ended battle scored again by the
// rules (V.1-V.3, F.9) from its corrected state, never typed in. Before is
// the score it replaces. Successors are the campaign's later battles that
// had started when it was recorded: they stand as they were played (their
// armies as deployed); the campaign's standings and rosters follow the new
// score from then on.
type BattleRescored struct {
	Dispute      int          `json:"dispute"`
	EventVersion uint64       `json:"event_version"`
	Ruling       uint64       `json:"ruling,omitempty"`
	Before       BattleScored `json:"before"`
	Score        BattleScored `json:"score"`
	Successors   []string     `json:"successors,omitempty"`
}

// EventType implements Event.
func (*BattleRescored) EventType() string { return EvBattleRescored }

// Audience implements Event.
func (*BattleRescored) Audience() string { return AudienceAll }

// applyCorrection folds the correction events into s.
func applyCorrection(s *State, e Event) {
	switch ev := e.(type) {
	case *OrderCorrected:
		applySetting(s, ev.Set)
	case *CommandUndone:
		applySetting(s, ev.Set)
	case *GeneralCorrected:
		att, pos := s.generalPtrs(ev.General)
		if pos == nil {
			return
		}
		if ev.AttachedTo != nil {
			if *ev.AttachedTo == "" {
				*att = ""
			} else {
				s.attach(ev.General, *ev.AttachedTo)
			}
		}
		if ev.Position != nil {
			*pos = *ev.Position
		}
		if ev.Done != nil {
			g := s.TurnBook.general(ev.General)
			g.Done, g.Reason = *ev.Done, ""
			if *ev.Done {
				g.Reason = ReasonRuling
			}
		}
	case *FlankCorrected:
		m := s.march(ev.March)
		if m == nil {
			return
		}
		m.Roll, m.Entry, m.ArrivalTurn, m.ArtilleryExtraMove = ev.Set.Roll, ev.Set.Entry, ev.Set.ArrivalTurn, ev.Set.ArtilleryExtraMove
		m.ChosenEntry = copyPtr(ev.Set.ChosenEntry)
		for _, id := range ev.Withdrawn {
			u := s.Units[id]
			if u == nil {
				continue
			}
			u.Status = UnitOffTable
			u.DisorderedTurn, u.DisorderedPhase = 0, ""
			s.detachFrom(id)
			m.Entered = deleteID(m.Entered, id)
			if !containsID(m.Waiting, id) {
				m.Waiting = append(m.Waiting, id)
			}
		}
		if m.Orders != nil && len(ev.Withdrawn) > 0 {
			// Waiting in the orders' entry order (F.4).
			var w []string
			for _, fu := range m.Orders.units() {
				if containsID(m.Waiting, fu.ID) {
					w = append(w, fu.ID)
				}
			}
			m.Waiting = w
		}
	case *ObjectiveCorrected:
		if s.Victory.Held == nil {
			s.Victory.Held = map[string]string{}
		}
		if ev.Side == "" {
			delete(s.Victory.Held, ev.Objective)
		} else {
			s.Victory.Held[ev.Objective] = ev.Side
		}
	case *BattleRescored:
		sc := ev.Score
		s.Victory.Score = &sc
	}
}

// ReasonRuling is the reason a general gives no more orders this turn
// when the umpire ruled so (general.corrected).
const ReasonRuling = "ruling"

// applySetting sets a correction's values.
func applySetting(s *State, t Setting) {
	restoreState(s, t.Restore)
	for _, u := range t.Units {
		if s.Units[u.ID] != nil {
			s.followUnit(u.ID)
			if !s.Units[u.ID].active() {
				s.detachFrom(u.ID)
			}
		}
	}
	if f := t.Flags; f != nil {
		s.TurnBook.CurrentGeneral, s.TurnBook.OrdersClosed, s.TurnBook.InitiativeClosed = f.CurrentGeneral, f.OrdersClosed, f.InitiativeClosed
	}
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func deleteID(ids []string, id string) []string {
	var out []string
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// describeCorrection says a correction event in words.
func describeCorrection(e Event) string {
	switch ev := e.(type) {
	case *OrderCorrected:
		return fmt.Sprintf("order of %s to %s resolved again (dispute %d on event %d): was %s; now %s%s",
			ev.Original.General, strings.Join(ev.Original.Units, ", "), ev.Dispute, ev.EventVersion,
			orderBrief(&ev.Original), orderBrief(&ev.Resolved), settingText(ev.Before, ev.Set))
	case *CommandUndone:
		return fmt.Sprintf("%s of events %s undone by the umpire (dispute %d on event %d); the events stay in the log%s",
			strings.Join(ev.Types, ", "), versionsText(ev.Versions), ev.Dispute, ev.EventVersion, settingText(ev.Before, ev.Set))
	case *GeneralCorrected:
		var parts []string
		if ev.AttachedTo != nil {
			if *ev.AttachedTo == "" {
				parts = append(parts, fmt.Sprintf("leaves %s", firstNonEmpty(ev.Before.AttachedTo, "no unit")))
			} else {
				parts = append(parts, fmt.Sprintf("with %s (was %s)", *ev.AttachedTo, firstNonEmpty(ev.Before.AttachedTo, "with none")))
			}
		}
		if ev.Position != nil {
			parts = append(parts, fmt.Sprintf("(%.1f,%.1f) -> (%.1f,%.1f)", ev.Before.Position.X, ev.Before.Position.Y, ev.Position.X, ev.Position.Y))
		}
		if ev.Done != nil {
			if *ev.Done {
				parts = append(parts, "gives no more orders this turn")
			} else {
				parts = append(parts, "may give orders again this turn")
			}
		}
		return fmt.Sprintf("general %s corrected by the umpire (dispute %d on event %d): %s", ev.General, ev.Dispute, ev.EventVersion, strings.Join(parts, "; "))
	case *FlankCorrected:
		s := fmt.Sprintf("flank march %d corrected by the umpire (dispute %d on event %d): %s -> %s", ev.March, ev.Dispute, ev.EventVersion, flankBrief(ev.Before), flankBrief(ev.Set))
		if len(ev.Values) > 0 {
			s += fmt.Sprintf(" (roll as thrown: %s)", facesText(ev.Values))
		}
		if len(ev.Withdrawn) > 0 {
			s += fmt.Sprintf("; %s back off the table", strings.Join(ev.Withdrawn, ", "))
		}
		return s
	case *ObjectiveCorrected:
		return fmt.Sprintf("objective %s (%d points) held by %s, not %s, the umpire ruled (dispute %d on event %d, V.2)",
			ev.Objective, ev.Value, firstNonEmpty(ev.Side, "nobody"), firstNonEmpty(ev.Before, "nobody"), ev.Dispute, ev.EventVersion)
	case *BattleRescored:
		s := fmt.Sprintf("battle scored again from its corrected state (dispute %d on event %d, V.2): %s, was %s",
			ev.Dispute, ev.EventVersion, scoreText(&ev.Score), scoreText(&ev.Before))
		if len(ev.Successors) > 0 {
			s += fmt.Sprintf("; %s had already started and stands as played", strings.Join(ev.Successors, ", "))
		}
		return s
	}
	return ""
}

func orderBrief(r *OrderResolved) string {
	s := fmt.Sprintf("%s rolled %d (%s) against %d", r.General, r.Total, facesText(r.Values), r.Effective)
	switch r.Outcome {
	case OutcomeActions:
		return s + ": " + plural(r.Actions, "action", "actions")
	case OutcomeBlunder:
		if r.Blunder != nil {
			return s + ": blunder, " + r.Blunder.Result
		}
		return s + ": blunder"
	case OutcomeSuccess:
		return s + ": success"
	}
	return s + ": failed"
}

func facesText(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, "+")
}

func flankBrief(v FlankValues) string {
	switch v.Entry {
	case EntryLost:
		return fmt.Sprintf("roll %d, lost", v.Roll)
	case EntryOpponentChoice:
		s := fmt.Sprintf("roll %d, turn %d at the opponent's choice", v.Roll, v.ArrivalTurn)
		if v.ChosenEntry != nil {
			s += fmt.Sprintf(" (%.1f,%.1f)", v.ChosenEntry.X, v.ChosenEntry.Y)
		}
		return s
	}
	return fmt.Sprintf("roll %d, turn %d", v.Roll, v.ArrivalTurn)
}

func scoreText(b *BattleScored) string {
	parts := make([]string, len(b.Sides))
	for i, sc := range b.Sides {
		parts[i] = fmt.Sprintf("%s %d", sc.Side, sc.Points)
	}
	return strings.Join(parts, ", ")
}

// settingText says what a setting changes: "; sets r1-inf1 (20.0,10.0) ...".
func settingText(before, set Setting) string {
	var parts []string
	for i, u := range set.Units {
		b := before.Units[i]
		p := u.ID
		if b.Base != u.Base {
			p += fmt.Sprintf(" (%.1f,%.1f) -> (%.1f,%.1f)", b.Base.Center.X, b.Base.Center.Y, u.Base.Center.X, u.Base.Center.Y)
		}
		if b.Formation != u.Formation {
			p += fmt.Sprintf(" %s -> %s", b.Formation, u.Formation)
		}
		if b.Markers != u.Markers {
			p += fmt.Sprintf(" markers %d -> %d", b.Markers, u.Markers)
		}
		if b.Status != u.Status {
			p += fmt.Sprintf(" %s -> %s", b.Status, u.Status)
		}
		parts = append(parts, p)
	}
	for i, g := range set.Generals {
		parts = append(parts, fmt.Sprintf("general %s (%.1f,%.1f) -> (%.1f,%.1f)", g.General, before.Generals[i].Position.X, before.Generals[i].Position.Y, g.Position.X, g.Position.Y))
	}
	for i, e := range set.UnitTurns {
		b, a := UnitTurn{}, UnitTurn{}
		if before.UnitTurns[i].Turn != nil {
			b = *before.UnitTurns[i].Turn
		}
		if e.Turn != nil {
			a = *e.Turn
		}
		var ps []string
		if b.ActionsLeft != a.ActionsLeft {
			ps = append(ps, fmt.Sprintf("actions left %d -> %d", b.ActionsLeft, a.ActionsLeft))
		}
		switch {
		case a.Blundered && !b.Blundered:
			ps = append(ps, "blundered")
		case a.Failed && !b.Failed:
			ps = append(ps, "failed")
		case b.Failed && !a.Failed:
			ps = append(ps, "no longer failed")
		}
		if len(ps) > 0 {
			parts = append(parts, e.Unit+"'s "+strings.Join(ps, ", "))
		}
	}
	for i, e := range set.GeneralTurns {
		b, a := GeneralTurn{}, GeneralTurn{}
		if before.GeneralTurns[i].Turn != nil {
			b = *before.GeneralTurns[i].Turn
		}
		if e.Turn != nil {
			a = *e.Turn
		}
		if b.Orders != a.Orders {
			parts = append(parts, fmt.Sprintf("%s's orders this turn %d -> %d", e.General, b.Orders, a.Orders))
		}
		if b.Done != a.Done {
			parts = append(parts, fmt.Sprintf("%s %s", e.General, map[bool]string{true: "gives no more orders this turn", false: "may give orders again this turn"}[a.Done]))
		}
	}
	if set.Flags != nil && before.Flags != nil && set.Flags.OrdersClosed != before.Flags.OrdersClosed {
		parts = append(parts, map[bool]string{true: "no more orders this turn (C.11)", false: "orders are open again (C.11)"}[set.Flags.OrdersClosed])
	}
	if len(parts) == 0 {
		return "; nothing on the table changes"
	}
	return "; sets " + strings.Join(parts, "; ")
}
