// Where a charger may stand, and the enemies it pushes back (docs/rules.md K.6,
// K.7, K.9).

package rules

import (
	"math"

	"github.com/clubledger/ledger/rules/geom"
)

// placement judges where the charger would end (K.1, K.3, K.6, K.7, K.9):
// wholly on the table, clear of impassable terrain, overlapping no unit,
// touching no friend, touching the target with part of its front edge; every
// other enemy it touches must be able to move back. It returns why not
// (phrase.charge_why; none, Words{}, when it may), or the pushes.
func (j *chargeJudge) placement(b geom.Base) (Words, []chargePush) {
	s := j.s
	if !s.Table.Contains(b) {
		return words("it would not stand wholly on the table (K.3)"), nil
	}
	for _, i := range geom.Overlapping(b, s.Terrain, geom.Impassable) {
		return words("it would stand on impassable terrain %q", s.Terrain[i].Name), nil
	}
	if !geom.Touching(b, j.t.Base) || geom.ContactLength(b.FrontEdge(), j.t.Base) < geom.MinEdgeContact {
		return words("its front edge would not touch the target (K.7)"), nil
	}
	var touching []*Unit
	for _, o := range j.others {
		if o == j.t {
			continue
		}
		if geom.Overlaps(b, o.Base) {
			return words("unit %s is in the way", o.ID), nil
		}
		if geom.Distance(b, o.Base) <= geom.ContactTolerance {
			if o.Side == j.u.Side {
				return words("it would touch friendly unit %s (K.1)", o.ID), nil
			}
			touching = append(touching, o)
		}
	}
	moved := map[string]geom.Base{}
	var pushes []chargePush
	for _, o := range touching {
		p, ok := j.push(b, o, moved)
		if !ok {
			return words("enemy unit %s it would touch cannot move back out of contact (K.9)", o.ID), nil
		}
		moved[o.ID] = p.to
		pushes = append(pushes, p)
	}
	return Words{}, pushes
}

// push moves an enemy o the charger (at b) touches back by the gap (1")
// if the room behind it allows, else as far back as the room allows (K.9),
// provided that leaves the bases clearly apart (more than twice the contact
// tolerance): straight back from its facing first, else straight away from
// the charger's centre. The room is the free way along that line: on the
// table, off impassable terrain, and not into any other unit (as already
// pushed): the unit stops where it would first touch one it was not
// already touching, and never jumps past anything.
func (j *chargeJudge) push(b geom.Base, o *Unit, moved map[string]geom.Base) (chargePush, bool) {
	s := j.s
	type obstacle struct {
		base geom.Base
		sep  float64 // separation where o stands: already touching stays allowed
	}
	var obs []obstacle
	for _, x := range j.others {
		if x == o {
			continue
		}
		xb := x.Base
		if m, ok := moved[x.ID]; ok {
			xb = m
		}
		obs = append(obs, obstacle{xb, math.Min(0, geom.Separation(o.Base, xb))})
	}
	free := func(nb geom.Base) bool {
		if !s.Table.Contains(nb) {
			return false
		}
		in := nb.Inset(pushInset)
		for _, t := range s.Terrain {
			if t.Kind.Has(geom.Impassable) && geom.PolygonsMeet(in.Polygon(), t.Outline) {
				return false
			}
		}
		for _, x := range obs {
			if geom.Separation(nb, x.base) < x.sep-pushInset {
				return false
			}
		}
		return true
	}
	dirs := []geom.Vec{o.Base.Forward().Scale(-1)}
	if d := o.Base.Center.Sub(b.Center); d.Len() > geom.Eps {
		dirs = append(dirs, d.Scale(1/d.Len()))
	}
	for _, d := range dirs {
		at := func(x float64) geom.Base { return o.Base.Translate(d.Scale(x)) }
		room := j.room(at, free)
		if room <= 0 || geom.Separation(b, at(room)) <= 2*geom.ContactTolerance {
			continue
		}
		return chargePush{unit: o.ID, from: o.Base, to: at(room), distance: room, full: room >= j.gap}, true
	}
	return chargePush{}, false
}

// pushSteps is how finely K.9 walks the way back before it bisects where
// the room ends: 1/64 of the gap, far thinner than any base.
const pushSteps = 64

// room is how far, up to the gap, a pushed unit can go back along at(x)
// with every position on the way free: the way is walked in steps of a
// 64th of the gap, and where it first meets something the end of the free
// part is found by bisection, far below measuring precision.
func (j *chargeJudge) room(at func(float64) geom.Base, free func(geom.Base) bool) float64 {
	if !free(at(0)) {
		return 0
	}
	last := 0.0
	for k := 1; k <= pushSteps; k++ {
		x := j.gap * float64(k) / pushSteps
		if free(at(x)) {
			last = x
			continue
		}
		lo, hi := last, x
		for range 50 {
			mid := (lo + hi) / 2
			if free(at(mid)) {
				lo = mid
			} else {
				hi = mid
			}
		}
		if r := round6(lo); free(at(r)) {
			return r
		}
		return math.Floor(lo*1e6) / 1e6
	}
	return j.gap
}

// pushInset is how far past touching a pushed unit's room is allowed to
// reach: far below measuring precision, so a unit pushed against another
// ends touching it, not overlapping it.
const pushInset = 1e-7

// cornerClear reports whether the charger at b, touching the target only at
// a corner, would stand clear: on the table, off impassable terrain,
// overlapping no unit (K.7's corner-to-corner diagnosis).
func (j *chargeJudge) cornerClear(b geom.Base) bool {
	if !j.s.Table.Contains(b) || len(geom.Overlapping(b, j.s.Terrain, geom.Impassable)) > 0 || !geom.Touching(b, j.t.Base) {
		return false
	}
	for _, o := range j.others {
		if o != j.t && geom.Overlaps(b, o.Base) {
			return false
		}
	}
	return true
}
