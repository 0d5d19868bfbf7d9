package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Victory (docs/rules.md V; docs/flank-marches.md): each unit type has a value
// (V.1, unit_types.*.victory_points); a battle may name objectives with
// values (battle.create); the umpire enters who holds each
// (objective.hold), and the outcomes of combat are entered (combat.record,
// T.4). When
// the battle ends, by its turn limit or by battle.end, battle.scored
// records each side's points: the values of enemy units in
// victory.scoring_statuses, plus the objectives it holds (V.2). Flank
// marchers that never came on the table, lost ones above all, count for
// neither side (F.9, V.3).

// Commands of victory.
const (
	// CmdObjectiveHold records who holds an objective (V.2), entered by the umpire.
	CmdObjectiveHold = "objective.hold"
)

// Event types of victory: persisted forever.
const (
	EvObjectiveHeld = "objective.held"
	EvBattleScored  = "battle.scored"
)

// Objective is a scenario objective (V.2 [choice]): held by one side at the
// end of the battle, it scores Value for that side.
type Objective struct {
	ID       string    `json:"id"`
	Name     string    `json:"name,omitempty"`
	Value    int       `json:"value"`
	Position *geom.Vec `json:"position,omitempty"`
	Doc      string    `json:"doc,omitempty"`
}

// VictoryBook is the battle's objectives, who holds them, and its score
// once ended.
type VictoryBook struct {
	Objectives []Objective `json:"objectives,omitempty"`
	// Held maps an objective to the side holding it.
	Held  map[string]string `json:"held,omitempty"`
	Score *BattleScored     `json:"score,omitempty"`
}

func (v VictoryBook) clone() VictoryBook {
	c := v
	c.Objectives = slices.Clone(v.Objectives)
	if v.Held != nil {
		c.Held = make(map[string]string, len(v.Held))
		for k, x := range v.Held {
			c.Held[k] = x
		}
	}
	return c // Score is never mutated: shared
}

// checkObjectives judges battle.create's objectives.
func checkObjectives(objs []Objective, t geom.Table) *Refusal {
	seen := map[string]bool{}
	for _, o := range objs {
		if !validName(o.ID) {
			return refuse(RuleInput, "bad_objective", "objective id %q: want 1-64 characters without spaces", o.ID)
		}
		if seen[o.ID] {
			return refuse(RuleInput, "duplicate_id", "objective %q given twice", o.ID)
		}
		seen[o.ID] = true
		if o.Value < 0 {
			return refuse("V.2", "bad_objective_value", "objective %s: value %d is negative", o.ID, o.Value).with("value", o.Value)
		}
		if o.Position != nil && (!o.Position.IsFinite() || !t.ContainsPoint(*o.Position)) {
			return refuse(RuleInput, "bad_objective", "objective %s at %s is not on the table", o.ID, *o.Position)
		}
	}
	return nil
}

// HoldObjective (objective.hold) records which side holds an objective
// (empty: nobody), as the umpire judges it; the holder at the end of the
// battle scores its value (V.2).
type HoldObjective struct {
	Objective string `json:"objective"`
	Side      string `json:"side"`
}

// CommandName implements Command.
func (*HoldObjective) CommandName() string { return CmdObjectiveHold }

// ObjectiveHeld is objective.held.
type ObjectiveHeld struct {
	Turn      int    `json:"turn"`
	Objective string `json:"objective"`
	Side      string `json:"side,omitempty"`
	Value     int    `json:"value"`
}

// EventType implements Event.
func (*ObjectiveHeld) EventType() string { return EvObjectiveHeld }

// Audience implements Event.
func (*ObjectiveHeld) Audience() string { return AudienceAll }

// ScoredUnit is one enemy unit a side scores (V.2).
type ScoredUnit struct {
	Unit   string `json:"unit"`
	Side   string `json:"side"`
	Type   string `json:"type"`
	Status string `json:"status"`
	Value  int    `json:"value"`
}

// ScoredObjective is one objective a side holds at the end (V.2).
type ScoredObjective struct {
	Objective string `json:"objective"`
	Value     int    `json:"value"`
}

// SideScore is one side's victory points.
type SideScore struct {
	Side       string            `json:"side"`
	Points     int               `json:"points"`
	Units      []ScoredUnit      `json:"units,omitempty"`
	Objectives []ScoredObjective `json:"objectives,omitempty"`
}

// ExcludedUnit is a unit left out of the score: a flank marcher that never
// came on the table (F.9, V.3).
type ExcludedUnit struct {
	Unit   string `json:"unit"`
	Side   string `json:"side"`
	Type   string `json:"type"`
	March  int    `json:"march"`
	Value  int    `json:"value"`
	Reason string `json:"reason"`
}

// BattleScored is battle.scored, recorded with battle.ended (V.2, V.3).
type BattleScored struct {
	Turn     int            `json:"turn"`
	Sides    []SideScore    `json:"sides"`
	Excluded []ExcludedUnit `json:"excluded,omitempty"`
}

// EventType implements Event.
func (*BattleScored) EventType() string { return EvBattleScored }

// Audience implements Event.
func (*BattleScored) Audience() string { return AudienceAll }

// Points returns a side's points, 0 if it is not in the score.
func (b *BattleScored) Points(side string) int {
	for _, s := range b.Sides {
		if s.Side == side {
			return s.Points
		}
	}
	return 0
}

func decideObjectiveHold(s *State, c *HoldObjective) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	i := slices.IndexFunc(s.Victory.Objectives, func(o Objective) bool { return o.ID == c.Objective })
	if i < 0 {
		return nil, refuse("V.2", "unknown_objective", "no objective %q in this battle", c.Objective)
	}
	if c.Side != "" && s.side(c.Side) == nil {
		return nil, refuse(RuleInput, "unknown_side", "no side %q in this battle", c.Side)
	}
	return []Event{&ObjectiveHeld{Turn: s.Turn, Objective: c.Objective, Side: c.Side, Value: s.Victory.Objectives[i].Value}}, nil
}

// battleEndEvents are the events every end of a battle records before
// battle.ended (T.5): the orders of flank marches never revealed, supplied
// by the service (F.9: the log must say who took no part), and the score
// (V.2, V.3).
func battleEndEvents(s *State, sl sealing) ([]Event, *Refusal) {
	var evs []Event
	ns := s
	for i := range s.Flank.Marches {
		m := &s.Flank.Marches[i]
		if m.RevealedAt != "" {
			continue
		}
		rev, r := s.flankRevealEvent(&sl.flankSeal, m, RevealBattleEnd)
		if r != nil {
			return nil, r
		}
		if ns == s {
			ns = s.Clone()
		}
		Apply(ns, rev)
		evs = append(evs, rev)
	}
	return append(evs, ns.score()), nil
}

// score computes battle.scored on the state at the end of the battle.
func (s *State) score() *BattleScored {
	rs := s.Ruleset
	value := func(t string) int { return rs.UnitTypes[t].VictoryPoints }
	out := &BattleScored{Turn: s.Turn}
	bySide := map[string]*SideScore{}
	for _, sd := range s.Sides {
		out.Sides = append(out.Sides, SideScore{Side: sd.ID})
	}
	for i := range out.Sides {
		bySide[out.Sides[i].Side] = &out.Sides[i]
	}
	credit := func(owner string, su ScoredUnit) {
		for i := range out.Sides {
			if sc := &out.Sides[i]; sc.Side != owner {
				sc.Units = append(sc.Units, su)
				sc.Points += su.Value
			}
		}
	}
	for _, id := range s.sortedUnitIDs() {
		u := s.Units[id]
		if u == nil {
			continue
		}
		if m := s.flankMarchOf(id); m != nil && slices.Contains(m.Waiting, id) {
			out.Excluded = append(out.Excluded, ExcludedUnit{Unit: id, Side: u.Side, Type: u.Type, March: m.N, Value: value(u.Type),
				Reason: "flank marcher not on the table at the end (V.3)"})
			continue
		}
		if slices.Contains(rs.Victory.ScoringStatuses, u.Status) {
			credit(u.Side, ScoredUnit{Unit: id, Side: u.Side, Type: u.Type, Status: u.Status, Value: value(u.Type)})
		}
	}
	for _, m := range s.Flank.Marches {
		if m.RevealedAt != RevealBattleEnd || m.Orders == nil {
			continue
		}
		for _, fu := range m.Orders.units() {
			reason := "flank march did not arrive: took no part (V.3)"
			if m.lost() {
				reason = "lost flank marcher: counts for neither side (F.9, V.3)"
				if rs.Victory.LostFlankMarchersCount {
					credit(m.Side, ScoredUnit{Unit: fu.ID, Side: m.Side, Type: fu.Type, Status: EntryLost, Value: value(fu.Type)})
					continue
				}
			}
			out.Excluded = append(out.Excluded, ExcludedUnit{Unit: fu.ID, Side: m.Side, Type: fu.Type, March: m.N, Value: value(fu.Type), Reason: reason})
		}
	}
	for _, o := range s.Victory.Objectives {
		if sc := bySide[s.Victory.Held[o.ID]]; sc != nil {
			sc.Objectives = append(sc.Objectives, ScoredObjective{Objective: o.ID, Value: o.Value})
			sc.Points += o.Value
		}
	}
	for i := range out.Sides {
		sort.SliceStable(out.Sides[i].Units, func(a, b int) bool { return out.Sides[i].Units[a].Unit < out.Sides[i].Units[b].Unit })
	}
	return out
}

// applyVictory folds the victory events into s.
func applyVictory(s *State, e Event) {
	switch ev := e.(type) {
	case *ObjectiveHeld:
		if s.Victory.Held == nil {
			s.Victory.Held = map[string]string{}
		}
		if ev.Side == "" {
			delete(s.Victory.Held, ev.Objective)
		} else {
			s.Victory.Held[ev.Objective] = ev.Side
		}
	case *BattleScored:
		s.Victory.Score = ev
	}
}

// describeVictory says a victory event in words.
func describeVictory(e Event) string {
	switch ev := e.(type) {
	case *ObjectiveHeld:
		if ev.Side == "" {
			return fmt.Sprintf("objective %s (%d points) is held by nobody (V.2)", ev.Objective, ev.Value)
		}
		return fmt.Sprintf("objective %s (%d points) is held by %s (V.2)", ev.Objective, ev.Value, ev.Side)
	case *BattleScored:
		parts := make([]string, len(ev.Sides))
		for i, sc := range ev.Sides {
			parts[i] = fmt.Sprintf("%s %d", sc.Side, sc.Points)
		}
		s := "battle scored (V.2): " + strings.Join(parts, ", ")
		if len(ev.Excluded) > 0 {
			s += fmt.Sprintf("; %s left out (F.9, V.3)", plural(len(ev.Excluded), "flank marcher", "flank marchers"))
		}
		return s
	}
	return ""
}
