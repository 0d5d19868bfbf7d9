package rules

// Reach is how far a unit reaches by the ruleset, for drawing before a
// player chooses (the page's range rings; a drag snapping to whole
// actions): its C.17 distance per move action in its formation, the cap on
// its move actions a turn (0: none), and its K.4 charge range
// (contact.charge_reach_multiple times that distance, measured from its
// leader point), and its C.15 initiative range (base to base), all in the
// battle's measurement. Whether a move or a
// charge is allowed is still the command's to decide: walls, terrain, C.9
// and sight are not in it.
type Reach struct {
	PerAction float64 `json:"per_action"`
	MaxMoves  int     `json:"max_moves,omitempty"`
	Charge    float64 `json:"charge"`
	// Initiative is the C.15 range: a unit takes initiative only with an
	// enemy base within it of its own base (base to base).
	Initiative float64 `json:"initiative"`
}

// ReachOf returns unit id's reach; false when there is no such unit, its
// type is unknown, or it cannot move.
func (s *State) ReachOf(id string) (Reach, bool) {
	u := s.Units[id]
	if u == nil || s.Ruleset == nil {
		return Reach{}, false
	}
	t, ok := s.Ruleset.UnitTypes[u.Type]
	if !ok {
		return Reach{}, false
	}
	per, maxMoves := t.Move(u.Formation, s.Measurement)
	if per <= 0 {
		return Reach{}, false
	}
	return Reach{PerAction: per, MaxMoves: maxMoves, Charge: s.Ruleset.Contact.ChargeReachMultiple * per,
		Initiative: s.Ruleset.Command.Initiative.Range.For(s.Measurement)}, true
}
