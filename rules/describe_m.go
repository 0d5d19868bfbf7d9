package rules

import (
	"fmt"
	"strings"
)

// describeMovement says the movement phase's, generals' and combat events
// in words; "" for other events.
func describeMovement(e Event) string {
	switch ev := e.(type) {
	case *MovementHandedOver:
		return fmt.Sprintf("turn %d: %s has moved and hands the movement phase to %s (M.1)", ev.Turn, ev.From, ev.To)
	case *MarchDeclared:
		s := fmt.Sprintf("brigade %s (%s order) ", ev.Brigade, ev.Order)
		switch {
		case ev.By == MarchByAllowance:
			s += fmt.Sprintf("marches: %d of %d tactical marches this turn for %s (M.15)", ev.Marches+1, ev.Limit, ev.Side)
		case ev.Granted:
			s += fmt.Sprintf("marches by its brigadier's initiative: rolled %d, at most %d (M.15)", rollTotal(ev.Roll), ev.AtMost)
		default:
			s += fmt.Sprintf("may not march: brigadier's initiative rolled %d, above %d (M.15)", rollTotal(ev.Roll), ev.AtMost)
		}
		return s
	case *UnitMarched:
		s := fmt.Sprintf("%s marched %.1f (%.1f of %.1f this turn, M.12): (%.1f,%.1f) -> (%.1f,%.1f) facing %.0f",
			ev.Unit, ev.Distance, ev.Marched, ev.Speed, ev.From.Center.X, ev.From.Center.Y, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.Ended {
			s += fmt.Sprintf("; its march ended within reach of %s (M.13)", ev.Enemy)
		}
		return s
	case *BrigadeOrderChanged:
		switch {
		case ev.By == OrderByUmpire:
			return fmt.Sprintf("the umpire changed brigade %s's order from %s to %s (T.6)", ev.Brigade, ev.From, ev.To)
		case ev.Changed:
			return fmt.Sprintf("brigade %s's order changed from %s to %s by its brigadier's initiative: rolled %d, at most %d (M.15)", ev.Brigade, ev.From, ev.To, rollTotal(ev.Roll), ev.AtMost)
		}
		return fmt.Sprintf("brigade %s stays under %s: its brigadier's initiative for %s rolled %d, above %d (M.15)", ev.Brigade, ev.From, ev.To, rollTotal(ev.Roll), ev.AtMost)
	case *GeneralMoved:
		s := fmt.Sprintf("general %s moved %.1f (%.1f of %.1f this phase, M.2): (%.1f,%.1f) -> (%.1f,%.1f)", ev.General, ev.Distance, ev.Moved, ev.Allowed, ev.From.X, ev.From.Y, ev.To.X, ev.To.Y)
		if ev.Joined != "" {
			s += " and joined " + ev.Joined
		}
		return s
	case *GeneralDetached:
		return fmt.Sprintf("general %s left unit %s (M.2)", ev.General, ev.Unit)
	case *UnitFired:
		s := fmt.Sprintf("%s fired", ev.Unit)
		if ev.Target != "" {
			s += " at " + ev.Target
		}
		return s + enteredBy(ev.EnteredBy) + " (M.5: half move in a movement phase under movement_table)"
	case *CombatRecorded:
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s", ev.Unit, ev.Result)
		if ev.Markers != ev.MarkersBefore {
			fmt.Fprintf(&b, ", markers %d -> %d", ev.MarkersBefore, ev.Markers)
		}
		if ev.To != nil {
			if ev.Roll != nil {
				fmt.Fprintf(&b, ", %.1f (%g x %g + %d rolled, M.17)", ev.Distance, ev.Fraction, ev.Fixed, ev.Roll.Total)
			} else {
				fmt.Fprintf(&b, ", %.1f as entered", ev.Distance)
			}
			fmt.Fprintf(&b, " to (%.1f,%.1f)", ev.To.Center.X, ev.To.Center.Y)
		}
		if ev.Status != ev.StatusBefore {
			fmt.Fprintf(&b, ", %s -> %s", ev.StatusBefore, ev.Status)
		}
		b.WriteString(enteredBy(ev.EnteredBy))
		return b.String()
	case *FormationTested:
		verdict := "passed"
		if !ev.Passed {
			verdict = "failed: it stays as it was"
		}
		return fmt.Sprintf("%s took the formation test to form %s, enemy %s %.1f away (M.9): rolled %d, needs %d: %s", ev.Unit, ev.Formation, ev.Enemy, ev.Distance, ev.Roll.Total, ev.PassAtLeast, verdict)
	}
	return ""
}

func rollTotal(r *RollRecord) int {
	if r == nil {
		return 0
	}
	return r.Total
}

func enteredBy(who string) string {
	if who == "" {
		return ""
	}
	return " (entered by " + who + ")"
}
