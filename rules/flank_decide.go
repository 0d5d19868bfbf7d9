// Decisions of flank marches (docs/rules.md F.1, F.2, F.6, F.7, F.10): the
// orders checked, the declaration and its arrival roll, the mutual fight,
// the rally off the table, and no firing from off the table.

package rules

import (
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

func decideFlankDeclare(s *State, c *DeclareFlankMarch, dice Dice) ([]Event, *Refusal, error) {
	rs := s.Ruleset
	if r := s.inProgress(); r != nil {
		return nil, r, nil
	}
	if s.side(c.Side) == nil {
		return nil, refuse(RuleInput, "unknown_side", "no side %q in this battle", c.Side), nil
	}
	edge, err := geom.ParseEdge(c.Edge)
	if err != nil {
		return nil, refuse(RuleInput, "bad_edge", "%v", err), nil
	}
	if c.Side != s.Phasing || s.Phase != PhaseCommand {
		return nil, refuse("F.1", "not_own_command_phase", "a flank march is declared in the command phase of the side's own turn; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing).with("turn", s.Turn), nil
	}
	if c.Orders != nil {
		return nil, refuse("F.1", "orders_in_open", "the flank march's orders must be sealed by the service, never given to the rules (or the log) in the open"), nil
	}
	cm := strings.ToLower(c.FlankCommitment)
	if len(cm) != sha256.Size*2 || strings.Trim(cm, "0123456789abcdef") != "" {
		return nil, refuse("F.1", "no_commitment", "a flank march needs the commitment (hex SHA-256) to its sealed orders; the service supplies it"), nil
	}
	for _, m := range s.Flank.Marches {
		if m.Commitment == cm {
			return nil, refuse("F.1", "commitment_reused", "flank march %d already has commitment %.12s…", m.N, cm), nil
		}
		if m.Side == c.Side && m.Edge == edge && m.excludes() {
			return nil, refuse("F.1", "already_declared", "side %s already has flank march %d on the %s edge", c.Side, m.N, edge).with("march", m.N), nil
		}
	}
	fm := rs.FlankMarch
	counter := s.RollCounter + 1
	purpose := fmt.Sprintf("flank:%s:%s", c.Side, edge)
	got, err := roll(dice, RollRequest{Counter: counter, Purpose: purpose, Count: fm.Arrival.Dice.Count, Sides: fm.Arrival.Dice.Sides})
	if err != nil {
		return nil, nil, err
	}
	rolled := newDiceRolled(s, counter, purpose, fm.Arrival.Dice, got, CmdFlankDeclare)
	total := sum(got.Values)
	row, _ := fm.arrivalEntry(total) // Validate: every total has a row
	ev := &FlankDeclared{March: len(s.Flank.Marches) + 1, Turn: s.Turn, Side: c.Side, Edge: edge, Commitment: cm,
		RollCounter: counter, Roll: total, Entry: row.Entry, Exclusion: fm.EdgeExclusion.For(s.Measurement)}
	if row.Entry != EntryLost {
		ev.DelayTurns, ev.ArrivalTurn, ev.ArtilleryExtraMove = row.DelayTurns, s.Turn+row.DelayTurns, row.ArtilleryExtraMove
	}
	evs := []Event{rolled, ev}
	if row.Entry == EntryLost {
		return evs, nil, nil
	}
	// F.10: an enemy march on the same edge that has not entered yet.
	for i := range s.Flank.Marches {
		other := &s.Flank.Marches[i]
		if other.Side == c.Side || other.Edge != edge || !other.fightable() {
			continue
		}
		fight, r := s.flankFight(c, ev, other)
		if r != nil {
			return nil, r, nil
		}
		return append(evs, fight), nil, nil
	}
	return evs, nil, nil
}

// revealed returns the orders of the march with commitment cm supplied on
// a command, checked against the commitment.
func revealed(f *flankSeal, cm string) (*FlankOrders, string, *Refusal) {
	txt, ok := f.FlankReveals[cm]
	if !ok {
		return nil, "", refuse("F.1", "no_reveal", "the sealed orders of the flank march committed to %.12s… were not supplied for the reveal", cm)
	}
	o, r := openSealed(txt, cm)
	return o, txt, r
}

// forceSize measures a flank march's force for F.10.
func (s *State) forceSize(o *FlankOrders) int {
	n := 0
	for _, u := range o.units() {
		if s.Ruleset.FlankMarch.MutualMeasure == MeasureVictoryPoints {
			n += s.Ruleset.UnitTypes[u.Type].VictoryPoints
		} else {
			n++
		}
	}
	return n
}

// flankFight resolves F.10 between the march being declared (ev) and other.
func (s *State) flankFight(c *DeclareFlankMarch, ev *FlankDeclared, other *FlankMarch) (*FlankFightResolved, *Refusal) {
	fm := s.Ruleset.FlankMarch
	mine, _, r := revealed(&c.flankSeal, ev.Commitment)
	if r != nil {
		return nil, r
	}
	theirs, _, r := revealed(&c.flankSeal, other.Commitment)
	if r != nil {
		return nil, r
	}
	if mine.Side != ev.Side || mine.Edge != ev.Edge || theirs.Side != other.Side || theirs.Edge != other.Edge {
		return nil, refuse("F.1", "reveal_mismatch", "sealed orders name another side or edge than their flank march")
	}
	a := FlankChange{March: ev.March, Side: ev.Side, Size: s.forceSize(mine), Entry: ev.Entry, ArrivalTurn: ev.ArrivalTurn}
	b := FlankChange{March: other.N, Side: other.Side, Size: s.forceSize(theirs), Entry: other.Entry, ArrivalTurn: other.ArrivalTurn}
	win, lose := &a, &b
	if b.Size > a.Size {
		win, lose = &b, &a
	}
	pct := math.MaxInt32
	if lose.Size > 0 {
		pct = (win.Size - lose.Size) * 100 / lose.Size
	}
	measure := firstNonEmpty(fm.MutualMeasure, MeasureUnits)
	out := &FlankFightResolved{Turn: s.Turn, Edge: ev.Edge, Measure: measure, Percent: pct}
	if a.Size != b.Size {
		out.Winner, out.Loser = win.Side, lose.Side
	}
	band, ok := fm.mutualBand(pct)
	if !ok {
		return nil, refuse("F.10", "no_band", "the mutual flank march table has no row for %d%%", pct).with("percent", pct)
	}
	out.Result, out.Doc = band.Result, band.Doc
	opponentRow := ArrivalEntry{}
	for _, e := range fm.Arrival.Entries {
		if e.Entry == EntryOpponentChoice {
			opponentRow = e
			break
		}
	}
	declared := map[int]int{ev.March: ev.Turn, other.N: other.DeclaredTurn}
	switch {
	case band.Result == MutualBothDelayed:
		for _, m := range []*FlankChange{&a, &b} {
			m.ArrivalTurn++
			m.Entry = EntryOrdered
		}
	case out.Loser == "":
		// Equal sizes: no loser for the result to fall on.
	case band.Result == MutualLoserDelayed:
		lose.ArrivalTurn++
	case band.Result == MutualLoserRetires:
		lose.Entry, lose.ArrivalTurn = EntryOpponentChoice, declared[lose.March]+opponentRow.DelayTurns
	case band.Result == MutualLoserLost:
		lose.Entry, lose.ArrivalTurn = EntryLost, 0
	}
	out.Marches = []FlankChange{b, a}
	return out, nil
}

// mutualBand finds the F.10 row for a percentage.
func (r FlankMarchRules) mutualBand(pct int) (MutualBand, bool) {
	for _, b := range r.Mutual {
		if pct >= b.MinPercent && (b.MaxPercent == nil || pct <= *b.MaxPercent) {
			return b, true
		}
	}
	return MutualBand{}, false
}

func decideFlankRally(s *State, c *RallyFlankMarcher) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	u := s.Units[c.Unit]
	if u == nil {
		return nil, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", c.Unit)
	}
	m := s.flankMarchOf(u.ID)
	if m == nil {
		return nil, refuse("F.7", "not_flank_marcher", "unit %s is not a flank marcher: only flank marchers rally off the table", u.ID)
	}
	if u.Status != UnitOffTable || slices.Contains(m.Waiting, u.ID) {
		return nil, refuse("F.7", "not_gone_off_table", "unit %s has not retreated or routed off the table (it is %s)", u.ID, u.Status)
	}
	return []Event{&FlankRallied{Turn: s.Turn, March: m.N, Unit: u.ID, Note: c.Note}}, nil
}

// CheckFlankOrders judges sealed orders before they are sealed (the
// service asks, so a march that could never enter is refused at its
// declaration) and again when they are revealed: the side's own brigades,
// new ids, known unit types and formations, ratings in range, the entry
// point on the edge.
func CheckFlankOrders(s *State, o *FlankOrders) *Refusal {
	if s == nil || s.Ruleset == nil {
		return refuse(RuleBattle, "no_battle", "no battle has been created yet")
	}
	rs := s.Ruleset
	if s.side(o.Side) == nil {
		return refuse(RuleInput, "unknown_side", "no side %q in this battle", o.Side)
	}
	if _, err := geom.ParseEdge(string(o.Edge)); err != nil {
		return refuse(RuleInput, "bad_edge", "%v", err)
	}
	if !o.Entry.IsFinite() || !s.Table.ContainsPoint(o.Entry) || math.Abs(s.Table.PointDistanceToEdge(o.Entry, o.Edge)) > geom.Eps {
		return refuse("F.1", "entry_not_on_edge", "entry point %s is not on the %s edge of the %gx%g table", o.Entry, o.Edge, s.Table.Width, s.Table.Depth).
			with("x", o.Entry.X, "y", o.Entry.Y)
	}
	if len(o.Brigades) == 0 {
		return refuse("F.1", "no_brigades", "a flank march needs at least one brigade")
	}
	ids := s.idsInUse()
	for _, m := range s.Flank.Marches {
		if m.Orders != nil && m.RevealedAt != "" {
			for _, b := range m.Orders.Brigades {
				ids[b.ID], ids[b.General.ID] = "brigade", "general"
				for _, u := range b.Units {
					ids[u.ID] = "unit"
				}
			}
		}
	}
	claim := func(id, what string) *Refusal {
		if !validName(id) {
			return refuse(RuleInput, "bad_id", "%s id %q: want 1-64 characters without spaces", what, id)
		}
		if prev, ok := ids[id]; ok {
			return refuse(RuleInput, "duplicate_id", "id %q is already used by a %s", id, prev)
		}
		ids[id] = what
		return nil
	}
	for _, b := range o.Brigades {
		if r := claim(b.ID, "brigade"); r != nil {
			return r
		}
		if !slices.Contains(brigadeOrders, b.Order) {
			return refuse("T.6", "bad_brigade_order", "brigade %s: order %q is not one of %s", b.ID, b.Order, strings.Join(brigadeOrders, ", "))
		}
		if r := claim(b.General.ID, "general"); r != nil {
			return r
		}
		if g := b.General.Rating; g < rs.Command.RatingMin || g > rs.Command.RatingMax {
			return refuse("C.3", "bad_rating", "general %s command rating %d: the ruleset allows %d to %d", b.General.ID, g, rs.Command.RatingMin, rs.Command.RatingMax)
		}
		if len(b.Units) == 0 {
			return refuse(RuleInput, "empty_brigade", "brigade %s has no units", b.ID)
		}
		for _, u := range b.Units {
			if r := claim(u.ID, "unit"); r != nil {
				return r
			}
			t, ok := rs.UnitTypes[u.Type]
			if !ok {
				return refuse(RuleInput, "unknown_unit_type", "unit %s: type %q is not in the ruleset", u.ID, u.Type)
			}
			if f := firstNonEmpty(u.Formation, t.DefaultFormation); !t.HasFormation(f) {
				return refuse(RuleInput, "unknown_formation", "unit %s: %s may not stand in %q", u.ID, u.Type, f)
			}
			if u.Markers < 0 || u.Width < 0 || u.Depth < 0 || !finite(u.Width) || !finite(u.Depth) {
				return refuse(RuleInput, "bad_unit", "unit %s: negative markers or base size", u.ID)
			}
		}
	}
	return nil
}

// arrivalEntry returns the F.2 table row for a roll.
func (r FlankMarchRules) arrivalEntry(roll int) (ArrivalEntry, bool) {
	for _, e := range r.Arrival.Entries {
		if e.Roll == roll {
			return e, true
		}
	}
	return ArrivalEntry{}, false
}

// fireRefusal is the F.6 check unit.fire makes (decideFire): a unit off
// the table (a flank marcher not yet entered, or one that left the table)
// may not fire.
func (s *State) fireRefusal(unit string) *Refusal {
	u := s.Units[unit]
	if u == nil {
		return refuse(RuleInput, "unknown_unit", "no unit %q in this battle", unit)
	}
	if u.Status == UnitOffTable {
		return refuse("F.6", "off_table", "unit %s is off the table and may not fire", unit)
	}
	return nil
}
