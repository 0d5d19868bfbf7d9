// The events of flank marches (docs/rules.md F), how they apply and how they
// read.

package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// FlankRallied is flank.rallied (F.7).
type FlankRallied struct {
	Turn  int    `json:"turn"`
	March int    `json:"march"`
	Unit  string `json:"unit"`
	Note  string `json:"note,omitempty"`
}

// EventType implements Event.
func (*FlankRallied) EventType() string { return EvFlankRallied }

// Audience implements Event.
func (*FlankRallied) Audience() string { return AudienceAll }

// FlankDeclared is flank.declared: only what the opponent may know (F.1):
// the side, the edge, the commitment to the sealed orders, and the arrival
// roll with what it means (F.2).
type FlankDeclared struct {
	March       int       `json:"march"`
	Turn        int       `json:"turn"`
	Side        string    `json:"side"`
	Edge        geom.Edge `json:"edge"`
	Commitment  string    `json:"commitment"`
	RollCounter uint64    `json:"roll_counter"`
	Roll        int       `json:"roll"`
	Entry       string    `json:"entry_kind"`
	DelayTurns  int       `json:"delay_turns,omitempty"`
	ArrivalTurn int       `json:"arrival_turn,omitempty"`
	// ArtilleryExtraMove: artillery entering at once moves twice (F.3).
	ArtilleryExtraMove bool `json:"artillery_extra_move,omitempty"`
	// Exclusion is the F.8 distance enemies keep from the edge.
	Exclusion float64 `json:"exclusion"`
}

// EventType implements Event.
func (*FlankDeclared) EventType() string { return EvFlankDeclared }

// Audience implements Event.
func (*FlankDeclared) Audience() string { return AudienceAll }

// FlankChange is how an F.10 fight changed one march.
type FlankChange struct {
	March       int    `json:"march"`
	Side        string `json:"side"`
	Size        int    `json:"size"`
	Entry       string `json:"entry_kind"`
	ArrivalTurn int    `json:"arrival_turn,omitempty"`
}

// FlankFightResolved is flank.fight_resolved: two sides' flank marches met
// on one edge (F.10). Only the sizes are recorded (in the ruleset's
// measure); the orders they were counted from stay sealed until revealed,
// when anyone can recount them.
type FlankFightResolved struct {
	Turn    int           `json:"turn"`
	Edge    geom.Edge     `json:"edge"`
	Measure string        `json:"measure"`
	Winner  string        `json:"winner,omitempty"` // "" on equal sizes
	Loser   string        `json:"loser,omitempty"`
	Percent int           `json:"percent"` // by how much the winner outnumbers the loser
	Result  string        `json:"result"`
	Doc     string        `json:"doc,omitempty"`
	Marches []FlankChange `json:"marches"`
}

// EventType implements Event.
func (*FlankFightResolved) EventType() string { return EvFlankFightResolved }

// Audience implements Event.
func (*FlankFightResolved) Audience() string { return AudienceAll }

// FlankEntryChosen is flank.entry_chosen: the opponent's entry point (F.4).
type FlankEntryChosen struct {
	Turn  int      `json:"turn"`
	March int      `json:"march"`
	Side  string   `json:"side"` // the chooser
	Entry geom.Vec `json:"entry"`
}

// EventType implements Event.
func (*FlankEntryChosen) EventType() string { return EvFlankEntryChosen }

// Audience implements Event.
func (*FlankEntryChosen) Audience() string { return AudienceAll }

// FlankRevealed is flank.revealed: a march's sealed orders, as the exact
// text committed to, so anyone can check SHA-256(Sealed) = Commitment.
// Reason arrival: its units join the state off the table, to enter one by
// one; battle_end: it never arrived (lost or late) and takes no part (F.9).
type FlankRevealed struct {
	Turn       int         `json:"turn"`
	March      int         `json:"march"`
	Side       string      `json:"side"`
	Reason     string      `json:"reason"`
	Commitment string      `json:"commitment"`
	Sealed     string      `json:"sealed"`
	Orders     FlankOrders `json:"orders"`
	// Entry is where the march enters (arrival only): the ordered point or
	// the opponent's choice; its generals wait there.
	Entry *geom.Vec `json:"entry,omitempty"`
	// Bases are the units' bases as resolved from the ruleset, placed at
	// the entry point (arrival only).
	Bases map[string]geom.Base `json:"bases,omitempty"`
}

// EventType implements Event.
func (*FlankRevealed) EventType() string { return EvFlankRevealed }

// Audience implements Event.
func (*FlankRevealed) Audience() string { return AudienceAll }

// FlankUnitEntered is flank.unit_entered: a unit came on at the entry
// point (From) and moved to To (F.5; F.3 extra move for artillery).
type FlankUnitEntered struct {
	Turn      int        `json:"turn"`
	March     int        `json:"march"`
	Unit      string     `json:"unit"`
	Entry     geom.Vec   `json:"entry"`
	From      geom.Base  `json:"from"`
	To        geom.Base  `json:"to"`
	Path      []Waypoint `json:"path,omitempty"`
	Distance  float64    `json:"distance"`
	Allowance float64    `json:"allowance"`
	ExtraMove bool       `json:"extra_move,omitempty"`
}

// EventType implements Event.
func (*FlankUnitEntered) EventType() string { return EvFlankUnitEntered }

// Audience implements Event.
func (*FlankUnitEntered) Audience() string { return AudienceAll }

// applyFlank folds the flank-march events into s.
func applyFlank(s *State, e Event) {
	switch ev := e.(type) {
	case *FlankDeclared:
		s.Flank.Marches = append(s.Flank.Marches, FlankMarch{N: ev.March, Side: ev.Side, Edge: ev.Edge, Commitment: ev.Commitment,
			DeclaredTurn: ev.Turn, Roll: ev.Roll, Entry: ev.Entry, ArrivalTurn: ev.ArrivalTurn, ArtilleryExtraMove: ev.ArtilleryExtraMove})
	case *FlankFightResolved:
		for _, c := range ev.Marches {
			if m := s.march(c.March); m != nil {
				m.Entry, m.ArrivalTurn, m.Fight = c.Entry, c.ArrivalTurn, ev.Result
			}
		}
	case *FlankEntryChosen:
		if m := s.march(ev.March); m != nil {
			p := ev.Entry
			m.ChosenEntry = &p
		}
	case *FlankRevealed:
		m := s.march(ev.March)
		if m == nil {
			return
		}
		o := ev.Orders
		m.Orders, m.RevealedAt = &o, ev.Reason
		if ev.Reason != RevealArrival {
			return
		}
		sd := s.side(ev.Side)
		at := o.Entry
		if ev.Entry != nil {
			at = *ev.Entry
		}
		for _, b := range o.Brigades {
			br := Brigade{ID: b.ID, Name: firstNonEmpty(b.Name, b.ID), Order: b.Order,
				General: General{ID: b.General.ID, Name: b.General.Name, Rating: b.General.Rating, Position: at}}
			for _, fu := range b.Units {
				br.Units = append(br.Units, fu.ID)
				m.Waiting = append(m.Waiting, fu.ID)
				formation := fu.Formation
				if t, ok := typeOf(s, fu.Type); ok && formation == "" {
					formation = t.DefaultFormation
				}
				s.Units[fu.ID] = &Unit{ID: fu.ID, Name: firstNonEmpty(fu.Name, fu.ID), Side: ev.Side, Brigade: b.ID, Type: fu.Type,
					Formation: formation, Base: ev.Bases[fu.ID], Markers: fu.Markers, Status: UnitOffTable}
			}
			if sd != nil {
				sd.Brigades = append(sd.Brigades, br)
			}
		}
	case *FlankRallied:
		if m := s.march(ev.March); m != nil && s.Units[ev.Unit] != nil && !slices.Contains(m.Waiting, ev.Unit) {
			m.Waiting = append(m.Waiting, ev.Unit)
			m.Entered = slices.DeleteFunc(m.Entered, func(id string) bool { return id == ev.Unit })
			s.Units[ev.Unit].Status = UnitOffTable
		}
	case *FlankUnitEntered:
		m := s.march(ev.March)
		u := s.Units[ev.Unit]
		if m == nil || u == nil {
			return
		}
		m.Waiting = slices.DeleteFunc(m.Waiting, func(id string) bool { return id == ev.Unit })
		if !slices.Contains(m.Entered, ev.Unit) {
			m.Entered = append(m.Entered, ev.Unit)
		}
		u.Base, u.Status = ev.To, UnitOK
		s.followUnit(ev.Unit)
	}
}

func typeOf(s *State, t string) (UnitType, bool) {
	if s.Ruleset == nil {
		return UnitType{}, false
	}
	u, ok := s.Ruleset.UnitTypes[t]
	return u, ok
}

// describeFlank says a flank-march event in words, never more than the
// event holds.
func describeFlank(e Event) string {
	switch ev := e.(type) {
	case *FlankDeclared:
		s := fmt.Sprintf("%s declared flank march %d on the %s edge (F.1; orders sealed, commitment %.12s…): roll %d, ", ev.Side, ev.March, ev.Edge, ev.Commitment, ev.Roll)
		switch ev.Entry {
		case EntryLost:
			return s + "lost: the troops take no part in the battle (F.2, F.9)"
		case EntryOpponentChoice:
			s += fmt.Sprintf("arrives in turn %d at a point of the %s edge the opponent chooses (F.2, F.4)", ev.ArrivalTurn, ev.Edge)
		default:
			s += fmt.Sprintf("arrives in turn %d at its ordered point (F.2)", ev.ArrivalTurn)
		}
		if ev.ArtilleryExtraMove {
			s += "; artillery gets an extra move (F.3)"
		}
		return s + fmt.Sprintf("; enemies keep %g from the %s edge (F.8)", ev.Exclusion, ev.Edge)
	case *FlankFightResolved:
		var parts []string
		for _, m := range ev.Marches {
			p := fmt.Sprintf("march %d of %s (%d %s): %s", m.March, m.Side, m.Size, ev.Measure, m.Entry)
			if m.Entry != EntryLost {
				p += fmt.Sprintf(", turn %d", m.ArrivalTurn)
			}
			parts = append(parts, p)
		}
		who := "equal forces"
		if ev.Winner != "" {
			who = fmt.Sprintf("%s outnumbers %s by %d%%", ev.Winner, ev.Loser, ev.Percent)
		}
		return fmt.Sprintf("flank marches met on the %s edge (F.10): %s: %s; %s", ev.Edge, who, ev.Result, strings.Join(parts, "; "))
	case *FlankEntryChosen:
		return fmt.Sprintf("%s chose where flank march %d enters: (%.1f,%.1f) (F.4)", ev.Side, ev.March, ev.Entry.X, ev.Entry.Y)
	case *FlankRevealed:
		n, ids := 0, []string{}
		for _, u := range ev.Orders.units() {
			n++
			ids = append(ids, u.ID)
		}
		why := "arrives"
		if ev.Reason == RevealBattleEnd {
			why = "never arrived; revealed as the battle ends"
		}
		return fmt.Sprintf("flank march %d of %s %s: orders match commitment %.12s…: %s, entry (%.1f,%.1f) on the %s edge", ev.March, ev.Side, why, ev.Commitment,
			plural(n, "unit", "units")+" "+strings.Join(ids, ", "), ev.Orders.Entry.X, ev.Orders.Entry.Y, ev.Orders.Edge)
	case *FlankRallied:
		return fmt.Sprintf("%s of flank march %d rallied off the table; it enters again with its march (F.7)", ev.Unit, ev.March)
	case *FlankUnitEntered:
		s := fmt.Sprintf("%s entered from flank march %d at (%.1f,%.1f) and moved %.1f of %.1f to (%.1f,%.1f) facing %.0f (F.5)",
			ev.Unit, ev.March, ev.Entry.X, ev.Entry.Y, ev.Distance, ev.Allowance, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.ExtraMove {
			s += "; artillery arriving at once moves twice (F.3)"
		}
		return s
	}
	return ""
}
