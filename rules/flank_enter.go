// A flank march arriving (docs/rules.md F.2-F.5): its orders revealed, the
// opponent's entry point, each unit coming on at full speed.

package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

func decideFlankChooseEntry(s *State, c *ChooseFlankEntry) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	m := s.march(c.March)
	if m == nil {
		return nil, refuse(RuleInput, "unknown_march", "no flank march %d in this battle", c.March)
	}
	if s.side(c.Side) == nil || c.Side == m.Side {
		return nil, refuse("F.4", "not_opponent", "only the opponent of %s chooses where flank march %d enters; %q may not", m.Side, m.N, c.Side)
	}
	if m.Entry != EntryOpponentChoice {
		return nil, refuse("F.4", "not_opponent_choice", "flank march %d enters %s, not at the opponent's choice", m.N, m.Entry)
	}
	if m.ChosenEntry != nil {
		return nil, refuse("F.4", "already_chosen", "the entry point of flank march %d was already chosen: %s", m.N, *m.ChosenEntry)
	}
	p := c.Entry
	if !p.IsFinite() || !s.Table.ContainsPoint(p) || math.Abs(s.Table.PointDistanceToEdge(p, m.Edge)) > geom.Eps {
		return nil, refuse("F.4", "entry_not_on_edge", "entry point %s is not on the %s edge, the flank march's flank", p, m.Edge).with("x", p.X, "y", p.Y)
	}
	if r := s.flankEntryTerrainRefusal(p); r != nil {
		return nil, r
	}
	return []Event{&FlankEntryChosen{Turn: s.Turn, March: m.N, Side: c.Side, Entry: p}}, nil
}

// flankEntryTerrainRefusal refuses an entry point the opponent chose in
// difficult (or impassable) terrain (F.4).
func (s *State) flankEntryTerrainRefusal(p geom.Vec) *Refusal {
	for _, t := range s.Terrain {
		if t.Kind.Has(geom.Difficult|geom.Impassable) && t.Outline.Contains(p) {
			return refuse("F.4", "entry_in_difficult_terrain", "the opponent may not choose an entry point in difficult terrain: %s is in %q (%s)", p, t.Name, kindWords(t.Kind)).
				with("x", p.X, "y", p.Y)
		}
	}
	return nil
}

// revealEvent builds flank.revealed for march m from its supplied orders.
func (s *State) flankRevealEvent(f *flankSeal, m *FlankMarch, reason string) (*FlankRevealed, *Refusal) {
	o, txt, r := revealed(f, m.Commitment)
	if r != nil {
		return nil, r
	}
	if o.Side != m.Side || o.Edge != m.Edge {
		return nil, refuse("F.1", "reveal_mismatch", "the orders revealed for flank march %d name side %s, edge %s; it was declared by %s on the %s edge", m.N, o.Side, o.Edge, m.Side, m.Edge)
	}
	ev := &FlankRevealed{Turn: s.Turn, March: m.N, Side: m.Side, Reason: reason, Commitment: m.Commitment, Sealed: txt, Orders: *o}
	if reason != RevealArrival {
		return ev, nil
	}
	if r := CheckFlankOrders(s, o); r != nil {
		return nil, r.wrap("flank march %d cannot enter: %s", m.N, r.copy())
	}
	p := o.Entry
	if m.Entry == EntryOpponentChoice && m.ChosenEntry != nil {
		p = *m.ChosenEntry
	}
	ev.Entry = &p
	ev.Bases = map[string]geom.Base{}
	for _, u := range o.units() {
		t := s.Ruleset.UnitTypes[u.Type]
		size := t.BaseFor(firstNonEmpty(u.Formation, t.DefaultFormation))
		b := geom.Base{Width: size.Width.For(s.Measurement), Depth: size.Depth.For(s.Measurement)}
		if u.Width > 0 {
			b.Width = u.Width
		}
		if u.Depth > 0 {
			b.Depth = u.Depth
		}
		ev.Bases[u.ID] = entryBase(b, m.Edge, p)
	}
	return ev, nil
}

// entryPhase is the phase flank marchers enter in (F.5): the movement
// phase, or the command phase in a ruleset without one.
func (s *State) entryPhase() string {
	if slices.Contains(s.Ruleset.Turn.Phases, PhaseMovement) {
		return PhaseMovement
	}
	return PhaseCommand
}

func decideFlankEnter(s *State, c *EnterFlank) ([]Event, *Refusal) {
	rs, meas := s.Ruleset, s.Measurement
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	m := s.march(c.March)
	if m == nil {
		return nil, refuse(RuleInput, "unknown_march", "no flank march %d in this battle", c.March)
	}
	if c.Side != m.Side {
		return nil, refuse("F.1", "not_own_march", "flank march %d is %s's; %q may not bring it on", m.N, m.Side, c.Side)
	}
	if m.lost() {
		return nil, refuse("F.2", "march_lost", "flank march %d is lost (roll %d%s): its troops take no part in the battle (F.9)", m.N, m.Roll, fightNote(m)).with("roll", m.Roll)
	}
	if ph := s.entryPhase(); s.Phase != ph {
		return nil, refuse("F.5", "not_movement_phase", "flank marchers enter in the %s phase; it is the %s phase", ph, s.Phase)
	}
	if s.Phase == PhaseMovement {
		if r := s.checkMover(c.Side); r != nil {
			return nil, r
		}
	} else if c.Side != s.Phasing {
		return nil, refuse("T.2", "not_phasing", "turn %d is %s's turn", s.Turn, s.Phasing)
	}
	if s.Turn < m.ArrivalTurn {
		return nil, refuse("F.2", "not_arrived", "flank march %d (declared turn %d, roll %d%s) arrives in turn %d; it is turn %d", m.N, m.DeclaredTurn, m.Roll, fightNote(m), m.ArrivalTurn, s.Turn).
			with("arrival_turn", m.ArrivalTurn, "turn", s.Turn, "roll", m.Roll)
	}
	if m.Entry == EntryOpponentChoice && m.ChosenEntry == nil {
		return nil, refuse("F.4", "entry_not_chosen", "flank march %d enters at a point of the %s edge its opponent chooses (flank.choose_entry); none is chosen yet", m.N, m.Edge)
	}
	var evs []Event
	ns := s
	if m.RevealedAt == "" {
		rev, r := s.flankRevealEvent(&c.flankSeal, m, RevealArrival)
		if r != nil {
			return nil, r
		}
		evs = append(evs, rev)
		ns = s.Clone()
		Apply(ns, rev)
		m = ns.march(c.March)
	}
	if !slices.Contains(m.Waiting, c.Unit) {
		if slices.Contains(m.Entered, c.Unit) {
			return nil, refuse("F.5", "already_entered", "unit %s of flank march %d is already on the table", c.Unit, m.N)
		}
		return nil, refuse("F.1", "not_in_march", "unit %q is not in flank march %d", c.Unit, m.N)
	}
	if m.Entry == EntryOpponentChoice && m.Waiting[0] != c.Unit {
		return nil, refuse("F.4", "entry_order", "at the opponent's choice the troops enter in the order of their orders: %s comes before %s", m.Waiting[0], c.Unit)
	}
	u := ns.Units[c.Unit]
	if u == nil {
		return nil, refuse("F.1", "not_in_march", "unit %q is not in flank march %d", c.Unit, m.N)
	}
	p, _ := m.entryPoint()
	from := entryBase(u.Base, m.Edge, p)
	gap := rs.Contact.Gap.For(meas)
	for _, i := range geom.Overlapping(from, ns.Terrain, geom.Impassable) {
		return nil, refuse("F.5", "entry_impassable", "unit %s cannot stand at the entry point %s: impassable terrain %q", u.ID, p, ns.Terrain[i].Name)
	}
	for _, id := range ns.sortedUnitIDs() {
		o := ns.Units[id]
		if id == u.ID || !o.active() {
			continue
		}
		d := geom.Distance(from, o.Base)
		if d <= geom.ContactTolerance || (o.Side != u.Side && d < gap-geom.Eps) {
			return nil, refuse("F.5", "entry_occupied", "the entry point %s of flank march %d is occupied by %s (%s away): the troops wait until it is clear", p, m.N, o.ID, fmtLen(d, meas)).
				with("distance", d)
		}
	}
	// Full speed (F.5): the unit's M.3 normal move; artillery arriving at
	// once moves twice that (F.3).
	allowance := normalMove(ns, u)
	extra := m.ArtilleryExtraMove && s.Turn == m.DeclaredTurn && rs.UnitTypes[u.Type].Arm == "artillery"
	if extra {
		allowance *= 2
	}
	to := from.Center
	if c.To != nil {
		to = *c.To
	}
	facing := c.Facing
	if facing != nil && !finite(*facing) {
		return nil, refuse(RuleInput, "bad_facing", "facing is not a number")
	}
	mover := *u
	mover.Base, mover.Status = from, UnitOK
	p2, r := planPath(ns, from, c.Path, to, facing)
	if r != nil {
		return nil, r
	}
	if cost := p2.cost(); cost > allowance+geom.Eps {
		what := "full speed"
		if extra {
			what = "twice its full speed (F.3: artillery arriving at once)"
		}
		return nil, refuse("F.5", "move_too_far", "%s enters at %s, %s; this move is %s%s", u.Type, what, fmtLen(allowance, meas), fmtMeasured(cost, allowance, meas), costDetail(p2, meas)).
			with("distance", cost, "allowance", allowance)
	}
	if r := checkPlan(ns, &mover, p2, checkFor(ns)); r != nil {
		return nil, r
	}
	dist := p2.cost()
	ev := &FlankUnitEntered{Turn: s.Turn, March: m.N, Unit: u.ID, Entry: p, From: from, To: p2.end, Distance: round6(dist), Allowance: round6(allowance), ExtraMove: extra}
	if len(c.Path) > 0 {
		ev.Path = slices.Clone(c.Path)
	}
	return append(evs, ev), nil
}

// fightNote says how a met flank march fought, if it did (phrase.fight_note).
func fightNote(m *FlankMarch) Words {
	if m.Fight != "" {
		return words(", then %s (F.10)", m.Fight)
	}
	return words("")
}

// inward is the facing, in degrees, of a unit entering from edge e.
func inward(e geom.Edge) float64 {
	switch e {
	case geom.EdgeNorth:
		return 180
	case geom.EdgeEast:
		return geom.NormDeg(-90)
	case geom.EdgeWest:
		return geom.NormDeg(90)
	}
	return 0
}

// entryBase is unit u's base standing at entry point p: rear edge on the
// table edge, centred on p, facing into the table.
func entryBase(b geom.Base, e geom.Edge, p geom.Vec) geom.Base {
	b.Facing = inward(e)
	b.Center = p.Add(geom.Heading(b.Facing).Scale(b.Depth / 2))
	return b
}

// entryPoint is where march m enters: its ordered point, or the
// opponent's choice (F.2, F.4).
func (m *FlankMarch) entryPoint() (geom.Vec, bool) {
	if m.Entry == EntryOpponentChoice {
		if m.ChosenEntry == nil {
			return geom.Vec{}, false
		}
		return *m.ChosenEntry, true
	}
	if m.Orders == nil {
		return geom.Vec{}, false
	}
	return m.Orders.Entry, true
}
