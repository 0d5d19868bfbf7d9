package rules

import (
	"fmt"
	"strings"
)

// Describe says in one line what an event records, for the CLI's tables,
// the event log and the timeline. Distances are in the battle's unit.
func Describe(e Event) string {
	if d := describeDice(e); d != "" {
		return d
	}
	if d := describeMovement(e); d != "" {
		return d
	}
	if d := describeFlank(e) + describeVictory(e); d != "" {
		return d
	}
	if d := describeDispute(e); d != "" {
		return d
	}
	if d := describeCharge(e); d != "" {
		return d
	}
	switch ev := e.(type) {
	case *BattleCreated:
		return fmt.Sprintf("battle %q created: %gx%g %s table, %d sides, %s first, turn limit %d, ruleset %s v%d",
			firstNonEmpty(ev.Name, ev.Battle), ev.Table.Width, ev.Table.Depth, ev.Measurement, len(ev.Sides), ev.FirstSide, ev.TurnLimit, ev.Ruleset.Name, ev.Ruleset.Version)
	case *ArmyDeployed:
		units := 0
		for _, b := range ev.Brigades {
			units += len(b.Units)
		}
		return fmt.Sprintf("%s deployed: C-in-C %s (rating %d), %d brigades, %d units", ev.Side, ev.CInC.ID, ev.CInC.Rating, len(ev.Brigades), units)
	case *BattleStarted:
		return fmt.Sprintf("battle started; %s has the first turn", ev.FirstSide)
	case *TurnStarted:
		return fmt.Sprintf("turn %d: the %s phase of %s", ev.Turn, ev.Phase, ev.Side)
	case *PhaseEnded:
		return fmt.Sprintf("turn %d: the %s phase of %s ended", ev.Turn, ev.Phase, ev.Side)
	case *PhaseStarted:
		return fmt.Sprintf("turn %d: the %s phase of %s", ev.Turn, ev.Phase, ev.Side)
	case *DiceRolled:
		vals := make([]string, len(ev.Values))
		for i, v := range ev.Values {
			vals[i] = fmt.Sprint(v)
		}
		src := ev.Source
		if ev.EnteredBy != "" {
			src += " by " + ev.EnteredBy
		}
		return fmt.Sprintf("roll #%d %dD%d = %s (%s) for %s", ev.Counter, ev.Count, ev.Sides, strings.Join(vals, "+"), src, ev.Purpose)
	case *OrderResolved:
		if ev.Summary != "" {
			return fmt.Sprintf("%s orders %s: %s", ev.General, strings.Join(ev.Units, ", "), ev.Summary)
		}
		return fmt.Sprintf("%s orders %s: %s, %d actions", ev.General, strings.Join(ev.Units, ", "), ev.Outcome, ev.Actions)
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
	case *BattleEnded:
		return fmt.Sprintf("battle ended in turn %d: %s", ev.Turn, ev.Reason)
	case *InitiativeTaken:
		what := ev.Content.Action
		if ev.Content.Formation != "" {
			what += " to " + ev.Content.Formation
		}
		if ev.Content.Target != "" {
			what += " " + ev.Content.Target
		}
		return fmt.Sprintf("%s takes initiative (C.15): %s to %s, no roll; enemy %s is %.1f away, within %g", ev.Unit, plural(ev.Actions, "action", "actions"), what, ev.Enemy, ev.Distance, ev.Range)
	case *InitiativeDeclined:
		return fmt.Sprintf("%s declines initiative and waits for its general (C.15)", ev.Unit)
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
	case *ChargeDeclared:
		if ev.Contact {
			return fmt.Sprintf("%s charged %s using %s: %.1f of %.1f reach into contact with its %s (C.9): (%.1f,%.1f) facing %.0f",
				ev.Unit, ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Distance, ev.Reach, ev.Side, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		}
		return fmt.Sprintf("%s declared a charge on %s using %s; contact pending the charge rules: %s", ev.Unit, ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Reason)
	case *BlunderCarriedOut:
		s := fmt.Sprintf("%s blundered (C.5, table %d: %s)", ev.Unit, ev.Roll, ev.Result)
		switch {
		case ev.Contact:
			s += fmt.Sprintf(": charged %s, %.1f into contact", ev.Target, ev.Distance)
		case ev.Result == BlunderHold:
			s += ": stands still"
		default:
			s += fmt.Sprintf(": moved %.1f of %.1f, (%.1f,%.1f) -> (%.1f,%.1f)", ev.Distance, ev.Planned, ev.From.Center.X, ev.From.Center.Y, ev.To.Center.X, ev.To.Center.Y)
		}
		if ev.Stopped != "" {
			s += "; " + ev.Stopped
		}
		return s
	}
	if e == nil {
		return ""
	}
	return e.EventType()
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
