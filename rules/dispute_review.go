// What the review of a decision draws (docs/disputes.md, "The review"):
// the geometry that decided it, with its numbers, computed from the
// battle just before and just after the command that recorded it. Pure,
// like the rest of the engine: the door (app) folds the states and the
// picture renderer draws this.

package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// Review is the geometry behind one decision and the rules it cites.
type Review struct {
	// Rules are the rules the decision cites, the deciding one first.
	Rules []string `json:"rules"`
	// Unit is the unit the decision is about (its target, for a charge).
	Unit   string `json:"unit,omitempty"`
	Target string `json:"target,omitempty"`
	// Nearest are the unit's distances to its nearest enemies just after
	// the decision, base to base; Gap is the K.2 zone (contact.gap).
	Nearest []EnemyDistance `json:"nearest,omitempty"`
	Gap     float64         `json:"gap,omitempty"`
	// Path is the move's path (a charge's leader point), with its one turn.
	Path *PathReview `json:"path,omitempty"`
	// Arc is a charge's front arc, sight line and range (K.4, K.10).
	Arc *ArcReview `json:"arc,omitempty"`
	// Command is an order's command distance from the general, in steps
	// (C.7), one per recipient.
	Command []CommandReview `json:"command,omitempty"`
	// MarchStop is a tactical march's stop distance (M.13).
	MarchStop *MarchStopReview `json:"march_stop,omitempty"`
	// FlankEdges are the table edges enemies keep clear of (F.8).
	FlankEdges []EdgeZone `json:"flank_edges,omitempty"`
}

// EnemyDistance is one enemy's distance from the reviewed unit: From on
// the unit's base, To on the enemy's, Within the K.2 gap.
type EnemyDistance struct {
	Enemy    string   `json:"enemy"`
	Distance float64  `json:"distance"`
	From     geom.Vec `json:"from"`
	To       geom.Vec `json:"to"`
	Within   bool     `json:"within,omitempty"`
}

// PathReview is a path with its length, what it was allowed and its one
// turn (K.5: at Points[TurnAt], TurnDegrees clockwise). StoppedShort: a
// move without a charge order stopped Short from Enemy (C.9), Planned
// where it was going.
type PathReview struct {
	Points       []geom.Vec `json:"points"`
	Length       float64    `json:"length"`
	Allowed      float64    `json:"allowed,omitempty"`
	TurnAt       int        `json:"turn_at,omitempty"`
	TurnDegrees  float64    `json:"turn_degrees,omitempty"`
	StoppedShort bool       `json:"stopped_short,omitempty"`
	Enemy        string     `json:"enemy,omitempty"`
	Short        float64    `json:"short,omitempty"`
	Planned      *geom.Vec  `json:"planned,omitempty"`
}

// ArcReview is a charge's K.4 geometry: the charger's front arc (Wedge,
// cut at Reach beyond its base), whether the target is in it, the sight
// line from the leader point to the point of the target it sees, the
// measured distance against the reach, and the side hit (K.8).
type ArcReview struct {
	Wedge    geom.Polygon `json:"wedge"`
	InArc    bool         `json:"in_arc"`
	Leader   geom.Vec     `json:"leader"`
	Sight    geom.Vec     `json:"sight"`
	Seen     bool         `json:"seen"`
	Measured float64      `json:"measured"`
	Reach    float64      `json:"reach"`
	Side     geom.Arc     `json:"side,omitempty"`
}

// CommandReview is one recipient's C.7 distance: from the general At to
// the nearest point of the unit's base, in full steps of Step.
type CommandReview struct {
	General  string   `json:"general"`
	At       geom.Vec `json:"at"`
	Unit     string   `json:"unit"`
	Point    geom.Vec `json:"point"`
	Distance float64  `json:"distance"`
	Step     float64  `json:"step"`
	Steps    int      `json:"steps"`
}

// MarchStopReview is M.13: a marching unit stops within Stop of any enemy;
// Enemy is the nearest at the end, Distance how far.
type MarchStopReview struct {
	Stop     float64 `json:"stop"`
	Enemy    string  `json:"enemy,omitempty"`
	Distance float64 `json:"distance"`
	Ended    bool    `json:"ended,omitempty"`
}

// EdgeZone is a table edge a flank march excludes enemies from (F.8):
// Zone is the strip Distance deep along it.
type EdgeZone struct {
	March    int          `json:"march"`
	Side     string       `json:"side"`
	Edge     geom.Edge    `json:"edge"`
	Distance float64      `json:"distance"`
	Zone     geom.Polygon `json:"zone"`
}

// ReviewOf is the review of focus, an event of the command whose events
// are cmd, decided on before and leaving after.
func ReviewOf(before, after *State, cmd []Event, focus Event) Review {
	rv := Review{Rules: RulesOf(focus)}
	if before == nil || after == nil || before.Ruleset == nil {
		return rv
	}
	rs, m := before.Ruleset, before.Measurement
	rv.Gap = rs.Contact.Gap.For(m)
	// The decision of a roll is its command's.
	if _, ok := focus.(*DiceRolled); ok {
		for _, e := range cmd {
			if _, dice := e.(*DiceRolled); !dice {
				focus = e
				rv.Rules = RulesOf(e)
				break
			}
		}
	}
	switch ev := focus.(type) {
	case *OrderResolved:
		rv.Unit = firstOf(ev.Units)
		if g, ok := before.commander(ev.General); ok {
			step := rs.Command.Modifiers.Distance.Step.For(m)
			for _, id := range ev.Units {
				if u := before.Units[id]; u != nil {
					d := u.Base.DistanceToPoint(g.Position)
					rv.Command = append(rv.Command, CommandReview{General: g.ID, At: g.Position, Unit: id, Point: u.Base.ClosestPoint(g.Position),
						Distance: round6(d), Step: step, Steps: int(math.Floor((d + geom.Eps) / step))})
				}
			}
		}
	case *UnitMoved:
		rv.Unit = ev.Unit
		pts := append([]geom.Vec{ev.From.Center}, ev.Path...)
		rv.Path = &PathReview{Points: append(pts, ev.To.Center), Length: ev.Distance, Allowed: ev.Allowed,
			StoppedShort: ev.StoppedShort, Enemy: ev.Enemy, Short: ev.Short, Planned: copyPtr(ev.Planned)}
		if rv.Path.Allowed == 0 && ev.ActionsUsed > 0 {
			if u := before.Units[ev.Unit]; u != nil {
				per, _ := rs.UnitTypes[u.Type].Move(u.Formation, m)
				rv.Path.Allowed = round6(per * float64(ev.ActionsUsed))
			}
		}
	case *UnitMarched:
		rv.Unit = ev.Unit
		pts := append([]geom.Vec{ev.From.Center}, ev.Path...)
		rv.Path = &PathReview{Points: append(pts, ev.To.Center), Length: ev.Distance, Allowed: ev.Speed}
		ms := &MarchStopReview{Stop: rs.Movement.TacticalMarch.StopDistance.For(m), Ended: ev.Ended, Enemy: ev.Enemy}
		if u := after.Units[ev.Unit]; u != nil {
			if e, d := nearestEnemy(after, u, u.Base); e != nil {
				ms.Enemy, ms.Distance = e.ID, round6(d)
			}
		}
		rv.MarchStop = ms
	case *ChargeDeclared:
		rv.Unit, rv.Target = ev.Unit, ev.Target
		rv.Path = &PathReview{Points: slices.Clone(ev.Path), Length: ev.Distance, Allowed: ev.Reach, TurnAt: ev.TurnAt, TurnDegrees: ev.TurnDegrees}
		rv.Arc = chargeArc(before, ev)
	case *ChargePushedBack:
		rv.Unit, rv.Target = ev.Unit, ev.Charger
		rv.Path = &PathReview{Points: []geom.Vec{ev.From.Center, ev.To.Center}, Length: ev.Distance}
	case *BlunderCarriedOut:
		rv.Unit = ev.Unit
		rv.Path = &PathReview{Points: []geom.Vec{ev.From.Center, ev.To.Center}, Length: ev.Distance, Allowed: ev.Planned}
	case *FlankUnitEntered:
		rv.Unit = ev.Unit
		pts := []geom.Vec{ev.From.Center}
		for _, w := range ev.Path {
			pts = append(pts, w.Vec())
		}
		rv.Path = &PathReview{Points: append(pts, ev.To.Center), Length: ev.Distance, Allowed: ev.Allowance}
	case *UnitReformed:
		rv.Unit = ev.Unit
	case *InitiativeTaken:
		rv.Unit = ev.Unit
	case *CombatRecorded:
		rv.Unit = ev.Unit
		if ev.From != nil && ev.To != nil {
			rv.Path = &PathReview{Points: []geom.Vec{ev.From.Center, ev.To.Center}, Length: ev.Distance}
		}
	case *UnitCorrected:
		rv.Unit = ev.Unit
	}
	if u := after.Units[rv.Unit]; u != nil && u.active() {
		n := nearestShown
		if len(rv.Command) > 0 {
			n = 1 // an order: the nearest enemy only (C.7's enemy near)
		}
		rv.Nearest = nearestEnemies(after, u, rv.Target, n, rv.Gap)
	}
	rv.FlankEdges = append(rv.FlankEdges, before.FlankZones()...)
	return rv
}

// chargeArc is the K.4 geometry of a charge, on the state it was decided on.
func chargeArc(s *State, ev *ChargeDeclared) *ArcReview {
	t := s.Units[ev.Target]
	if t == nil {
		return nil
	}
	rule, err := geom.ParseArcRule(s.Ruleset.Contact.Arcs)
	if err != nil {
		rule = geom.DefaultArcRule
	}
	b := ev.From
	r := ev.Reach + b.Depth/2
	big := geom.Base{Center: b.Center, Facing: b.Facing, Width: 2 * r, Depth: 2 * r}
	l0 := b.LeaderPoint()
	a := &ArcReview{Wedge: geom.ArcClip(b, geom.ArcFront, rule, big), InArc: geom.InFrontArc(b, t.Base, rule), Leader: l0,
		Measured: ev.Measured, Reach: ev.Reach, Side: ev.Side}
	var bases []geom.Base
	for _, id := range s.sortedUnitIDs() {
		if o := s.Units[id]; o.active() && id != ev.Unit && id != ev.Target {
			bases = append(bases, o.Base)
		}
	}
	a.Sight, a.Seen = geom.CanSee(l0, t.Base, bases, s.Terrain, b)
	if !a.Seen {
		a.Sight = t.Base.ClosestPoint(l0)
	}
	return a
}

// nearestShown is how many of a unit's nearest enemies a review lists.
const nearestShown = 4

// nearestEnemies are the n active enemy units nearest u, base to base,
// but its target (a charge ends touching it).
func nearestEnemies(s *State, u *Unit, target string, n int, gap float64) []EnemyDistance {
	var out []EnemyDistance
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if o.Side == u.Side || !o.active() || id == target {
			continue
		}
		d := geom.Distance(u.Base, o.Base)
		to := o.Base.ClosestPoint(u.Base.Center)
		out = append(out, EnemyDistance{Enemy: id, Distance: round6(d), From: u.Base.ClosestPoint(to), To: to, Within: d < gap-geom.Eps})
	}
	slices.SortStableFunc(out, func(a, b EnemyDistance) int {
		switch {
		case a.Distance < b.Distance:
			return -1
		case a.Distance > b.Distance:
			return 1
		}
		return 0
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// edgeStrip is the strip d deep along edge e of table t.
func edgeStrip(t geom.Table, e geom.Edge, d float64) geom.Polygon {
	w, h := t.Width, t.Depth
	switch e {
	case geom.EdgeNorth:
		return geom.Polygon{{X: 0, Y: h}, {X: w, Y: h}, {X: w, Y: h - d}, {X: 0, Y: h - d}}
	case geom.EdgeSouth:
		return geom.Polygon{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: d}, {X: 0, Y: d}}
	case geom.EdgeEast:
		return geom.Polygon{{X: w, Y: 0}, {X: w, Y: h}, {X: w - d, Y: h}, {X: w - d, Y: 0}}
	}
	return geom.Polygon{{X: 0, Y: 0}, {X: 0, Y: h}, {X: d, Y: h}, {X: d, Y: 0}}
}

func firstOf(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// RulesOf are the rules a decision recorded by e cites, the deciding one
// first (docs/rules-coverage.md).
func RulesOf(e Event) []string {
	switch ev := e.(type) {
	case *OrderResolved:
		var out []string
		switch {
		case ev.Outcome == OutcomeBlunder:
			out = []string{"C.5"}
		case ev.Special != "":
			out = []string{specialRule(ev.Special)}
		default:
			out = []string{"C.3"}
		}
		if len(ev.Modifiers) > 0 {
			out = append(out, "C.7")
		}
		if ev.ClosedGeneral != "" {
			out = append(out, "C.10")
		}
		if ev.OrdersClosed {
			out = append(out, "C.11")
		}
		if len(ev.FailedMoves) > 0 {
			out = append(out, "C.12")
		}
		return out
	case *UnitMoved:
		if ev.Phase == PhaseMovement {
			return []string{"M.3", "K.1", "K.2", "K.3"}
		}
		if ev.StoppedShort {
			return []string{"C.9", "C.17", "K.2"}
		}
		return []string{"C.17", "K.1", "K.2", "K.3"}
	case *UnitMarched:
		if ev.Ended {
			return []string{"M.13", "M.12"}
		}
		return []string{"M.12", "M.13"}
	case *ChargeDeclared:
		return []string{"K.4", "K.5", "K.6", "K.7", "K.8", "C.9"}
	case *ChargePushedBack:
		return []string{"K.9"}
	case *UnitReformed:
		return []string{"C.16"}
	case *FormationTested:
		return []string{"M.9"}
	case *InitiativeTaken, *InitiativeDeclined:
		return []string{"C.15"}
	case *BlunderCarriedOut:
		return []string{"C.5"}
	case *GeneralMoved, *GeneralDetached:
		return []string{"M.2"}
	case *MarchDeclared, *BrigadeOrderChanged:
		return []string{"M.15", "M.11"}
	case *CombatRecorded:
		if ev.Roll != nil {
			return []string{"T.4", "M.17"}
		}
		return []string{"T.4"}
	case *UnitFired:
		return []string{"M.5"}
	case *FlankDeclared:
		return []string{"F.2", "F.1", "F.8"}
	case *FlankFightResolved:
		return []string{"F.10"}
	case *FlankEntryChosen:
		return []string{"F.4"}
	case *FlankRevealed:
		return []string{"F.1"}
	case *FlankUnitEntered:
		return []string{"F.5", "F.3"}
	case *FlankRallied:
		return []string{"F.7"}
	case *ObjectiveHeld, *BattleScored, *BattleRescored, *ObjectiveCorrected:
		return []string{"V.2", "V.3"}
	case *BattleEnded:
		return []string{"T.5"}
	case *TurnStarted, *PhaseEnded, *PhaseStarted, *BattleStarted:
		return []string{"T.1"}
	}
	return nil
}
