// Decisions of the battle's life cycle (T.1, T.5, T.6): battle.create,
// army.deploy, battle.start, phase.end, battle.end.

package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

func (s *State) inProgress() *Refusal {
	if s.Status != StatusInProgress {
		return refuse("T.1", "not_started", "the battle has not started (it is %s)", s.Status)
	}
	return nil
}

// battleIDPattern matches ids that become NATS subject tokens (as events.ValidID).
var battleIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

func decideCreate(s *State, c *CreateBattle) ([]Event, *Refusal) {
	if s.Status != StatusNew {
		return nil, refuse(RuleBattle, "battle_exists", "battle %q already exists", s.Battle)
	}
	if !battleIDPattern.MatchString(c.Battle) {
		return nil, refuse(RuleInput, "bad_battle_id", "battle id %q: want lower-case letters, digits, '-' or '_', at most 64", c.Battle)
	}
	if c.Campaign != "" && !battleIDPattern.MatchString(c.Campaign) {
		return nil, refuse(RuleInput, "bad_campaign_id", "campaign id %q: want lower-case letters, digits, '-' or '_', at most 64", c.Campaign)
	}
	rs, err := LoadRuleset(DefaultRuleset(), []byte(c.Ruleset))
	if err != nil {
		return nil, refuse(RuleInput, "bad_ruleset", "%v", err)
	}
	m := c.Measurement
	if m == "" {
		m = rs.Measurement.Default
	}
	if !slices.Contains(rs.Measurement.Systems, m) {
		return nil, refuse(RuleInput, "bad_measurement", "measurement %q: the ruleset allows %s", m, strings.Join(rs.Measurement.Systems, ", "))
	}
	if err := c.Table.Validate(); err != nil {
		return nil, refuse(RuleInput, "bad_table", "%v", err).with("width", c.Table.Width, "depth", c.Table.Depth)
	}
	if len(c.Sides) < 2 {
		return nil, refuse("T.1", "too_few_sides", "a battle needs at least 2 sides, %d given", len(c.Sides)).with("sides", len(c.Sides))
	}
	seen := map[string]bool{}
	for _, sd := range c.Sides {
		if !validName(sd.ID) {
			return nil, refuse(RuleInput, "bad_side_id", "side id %q: want 1-64 characters without spaces", sd.ID)
		}
		if seen[sd.ID] {
			return nil, refuse(RuleInput, "duplicate_id", "side %q given twice", sd.ID)
		}
		seen[sd.ID] = true
	}
	if !seen[c.FirstSide] {
		return nil, refuse("T.1", "bad_first_side", "first side %q is not one of the sides", c.FirstSide)
	}
	if c.TurnLimit < 0 {
		return nil, refuse("T.1", "bad_turn_limit", "turn limit %d: want 0 (none) or more", c.TurnLimit).with("turn_limit", c.TurnLimit)
	}
	for i, t := range c.Terrain {
		if err := t.Validate(); err != nil {
			return nil, refuse(RuleInput, "bad_terrain", "terrain piece %d: %v", i+1, err)
		}
	}
	if r := checkObjectives(c.Objectives, c.Table); r != nil {
		return nil, r
	}
	sides := make([]SideSpec, len(c.Sides))
	copy(sides, c.Sides)
	for i := range sides {
		if sides[i].Name == "" {
			sides[i].Name = sides[i].ID
		}
	}
	return []Event{&BattleCreated{
		Battle: c.Battle, Campaign: c.Campaign, Name: c.Name, Measurement: m,
		Table: c.Table, Sides: sides, FirstSide: c.FirstSide, TurnLimit: c.TurnLimit,
		Ruleset: rs, Overlay: c.Ruleset, Terrain: slices.Clone(c.Terrain),
		Objectives: slices.Clone(c.Objectives),
	}}, nil
}

// idsInUse lists every id of generals, C-in-Cs, brigades and units deployed so far.
func (s *State) idsInUse() map[string]string {
	ids := map[string]string{}
	for _, sd := range s.Sides {
		if sd.CInC != nil {
			ids[sd.CInC.ID] = "commander-in-chief"
		}
		for _, b := range sd.Brigades {
			ids[b.ID] = "brigade"
			ids[b.General.ID] = "general"
		}
	}
	for id := range s.Units {
		ids[id] = "unit"
	}
	return ids
}

func decideDeploy(s *State, c *DeployArmy) ([]Event, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	if s.Status != StatusSetup {
		return nil, refuse(RuleBattle, "not_in_setup", "armies deploy before the battle starts; the battle is %s", s.Status)
	}
	sd := s.side(c.Side)
	if sd == nil {
		return nil, refuse(RuleInput, "unknown_side", "no side %q in this battle", c.Side)
	}
	if sd.Deployed {
		return nil, refuse(RuleBattle, "already_deployed", "side %q has already deployed", c.Side)
	}
	ids := s.idsInUse()
	// Ids that differ only in case ("33-ligne", "33-LIGNE") read alike:
	// the second is refused, whichever side deploys it.
	folded := make(map[string]string, len(ids))
	for id := range ids {
		folded[string(AppendFold(nil, []byte(id)))] = id
	}
	claim := func(id, what string) *Refusal {
		if !validName(id) {
			return refuse(RuleInput, "bad_id", "%s id %q: want 1-64 characters without spaces", what, id)
		}
		if prev, ok := ids[id]; ok {
			return refuse(RuleInput, "duplicate_id", "id %q is already used by a %s", id, prev)
		}
		f := string(AppendFold(nil, []byte(id)))
		if other, ok := folded[f]; ok {
			return refuse(RuleInput, "duplicate_id", "id %q differs from %q, already used by a %s, only in case", id, other, ids[other])
		}
		ids[id], folded[f] = what, id
		return nil
	}
	rating := func(who Words, r int) *Refusal {
		if r < rs.Command.RatingMin || r > rs.Command.RatingMax {
			return refuse("C.3", "bad_rating", "%s command rating %d: the ruleset allows %d to %d", who, r, rs.Command.RatingMin, rs.Command.RatingMax).
				with("rating", r, "min", rs.Command.RatingMin, "max", rs.Command.RatingMax)
		}
		return nil
	}
	onTable := func(who Words, p geom.Vec) *Refusal {
		if !p.IsFinite() || !s.Table.ContainsPoint(p) {
			return refuse("K.3", "off_table", "%s at %s is not on the %gx%g table", who, p, s.Table.Width, s.Table.Depth).
				with("x", p.X, "y", p.Y)
		}
		return nil
	}
	ci := c.CInC
	if r := claim(ci.ID, "commander-in-chief"); r != nil {
		return nil, r
	}
	if r := rating(words("commander-in-chief %s", ci.ID), ci.Rating); r != nil {
		return nil, r
	}
	if r := onTable(words("commander-in-chief %s", ci.ID), ci.Position); r != nil {
		return nil, r
	}
	if len(c.Brigades) == 0 {
		return nil, refuse(RuleInput, "no_brigades", "side %q deploys no brigades", c.Side)
	}
	ev := &ArmyDeployed{Side: c.Side, CInC: Commander{ID: ci.ID, Name: ci.Name, Rating: ci.Rating, Position: ci.Position, Gifted: ci.Gifted}}
	var placed []DeployedUnit
	// The units already on the table (the other side's), in order: sorted
	// once, not for every unit placed.
	deployed := s.sortedUnitIDs()
	for _, b := range c.Brigades {
		if r := claim(b.ID, "brigade"); r != nil {
			return nil, r
		}
		if !slices.Contains(brigadeOrders, b.Order) {
			return nil, refuse("T.6", "bad_brigade_order", "brigade %s: order %q is not one of %s", b.ID, b.Order, strings.Join(brigadeOrders, ", "))
		}
		g := b.General
		if r := claim(g.ID, "general"); r != nil {
			return nil, r
		}
		if r := rating(words("general %s", g.ID), g.Rating); r != nil {
			return nil, r
		}
		if r := onTable(words("general %s", g.ID), g.Position); r != nil {
			return nil, r
		}
		if len(b.Units) == 0 {
			return nil, refuse(RuleInput, "empty_brigade", "brigade %s has no units", b.ID)
		}
		db := DeployedBrigade{ID: b.ID, Name: b.Name, Order: b.Order, General: General{ID: g.ID, Name: g.Name, Rating: g.Rating, Position: g.Position}}
		for _, u := range b.Units {
			if r := claim(u.ID, "unit"); r != nil {
				return nil, r
			}
			t, ok := rs.UnitTypes[u.Type]
			if !ok {
				return nil, refuse(RuleInput, "unknown_unit_type", "unit %s: type %q is not in the ruleset (%s)", u.ID, u.Type, strings.Join(sortedKeys(rs.UnitTypes), ", "))
			}
			f := u.Formation
			if f == "" {
				f = t.DefaultFormation
			}
			if !t.HasFormation(f) {
				return nil, refuse(RuleInput, "unknown_formation", "unit %s: %s may not stand in %q (%s)", u.ID, u.Type, f, strings.Join(t.Formations, ", "))
			}
			if u.Markers < 0 {
				return nil, refuse(RuleInput, "bad_markers", "unit %s: %d casualty markers", u.ID, u.Markers).with("markers", u.Markers)
			}
			size := t.BaseFor(f)
			base := geom.Base{Center: u.Position, Facing: geom.NormDeg(u.Facing), Width: size.Width.For(m), Depth: size.Depth.For(m)}
			if u.Width != 0 {
				base.Width = u.Width
			}
			if u.Depth != 0 {
				base.Depth = u.Depth
			}
			if !finite(u.Facing) {
				return nil, refuse(RuleInput, "bad_base", "unit %s: facing is not a number", u.ID)
			}
			if err := base.Validate(); err != nil {
				return nil, refuse(RuleInput, "bad_base", "unit %s: %v", u.ID, err)
			}
			if !s.Table.Contains(base) {
				return nil, refuse("K.3", "off_table", "unit %s at %s is not wholly on the %gx%g table", u.ID, base.Center, s.Table.Width, s.Table.Depth).
					with("x", base.Center.X, "y", base.Center.Y)
			}
			for _, i := range geom.Overlapping(base, s.Terrain, geom.Impassable) {
				return nil, refuse("K.3", "impassable", "unit %s at %s would stand on impassable terrain %q", u.ID, base.Center, s.Terrain[i].Name)
			}
			du := DeployedUnit{ID: u.ID, Name: u.Name, Type: u.Type, Formation: f, Base: base, Markers: u.Markers}
			if du.Name == "" {
				du.Name = u.ID
			}
			for _, o := range placed {
				if geom.Overlaps(base, o.Base) {
					return nil, refuse("K.1", "overlap", "unit %s would overlap unit %s", u.ID, o.ID).with("separation", geom.Separation(base, o.Base))
				}
			}
			for _, id := range deployed {
				if o := s.Units[id]; o != nil && geom.Overlaps(base, o.Base) {
					return nil, refuse("K.1", "overlap", "unit %s would overlap unit %s of side %s", u.ID, o.ID, o.Side).with("separation", geom.Separation(base, o.Base))
				}
			}
			placed = append(placed, du)
			db.Units = append(db.Units, du)
		}
		ev.Brigades = append(ev.Brigades, db)
	}
	return []Event{ev}, nil
}

func decideStart(s *State, c *StartBattle) ([]Event, *Refusal) {
	switch s.Status {
	case StatusInProgress:
		return nil, refuse(RuleBattle, "already_started", "the battle has already started (turn %d)", s.Turn)
	case StatusSetup:
		var missing []string
		for _, sd := range s.Sides {
			if !sd.Deployed {
				missing = append(missing, sd.ID)
			}
		}
		return nil, refuse("T.1", "not_deployed", "every side must deploy first; not deployed: %s", strings.Join(missing, ", "))
	}
	evs := []Event{&BattleStarted{FirstSide: s.FirstSide}}
	// A battle may be played with physical dice only: without a
	// commitment no digital dice are open.
	if c.DiceCommitment != "" {
		ce, r := commitEvent(s, s.periodOfTurn(1), c.sealing)
		if r != nil {
			return nil, r
		}
		evs = append(evs, ce)
	}
	return append(evs, &TurnStarted{Turn: 1, Side: s.FirstSide, Phase: s.Ruleset.Turn.Phases[0]}), nil
}

// nextSide is the side after id in battle.create order (T.1: sides alternate).
func (s *State) nextSide(id string) string {
	for i, sd := range s.Sides {
		if sd.ID == id {
			return s.Sides[(i+1)%len(s.Sides)].ID
		}
	}
	return s.FirstSide
}

func decideEndPhase(s *State, c *EndPhase) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	if c.Side != s.Phasing && !(s.Phase == PhaseMovement && c.Side == s.mover()) {
		return nil, refuse("T.1", "not_phasing", "turn %d is %s's turn; %q may not end its %s phase", s.Turn, s.Phasing, c.Side, s.Phase).with("turn", s.Turn)
	}
	evs := []Event{&PhaseEnded{Turn: s.Turn, Side: s.Phasing, Phase: s.Phase}}
	phases := s.Ruleset.Turn.Phases
	i := slices.Index(phases, s.Phase)
	if i >= 0 && i+1 < len(phases) {
		return append(evs, &PhaseStarted{Turn: s.Turn, Side: s.Phasing, Phase: phases[i+1]}), nil
	}
	if s.TurnLimit > 0 && s.Turn >= s.TurnLimit {
		rev, r := revealEvent(s, c.sealing)
		if r != nil {
			return nil, r
		}
		if rev != nil {
			evs = append(evs, rev)
		}
		end, r := battleEndEvents(s, c.sealing)
		if r != nil {
			return nil, r
		}
		evs = append(evs, end...)
		return append(evs, &BattleEnded{Turn: s.Turn, Reason: fmt.Sprintf("turn limit %d reached", s.TurnLimit), TurnLimit: true}), nil
	}
	if s.Ruleset.Dice.SeedPeriod == SeedPeriodTurn && s.openPeriod() != "" {
		rev, r := revealEvent(s, c.sealing)
		if r != nil {
			return nil, r
		}
		ce, r := commitEvent(s, s.periodOfTurn(s.Turn+1), c.sealing)
		if r != nil {
			return nil, r
		}
		evs = append(evs, rev, ce)
	}
	return append(evs, &TurnStarted{Turn: s.Turn + 1, Side: s.nextSide(s.Phasing), Phase: phases[0]}), nil
}

func decideEndBattle(s *State, c *EndBattle) ([]Event, *Refusal) {
	if strings.TrimSpace(c.Reason) == "" {
		return nil, refuse("T.5", "no_reason", "say why the battle ends (umpire's decision, players agree, ...)")
	}
	rev, r := revealEvent(s, c.sealing)
	if r != nil {
		return nil, r
	}
	end, r := battleEndEvents(s, c.sealing)
	if r != nil {
		return nil, r
	}
	if rev != nil {
		return append(append([]Event{rev}, end...), &BattleEnded{Turn: s.Turn, Reason: c.Reason}), nil
	}
	return append(end, &BattleEnded{Turn: s.Turn, Reason: c.Reason}), nil
}
