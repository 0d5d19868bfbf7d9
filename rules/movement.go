// Moves, formation changes and generals (docs/rules.md C.16, C.17, M.1-M.10,
// K.1-K.3): their commands and events. Moves: movement_move.go; paths and
// what a move may not do: movement_path.go; formation changes:
// movement_reform.go; generals and the hand-over: movement_general.go.

package rules

import (
	"fmt"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Command names of moves, formation changes and generals (C.16, C.17, M.1-M.10).
const (
	CmdUnitMove = "unit.move"
	// CmdUnitReform is a formation change (C.16).
	CmdUnitReform = "unit.reform"
	// CmdMovementHandOver: the phasing side has moved; the next side moves (M.1).
	CmdMovementHandOver = "movement.hand_over"
	// CmdGeneralMove: an unattached general moves, and may join a unit (M.2).
	CmdGeneralMove = "general.move"
	// CmdGeneralDetach: an attached general leaves his unit (M.2).
	CmdGeneralDetach = "general.detach"
)

// Event type names of moves, formation changes and generals: persisted
// forever, never renamed or reused.
const (
	EvUnitMoved          = "unit.moved"
	EvUnitReformed       = "unit.reformed"
	EvFormationTested    = "formation.tested"
	EvMovementHandedOver = "movement.handed_over"
	EvGeneralMoved       = "general.moved"
	EvGeneralDetached    = "general.detached"
)

// MoveUnit (unit.move) moves a unit: in the command phase with actions
// from its order (C.6, C.17; Actions omitted: the fewest of the unit's
// actions that cover the move's cost), in the movement phase
// as its M.3 normal move under the movement_table option (no actions). The
// base's centre goes from where it stands through Path's waypoints to To in
// straight legs; a waypoint with a facing turns the unit on the spot there,
// and Facing (nil: keep it) turns it at the end. The move costs the
// centre's path, plus the turns (movement.turn_cost) and difficult terrain
// (movement.difficult_terrain). Evading marks horse artillery evading,
// which M.10 exempts.
type MoveUnit struct {
	Unit    string     `json:"unit"`
	To      geom.Vec   `json:"to"`
	Facing  *float64   `json:"facing,omitempty"`
	Path    []Waypoint `json:"path,omitempty"`
	Actions int        `json:"actions,omitempty"`
	Evading bool       `json:"evading,omitempty"`
}

// CommandName implements Command.
func (*MoveUnit) CommandName() string { return CmdUnitMove }

// ReformUnit (unit.reform) changes a unit's formation with one whole action
// (C.16): the command point, the middle of its front edge, stays where it
// is; the unit may pivot on it to Facing (nil keeps the facing). The new
// base takes the ruleset's size for the new formation.
type ReformUnit struct {
	Unit      string   `json:"unit"`
	Formation string   `json:"formation"`
	Facing    *float64 `json:"facing,omitempty"`
}

// CommandName implements Command.
func (*ReformUnit) CommandName() string { return CmdUnitReform }

// HandOverMovement (movement.hand_over) ends the moves of the side moving in
// the movement phase and gives the phase to the next side (M.1: the phasing
// side moves all its units first, then the other). The phasing side's
// phase.end still ends the whole movement phase, so a side with nothing to
// move need not hand over.
type HandOverMovement struct {
	Side string `json:"side"`
}

// CommandName implements Command.
func (*HandOverMovement) CommandName() string { return CmdMovementHandOver }

// MoveGeneral (general.move) moves an unattached general in the movement
// phase up to his full distance (M.2), in a straight line to To. Join names
// a unit of his side he ends in base contact with: he joins it and moves
// with it from then on.
type MoveGeneral struct {
	General string   `json:"general"`
	To      geom.Vec `json:"to"`
	Join    string   `json:"join,omitempty"`
}

// CommandName implements Command.
func (*MoveGeneral) CommandName() string { return CmdGeneralMove }

// DetachGeneral (general.detach) makes an attached general leave his unit in
// the movement phase (M.2); he may then move on his own.
type DetachGeneral struct {
	General string `json:"general"`
}

// CommandName implements Command.
func (*DetachGeneral) CommandName() string { return CmdGeneralDetach }

// UnitMoved is unit.moved.
type UnitMoved struct {
	Turn        int        `json:"turn"`
	Unit        string     `json:"unit"`
	From        geom.Base  `json:"from"`
	To          geom.Base  `json:"to"`
	Path        []geom.Vec `json:"path,omitempty"`
	Distance    float64    `json:"distance"`
	ActionsUsed int        `json:"actions_used"`
	// FailedMove: the move was the C.12 move of a unit that failed its order.
	FailedMove bool `json:"failed_move,omitempty"`
	// Route is the path with the turns made at waypoints, when there were any.
	Route []Waypoint `json:"route,omitempty"`
	// Cost is what the move took from its allowance (the path, turns and
	// difficult terrain), Allowed the allowance, when they differ from Distance.
	Cost    float64 `json:"cost,omitempty"`
	Allowed float64 `json:"allowed,omitempty"`
	// Phase is "movement" for a normal move in the movement phase (M.3),
	// which uses MovementUsed of the unit's normal move (M.4-M.6).
	Phase        string  `json:"phase,omitempty"`
	MovementUsed float64 `json:"movement_used,omitempty"`
	// StoppedShort: without a charge order the move would have come within
	// Short (the 1" gap) of Enemy, so it stopped there, Short from it, on
	// its way to Planned; Path and Route are the part it made (C.9).
	StoppedShort bool      `json:"stopped_short,omitempty"`
	Enemy        string    `json:"enemy,omitempty"`
	Short        float64   `json:"short,omitempty"`
	Planned      *geom.Vec `json:"planned,omitempty"`
}

// EventType implements Event.
func (*UnitMoved) EventType() string { return EvUnitMoved }

// Audience implements Event.
func (*UnitMoved) Audience() string { return AudienceAll }

// UnitReformed is unit.reformed: a formation change (C.16).
type UnitReformed struct {
	Turn          int       `json:"turn"`
	Unit          string    `json:"unit"`
	FromFormation string    `json:"from_formation"`
	ToFormation   string    `json:"to_formation"`
	From          geom.Base `json:"from"`
	To            geom.Base `json:"to"`
	ActionsUsed   int       `json:"actions_used"`
	// Free: limbering or unlimbering of a type that does it for free (C.16).
	Free bool `json:"free,omitempty"`
	// Phase is "movement" for a change in the movement phase, which uses
	// MovementUsed of the unit's normal move (M.4); Reordered: a disordered
	// unit formed again (M.8).
	Phase        string  `json:"phase,omitempty"`
	MovementUsed float64 `json:"movement_used,omitempty"`
	Reordered    bool    `json:"reordered,omitempty"`
	// AfterMarch: a deployment in the movement phase after the unit's
	// tactical march, paid with ActionsUsed of its order (M.14, C.16).
	AfterMarch bool `json:"after_march,omitempty"`
}

// EventType implements Event.
func (*UnitReformed) EventType() string { return EvUnitReformed }

// Audience implements Event.
func (*UnitReformed) Audience() string { return AudienceAll }

// FormationTested is formation.tested (M.9): the enemy that made the test
// necessary, the roll against PassAtLeast, and what a failure cost.
type FormationTested struct {
	Turn         int        `json:"turn"`
	Unit         string     `json:"unit"`
	Formation    string     `json:"formation"` // the formation it tried to form
	Enemy        string     `json:"enemy"`
	Distance     float64    `json:"distance"`
	Roll         RollRecord `json:"roll"`
	PassAtLeast  int        `json:"pass_at_least"`
	Passed       bool       `json:"passed"`
	ActionsUsed  int        `json:"actions_used,omitempty"`
	MovementUsed float64    `json:"movement_used,omitempty"`
}

// EventType implements Event.
func (*FormationTested) EventType() string { return EvFormationTested }

// Audience implements Event.
func (*FormationTested) Audience() string { return AudienceAll }

// MovementHandedOver is movement.handed_over (M.1).
type MovementHandedOver struct {
	Turn int    `json:"turn"`
	From string `json:"from"`
	To   string `json:"to"`
}

// EventType implements Event.
func (*MovementHandedOver) EventType() string { return EvMovementHandedOver }

// Audience implements Event.
func (*MovementHandedOver) Audience() string { return AudienceAll }

// GeneralMoved is general.moved (M.2): Moved is his total this phase,
// Allowed his full distance; Joined the unit he joined at the end.
type GeneralMoved struct {
	Turn     int      `json:"turn"`
	General  string   `json:"general"`
	Side     string   `json:"side"`
	From     geom.Vec `json:"from"`
	To       geom.Vec `json:"to"`
	Distance float64  `json:"distance"`
	Moved    float64  `json:"moved"`
	Allowed  float64  `json:"allowed"`
	Joined   string   `json:"joined,omitempty"`
}

// EventType implements Event.
func (*GeneralMoved) EventType() string { return EvGeneralMoved }

// Audience implements Event.
func (*GeneralMoved) Audience() string { return AudienceAll }

// GeneralDetached is general.detached (M.2).
type GeneralDetached struct {
	Turn    int    `json:"turn"`
	General string `json:"general"`
	Unit    string `json:"unit"`
}

// EventType implements Event.
func (*GeneralDetached) EventType() string { return EvGeneralDetached }

// Audience implements Event.
func (*GeneralDetached) Audience() string { return AudienceAll }

// applyMovement folds the events of moves, formation changes and generals.
// Like Apply it never fails: facts that do not fit the state change what
// they can.
func applyMovement(s *State, e Event) {
	tb := &s.TurnBook
	switch ev := e.(type) {
	case *UnitMoved:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Base = ev.To
		s.followUnit(ev.Unit)
		ut := s.TurnBook.unit(ev.Unit)
		if ev.Phase == PhaseMovement {
			ut.MovementUsed += ev.MovementUsed
			ut.NormalMoved = true
			return
		}
		ut.MoveActions += ev.ActionsUsed
		if ev.FailedMove {
			ut.FailedMoves -= ev.ActionsUsed
		} else {
			ut.ActionsLeft -= ev.ActionsUsed
		}
	case *UnitReformed:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Formation, u.Base = ev.ToFormation, ev.To
		s.followUnit(ev.Unit)
		if ev.Reordered {
			u.Status, u.DisorderedTurn, u.DisorderedPhase = UnitOK, 0, ""
		}
		ut := s.TurnBook.unit(ev.Unit)
		if ev.Phase == PhaseMovement && !ev.AfterMarch {
			ut.MovementUsed += ev.MovementUsed
			return
		}
		ut.ActionsLeft -= ev.ActionsUsed
		ut.Reforms++
	case *FormationTested:
		ut := tb.unit(ev.Unit)
		if !ev.Passed {
			ut.ActionsLeft -= ev.ActionsUsed
			ut.MovementUsed += ev.MovementUsed
		}
	case *MovementHandedOver:
		tb.MovedSides = append(tb.MovedSides, ev.From)
		tb.Mover = ev.To
	case *GeneralMoved:
		att, pos := s.generalPtrs(ev.General)
		if pos == nil {
			return
		}
		*pos = ev.To
		tb.general(ev.General).Moved = ev.Moved
		if ev.Joined != "" {
			s.attach(ev.General, ev.Joined)
		} else {
			*att = ""
		}
	case *GeneralDetached:
		if att, _ := s.generalPtrs(ev.General); att != nil {
			*att = ""
		}
	}
}

// describeMovement says the events of moves, formation changes and generals
// in words.
func describeMovement(e Event) string {
	switch ev := e.(type) {
	case *UnitMoved:
		s := fmt.Sprintf("%s moved %.1f using %s: (%.1f,%.1f) facing %.0f -> (%.1f,%.1f) facing %.0f",
			ev.Unit, ev.Distance, plural(ev.ActionsUsed, "action", "actions"),
			ev.From.Center.X, ev.From.Center.Y, ev.From.Facing, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.FailedMove {
			s += " (C.12 move after a failed order)"
		}
		if ev.Phase == PhaseMovement {
			s = strings.Replace(s, "using 0 actions", fmt.Sprintf("in the movement phase (M.3, %.2f of its move)", ev.MovementUsed), 1)
		}
		if ev.Cost > 0 {
			s += fmt.Sprintf("; cost %.1f of %.1f with turns and terrain", ev.Cost, ev.Allowed)
		}
		if ev.StoppedShort {
			s += fmt.Sprintf("; stopped %g short of %s (C.9: no charge order)", ev.Short, ev.Enemy)
			if ev.Planned != nil {
				s += fmt.Sprintf(" on its way to (%.1f,%.1f)", ev.Planned.X, ev.Planned.Y)
			}
		}
		return s
	case *UnitReformed:
		cost := plural(ev.ActionsUsed, "action", "actions")
		if ev.Free {
			cost = "no action (free limbering)"
		}
		if ev.AfterMarch {
			cost += " after its tactical march (M.14)"
		}
		return fmt.Sprintf("%s formed %s from %s using %s (C.16): (%.1f,%.1f) facing %.0f -> (%.1f,%.1f) facing %.0f",
			ev.Unit, ev.ToFormation, ev.FromFormation, cost, ev.From.Center.X, ev.From.Center.Y, ev.From.Facing, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
	case *FormationTested:
		verdict := "passed"
		if !ev.Passed {
			verdict = "failed: it stays as it was"
		}
		return fmt.Sprintf("%s took the formation test to form %s, enemy %s %.1f away (M.9): rolled %d, needs %d: %s", ev.Unit, ev.Formation, ev.Enemy, ev.Distance, ev.Roll.Total, ev.PassAtLeast, verdict)
	case *MovementHandedOver:
		return fmt.Sprintf("turn %d: %s has moved and hands the movement phase to %s (M.1)", ev.Turn, ev.From, ev.To)
	case *GeneralMoved:
		s := fmt.Sprintf("general %s moved %.1f (%.1f of %.1f this phase, M.2): (%.1f,%.1f) -> (%.1f,%.1f)", ev.General, ev.Distance, ev.Moved, ev.Allowed, ev.From.X, ev.From.Y, ev.To.X, ev.To.Y)
		if ev.Joined != "" {
			s += " and joined " + ev.Joined
		}
		return s
	case *GeneralDetached:
		return fmt.Sprintf("general %s left unit %s (M.2)", ev.General, ev.Unit)
	}
	return ""
}
