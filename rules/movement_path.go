package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// Waypoint is one point of a move's path: the base's centre goes there in a
// straight leg, facing unchanged; if Facing is given the unit then turns on
// the spot about its centre, the shorter way, to that facing (K.3). The JSON
// of a plain point ({"x":..,"y":..}) is a waypoint without a turn, so paths
// written before turns existed read the same.
type Waypoint struct {
	X      float64  `json:"x"`
	Y      float64  `json:"y"`
	Facing *float64 `json:"facing,omitempty"`
}

// Vec is the waypoint's position.
func (w Waypoint) Vec() geom.Vec { return geom.Vec{X: w.X, Y: w.Y} }

// moveStep is one leg of a path and the turn on the spot at its end.
type moveStep struct {
	to     geom.Vec
	turn   float64   // signed degrees, clockwise positive; 0: none
	before geom.Base // the base arriving at to, before the turn
	after  geom.Base // after the turn
}

// movePlan is a move resolved into legs and turns, with what it costs
// against an allowance: the centre's path, the turns (movement.turn_cost)
// and the extra for difficult terrain (movement.difficult_terrain).
type movePlan struct {
	from      geom.Base
	steps     []moveStep // the waypoints, then the destination
	end       geom.Base
	length    float64 // the centre's path
	turnCost  float64 // paid for turning
	difficult float64 // extra paid for difficult terrain
	turned    bool    // some turn on the way
}

// cost is what the move takes from the allowance.
func (p movePlan) cost() float64 { return p.length + p.turnCost + p.difficult }

// points is the centre's waypoints and destination, for the event.
func (p movePlan) points() []geom.Vec {
	out := make([]geom.Vec, 0, len(p.steps))
	for _, st := range p.steps {
		out = append(out, st.to)
	}
	return out
}

// where names a step of a plan in messages: "waypoint 2" or "the
// destination" (phrase.where_at, phrase.where_to).
func (p movePlan) where(i int) Words { return p.whereAt("", i) }

// whereAt is where with words before it: "at waypoint 2", "turning at the
// destination" (phrase.edge_where).
func (p movePlan) whereAt(before string, i int) Words {
	if i == len(p.steps)-1 {
		return words(before + "the destination")
	}
	return words(before+"waypoint %d", i+1)
}

// planPath resolves a move of base b through path to `to`, turning to
// facing at the end (nil: keep it), and prices it.
func planPath(s *State, b geom.Base, path []Waypoint, to geom.Vec, facing *float64) (movePlan, *Refusal) {
	mv := s.Ruleset.Movement
	p := movePlan{from: b}
	cur := b
	add := func(pt geom.Vec, f *float64) *Refusal {
		if !pt.IsFinite() {
			return refuse(RuleInput, "bad_point", "path point %d is not a finite position", len(p.steps)+1)
		}
		leg := geom.Seg(cur.Center, pt)
		p.length += leg.Len()
		if m := mv.DifficultTerrain.DistanceMultiple; m > 1 {
			for _, t := range s.Terrain {
				if t.Kind.Has(geom.Difficult) {
					in, _ := t.Outline.InsideLength(leg)
					p.difficult += (m - 1) * in
				}
			}
		}
		st := moveStep{to: pt}
		cur.Center = pt
		st.before = cur
		if f != nil {
			if !finite(*f) {
				return refuse(RuleInput, "bad_facing", "facing is not a number")
			}
			st.turn = geom.TurnDeg(cur.Facing, geom.NormDeg(*f))
			cur = geom.Rotate(cur, cur.Center, st.turn)
			cur.Facing = geom.NormDeg(*f)
			if st.turn != 0 {
				p.turned = true
				if mv.TurnCost == TurnCostOuterCorner {
					p.turnCost += cur.Circumradius() * math.Abs(st.turn) * math.Pi / halfTurnDegrees
				}
			}
		}
		st.after = cur
		p.steps = append(p.steps, st)
		return nil
	}
	for _, w := range path {
		if r := add(w.Vec(), w.Facing); r != nil {
			return p, r
		}
	}
	if r := add(to, facing); r != nil {
		return p, r
	}
	p.end = cur
	return p, nil
}

// halfTurnDegrees converts degrees to radians with math.Pi.
const halfTurnDegrees = 180

// moveCheck says how a move is judged: the phase's rule for keeping off the
// enemy (C.9 in the command phase, K.2 elsewhere; M.7 in the movement
// phase), and whether M.10 is waived (evading horse artillery).
type moveCheck struct {
	enemyRule string
	movement  bool // the movement phase: M.7 applies
	evading   bool
}

func checkFor(s *State) moveCheck {
	if s.Phase == PhaseCommand {
		return moveCheck{enemyRule: "C.9"}
	}
	return moveCheck{enemyRule: "K.2", movement: s.Phase == PhaseMovement}
}

// checkPlan judges a planned move of u against K.1-K.3, M.7 and M.10 (and
// C.9 in the command phase): every leg stays clear of impassable terrain and
// never comes within the gap of an enemy (K.2: a turn on the spot is exempt);
// every turn and the end of the move leave the unit wholly on the table,
// clear of impassable terrain, out of contact with friends and at least the
// gap from enemies (K.1, K.3); no contact with an enemy in the movement
// phase (M.7); no turning flank or rear to a formed close-order enemy (M.10).
func checkPlan(s *State, u *Unit, p movePlan, mc moveCheck) *Refusal {
	rs, m := s.Ruleset, s.Measurement
	gap := rs.Contact.Gap.For(m)
	ids := s.sortedUnitIDs()
	// Where it ends first (K.1, K.3, and the gap), then the way there.
	if r := checkStand(s, u, p.end, p.from, p.where(len(p.steps)-1), mc, false); r != nil {
		return r
	}
	if r := s.flankCourseRefusal(u, planCourse(p)); r != nil { // F.8 along the way (flank_edge.go)
		return r
	}
	cur := p.from
	for i, st := range p.steps {
		// The leg: impassable terrain and enemies along the way.
		if r := legImpassable(s, u, cur, st.to, p.where(i)); r != nil {
			return r
		}
		for _, id := range ids {
			o := s.Units[id]
			if id == u.ID || !o.active() || o.Side == u.Side {
				continue
			}
			start := geom.Distance(cur, o.Base)
			d := geom.SweptBase(cur, st.to).DistanceToBase(o.Base)
			if d < math.Min(gap, start)-geom.Eps {
				return refuse(mc.enemyRule, "path_reaches_enemy", "unit %s passes %s from %s on the leg to %s; at least %s unless charging (K.2)",
					u.ID, fmtMeasured(d, gap, m), o.ID, p.where(i), fmtLen(gap, m)).with("distance", d, "gap", gap, "waypoint", i+1)
			}
		}
		// Where it stands after the leg and any turn (K.3), and at the end.
		if st.turn != 0 && i < len(p.steps)-1 {
			if r := checkStand(s, u, st.after, p.from, p.where(i), mc, true); r != nil {
				return r
			}
		}
		cur = st.after
	}
	if p.turned && !mc.evading {
		if r := checkFlankExposure(s, u, p.from, p.end); r != nil {
			return r
		}
	}
	return nil
}

// legImpassable refuses a straight leg whose swept base crosses impassable
// terrain (more than the contact tolerance deep): only a turn on the spot
// may pass through it (K.3).
func legImpassable(s *State, u *Unit, from geom.Base, to geom.Vec, where Words) *Refusal {
	in := from.Inset(geom.ContactTolerance)
	if in.Width <= 0 || in.Depth <= 0 {
		in = from
	}
	swept := geom.SweptBase(in, to)
	for _, t := range s.Terrain {
		if t.Kind.Has(geom.Impassable) && polygonsMeet(swept, t.Outline) {
			return refuse("K.3", "impassable", "unit %s crosses impassable terrain %q on the leg to %s; only a turn on the spot may pass through it", u.ID, t.Name, where)
		}
	}
	return nil
}

// polygonsMeet reports whether two simple polygons share a point: an edge of
// one crosses an edge of the other, or one holds a vertex of the other.
func polygonsMeet(a, b geom.Polygon) bool {
	for _, ea := range a.Edges() {
		for _, eb := range b.Edges() {
			if ea.Intersects(eb) {
				return true
			}
		}
	}
	return (len(b) > 0 && a.Contains(b[0])) || (len(a) > 0 && b.Contains(a[0]))
}

// checkStand judges a position a move stops at or turns at (K.1, K.3, M.7,
// and the gap of C.9/K.2). A mid-path turn cites K.3 for friends.
func checkStand(s *State, u *Unit, b geom.Base, from geom.Base, where Words, mc moveCheck, midTurn bool) *Refusal {
	rs, m := s.Ruleset, s.Measurement
	gap := rs.Contact.Gap.For(m)
	if !s.Table.Contains(b) {
		e, d := s.Table.NearestEdge(b)
		return refuse("K.3", "off_table", "unit %s would not stand wholly on the %gx%g table at %s: it reaches %s over the %s edge",
			u.ID, s.Table.Width, s.Table.Depth, where, fmtLen(-d, m), e).with("x", b.Center.X, "y", b.Center.Y, "over", -d)
	}
	for _, i := range geom.Overlapping(b, s.Terrain, geom.Impassable) {
		return refuse("K.3", "impassable", "unit %s would stand on impassable terrain %q at %s", u.ID, s.Terrain[i].Name, where)
	}
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if id == u.ID || !o.active() {
			continue
		}
		d := geom.Distance(b, o.Base)
		if o.Side == u.Side {
			if d <= geom.ContactTolerance {
				what := "in base contact with" // phrase.friend_how
				if geom.Overlaps(b, o.Base) {
					what = "overlapping"
				}
				rule := "K.1"
				if midTurn {
					rule = "K.3"
				}
				return refuse(rule, "friend_contact", "unit %s would end %s friendly unit %s at %s; friends may be passed through, never ended on or touched", u.ID, what, o.ID, where).with("distance", d)
			}
			continue
		}
		if mc.movement && d <= geom.ContactTolerance {
			return refuse("M.7", "enemy_contact", "unit %s would come into base contact with enemy unit %s at %s: no contact with the enemy in the movement phase", u.ID, o.ID, where).with("distance", d)
		}
		if d < gap-geom.Eps {
			rule, what := mc.enemyRule, "a unit not charging stops %s short of the enemy (K.2)"
			if midTurn {
				rule, what = "K.3", "a turn must end at least %s from enemies"
			}
			return refuse(rule, "enemy_too_close", "unit %s would end %s from enemy unit %s at %s; "+what, u.ID, fmtMeasured(d, gap, m), o.ID, where, fmtLen(gap, m)).
				with("distance", d, "gap", gap)
		}
	}
	return nil
}

// formedCloseOrder reports whether o is a formed close-order unit (M.9,
// M.10): in a close-order formation and in good order (not disordered,
// retreating or routed).
func formedCloseOrder(s *State, o *Unit) bool {
	return o.active() && o.Status == UnitOK && s.Ruleset.Formations[o.Formation].CloseOrder
}

// arcRank orders arcs by exposure: front, flank, rear.
func arcRank(a geom.Arc) int {
	switch a {
	case geom.ArcFront:
		return 0
	case geom.ArcRear:
		return 2
	}
	return 1
}

// checkFlankExposure enforces M.10 on a move or formation change that turns
// the unit: no formed close-order enemy within the ruleset's distance may
// end up in a more exposed arc (flank, then rear) of the unit than before.
// Retreating and routed enemies are not formed, so when they are the only
// enemies near the rule does not apply.
func checkFlankExposure(s *State, u *Unit, from, to geom.Base) *Refusal {
	rs, m := s.Ruleset, s.Measurement
	rule, err := geom.ParseArcRule(rs.Contact.Arcs)
	if err != nil {
		rule = geom.DefaultArcRule
	}
	lim := rs.Movement.FlankExposureDistance.For(m)
	for _, id := range s.sortedUnitIDs() {
		o := s.Units[id]
		if o.Side == u.Side || !formedCloseOrder(s, o) {
			continue
		}
		d := geom.Distance(to, o.Base)
		if d > lim+geom.Eps {
			continue
		}
		before, after := geom.ArcOf(from, o.Base.Center, rule), geom.ArcOf(to, o.Base.Center, rule)
		if arcRank(after) > arcRank(before) {
			return refuse("M.10", "flank_exposed", "unit %s would turn its %s toward formed %s unit %s, %s away (within %s)",
				u.ID, arcName(after), o.Formation, o.ID, fmtMeasured(d, lim, m), fmtLen(lim, m)).with("distance", d, "limit", lim)
		}
	}
	return nil
}

func arcName(a geom.Arc) string {
	switch a {
	case geom.ArcLeft:
		return "left flank"
	case geom.ArcRight:
		return "right flank"
	}
	return string(a)
}

// exemptFromFlankRule reports whether the unit's type evades free of M.10.
func exemptFromFlankRule(s *State, u *Unit) bool {
	return slices.Contains(s.Ruleset.Movement.FlankExposureExemptTypes, u.Type)
}
