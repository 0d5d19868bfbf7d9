package rules

import (
	"fmt"
	"math"
	"sort"

	"github.com/clubledger/ledger/rules/geom"
)

// This file decides where a charge goes (K.4-K.10): whether the charger may
// charge the target, by which side, along which path and where it ends, and
// which other enemies it pushes back. docs/charges.md explains the algorithm
// and its approximations.

// chargeOutcome is a charge the engine found.
type chargeOutcome struct {
	side     geom.Arc
	measured float64 // K.4: leader point to the nearest point of the target
	reach    float64 // K.4: contact.charge_reach_multiple x the speed
	to       geom.Base
	path     []geom.Vec // the leader point: start, the turn point if any, end
	turn     float64    // the one turn, signed degrees clockwise (K.5)
	turnAt   int        // index in path where the turn is made
	slide    float64    // leader point's offset from the middle of the side hit, to the charger's right
	crossed  []string   // difficult terrain on the path (K.5), for the melee
	pushed   []chargePush
}

// chargePush is an enemy unit the charger ended touching, moved back (K.9).
type chargePush struct {
	unit     string
	from, to geom.Base
	distance float64
	full     bool // the whole gap; false: as far as the room allowed
}

// chargeJudge holds what one charge is judged against.
type chargeJudge struct {
	s       *State
	u, t    *Unit
	others  []*Unit // active units but the charger, the target included, in id order
	rule    geom.ArcRule
	gap     float64
	maxTurn float64
	l0      geom.Vec // the charger's leader point where it stands
	f0, f1  float64  // its facing before and after the one turn
	leg1    map[geom.Vec]string
}

// chargeMargin keeps proposed turn points and slides just clear of what
// they pass (beyond edge contact).
const chargeMargin = geom.MinEdgeContact + geom.ContactTolerance

// judgeCharge decides a charge of u on t, whose speed (C.17 distance per
// action) is speed: K.4 (front arc, sight, twice the speed, room), K.5 (the
// shortest path with one turn), K.6 and K.7 (flush on the side hit, slid as
// near its middle as room allows, part of the front edge touching), K.8 (the
// side), K.9 (other enemies touched move back).
func judgeCharge(s *State, u, t *Unit, speed float64) (chargeOutcome, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	rule, err := geom.ParseArcRule(rs.Contact.Arcs)
	if err != nil {
		rule = geom.DefaultArcRule
	}
	j := &chargeJudge{s: s, u: u, t: t, rule: rule, gap: rs.Contact.Gap.For(m), maxTurn: rs.Contact.ChargeMaxTurnDegrees,
		l0: u.Base.LeaderPoint(), f0: u.Base.Facing, leg1: map[geom.Vec]string{}}
	for _, id := range s.sortedUnitIDs() {
		if o := s.Units[id]; id != u.ID && o.active() {
			j.others = append(j.others, o)
		}
	}
	out := chargeOutcome{reach: rs.Contact.ChargeReachMultiple * speed, measured: t.Base.DistanceToPoint(j.l0)}

	// K.4: the target in the front arc, seen, within twice the speed.
	if !geom.InFrontArc(u.Base, t.Base, rule) {
		return out, refuse("K.4", "not_in_front_arc", "%s is not in %s's front arc (K.8 arcs: %s)", t.ID, u.ID, rule)
	}
	if r := j.sight(); r != nil {
		return out, r
	}
	if out.measured > out.reach+geom.Eps {
		return out, refuse("K.4", "out_of_range", "%s's leader point is %s from the nearest point of %s; a charge reaches %s (%g x its speed of %s)",
			u.ID, fmtMeasured(out.measured, out.reach, m), t.ID, fmtLen(out.reach, m), rs.Contact.ChargeReachMultiple, fmtLen(speed, m)).
			with("distance", out.measured, "reach", out.reach, "speed", speed)
	}

	// K.8: the side hit; K.5: the one turn brings the charger square to it.
	out.side = geom.ArcOf(t.Base, j.l0, rule)
	flush := geom.FlushAgainst(u.Base, t.Base, out.side)
	j.f1 = flush.Facing
	out.turn = geom.TurnDeg(j.f0, j.f1)
	if math.Abs(out.turn) > j.maxTurn+geom.Eps {
		return out, refuse("K.5", "turn_too_large", "to meet the %s of %s square, %s must turn %.0f°; a charge turns once, at most %.0f°",
			arcName(out.side), t.ID, u.ID, math.Abs(out.turn), j.maxTurn).with("turn", out.turn, "max_turn", j.maxTurn)
	}

	// K.6, K.7: flush, slid as near the middle as room allows; K.5 path;
	// K.9 pushes.
	side := t.Base.Side(out.side)
	dir := side.B.Sub(side.A).Scale(1 / side.Len())
	half := (side.Len() + u.Base.Width) / 2 // slide at which only the corners meet
	// first says why the first placement fails (phrase.charge_first); edge
	// is the first placement the zone of a flank march's edge rules out (F.8).
	var first Words
	var edge *edgeBreach
	for _, sl := range j.slides(flush, dir, half-geom.MinEdgeContact) {
		b := flush.Translate(dir.Scale(sl))
		why, pushes := j.placement(b)
		if why.Format == "" {
			tp, ok := j.path(b)
			if ok {
				c := out
				c.to, c.pushed = b, pushes
				j.finish(&c, tp, side.Mid())
				br := s.flankBreach(u.Side, u.Base, j.course(&c))
				if br == nil {
					return c, nil
				}
				if edge == nil {
					edge = br
				}
				why = words("it would come within %s of the %s edge (F.8)", fmtLen(br.limit, m), br.march.Edge)
			} else {
				why = words("no path with one turn of at most %.0f° round impassable terrain and units reaches it", j.maxTurn)
			}
		}
		if first.Format == "" {
			first = words("slid %s from the middle, %s", fmtLen(math.Abs(sl), m), why)
			if sl == 0 {
				first = words("square in the middle, %s", why)
			}
		}
	}
	if edge != nil { // reachable, but only into the zone of a flank march's edge
		return out, edge.refusal(s, words("unit %s charging %s", u.ID, t.ID))
	}
	// K.7: only corner-to-corner contact left?
	for _, sl := range []float64{half, -half} {
		b := flush.Translate(dir.Scale(sl))
		if j.cornerClear(b) {
			if _, ok := j.path(b); ok {
				return out, refuse("K.7", "corner_to_corner", "%s could touch %s only corner to corner on its %s: not a charge", u.ID, t.ID, arcName(out.side))
			}
		}
	}
	return out, refuse("K.4", "no_room", "%s has no room to reach the %s of %s: %s", u.ID, arcName(out.side), t.ID, first)
}

// sight refuses a target the charger cannot see (K.4, K.10): no straight
// line from its leader point to some point of the target misses every other
// unit and every piece of blocking terrain. A unit sees out of a piece of
// blocking terrain its leader point stands in ([choice], docs/charges.md).
func (j *chargeJudge) sight() *Refusal {
	var bases []geom.Base
	var ids []string
	for _, o := range j.others {
		if o != j.t {
			bases, ids = append(bases, o.Base), append(ids, o.ID)
		}
	}
	var terrain []geom.Terrain
	for _, tr := range j.s.Terrain {
		if tr.Kind.Has(geom.BlocksSight) && tr.Outline.Contains(j.l0) {
			continue
		}
		terrain = append(terrain, tr)
	}
	if _, ok := geom.CanSee(j.l0, j.t.Base, bases, terrain, j.u.Base); ok {
		return nil
	}
	what := words("units and terrain") // phrase.sight_what
	if ob, blocked := geom.SightBlocked(geom.Seg(j.l0, j.t.Base.ClosestPoint(j.l0)), bases, terrain, j.u.Base); blocked {
		if ob.Base >= 0 {
			what = words("unit %s", ids[ob.Base])
		} else {
			what = words("terrain %q", terrain[ob.Terrain].Name)
		}
	}
	return refuse("K.4", "no_line_of_sight", "%s cannot see %s: every line from its leader point to the target is blocked (K.10); the line to its nearest point crosses %s", j.u.ID, j.t.ID, what)
}

// slides lists the sideways offsets to try, nearest the middle first (K.6):
// the middle, both ends, a regular grid, and the offsets at which the
// charger just clears each corner of a unit or impassable terrain near the
// side. Ties go to the offset whose leader point is nearer the charger.
func (j *chargeJudge) slides(flush geom.Base, dir geom.Vec, max float64) []float64 {
	if max < 0 {
		return nil
	}
	vals := []float64{0, max, -max}
	const grid = 16
	for k := -grid; k <= grid; k++ {
		vals = append(vals, max*float64(k)/grid)
	}
	mid, w := flush.LeaderPoint(), flush.Width
	reach := w + flush.Depth + max
	for _, poly := range j.obstacles(mid, mid, reach) {
		for _, v := range poly {
			p := v.Sub(mid).Dot(dir)
			vals = append(vals, p+w/2+chargeMargin, p-w/2-chargeMargin)
		}
	}
	seen := map[float64]bool{}
	var out []float64
	for _, v := range vals {
		v = math.Round(v*1e9) / 1e9
		if math.Abs(v) <= max+geom.Eps && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	key := func(v float64) float64 { return geom.Dist(j.l0, mid.Add(dir.Scale(v))) }
	sort.SliceStable(out, func(a, b int) bool {
		if da, db := math.Abs(out[a]), math.Abs(out[b]); math.Abs(da-db) > geom.Eps {
			return da < db
		}
		return key(out[a]) < key(out[b])
	})
	return out
}

// obstacles lists the outlines of other units (the target too) and
// impassable terrain with a vertex within reach of the segment a-b.
func (j *chargeJudge) obstacles(a, b geom.Vec, reach float64) []geom.Polygon {
	seg := geom.Seg(a, b)
	near := func(p geom.Polygon) bool {
		for _, v := range p {
			if seg.DistanceToPoint(v) <= reach {
				return true
			}
		}
		return false
	}
	var out []geom.Polygon
	for _, o := range j.others {
		if p := o.Base.Polygon(); near(p) {
			out = append(out, p)
		}
	}
	for _, tr := range j.s.Terrain {
		if tr.Kind.Has(geom.Impassable) && near(tr.Outline) {
			out = append(out, tr.Outline)
		}
	}
	return out
}

// path finds the turn point of the shortest charge path (K.5) of the leader
// point from where it stands to the leader point of b: a first leg at the
// starting facing, one turn on the spot about the leader point to the final
// facing, a second leg; each leg forward (never backward), the path bending
// at most the ruleset's charge turn, each leg's swept base clear of units
// and impassable terrain and on the table.
func (j *chargeJudge) path(b geom.Base) (geom.Vec, bool) {
	l1 := b.LeaderPoint()
	legal := func(t geom.Vec) bool {
		if geom.BendDeg(j.l0, t, l1) > j.maxTurn+1e-9 || !forward(j.l0, t, j.f0) || !forward(t, l1, j.f1) {
			return false
		}
		why, ok := j.leg1[t]
		if !ok {
			why = j.leg(j.l0, t, j.f0)
			j.leg1[t] = why
		}
		return why == "" && j.leg(t, l1, j.f1) == ""
	}
	if t, ok := geom.OneTurnPath(j.l0, l1, nil, legal); ok {
		return t, true
	}
	reach := geom.Dist(j.l0, l1) + j.u.Base.Width + j.u.Base.Depth
	obs := j.obstacles(j.l0, l1, reach)
	first := geom.TurnCandidates(j.u.Base, j.f0, obs, chargeMargin)
	second := geom.TurnCandidates(j.u.Base, j.f1, obs, chargeMargin)
	cands := append(append(append([]geom.Vec(nil), first...), second...), geom.ShadowCrossings(j.l0, l1, first, second)...)
	// A coarse grid over the box round both ends catches what the corners miss.
	pad := j.u.Base.Width + j.u.Base.Depth
	x0, x1 := math.Min(j.l0.X, l1.X)-pad, math.Max(j.l0.X, l1.X)+pad
	y0, y1 := math.Min(j.l0.Y, l1.Y)-pad, math.Max(j.l0.Y, l1.Y)+pad
	const n = 16
	for a := 0; a <= n; a++ {
		for c := 0; c <= n; c++ {
			cands = append(cands, geom.Vec{X: x0 + (x1-x0)*float64(a)/n, Y: y0 + (y1-y0)*float64(c)/n})
		}
	}
	return geom.OneTurnPath(j.l0, l1, cands, legal)
}

// forward reports whether going from p to q at facing f is not backward: the
// leg is at most a right angle off the facing.
func forward(p, q geom.Vec, f float64) bool {
	d := q.Sub(p)
	return d.Len() < geom.Eps || d.Dot(geom.Heading(f)) >= -geom.Eps*d.Len()
}

// leg judges one straight leg of the leader point from p to q at facing f:
// the base on the table at both ends, and its sweep (inset by the contact
// tolerance, so that grazing is not crossing) meeting no other unit, the
// target included, and no impassable terrain. It returns why not.
func (j *chargeJudge) leg(p, q geom.Vec, f float64) string {
	if geom.Dist(p, q) < geom.Eps {
		return ""
	}
	from, to := geom.AtLeader(j.u.Base, p, f), geom.AtLeader(j.u.Base, q, f)
	if !j.s.Table.Contains(from) || !j.s.Table.Contains(to) {
		return "off the table"
	}
	in := from.Inset(geom.ContactTolerance)
	sw := geom.SweptBase(in, to.Center)
	for _, o := range j.others {
		if sw.DistanceToBase(o.Base) <= 0 {
			return "unit " + o.ID
		}
	}
	for _, tr := range j.s.Terrain {
		if tr.Kind.Has(geom.Impassable) && geom.PolygonsMeet(sw, tr.Outline) {
			return fmt.Sprintf("terrain %q", tr.Name)
		}
	}
	return ""
}

// course is the charger's course on the path out found (F.8): the first
// leg at its starting facing, the one turn on the spot about the leader
// point (at the start, the turn point or on contact), the second leg.
func (j *chargeJudge) course(out *chargeOutcome) []pose {
	b := j.u.Base
	var c []pose
	for i, p := range out.path {
		f := j.f0
		if i > out.turnAt || (i == out.turnAt && out.turn == 0) {
			f = j.f1
		}
		where := "on the way"
		switch {
		case i == len(out.path)-1:
			where = "where it ends"
		case i == 0:
			where = "at the start"
		}
		if i > 0 {
			c = append(c, pose{Base: geom.AtLeader(b, p, f), Where: words(where)})
		}
		if i == out.turnAt && out.turn != 0 {
			c = append(c, pose{Base: geom.AtLeader(b, p, j.f1), Pivot: p, Turn: out.turn, Where: words("turning " + where)})
		}
	}
	return c
}

// finish records the path, the turn and what it crosses (K.5).
func (j *chargeJudge) finish(out *chargeOutcome, t, mid geom.Vec) {
	l1 := out.to.LeaderPoint()
	switch {
	case geom.Dist(t, l1) < geom.Eps:
		out.path, out.turnAt = []geom.Vec{j.l0, l1}, 1
	case geom.Dist(t, j.l0) < geom.Eps:
		out.path, out.turnAt = []geom.Vec{j.l0, l1}, 0
	default: // the turn point rounded for the record, far inside its margin
		out.path, out.turnAt = []geom.Vec{j.l0, {X: round6(t.X), Y: round6(t.Y)}, l1}, 1
	}
	if out.turn == 0 {
		out.turnAt = 0
	}
	out.slide = round6(l1.Sub(mid).Dot(out.to.Right()))
	// Difficult terrain under the start, either leg or the end.
	var swept []geom.Polygon
	swept = append(swept, j.u.Base.Inset(geom.ContactTolerance).Polygon(), out.to.Inset(geom.ContactTolerance).Polygon())
	legs := [][2]geom.Vec{{j.l0, t}, {t, l1}}
	for i, lg := range legs {
		f := j.f0
		if i == 1 {
			f = j.f1
		}
		if geom.Dist(lg[0], lg[1]) >= geom.Eps {
			in := geom.AtLeader(j.u.Base, lg[0], f).Inset(geom.ContactTolerance)
			swept = append(swept, geom.SweptBase(in, geom.AtLeader(j.u.Base, lg[1], f).Center))
		}
	}
	for _, tr := range j.s.Terrain {
		if !tr.Kind.Has(geom.Difficult) {
			continue
		}
		for _, p := range swept {
			if geom.PolygonsMeet(p, tr.Outline) {
				out.crossed = append(out.crossed, tr.Name)
				break
			}
		}
	}
}
