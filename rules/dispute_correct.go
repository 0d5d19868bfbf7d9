// The umpire's ruling upheld, with its corrections (docs/disputes.md): the
// decision of dispute.uphold and of each kind of correction. A correction
// is refused, naming the rule, where it would leave a state the rules do
// not allow (a unit overlapping another or off the table, markers below
// zero, actions overspent, a general with a unit of the enemy's).

package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// decideUphold judges dispute.uphold: the ruling (dispute.upheld), then
// the correction of the disputed command itself if any (order.corrected,
// command.undone or flank.corrected), then generals, objectives and units,
// each an event pointing at the dispute, its ruling and the disputed
// event; then, for an ended battle whose score the corrections change,
// battle.rescored with the score the rules compute from the corrected
// state. The corrected state must be one the rules allow.
func decideUphold(s *State, c *UpholdDispute) ([]Event, *Refusal) {
	d, r := openDispute(s, c.Dispute, c.Ruling)
	if r != nil {
		return nil, r
	}
	f := c.Facts
	var ruling uint64
	if f != nil {
		ruling = f.Last + 1
	}
	up := &DisputeUpheld{Dispute: d.N, EventVersion: d.EventVersion, DisputedType: d.EventType, Ruling: strings.TrimSpace(c.Ruling)}
	evs := []Event{up}
	work := s.Clone()
	Apply(work, up)
	touched := map[string]bool{}
	add := func(e Event) {
		evs = append(evs, e)
		Apply(work, e)
	}
	kinds := 0
	for _, given := range []bool{c.Order != nil, c.Undo, c.Flank != nil} {
		if given {
			kinds++
		}
	}
	if kinds > 1 {
		return nil, refuse(RuleDispute, "bad_correction", "order, undo and flank each correct the disputed command itself: give one of them")
	}
	if kinds == 1 && (f == nil || f.First == 0 || int(f.End) > len(f.Log)) {
		return nil, refuse(RuleDispute, "no_facts", "the service did not supply the battle's log: the disputed command is corrected from it")
	}
	switch {
	case c.Order != nil:
		ev, r := orderCorrection(f.Log, f.First, f.End, *c.Order, s)
		if r != nil {
			return nil, r
		}
		ev.Dispute, ev.EventVersion, ev.Ruling = d.N, d.EventVersion, ruling
		add(ev)
		touchSetting(touched, ev.Set)
	case c.Undo:
		ev, r := undoCorrection(f.Log, f.First, f.End, s)
		if r != nil {
			return nil, r
		}
		ev.Dispute, ev.EventVersion, ev.Ruling = d.N, d.EventVersion, ruling
		add(ev)
		touchSetting(touched, ev.Set)
	case c.Flank != nil:
		ev, r := flankCorrection(f.Log, f.First, f.End, *c.Flank, s)
		if r != nil {
			return nil, r
		}
		ev.Dispute, ev.EventVersion, ev.Ruling = d.N, d.EventVersion, ruling
		add(ev)
		for _, id := range ev.Withdrawn {
			touched[id] = true
		}
	}
	seenG := map[string]bool{}
	for i, g := range c.Generals {
		if seenG[g.General] {
			return nil, refuse(RuleDispute, "bad_correction", "general correction %d: general %s is corrected twice; give one correction per general", i+1, g.General)
		}
		seenG[g.General] = true
		ev, r := generalCorrection(work, i, g)
		if r != nil {
			return nil, r
		}
		ev.Dispute, ev.EventVersion, ev.Ruling = d.N, d.EventVersion, ruling
		add(ev)
	}
	seenO := map[string]bool{}
	for i, o := range c.Objectives {
		k := slices.IndexFunc(work.Victory.Objectives, func(x Objective) bool { return x.ID == o.Objective })
		switch {
		case k < 0:
			return nil, refuse("V.2", "unknown_objective", "objective correction %d: no objective %q in this battle", i+1, o.Objective)
		case seenO[o.Objective]:
			return nil, refuse(RuleDispute, "bad_correction", "objective correction %d: objective %s is corrected twice", i+1, o.Objective)
		case o.Side != "" && work.side(o.Side) == nil:
			return nil, refuse(RuleInput, "unknown_side", "objective correction %d: no side %q in this battle", i+1, o.Side)
		case work.Victory.Held[o.Objective] == o.Side && o.Side == "":
			return nil, refuse(RuleDispute, "bad_correction", "objective correction %d changes nothing: nobody holds %s already", i+1, o.Objective)
		case work.Victory.Held[o.Objective] == o.Side:
			return nil, refuse(RuleDispute, "bad_correction", "objective correction %d changes nothing: %s holds %s already", i+1, o.Side, o.Objective)
		}
		seenO[o.Objective] = true
		add(&ObjectiveCorrected{Dispute: d.N, EventVersion: d.EventVersion, Ruling: ruling, Objective: o.Objective, Side: o.Side,
			Before: work.Victory.Held[o.Objective], Value: work.Victory.Objectives[k].Value})
	}
	seen := map[string]bool{}
	for i, k := range c.Corrections {
		ev, r := unitCorrection(work, i, k, seen)
		if r != nil {
			return nil, r
		}
		ev.Dispute, ev.EventVersion, ev.Ruling = d.N, d.EventVersion, ruling
		add(ev)
		touched[k.Unit] = true
	}
	if r := checkCorrected(work, touched); r != nil {
		return nil, r
	}
	if work.Status == StatusEnded && work.Victory.Score != nil {
		if ns := work.score(); !equalJSON(ns, work.Victory.Score) {
			ev := &BattleRescored{Dispute: d.N, EventVersion: d.EventVersion, Ruling: ruling, Before: *work.Victory.Score, Score: *ns}
			if f != nil {
				ev.Successors = slices.Clone(f.Successors)
			}
			add(ev)
		}
	}
	up.Corrections = len(evs) - 1
	return evs, nil
}

// unitCorrection judges one unit correction on the state as corrected so far.
func unitCorrection(s *State, i int, k Correction, seen map[string]bool) (*UnitCorrected, *Refusal) {
	u := s.Units[k.Unit]
	switch {
	case u == nil:
		return nil, refuse(RuleDispute, "bad_correction", "correction %d: no unit %q", i+1, k.Unit)
	case seen[k.Unit]:
		return nil, refuse(RuleDispute, "bad_correction", "correction %d: unit %s is corrected twice; give one correction per unit", i+1, k.Unit)
	case k.Base == nil && k.Formation == "" && k.Markers == nil && k.Status == "" && k.ActionsLeft == nil:
		return nil, refuse(RuleDispute, "bad_correction", "correction %d of %s changes nothing: give base, formation, markers, status or actions_left", i+1, k.Unit)
	case k.Status != "" && !slices.Contains(unitStatuses, k.Status):
		return nil, refuse(RuleDispute, "bad_correction", "correction %d: status %q: want one of %s", i+1, k.Status, strings.Join(unitStatuses, ", "))
	case k.Markers != nil && *k.Markers < 0:
		return nil, refuse("T.4", "bad_correction", "correction %d: markers %d: want 0 or more", i+1, *k.Markers).with("markers", *k.Markers)
	case k.ActionsLeft != nil && *k.ActionsLeft < 0:
		return nil, refuse("C.3", "bad_correction", "correction %d: actions_left %d: want 0 or more", i+1, *k.ActionsLeft).with("actions_left", *k.ActionsLeft)
	}
	seen[k.Unit] = true
	if k.Formation != "" {
		if t, ok := typeOf(s, u.Type); ok && !t.HasFormation(k.Formation) {
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: a %s stands in %s, not %q", i+1, u.Type, strings.Join(t.Formations, ", "), k.Formation)
		}
	}
	ev := &UnitCorrected{Unit: k.Unit, Formation: k.Formation, Status: k.Status,
		Markers: copyPtr(k.Markers), ActionsLeft: copyPtr(k.ActionsLeft),
		Before: UnitValues{Base: u.Base, Formation: u.Formation, Markers: u.Markers, Status: u.Status, ActionsLeft: s.TurnBook.peekUnit(k.Unit).ActionsLeft}}
	if k.Base != nil {
		b := *k.Base
		if !finite(b.Center.X) || !finite(b.Center.Y) || !finite(b.Facing) || !finite(b.Width) || !finite(b.Depth) || b.Width < 0 || b.Depth < 0 {
			return nil, refuse(RuleDispute, "bad_correction", "correction %d: the base of %s is not a finite position", i+1, k.Unit)
		}
		if b.Width == 0 || b.Depth == 0 {
			b.Width, b.Depth = u.Base.Width, u.Base.Depth
		}
		ev.Base = &b
	}
	return ev, nil
}

// generalCorrection judges one general correction on the state as
// corrected so far.
func generalCorrection(s *State, i int, g GeneralCorrection) (*GeneralCorrected, *Refusal) {
	att, pos := s.generalPtrs(g.General)
	if pos == nil {
		return nil, refuse(RuleDispute, "bad_correction", "general correction %d: no general %q", i+1, g.General)
	}
	if g.Position == nil && g.AttachedTo == nil && g.Done == nil {
		return nil, refuse(RuleDispute, "bad_correction", "general correction %d of %s changes nothing: give position, attached_to or done", i+1, g.General)
	}
	ref, _ := s.commander(g.General)
	gt := s.TurnBook.peekGeneral(g.General)
	ev := &GeneralCorrected{General: g.General, Position: copyPtr(g.Position), AttachedTo: copyPtr(g.AttachedTo), Done: copyPtr(g.Done),
		Before: GeneralValues{Position: *pos, AttachedTo: *att, Done: gt.Done, Reason: gt.Reason}}
	attached := *att
	if g.AttachedTo != nil {
		attached = *g.AttachedTo
		if id := *g.AttachedTo; id != "" {
			u := s.Units[id]
			switch {
			case u == nil:
				return nil, refuse(RuleDispute, "bad_correction", "general correction %d: no unit %q for %s to be with", i+1, id, g.General)
			case u.Side != ref.Side.ID:
				return nil, refuse("C.13", "not_own_unit", "general correction %d: %s is of %s; unit %s is of %s: a general joins only a unit of his side", i+1, g.General, ref.Side.ID, id, u.Side)
			case !u.active():
				return nil, refuse("T.4", "unit_inactive", "general correction %d: unit %s is %s: no general is with it", i+1, id, u.Status)
			}
		}
	}
	if p := g.Position; p != nil {
		switch {
		case !p.IsFinite() || !s.Table.ContainsPoint(*p):
			return nil, refuse("K.3", "off_table", "general correction %d: %s at %s would stand off the %gx%g table", i+1, g.General, *p, s.Table.Width, s.Table.Depth).with("x", p.X, "y", p.Y)
		case attached != "":
			return nil, refuse("C.13", "attached", "general correction %d: %s is with unit %s and stands at its centre: give attached_to \"\" to place him elsewhere", i+1, g.General, attached)
		}
	}
	if ev.Before.Position == geom.Vec(derefOr(g.Position, ev.Before.Position)) && attached == ev.Before.AttachedTo && (g.Done == nil || *g.Done == gt.Done) {
		return nil, refuse(RuleDispute, "bad_correction", "general correction %d of %s changes nothing", i+1, g.General)
	}
	return ev, nil
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// checkCorrected refuses a corrected state the rules do not allow, for the
// units the corrections touched: markers below zero (T.4), actions
// overspent (C.3), a unit on the table not wholly on it or on impassable
// terrain (K.3), or overlapping another unit (K.1 a friend, K.2 an enemy).
func checkCorrected(s *State, touched map[string]bool) *Refusal {
	m := s.Measurement
	for _, id := range slices.Sorted(maps.Keys(touched)) {
		u := s.Units[id]
		if u == nil {
			continue
		}
		if u.Markers < 0 {
			return refuse("T.4", "markers_below_zero", "corrected, unit %s would carry %d casualty markers: 0 or more", id, u.Markers).with("markers", u.Markers)
		}
		if ut := s.TurnBook.Units[id]; ut != nil && ut.ActionsLeft < 0 {
			return refuse("C.3", "overspent", "corrected, unit %s would have %d actions left: it has already used %s more than it would have had this turn; correct its actions_left (and where it stands) too", id, ut.ActionsLeft, plural(-ut.ActionsLeft, "action", "actions")).
				with("actions_left", ut.ActionsLeft)
		}
		if !u.active() {
			continue
		}
		if !s.Table.Contains(u.Base) {
			return refuse("K.3", "off_table", "corrected, unit %s at %s would stand partly off the %s x %s table: a unit leaves the table only as status off_table", id, u.Base.Center, fmtLen(s.Table.Width, m), fmtLen(s.Table.Depth, m)).
				with("x", u.Base.Center.X, "y", u.Base.Center.Y)
		}
		for _, k := range geom.Overlapping(u.Base, s.Terrain, geom.Impassable) {
			return refuse("K.3", "impassable", "corrected, unit %s at %s would stand on impassable terrain %q", id, u.Base.Center, s.Terrain[k].Name)
		}
		for _, oid := range s.sortedUnitIDs() {
			o := s.Units[oid]
			if oid == id || !o.active() || !geom.Overlaps(u.Base, o.Base) {
				continue
			}
			if o.Side == u.Side {
				return refuse("K.1", "overlap", "corrected, unit %s at %s would overlap friendly unit %s at %s", id, u.Base.Center, oid, o.Base.Center)
			}
			return refuse("K.2", "overlap", "corrected, unit %s at %s would overlap enemy unit %s at %s", id, u.Base.Center, oid, o.Base.Center)
		}
	}
	return nil
}

func touchSetting(touched map[string]bool, t Setting) {
	for _, u := range t.Units {
		touched[u.ID] = true
	}
	for _, e := range t.UnitTurns {
		touched[e.Unit] = true
	}
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// fold applies evs to a new state.
func fold(evs []Event) *State {
	s := NewState()
	for _, e := range evs {
		Apply(s, e)
	}
	return s
}

// commandEvents returns the events of versions first..end of log.
func commandEvents(log []Event, first, end uint64) []Event {
	if first < 1 || end < first || int(end) > len(log) {
		return nil
	}
	return log[first-1 : end]
}

func versionRange(first, end uint64) []uint64 {
	var out []uint64
	for v := first; v <= end; v++ {
		out = append(out, v)
	}
	return out
}

// counterfactual is the battle now had the command of versions first..end
// recorded repl instead (before holding the state just before it, perhaps
// with its inputs corrected): the later events stand as they were recorded.
func counterfactual(log []Event, before *State, end uint64, repl []Event) *State {
	cf := before.Clone()
	for _, e := range repl {
		Apply(cf, e)
	}
	for _, e := range log[end:] {
		Apply(cf, e)
	}
	return cf
}

// diffSetting compares the battle now and as corrected: before holds the
// values now of what differs, set those corrected. why says what differs
// that a correction does not set.
func diffSetting(now, cf *State) (before, set Setting, why string) {
	before.Restore, set.Restore, why = diffRecords(now, cf)
	if why != "" {
		return before, set, why
	}
	fn, fc := turnFlags(now), turnFlags(cf)
	if fn != fc {
		before.Flags, set.Flags = &fn, &fc
	}
	if restOf(now, true) != restOf(cf, true) {
		return before, set, "it would change more than units, generals and the turn's records"
	}
	return before, set, ""
}

func turnFlags(s *State) TurnFlags {
	return TurnFlags{CurrentGeneral: s.TurnBook.CurrentGeneral, OrdersClosed: s.TurnBook.OrdersClosed, InitiativeClosed: s.TurnBook.InitiativeClosed}
}

// orderCorrection resolves the order of the command of versions first..end
// of log again, from its inputs corrected by in, with the rules' own code
// (Decide on the state just before it), and sets what follows from it on
// now, the battle as it stands at the end of log. The audit calls it too.
func orderCorrection(log []Event, first, end uint64, in OrderCorrection, now *State) (*OrderCorrected, *Refusal) {
	cmdEvs := commandEvents(log, first, end)
	var orig *OrderResolved
	var origV uint64
	rolls := map[uint64]*DiceRolled{}
	var keep []Event
	for i, e := range cmdEvs {
		switch x := e.(type) {
		case *OrderResolved:
			orig, origV = x, first+uint64(i)
		case *DiceRolled:
			rolls[x.Counter] = x
			keep = append(keep, x)
		}
	}
	if orig == nil {
		return nil, refuse(RuleDispute, "not_an_order", "events %d to %d resolved no order: an order correction corrects a disputed order.resolved (or its dice)", first, end).
			with("first", first, "end", end)
	}
	before := fold(log[:first-1])
	if before.Ruleset == nil {
		return nil, refuse(RuleDispute, "no_facts", "the battle's log before event %d holds no battle", first)
	}
	rs := before.Ruleset
	cmd := &GiveOrder{General: orig.General, Units: slices.Clone(orig.Units), Content: orig.Content, Special: orig.Special, OnRoad: declaredOnRoad(orig)}
	if in.General != "" {
		cmd.General = in.General
	}
	if in.OnRoad != nil {
		cmd.OnRoad = slices.Clone(*in.OnRoad)
	}
	if p := in.GeneralAt; p != nil {
		if !p.IsFinite() || !before.Table.ContainsPoint(*p) {
			return nil, refuse("K.3", "off_table", "general_at %s is off the %gx%g table", *p, before.Table.Width, before.Table.Depth).with("x", p.X, "y", p.Y)
		}
		att, pos := before.generalPtrs(cmd.General)
		if pos == nil {
			return nil, refuse("C.2", "unknown_general", "no general or commander-in-chief %q in this battle", cmd.General)
		}
		*att, *pos = "", *p
	}
	values := slices.Clone(orig.Values)
	if in.Dice != nil {
		if r := physicalRoll(rolls[orig.RollCounter], orig.RollCounter); r != nil {
			return nil, r
		}
		if r := checkFaces(in.Dice, rs.Command.OrderRoll); r != nil {
			return nil, r
		}
		values = slices.Clone(in.Dice)
	}
	var blunderVals []int
	if orig.Blunder != nil {
		blunderVals = slices.Clone(orig.Blunder.Values)
	}
	if in.BlunderDice != nil {
		if orig.Blunder != nil {
			if r := physicalRoll(rolls[orig.Blunder.Counter], orig.Blunder.Counter); r != nil {
				return nil, r
			}
		}
		if r := checkFaces(in.BlunderDice, rs.Command.Blunder.Table.Dice); r != nil {
			return nil, r
		}
		blunderVals = slices.Clone(in.BlunderDice)
	}
	fd := &FixedDice{Values: append(slices.Clone(values), blunderVals...), Source: SourcePhysical, EnteredBy: "umpire"}
	out, err := Decide(before, cmd, fd)
	var ref *Refusal
	switch {
	case errors.As(err, &ref):
		r := *ref
		r.Numbers = maps.Clone(ref.Numbers)
		return nil, r.wrap("resolved again from the corrected inputs the order would be refused: %s", ref)
	case err != nil && rs.Command.IsBlunder(values):
		return nil, refuse("C.5", "blunder_roll_needed", "the corrected roll is a blunder (C.5): give the blunder-table roll as thrown (blunder_dice)")
	case err != nil:
		return nil, refuse(RuleDispute, "bad_correction", "the order cannot be resolved again from the corrected inputs: the dice given do not fit its rolls")
	case fd.next < len(fd.Values):
		return nil, refuse(RuleDispute, "bad_correction", "blunder_dice given, but the corrected roll is no blunder")
	}
	ev := &OrderCorrected{Order: origV, Versions: versionRange(first, end), Inputs: in, Original: *orig}
	ev.Inputs.Dice, ev.Inputs.BlunderDice = slices.Clone(in.Dice), slices.Clone(in.BlunderDice)
	repl := slices.Clone(keep)
	var origBlunders []BlunderCarriedOut
	for _, e := range cmdEvs {
		if b, ok := e.(*BlunderCarriedOut); ok {
			origBlunders = append(origBlunders, *b)
		}
	}
	for _, e := range out {
		switch x := e.(type) {
		case *DiceRolled:
		case *OrderResolved:
			res := *x
			if res.Blunder != nil && rolls[res.Blunder.Counter] == nil {
				b := *res.Blunder
				b.Counter = 0 // entered with the correction, never rolled in the log
				res.Blunder = &b
			}
			ev.Resolved = res
			repl = append(repl, &res)
		case *BlunderCarriedOut:
			ev.Blunders = append(ev.Blunders, *x)
			repl = append(repl, x)
		default:
			repl = append(repl, e)
		}
	}
	if equalJSON(ev.Resolved, ev.Original) && equalJSON(ev.Blunders, origBlunders) {
		return nil, refuse(RuleDispute, "bad_correction", "the correction changes nothing: resolved again from the corrected inputs the order comes out as recorded")
	}
	cf := counterfactual(log, before, end, repl)
	b, set, why := diffSetting(now, cf)
	if why != "" {
		return nil, refuse(RuleDispute, "not_correctable", "the order cannot be corrected: resolved again it would change more than units, generals and the turn's records (units or generals joined or left, or the turn, orders, marches or dice differ)")
	}
	ev.Before, ev.Set = b, set
	return ev, nil
}

// declaredOnRoad is the recipients an order declared on a road, as its
// modifiers say: the road bonus applies only when every recipient is on
// one, so a declaration that earned none reads the same as none (C.7).
func declaredOnRoad(o *OrderResolved) []string {
	for _, m := range o.Modifiers {
		if m.Kind == ModColumnOnRoad && m.Road == RoadDeclared {
			return slices.Clone(o.Units)
		}
		if m.Kind == "" && strings.Contains(m.Reason, "on a road (declared)") {
			return slices.Clone(o.Units)
		}
	}
	return nil
}

// physicalRoll refuses the correction of a roll that was digital: digital
// dice are provable (docs/dice.md) and stand.
func physicalRoll(d *DiceRolled, counter uint64) *Refusal {
	if d == nil {
		return refuse(RuleDispute, "no_roll", "roll #%d is not among the disputed command's events", counter).with("counter", counter)
	}
	if d.Source != SourcePhysical {
		return refuse(RuleDispute, "digital_dice", "roll #%d was digital: digital dice are provable (docs/dice.md) and are not corrected; correct what it was read against instead", counter).with("counter", counter)
	}
	return nil
}

// checkFaces refuses corrected dice that are not spec's, as thrown.
func checkFaces(v []int, spec DiceSpec) *Refusal {
	if len(v) != spec.Count {
		return refuse(RuleDispute, "bad_correction", "the corrected roll has %d dice; it is a roll of %d dice of %d sides", len(v), spec.Count, spec.Sides).
			with("dice", len(v), "count", spec.Count, "sides", spec.Sides)
	}
	for _, x := range v {
		if x < 1 || x > spec.Sides {
			return refuse(RuleDispute, "bad_correction", "the corrected roll shows %d, which is not a face of a die of %d sides", x, spec.Sides).with("face", x, "sides", spec.Sides)
		}
	}
	return nil
}

// undoable are the events whose command the umpire may undo; kept are
// those that stay facts when it is undone (the rolls made, a flank march's
// orders revealed).
var (
	undoable = map[string]bool{EvUnitMoved: true, EvUnitMarched: true, EvChargeDeclared: true, EvChargePushedBack: true, EvUnitReformed: true,
		EvFormationTested: true, EvFlankUnitEntered: true, EvGeneralMoved: true, EvGeneralDetached: true}
	keptOnUndo = map[string]bool{EvDiceRolled: true, EvFlankRevealed: true}
)

// undoCorrection undoes the moves of the command of versions first..end of
// log: the battle as it would stand now without them, the later events
// standing. The audit calls it too.
func undoCorrection(log []Event, first, end uint64, now *State) (*CommandUndone, *Refusal) {
	cmdEvs := commandEvents(log, first, end)
	ev := &CommandUndone{Versions: versionRange(first, end)}
	var keep []Event
	for i, e := range cmdEvs {
		t := e.EventType()
		switch {
		case keptOnUndo[t]:
			keep = append(keep, e)
		case undoable[t]:
			ev.Types = append(ev.Types, t)
		default:
			return nil, refuse(RuleDispute, "not_undoable", "event %d (%s) is not a move: undo takes back moves, marches, charges (with their pushes), formation changes, a flank marcher's entry and a general's move; an order is resolved again (order), a flank march corrected (flank), a unit's values set (corrections)", first+uint64(i), t).
				with("version", first+uint64(i))
		}
	}
	if len(ev.Types) == 0 {
		return nil, refuse(RuleDispute, "not_undoable", "events %d to %d moved nothing", first, end)
	}
	ev.Types = slices.Compact(ev.Types)
	cf := counterfactual(log, fold(log[:first-1]), end, keep)
	b, set, why := diffSetting(now, cf)
	switch {
	case why != "":
		return nil, refuse(RuleDispute, "not_correctable", "events %d to %d cannot be undone: without them more than units, generals and the turn's records would change (units or generals joined or left, or the turn, orders, marches or dice differ)", first, end)
	case set.empty():
		return nil, refuse(RuleDispute, "bad_correction", "undoing events %d to %d changes nothing now: what they moved has moved since", first, end)
	}
	ev.Before, ev.Set = b, set
	return ev, nil
}

// flankCorrection corrects the flank march the disputed command concerns
// (or fc.March) on now. The audit checks its table reading.
func flankCorrection(log []Event, first, end uint64, fc FlankCorrection, now *State) (*FlankCorrected, *Refusal) {
	n := fc.March
	if n == 0 {
		n = marchOf(commandEvents(log, first, end))
	}
	m := now.march(n)
	if m == nil {
		return nil, refuse(RuleInput, "unknown_march", "no flank march %d in this battle: name it (flank.march)", n).with("march", n)
	}
	rs := now.Ruleset
	if fc.Dice == nil && fc.ArrivalTurn == nil && fc.Entry == nil && fc.Lost == nil {
		return nil, refuse(RuleDispute, "bad_correction", "a flank correction gives dice, arrival_turn, entry or lost")
	}
	before := FlankValues{Roll: m.Roll, Entry: m.Entry, ArrivalTurn: m.ArrivalTurn, ArtilleryExtraMove: m.ArtilleryExtraMove, ChosenEntry: copyPtr(m.ChosenEntry)}
	set := before
	set.ChosenEntry = copyPtr(before.ChosenEntry)
	ev := &FlankCorrected{March: n, Before: before}
	if fc.Dice != nil {
		if m.Fight != "" {
			return nil, refuse("F.10", "fought", "flank march %d met an enemy march on its edge (F.10, %s): its arrival came from that fight; correct its arrival_turn instead", n, m.Fight)
		}
		var decl *FlankDeclared
		rolls := map[uint64]*DiceRolled{}
		for _, e := range log {
			switch x := e.(type) {
			case *FlankDeclared:
				if x.March == n {
					decl = x
				}
			case *DiceRolled:
				rolls[x.Counter] = x
			}
		}
		if decl == nil {
			return nil, refuse(RuleDispute, "no_roll", "flank march %d's declaration is not in the log", n)
		}
		if r := physicalRoll(rolls[decl.RollCounter], decl.RollCounter); r != nil {
			return nil, r
		}
		if r := checkFaces(fc.Dice, rs.FlankMarch.Arrival.Dice); r != nil {
			return nil, r
		}
		row, ok := rs.FlankMarch.arrivalEntry(sum(fc.Dice))
		if !ok {
			return nil, refuse("F.2", "no_row", "the arrival table has no row for %d", sum(fc.Dice))
		}
		ev.Values = slices.Clone(fc.Dice)
		set.Roll, set.Entry, set.ArrivalTurn, set.ArtilleryExtraMove = sum(fc.Dice), row.Entry, 0, false
		if row.Entry != EntryLost {
			set.ArrivalTurn, set.ArtilleryExtraMove = m.DeclaredTurn+row.DelayTurns, row.ArtilleryExtraMove
		}
	}
	if fc.Lost != nil {
		switch {
		case *fc.Lost:
			set.Entry, set.ArrivalTurn, set.ArtilleryExtraMove = EntryLost, 0, false
		case set.Entry == EntryLost && fc.ArrivalTurn == nil:
			return nil, refuse("F.2", "no_arrival", "flank march %d is no longer lost: give its arrival (dice as thrown, or arrival_turn)", n)
		case set.Entry == EntryLost:
			set.Entry = EntryOrdered
		}
	}
	if at := fc.ArrivalTurn; at != nil {
		switch {
		case set.Entry == EntryLost:
			return nil, refuse("F.2", "lost", "flank march %d is lost: it has no arrival turn (give lost: false to bring it back)", n)
		case *at < m.DeclaredTurn:
			return nil, refuse("F.2", "arrival_before_declaration", "arrival turn %d is before flank march %d was declared, in turn %d", *at, n, m.DeclaredTurn).with("arrival_turn", *at, "declared_turn", m.DeclaredTurn)
		}
		set.ArrivalTurn = *at
	}
	if set.Entry != EntryOpponentChoice {
		set.ChosenEntry = nil
	}
	if p := fc.Entry; p != nil {
		if set.Entry != EntryOpponentChoice {
			return nil, refuse("F.2", "ordered_entry", "flank march %d enters %s: its point is in its sealed orders; only a point the opponent chose (F.4) is corrected", n, set.Entry)
		}
		if !p.IsFinite() || !now.Table.ContainsPoint(*p) || math.Abs(now.Table.PointDistanceToEdge(*p, m.Edge)) > geom.Eps {
			return nil, refuse("F.4", "entry_not_on_edge", "entry point %s is not on the %s edge, the flank march's flank", *p, m.Edge).with("x", p.X, "y", p.Y)
		}
		if r := now.flankEntryTerrainRefusal(*p); r != nil {
			return nil, r
		}
		set.ChosenEntry = copyPtr(p)
	}
	if equalJSON(set, before) {
		return nil, refuse(RuleDispute, "bad_correction", "the flank correction changes nothing for flank march %d", n)
	}
	ev.Set = set
	// Units on the table that the corrected march could not have brought
	// on: all of a lost march's, and those that entered before its
	// corrected arrival turn, go back off the table.
	entered := map[string]int{}
	for _, e := range log {
		if x, ok := e.(*FlankUnitEntered); ok && x.March == n {
			entered[x.Unit] = x.Turn
		}
	}
	for _, id := range m.Entered {
		u := now.Units[id]
		if u == nil || u.Status == UnitOffTable {
			continue
		}
		if set.Entry == EntryLost || entered[id] < set.ArrivalTurn {
			ev.Withdrawn = append(ev.Withdrawn, id)
		}
	}
	return ev, nil
}

// marchOf is the flank march a command's events concern (0: none).
func marchOf(evs []Event) int {
	for _, e := range evs {
		switch x := e.(type) {
		case *FlankDeclared:
			return x.March
		case *FlankEntryChosen:
			return x.March
		case *FlankRevealed:
			return x.March
		case *FlankUnitEntered:
			return x.March
		case *FlankRallied:
			return x.March
		}
	}
	return 0
}

// VerifyCorrection checks a correction event against the rules applied to
// the battle's log before it (log[i] is version i+1, ending just before
// ev): an order resolved again must be what the rules resolve from its
// corrected inputs, undone moves what the log without them gives, a flank
// march's roll what the arrival table reads, a rescore the score of the
// corrected state. It returns what disagrees, "" when nothing does.
func VerifyCorrection(log []Event, ev Event) string {
	upTo := func(ruling uint64) ([]Event, string) {
		if ruling < 1 || int(ruling) > len(log)+1 {
			return nil, fmt.Sprintf("its ruling, event %d, is not before it", ruling)
		}
		return log[:ruling-1], ""
	}
	switch x := ev.(type) {
	case *OrderCorrected:
		l, why := upTo(x.Ruling)
		if why != "" {
			return why
		}
		if len(x.Versions) == 0 {
			return "it names no command"
		}
		first, end := x.Versions[0], x.Versions[len(x.Versions)-1]
		if int(end) > len(l) {
			return fmt.Sprintf("its command, events %d to %d, is not before its ruling", first, end)
		}
		want, r := orderCorrection(l, first, end, x.Inputs, fold(l))
		if r != nil {
			return "the rules refuse its inputs: " + r.Error()
		}
		return compareFields([]string{"original", "resolved", "blunders", "before", "set"},
			[]any{want.Original, want.Resolved, want.Blunders, want.Before, want.Set}, []any{x.Original, x.Resolved, x.Blunders, x.Before, x.Set})
	case *CommandUndone:
		l, why := upTo(x.Ruling)
		if why != "" {
			return why
		}
		if len(x.Versions) == 0 {
			return "it names no command"
		}
		first, end := x.Versions[0], x.Versions[len(x.Versions)-1]
		if int(end) > len(l) {
			return fmt.Sprintf("its command, events %d to %d, is not before its ruling", first, end)
		}
		want, r := undoCorrection(l, first, end, fold(l))
		if r != nil {
			return "the rules refuse to undo it: " + r.Error()
		}
		return compareFields([]string{"before", "set"}, []any{want.Before, want.Set}, []any{x.Before, x.Set})
	case *FlankCorrected:
		if len(x.Values) > 0 {
			st := fold(log)
			if st.Ruleset == nil {
				return "no ruleset before it"
			}
			row, ok := st.Ruleset.FlankMarch.arrivalEntry(sum(x.Values))
			switch {
			case !ok:
				return fmt.Sprintf("the arrival table has no row for %d", sum(x.Values))
			case x.Set.Roll != sum(x.Values):
				return fmt.Sprintf("roll %d recorded for dice %s", x.Set.Roll, facesText(x.Values))
			case x.Set.Entry != row.Entry && x.Set.Entry != EntryLost:
				return fmt.Sprintf("the arrival table reads %s for %d; the correction records %s", row.Entry, sum(x.Values), x.Set.Entry)
			}
		}
		if x.Set.Entry == EntryLost && x.Set.ArrivalTurn != 0 {
			return "a lost march with an arrival turn"
		}
	case *BattleRescored:
		st := fold(log)
		if st.Victory.Score == nil {
			return "the battle has no score before it"
		}
		if why := compareFields([]string{"before"}, []any{*st.Victory.Score}, []any{x.Before}); why != "" {
			return why
		}
		return compareFields([]string{"score"}, []any{*st.score()}, []any{x.Score})
	}
	return ""
}

// compareFields names the first field whose JSON differs.
func compareFields(names []string, want, got []any) string {
	for i := range names {
		w, _ := json.Marshal(want[i])
		g, _ := json.Marshal(got[i])
		if string(w) != string(g) {
			return fmt.Sprintf("its %s is %s; the rules give %s", names[i], clip(string(g)), clip(string(w)))
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
