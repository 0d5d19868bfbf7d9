// Tactical marches (docs/rules.md M.11-M.15, seed 000 8.5): a brigade's march
// and brigade order changes; a unit's march and where it ends: march_unit.go.

package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Tactical marches (docs/rules.md M.11-M.15, seed 000 8.5): a brigade's march,
// its units' marches and where they end, and brigade order changes.

// Command names of tactical marches (M.11-M.15).
const (
	// CmdMarchDeclare: a brigade starts a tactical march (M.11, M.15).
	CmdMarchDeclare = "march.declare"
	// CmdUnitMarch: one unit of a marching brigade marches (M.12, M.13).
	CmdUnitMarch = "unit.march"
	// CmdBrigadeOrder: a brigade's order changes (T.6, M.15).
	CmdBrigadeOrder = "brigade.order"
)

// Event type names of tactical marches: persisted forever, never renamed
// or reused.
const (
	EvMarchDeclared      = "march.declared"
	EvUnitMarched        = "unit.marched"
	EvBrigadeOrderChange = "brigade.order_changed"
)

// How a brigade came to march (M.15) or its order to change (T.6, M.15).
const (
	MarchByAllowance  = "allowance"
	MarchByInitiative = "initiative"
	OrderByInitiative = "initiative"
	OrderByUmpire     = "umpire"
)

// DeclareMarch (march.declare) starts a brigade's tactical march this turn
// (M.11): the order allows it and all its units stand in march formations.
// Within the side's number of marches a turn (M.15) it is granted; beyond
// it, Initiative asks the brigadier's initiative roll for one more.
type DeclareMarch struct {
	Brigade    string `json:"brigade"`
	Initiative bool   `json:"initiative,omitempty"`
}

// CommandName implements Command.
func (*DeclareMarch) CommandName() string { return CmdMarchDeclare }

// MarchUnit (unit.march) marches one unit of a brigade whose march was
// declared, at the M.12 speed, along a path as unit.move's. A unit that
// comes within the M.13 distance of an enemy stops there: the engine cuts
// the path at that point and records it.
type MarchUnit struct {
	Unit   string     `json:"unit"`
	To     geom.Vec   `json:"to"`
	Facing *float64   `json:"facing,omitempty"`
	Path   []Waypoint `json:"path,omitempty"`
}

// CommandName implements Command.
func (*MarchUnit) CommandName() string { return CmdUnitMarch }

// ChangeBrigadeOrder (brigade.order) changes a brigade's order (T.6): by
// the brigadier's order-change initiative, a recorded roll (M.15), or by
// the umpire's word (ByUmpire, no roll).
type ChangeBrigadeOrder struct {
	Brigade  string `json:"brigade"`
	Order    string `json:"order"`
	ByUmpire bool   `json:"by_umpire,omitempty"`
}

// CommandName implements Command.
func (*ChangeBrigadeOrder) CommandName() string { return CmdBrigadeOrder }

// MarchDeclared is march.declared (M.11, M.15). Granted says whether the
// brigade marches; By is "allowance" (within Limit) or "initiative" (the
// brigadier's roll, at most AtMost).
type MarchDeclared struct {
	Turn    int         `json:"turn"`
	Side    string      `json:"side"`
	Brigade string      `json:"brigade"`
	Order   string      `json:"order"`
	Limit   int         `json:"limit"`
	Marches int         `json:"marches"` // brigades marching before this one
	By      string      `json:"by"`
	Roll    *RollRecord `json:"roll,omitempty"`
	AtMost  int         `json:"at_most,omitempty"`
	Granted bool        `json:"granted"`
}

// EventType implements Event.
func (*MarchDeclared) EventType() string { return EvMarchDeclared }

// Audience implements Event.
func (*MarchDeclared) Audience() string { return AudienceAll }

// UnitMarched is unit.marched (M.12, M.13): Distance is what the march cost
// (path, turns, difficult terrain), Marched the unit's total this turn, Speed
// its M.12 speed. Ended: it came within the M.13 distance of Enemy and
// stopped there (Planned is where it was going).
type UnitMarched struct {
	Turn     int        `json:"turn"`
	Unit     string     `json:"unit"`
	Brigade  string     `json:"brigade"`
	From     geom.Base  `json:"from"`
	To       geom.Base  `json:"to"`
	Path     []geom.Vec `json:"path,omitempty"`
	Distance float64    `json:"distance"`
	Marched  float64    `json:"marched"`
	Speed    float64    `json:"speed"`
	Ended    bool       `json:"ended,omitempty"`
	Enemy    string     `json:"enemy,omitempty"`
	Planned  *geom.Vec  `json:"planned,omitempty"`
}

// EventType implements Event.
func (*UnitMarched) EventType() string { return EvUnitMarched }

// Audience implements Event.
func (*UnitMarched) Audience() string { return AudienceAll }

// BrigadeOrderChanged is brigade.order_changed (T.6, M.15): By is "umpire"
// or "initiative"; Changed is false when the initiative roll failed.
type BrigadeOrderChanged struct {
	Turn    int         `json:"turn"`
	Side    string      `json:"side"`
	Brigade string      `json:"brigade"`
	From    string      `json:"from"`
	To      string      `json:"to"`
	By      string      `json:"by"`
	Roll    *RollRecord `json:"roll,omitempty"`
	AtMost  int         `json:"at_most,omitempty"`
	Changed bool        `json:"changed"`
}

// EventType implements Event.
func (*BrigadeOrderChanged) EventType() string { return EvBrigadeOrderChange }

// Audience implements Event.
func (*BrigadeOrderChanged) Audience() string { return AudienceAll }

// marchLimit is the number of brigades a side may march a turn (M.15): by
// its nation, plus the gifted C-in-C's bonus.
func marchLimit(s *State, sd *Side) int {
	tm := s.Ruleset.Movement.TacticalMarch
	n, ok := tm.BrigadesByNation[sd.Nation]
	if !ok {
		n = tm.BrigadesDefault
	}
	if sd.CInC != nil && sd.CInC.Gifted {
		n += tm.GiftedBonus
	}
	return n
}

// marchFormationOK checks M.11's formations for one unit.
func marchFormationOK(s *State, u *Unit) *Refusal {
	tm := s.Ruleset.Movement.TacticalMarch
	arm := s.Ruleset.UnitTypes[u.Type].Arm
	if fs := tm.Formations[arm]; !slices.Contains(fs, u.Formation) {
		return refuse("M.11", "march_formation", "unit %s is in %s; %s march only in %s", u.ID, u.Formation, arm, strings.Join(fs, ", "))
	}
	return nil
}

// decideDeclareMarch judges march.declare (M.11, M.15).
func decideDeclareMarch(s *State, c *DeclareMarch, dice Dice) ([]Event, *Refusal, error) {
	rs := s.Ruleset
	tm := rs.Movement.TacticalMarch
	if r := s.inProgress(); r != nil {
		return nil, r, nil
	}
	b, sd := s.brigade(c.Brigade)
	if b == nil {
		return nil, refuse(RuleInput, "unknown_brigade", "no brigade %q in this battle", c.Brigade), nil
	}
	if s.Phase != PhaseMovement {
		return nil, refuse("T.3", "not_movement_phase", "tactical marches are made in the movement phase; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing).with("turn", s.Turn), nil
	}
	if r := s.checkMover(sd.ID); r != nil {
		return nil, r, nil
	}
	tb := s.TurnBook
	if _, ok := tb.Marches[b.ID]; ok {
		return nil, refuse("M.15", "already_marching", "brigade %s is already marching this turn", b.ID), nil
	}
	if !slices.Contains(tm.Orders, b.Order) {
		return nil, refuse("M.11", "march_order", "brigade %s is under a %s order; only %s allow a tactical march", b.ID, b.Order, strings.Join(tm.Orders, ", ")), nil
	}
	units := 0
	for _, id := range b.Units {
		u := s.Units[id]
		if !u.active() || u.Status == UnitRouted {
			continue
		}
		units++
		if r := marchFormationOK(s, u); r != nil {
			return nil, r.wrap("the whole brigade marches: %s", r.copy()), nil
		}
	}
	if units == 0 {
		return nil, refuse("M.11", "no_units", "brigade %s has no unit on the table to march", b.ID), nil
	}
	limit := marchLimit(s, sd)
	marching := 0
	for _, ob := range sd.Brigades {
		if _, ok := tb.Marches[ob.ID]; ok {
			marching++
		}
	}
	ev := &MarchDeclared{Turn: s.Turn, Side: sd.ID, Brigade: b.ID, Order: b.Order, Limit: limit, Marches: marching}
	if marching < limit {
		ev.By, ev.Granted = MarchByAllowance, true
		return []Event{ev}, nil, nil
	}
	if !c.Initiative {
		return nil, refuse("M.15", "march_limit", "%s (%s) marches %s a turn and %d are marching; the brigadier may try his initiative for one more (initiative: true)",
			sd.ID, nationWords(sd.Nation), plural(limit, "brigade", "brigades"), marching).with("limit", limit, "marching", marching), nil
	}
	if tb.MarchTries[b.ID] {
		return nil, refuse("M.15", "initiative_tried", "brigade %s's brigadier has already tried his march initiative this turn", b.ID), nil
	}
	roll, evs, err := brigadierRoll(s, "march_initiative:"+b.ID, CmdMarchDeclare, dice)
	if err != nil {
		return nil, nil, err
	}
	ev.By, ev.Roll, ev.AtMost = MarchByInitiative, roll, tm.BrigadierInitiative.AtMost
	ev.Granted = roll.Total <= tm.BrigadierInitiative.AtMost
	return append(evs, ev), nil, nil
}

// brigadierRoll makes the M.15 brigadier initiative roll, recorded.
func brigadierRoll(s *State, purpose, command string, dice Dice) (*RollRecord, []Event, error) {
	spec := s.Ruleset.Movement.TacticalMarch.BrigadierInitiative.Dice
	counter := s.RollCounter + 1
	rolled, err := roll(dice, RollRequest{Counter: counter, Purpose: purpose, Count: spec.Count, Sides: spec.Sides})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", command, err)
	}
	return &RollRecord{Counter: counter, Values: rolled.Values, Total: sum(rolled.Values)},
		[]Event{newDiceRolled(s, counter, purpose, spec, rolled, command)}, nil
}

// decideBrigadeOrder judges brigade.order (T.6, M.15): the umpire changes
// an order at any time; a brigadier tries an order-change initiative once a
// turn, in his side's command phase or while it moves in the movement phase,
// with the brigadier initiative roll.
func decideBrigadeOrder(s *State, c *ChangeBrigadeOrder, dice Dice) ([]Event, *Refusal, error) {
	tm := s.Ruleset.Movement.TacticalMarch
	if r := s.inProgress(); r != nil {
		return nil, r, nil
	}
	b, sd := s.brigade(c.Brigade)
	if b == nil {
		return nil, refuse(RuleInput, "unknown_brigade", "no brigade %q in this battle", c.Brigade), nil
	}
	if !slices.Contains(brigadeOrders, c.Order) {
		return nil, refuse("T.6", "bad_brigade_order", "brigade %s: order %q is not one of %s", b.ID, c.Order, strings.Join(brigadeOrders, ", ")), nil
	}
	if c.Order == b.Order {
		return nil, refuse(RuleInput, "no_change", "brigade %s is already under a %s order", b.ID, b.Order), nil
	}
	ev := &BrigadeOrderChanged{Turn: s.Turn, Side: sd.ID, Brigade: b.ID, From: b.Order, To: c.Order}
	if c.ByUmpire {
		ev.By, ev.Changed = OrderByUmpire, true
		return []Event{ev}, nil, nil
	}
	switch {
	case s.Phase == PhaseCommand && sd.ID == s.Phasing:
	case s.Phase == PhaseMovement:
		if r := s.checkMover(sd.ID); r != nil {
			return nil, r, nil
		}
	default:
		return nil, refuse("M.15", "not_now", "a brigadier tries an order change in his side's command phase or while it moves in the movement phase; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing), nil
	}
	if s.TurnBook.OrderTries[b.ID] {
		return nil, refuse("M.15", "initiative_tried", "brigade %s's brigadier has already tried an order change this turn", b.ID), nil
	}
	roll, evs, err := brigadierRoll(s, "order_initiative:"+b.ID, CmdBrigadeOrder, dice)
	if err != nil {
		return nil, nil, err
	}
	ev.By, ev.Roll, ev.AtMost = OrderByInitiative, roll, tm.BrigadierInitiative.AtMost
	ev.Changed = roll.Total <= tm.BrigadierInitiative.AtMost
	return append(evs, ev), nil, nil
}

// applyMarch folds the events of tactical marches.
func applyMarch(s *State, e Event) {
	tb := &s.TurnBook
	switch ev := e.(type) {
	case *MarchDeclared:
		if ev.By == MarchByInitiative {
			if tb.MarchTries == nil {
				tb.MarchTries = map[string]bool{}
			}
			tb.MarchTries[ev.Brigade] = true
		}
		if ev.Granted {
			if tb.Marches == nil {
				tb.Marches = map[string]string{}
			}
			tb.Marches[ev.Brigade] = ev.By
		}
	case *UnitMarched:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Base = ev.To
		s.followUnit(ev.Unit)
		ut := tb.unit(ev.Unit)
		ut.Marched = ev.Marched
		ut.MarchEnded = ut.MarchEnded || ev.Ended
	case *BrigadeOrderChanged:
		if ev.By == OrderByInitiative {
			if tb.OrderTries == nil {
				tb.OrderTries = map[string]bool{}
			}
			tb.OrderTries[ev.Brigade] = true
		}
		if b, _ := s.brigade(ev.Brigade); b != nil && ev.Changed {
			b.Order = ev.To
		}
	}
}

// describeMarch says the events of tactical marches in words.
func describeMarch(e Event) string {
	switch ev := e.(type) {
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
	}
	return ""
}

// nationWords names a side's nation, or says it has none (phrase.nation).
func nationWords(nation string) Words {
	if nation == "" {
		return words("no nation")
	}
	return words("%s", nation)
}
