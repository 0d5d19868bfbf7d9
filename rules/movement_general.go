package rules

import (
	"math"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// decideHandOver judges movement.hand_over (M.1): the side moving now
// finishes and the next side in battle order that has not moved takes the
// movement phase.
func decideHandOver(s *State, c *HandOverMovement) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	if s.Phase != PhaseMovement {
		return nil, refuse("T.3", "not_movement_phase", "the movement phase is handed over in the movement phase; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing).with("turn", s.Turn)
	}
	if r := s.checkMover(c.Side); r != nil {
		return nil, r
	}
	next := ""
	for id := s.nextSide(c.Side); id != s.Phasing; id = s.nextSide(id) {
		if !slices.Contains(s.TurnBook.MovedSides, id) {
			next = id
			break
		}
	}
	if next == "" {
		return nil, refuse("M.1", "all_moved", "every side has moved in this movement phase: end it with phase.end")
	}
	return []Event{&MovementHandedOver{Turn: s.Turn, From: c.Side, To: next}}, nil
}

// generalInMovement checks a general's movement-phase command: the battle
// is in its movement phase (M.2: unattached generals move only then) and
// his side is moving (M.1).
func generalInMovement(s *State, id string) (commanderRef, *Refusal) {
	if r := s.inProgress(); r != nil {
		return commanderRef{}, r
	}
	g, ok := s.commander(id)
	if !ok {
		return g, refuse(RuleInput, "unknown_general", "no general or commander-in-chief %q in this battle", id)
	}
	if s.Phase != PhaseMovement {
		return g, refuse("M.2", "not_movement_phase", "generals move, join and leave units in the movement phase; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing).with("turn", s.Turn)
	}
	if r := s.checkMover(g.Side.ID); r != nil {
		return g, r
	}
	return g, nil
}

// attachedTo is the unit general id is attached to, or "".
func (s *State) attachedTo(id string) string {
	if att, _ := s.generalPtrs(id); att != nil {
		return *att
	}
	return ""
}

// decideGeneralMove judges general.move (M.2): an unattached general moves
// in a straight line up to his full distance this movement phase, stays on
// the table and out of the zone of an enemy flank march's edge (F.8), and
// may end by joining a unit of his side he is in base
// contact with; he then moves with it.
func decideGeneralMove(s *State, c *MoveGeneral) ([]Event, *Refusal) {
	m := s.Measurement
	g, r := generalInMovement(s, c.General)
	if r != nil {
		return nil, r
	}
	if at := s.attachedTo(g.ID); at != "" {
		return nil, refuse("M.2", "attached", "%s is attached to unit %s and moves with it; he leaves it first (general.detach)", g.ID, at)
	}
	if !c.To.IsFinite() || !s.Table.ContainsPoint(c.To) {
		return nil, refuse("K.3", "off_table", "general %s would leave the %gx%g table at %s", g.ID, s.Table.Width, s.Table.Depth, c.To).with("x", c.To.X, "y", c.To.Y)
	}
	allowed := s.Ruleset.Movement.GeneralMove.For(m)
	moved := s.TurnBook.peekGeneral(g.ID).Moved
	d := geom.Dist(g.Position, c.To)
	if moved+d > allowed+geom.Eps {
		return nil, refuse("M.2", "move_too_far", "a general moves %s in the movement phase; %s has %s left, this move is %s",
			fmtLen(allowed, m), g.ID, fmtMeasured(math.Max(0, allowed-moved), d, m), fmtMeasured(d, allowed-moved, m)).
			with("distance", d, "allowed", allowed, "moved", moved)
	}
	// F.8: a straight line comes nearest an edge at one of its ends.
	if b := s.flankBreach(g.Side.ID, geom.Base{Center: g.Position}, []pose{{Base: geom.Base{Center: c.To}, Where: words("at %s", c.To)}}); b != nil {
		return nil, b.refusal(s, words("general %s", g.ID))
	}
	ev := &GeneralMoved{Turn: s.Turn, General: g.ID, Side: g.Side.ID, From: g.Position, To: c.To,
		Distance: round6(d), Moved: round6(moved + d), Allowed: allowed}
	if c.Join != "" {
		u := s.Units[c.Join]
		if u == nil || u.Side != g.Side.ID || !u.active() {
			return nil, refuse("M.2", "bad_unit", "%s may join a unit of his own side on the table; %q is not one", g.ID, c.Join)
		}
		if dd := u.Base.DistanceToPoint(c.To); dd > geom.ContactTolerance {
			return nil, refuse("M.2", "not_in_contact", "%s joins a unit he is in base contact with: at %s he is %s from unit %s", g.ID, c.To, fmtMeasured(dd, 0, m), u.ID).
				with("distance", dd)
		}
		ev.Joined = u.ID
	}
	return []Event{ev}, nil
}

// decideGeneralDetach judges general.detach (M.2): an attached general
// leaves his unit in a movement phase, where he stands.
func decideGeneralDetach(s *State, c *DetachGeneral) ([]Event, *Refusal) {
	g, r := generalInMovement(s, c.General)
	if r != nil {
		return nil, r
	}
	at := s.attachedTo(g.ID)
	if at == "" {
		return nil, refuse("M.2", "not_attached", "%s is not attached to a unit", g.ID)
	}
	return []Event{&GeneralDetached{Turn: s.Turn, General: g.ID, Unit: at}}, nil
}
