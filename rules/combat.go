// Combat outcomes entered at the table (docs/rules.md T.4, M.5, M.17): the texts
// give no firing or melee rules, so outcomes are entered, not judged.

package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Command names of the combat outcomes entered at the table (T.4).
const (
	// CmdUnitFire: a unit fired, as entered at the table (M.5, T.4).
	CmdUnitFire = "unit.fire"
	// CmdCombatRecord: a combat outcome entered at the table (T.4, M.17).
	CmdCombatRecord = "combat.record"
)

// Event type names of the combat outcomes: persisted forever, never
// renamed or reused.
const (
	EvUnitFired      = "unit.fired"
	EvCombatRecorded = "combat.recorded"
)

// FireUnit (unit.fire) records that a unit fired (the texts give no firing
// rules: the fact is entered). Under movement_table it halves the unit's
// move this turn (M.5).
type FireUnit struct {
	Unit      string `json:"unit"`
	Target    string `json:"target,omitempty"`
	EnteredBy string `json:"entered_by,omitempty"`
	Note      string `json:"note,omitempty"`
}

// CommandName implements Command.
func (*FireUnit) CommandName() string { return CmdUnitFire }

// Combat results entered by combat.record (T.4).
const (
	ResultCasualties = "casualties" // Markers added (or removed, negative)
	ResultDisorder   = "disorder"   // the unit becomes disordered (M.8)
	ResultRetreat    = "retreat"    // it retreats (M.17 for cavalry and horse artillery)
	ResultRout       = "rout"       // it routs (M.17 likewise)
	ResultRally      = "rally"      // a disordered, retreating or routed unit is in good order again
	ResultDestroyed  = "destroyed"  // it is removed
)

var combatResults = []string{ResultCasualties, ResultDisorder, ResultRetreat, ResultRout, ResultRally, ResultDestroyed}

// RecordCombat (combat.record) enters one combat outcome for a unit (T.4):
// the texts give no firing or melee rules, so outcomes are entered, not
// judged, and the ledger keeps the state consistent. Markers adds casualty
// markers (negative removes) with any result. A retreat or rout moves the
// unit straight from its centre toward Toward: cavalry and horse artillery
// go the M.17 distance (a fraction of the fixed distance plus a recorded
// roll); other units go Distance, as entered. Facing (nil: keep it) is its
// facing at the end. A unit that would not end wholly on the table leaves it.
type RecordCombat struct {
	Unit      string    `json:"unit"`
	Result    string    `json:"result"`
	Markers   int       `json:"markers,omitempty"`
	Toward    *geom.Vec `json:"toward,omitempty"`
	Distance  float64   `json:"distance,omitempty"`
	Facing    *float64  `json:"facing,omitempty"`
	EnteredBy string    `json:"entered_by,omitempty"`
	Note      string    `json:"note,omitempty"`
}

// CommandName implements Command.
func (*RecordCombat) CommandName() string { return CmdCombatRecord }

// UnitFired is unit.fired (M.5, T.4).
type UnitFired struct {
	Turn      int    `json:"turn"`
	Phase     string `json:"phase"`
	Unit      string `json:"unit"`
	Target    string `json:"target,omitempty"`
	EnteredBy string `json:"entered_by,omitempty"`
	Note      string `json:"note,omitempty"`
}

// EventType implements Event.
func (*UnitFired) EventType() string { return EvUnitFired }

// Audience implements Event.
func (*UnitFired) Audience() string { return AudienceAll }

// CombatRecorded is combat.recorded (T.4): the result entered, the markers
// and status before and after, and for a retreat or rout the move: Fixed and
// Fraction with Roll for M.17 (Distance = Fraction x Fixed + roll), else the
// entered Distance. OffTable: the unit left the table.
type CombatRecorded struct {
	Turn          int         `json:"turn"`
	Phase         string      `json:"phase"`
	Unit          string      `json:"unit"`
	Result        string      `json:"result"`
	MarkersBefore int         `json:"markers_before"`
	Markers       int         `json:"markers"`
	StatusBefore  string      `json:"status_before"`
	Status        string      `json:"status"`
	From          *geom.Base  `json:"from,omitempty"`
	To            *geom.Base  `json:"to,omitempty"`
	Distance      float64     `json:"distance,omitempty"`
	Fixed         float64     `json:"fixed,omitempty"`
	Fraction      float64     `json:"fraction,omitempty"`
	Roll          *RollRecord `json:"roll,omitempty"`
	OffTable      bool        `json:"off_table,omitempty"`
	EnteredBy     string      `json:"entered_by,omitempty"`
	Note          string      `json:"note,omitempty"`
}

// EventType implements Event.
func (*CombatRecorded) EventType() string { return EvCombatRecorded }

// Audience implements Event.
func (*CombatRecorded) Audience() string { return AudienceAll }

// decideFire judges unit.fire: a unit on the table fired (entered, not
// judged: the texts give no firing rules); a unit off the table may not
// fire (F.6: a flank marcher not yet entered, or one that left). It halves the unit's normal move
// this turn under the movement_table option (M.5).
func decideFire(s *State, c *FireUnit) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	if r := s.fireRefusal(c.Unit); r != nil { // F.6 (flank_decide.go)
		return nil, r
	}
	u := s.Units[c.Unit]
	if !u.active() {
		return nil, refuse("T.4", "unit_inactive", "unit %s is %s and cannot fire", u.ID, u.Status)
	}
	if c.Target != "" {
		if t := s.Units[c.Target]; t == nil || t.Side == u.Side || !t.active() {
			return nil, refuse(RuleInput, "bad_target", "fire target %q is not an enemy unit on the table", c.Target)
		}
	}
	return []Event{&UnitFired{Turn: s.Turn, Phase: s.Phase, Unit: u.ID, Target: c.Target, EnteredBy: c.EnteredBy, Note: c.Note}}, nil
}

// decideCombat judges combat.record (T.4): the outcome is entered, and the
// ledger keeps the state consistent: markers never below zero, a destroyed
// or departed unit takes no further results, a rally only for a unit not in
// good order, disorder only for one in good order; a retreat or rout of
// cavalry or horse artillery goes the M.17 distance (a fraction of the fixed
// distance plus a recorded roll, in the battle's unit), any other the
// distance entered; a unit that would not end wholly on the table leaves it.
func decideCombat(s *State, c *RecordCombat, dice Dice) ([]Event, *Refusal, error) {
	rs, m := s.Ruleset, s.Measurement
	if r := s.inProgress(); r != nil {
		return nil, r, nil
	}
	u := s.Units[c.Unit]
	if u == nil {
		return nil, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", c.Unit), nil
	}
	if !u.active() {
		return nil, refuse("T.4", "unit_inactive", "unit %s is %s: no further combat results", u.ID, u.Status), nil
	}
	if !slices.Contains(combatResults, c.Result) {
		return nil, refuse(RuleInput, "bad_result", "combat result %q: want one of %s", c.Result, strings.Join(combatResults, ", ")), nil
	}
	ev := &CombatRecorded{Turn: s.Turn, Phase: s.Phase, Unit: u.ID, Result: c.Result, MarkersBefore: u.Markers, Markers: u.Markers + c.Markers,
		StatusBefore: u.Status, Status: u.Status, EnteredBy: c.EnteredBy, Note: c.Note}
	if ev.Markers < 0 {
		return nil, refuse("T.4", "markers_below_zero", "unit %s has %s; removing %d would leave %d", u.ID, plural(u.Markers, "casualty marker", "casualty markers"), -c.Markers, ev.Markers).
			with("markers", u.Markers, "change", c.Markers), nil
	}
	var evs []Event
	switch c.Result {
	case ResultCasualties:
		if c.Markers == 0 {
			return nil, refuse(RuleInput, "no_markers", "a casualties result adds (or removes, negative) markers: markers is 0"), nil
		}
	case ResultDisorder:
		if u.Status != UnitOK {
			return nil, refuse("T.4", "not_in_good_order", "unit %s is %s, not in good order: it cannot become disordered", u.ID, u.Status), nil
		}
		ev.Status = UnitDisordered
	case ResultRally:
		if u.Status == UnitOK {
			return nil, refuse("T.4", "in_good_order", "unit %s is in good order: nothing to rally", u.ID), nil
		}
		ev.Status = UnitOK
	case ResultDestroyed:
		ev.Status = UnitDestroyed
	case ResultRetreat, ResultRout:
		if c.Toward == nil || !c.Toward.IsFinite() || geom.Dist(*c.Toward, u.Base.Center) <= geom.Eps {
			return nil, refuse(RuleInput, "no_direction", "a %s moves the unit toward a point (toward: {x, y}) other than its centre", c.Result), nil
		}
		dist := c.Distance
		if fixed, ok := rs.Movement.Retreat.Fixed[u.Type]; ok {
			if c.Distance != 0 {
				return nil, refuse("M.17", "distance_is_rolled", "%s %s %s of %s plus %s (M.17): the distance is not entered", u.Type, c.Result+"s", fmtFraction(rs.Movement.Retreat.Fraction), fmtLen(fixed.For(m), m), rs.Movement.Retreat.Dice).
					with("distance", c.Distance), nil
			}
			spec := rs.Movement.Retreat.Dice
			counter := s.RollCounter + 1
			purpose := c.Result + ":" + u.ID
			rolled, err := roll(dice, RollRequest{Counter: counter, Purpose: purpose, Count: spec.Count, Sides: spec.Sides})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", CmdCombatRecord, err)
			}
			evs = append(evs, newDiceRolled(s, counter, purpose, spec, rolled, CmdCombatRecord))
			ev.Fixed, ev.Fraction = fixed.For(m), rs.Movement.Retreat.Fraction
			ev.Roll = &RollRecord{Counter: counter, Values: rolled.Values, Total: sum(rolled.Values)}
			dist = ev.Fraction*ev.Fixed + float64(ev.Roll.Total)
		} else if !(c.Distance > 0) || !finite(c.Distance) {
			return nil, refuse(RuleInput, "no_distance", "the texts give no %s distance for %s: enter it (distance)", c.Result, u.Type), nil
		}
		dir := c.Toward.Sub(u.Base.Center)
		to := u.Base.Translate(dir.Scale(dist / dir.Len()))
		if c.Facing != nil {
			if !finite(*c.Facing) {
				return nil, refuse(RuleInput, "bad_facing", "facing is not a number"), nil
			}
			to.Facing = geom.NormDeg(*c.Facing)
		}
		from := u.Base
		ev.From, ev.To, ev.Distance = &from, &to, round6(dist)
		ev.Status = UnitRetreating
		if c.Result == ResultRout {
			ev.Status = UnitRouted
		}
		if !s.Table.Contains(to) {
			ev.OffTable, ev.Status = true, UnitOffTable
		}
	}
	return append(evs, ev), nil, nil
}

// fmtFraction renders 0.5 as "half", else the number (phrase.fraction).
func fmtFraction(f float64) Words {
	if f == 0.5 {
		return words("half")
	}
	return words("%s", fmt.Sprintf("%g", f))
}

func enteredBy(who string) string {
	if who == "" {
		return ""
	}
	return " (entered by " + who + ")"
}

// applyCombat folds the combat outcomes entered at the table.
func applyCombat(s *State, e Event) {
	tb := &s.TurnBook
	switch ev := e.(type) {
	case *UnitFired:
		tb.unit(ev.Unit).Fired = true
	case *CombatRecorded:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Markers, u.Status = ev.Markers, ev.Status
		if ev.To != nil {
			u.Base = *ev.To
			s.followUnit(ev.Unit)
		}
		if ev.Status == UnitDisordered && ev.StatusBefore != UnitDisordered {
			u.DisorderedTurn, u.DisorderedPhase = ev.Turn, ev.Phase
		}
		if ev.Status != UnitDisordered {
			u.DisorderedTurn, u.DisorderedPhase = 0, ""
		}
		if !u.active() {
			s.detachFrom(ev.Unit)
		}
	}
}

// describeCombat says the combat outcomes in words.
func describeCombat(e Event) string {
	switch ev := e.(type) {
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
	}
	return ""
}
