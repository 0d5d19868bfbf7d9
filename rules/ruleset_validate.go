// Validation of a ruleset, table by table: every problem reported at once,
// each with where it is (docs/architecture.md), so that the engine never fails on a
// ruleset it accepted.

package rules

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clubledger/ledger/rules/dice"
	"github.com/clubledger/ledger/rules/geom"
)

// Validate checks that the ruleset is complete and consistent enough for the
// engine never to fail on it: every reference resolves, every table covers
// its dice. It checks each table in turn and reports every problem at once.
func (r *Ruleset) Validate() error {
	chk := &rulesetCheck{r: r}
	if r.Name == "" {
		chk.bad("name: missing")
	}
	chk.checkDice()
	chk.checkMeasurement()
	chk.checkTurn()
	chk.checkUnitTypes()
	chk.checkCommand()
	chk.checkMovement()
	chk.checkContact()
	chk.checkFlankMarch()
	chk.checkVictory()
	if len(chk.errs) > 0 {
		return fmt.Errorf("ruleset %q invalid: %s", r.Name, strings.Join(chk.errs, "; "))
	}
	return nil
}

// rulesetCheck collects the problems of one ruleset.
type rulesetCheck struct {
	r    *Ruleset
	errs []string
}

func (chk *rulesetCheck) bad(format string, a ...any) {
	chk.errs = append(chk.errs, fmt.Sprintf(format, a...))
}

// dist checks a distance given in both systems.
func (chk *rulesetCheck) dist(name string, d Distance) {
	if !d.valid() {
		chk.bad("%s: distance must be finite and >= 0 (in %v, cm %v)", name, d.In, d.Cm)
	}
}

// formation checks that where names a formation of the ruleset.
func (chk *rulesetCheck) formation(where, f string) {
	if _, ok := chk.r.Formations[f]; !ok {
		chk.bad("%s: unknown formation %q", where, f)
	}
}

// table checks that a dice table has an entry for every total of its dice.
func (chk *rulesetCheck) table(w string, t DiceTable) {
	if !t.Dice.valid() {
		chk.bad("%s.dice: %s is not a usable roll", w, t.Dice)
		return
	}
	for total := t.Dice.Count; total <= t.Dice.Count*t.Dice.Sides; total++ {
		if _, ok := t.Lookup(total); !ok {
			chk.bad("%s: no entry for a roll of %d", w, total)
		}
	}
}

// checkDice checks dice: the scheme and the seed period.
func (chk *rulesetCheck) checkDice() {
	r := chk.r
	if !dice.Known(r.Dice.Scheme) {
		chk.bad("dice.scheme: %q is not a scheme this program knows (%s, %s, %s)", r.Dice.Scheme, dice.SchemeV1, dice.SchemeV2, dice.SchemeV3)
	}
	if r.Dice.SeedPeriod != SeedPeriodBattle && r.Dice.SeedPeriod != SeedPeriodTurn {
		chk.bad("dice.seed_period: %q: want %s or %s", r.Dice.SeedPeriod, SeedPeriodBattle, SeedPeriodTurn)
	}
}

// checkMeasurement checks measurement: the systems a battle may use.
func (chk *rulesetCheck) checkMeasurement() {
	r := chk.r
	if len(r.Measurement.Systems) == 0 {
		chk.bad("measurement.systems: empty")
	}
	for _, m := range r.Measurement.Systems {
		if m != Inches && m != Centimetres {
			chk.bad("measurement.systems: %q is neither %q nor %q", m, Inches, Centimetres)
		}
	}
	if !slices.Contains(r.Measurement.Systems, r.Measurement.Default) {
		chk.bad("measurement.default: %q is not one of the systems", r.Measurement.Default)
	}
}

// checkTurn checks turn (T): the phases and the T.7 option.
func (chk *rulesetCheck) checkTurn() {
	r := chk.r
	if !slices.Contains(r.Turn.Phases, PhaseCommand) {
		chk.bad("turn.phases: must include %q", PhaseCommand)
	}
	seen := map[string]bool{}
	for _, p := range r.Turn.Phases {
		if p != PhaseCommand && p != PhaseMovement && p != PhaseCombat {
			chk.bad("turn.phases: unknown phase %q", p)
		}
		if seen[p] {
			chk.bad("turn.phases: %q twice", p)
		}
		seen[p] = true
	}
	if r.Turn.OrdinaryMoves != MovesCommandActions && r.Turn.OrdinaryMoves != MovesMovementTable {
		chk.bad("turn.ordinary_moves: %q is neither %q nor %q", r.Turn.OrdinaryMoves, MovesCommandActions, MovesMovementTable)
	}
}

// checkUnitTypes checks unit_types: each type's moves, formations, bases
// and references to the march tables.
func (chk *rulesetCheck) checkUnitTypes() {
	r := chk.r
	if len(r.UnitTypes) == 0 {
		chk.bad("unit_types: empty")
	}
	for _, name := range sortedKeys(r.UnitTypes) {
		t := r.UnitTypes[name]
		w := "unit_types." + name
		chk.dist(w+".move_per_action", t.MovePerAction)
		if len(t.Formations) == 0 {
			chk.bad("%s.formations: empty", w)
		}
		for _, f := range t.Formations {
			chk.formation(w+".formations", f)
		}
		if !t.HasFormation(t.DefaultFormation) {
			chk.bad("%s.default_formation: %q is not one of its formations", w, t.DefaultFormation)
		}
		for _, f := range sortedKeys(t.FormationMoves) {
			if !t.HasFormation(f) {
				chk.bad("%s.formation_moves: %q is not one of its formations", w, f)
			}
			chk.dist(w+".formation_moves."+f, t.FormationMoves[f].MovePerAction)
			if t.FormationMoves[f].MaxMovesPerTurn < 0 {
				chk.bad("%s.formation_moves.%s.max_moves_per_turn: negative", w, f)
			}
		}
		if t.Base.Width.In <= 0 || t.Base.Width.Cm <= 0 || t.Base.Depth.In <= 0 || t.Base.Depth.Cm <= 0 {
			chk.bad("%s.base: width and depth must be > 0 in both systems", w)
		}
		for _, f := range sortedKeys(t.FormationBases) {
			b := t.FormationBases[f]
			if !t.HasFormation(f) {
				chk.bad("%s.formation_bases: %q is not one of its formations", w, f)
			}
			if b.Width.In <= 0 || b.Width.Cm <= 0 || b.Depth.In <= 0 || b.Depth.Cm <= 0 {
				chk.bad("%s.formation_bases.%s: width and depth must be > 0 in both systems", w, f)
			}
		}
		if _, ok := r.Movement.TacticalMarch.Speeds[t.TacticalMarch]; !ok {
			chk.bad("%s.tactical_march: unknown speed class %q", w, t.TacticalMarch)
		}
		if t.MovesAs != "" {
			if _, ok := r.UnitTypes[t.MovesAs]; !ok {
				chk.bad("%s.moves_as: unknown unit type %q", w, t.MovesAs)
			}
		}
		if t.VictoryPoints < 0 {
			chk.bad("%s.victory_points: negative", w)
		}
		if _, ok := r.Movement.TacticalMarch.Formations[t.Arm]; !ok {
			chk.bad("%s.arm: %q has no tactical-march formations (movement.tactical_march.formations)", w, t.Arm)
		}
	}
}

// checkCommand checks command (C): the roll, the result bands, the
// blunder table, the modifiers and the special orders.
func (chk *rulesetCheck) checkCommand() {
	r := chk.r
	c := r.Command
	if !c.OrderRoll.valid() {
		chk.bad("command.order_roll: %s is not a usable roll", c.OrderRoll)
	}
	if c.RatingMin < 0 || c.RatingMax < c.RatingMin {
		chk.bad("command.rating_min/rating_max: %d..%d", c.RatingMin, c.RatingMax)
	}
	if len(c.Results) == 0 {
		chk.bad("command.results: empty")
	} else {
		// Bands must tile offsets 0..infinity without gap or overlap (C.3).
		bands := slices.Clone(c.Results)
		sort.Slice(bands, func(i, j int) bool { return bands[i].MinOffset < bands[j].MinOffset })
		next := 0
		for i, b := range bands {
			if b.MinOffset != next {
				chk.bad("command.results: offsets from %d not covered (band starts at %d)", next, b.MinOffset)
				break
			}
			if b.Actions < 1 {
				chk.bad("command.results: band from %d grants %d actions", b.MinOffset, b.Actions)
			}
			if b.MaxOffset == nil {
				if i != len(bands)-1 {
					chk.bad("command.results: only the last band may be open-ended")
				}
				next = -1
				break
			}
			if *b.MaxOffset < b.MinOffset {
				chk.bad("command.results: band %d..%d is empty", b.MinOffset, *b.MaxOffset)
			}
			next = *b.MaxOffset + 1
		}
		if next != -1 {
			chk.bad("command.results: the last band must be open-ended (no max_offset)")
		}
	}
	if len(c.Blunder.Values) != c.OrderRoll.Count {
		chk.bad("command.blunder.values: %d values for a %s order roll", len(c.Blunder.Values), c.OrderRoll)
	}
	for _, v := range c.Blunder.Values {
		if v < 1 || v > c.OrderRoll.Sides {
			chk.bad("command.blunder.values: %d is not a face of a D%d", v, c.OrderRoll.Sides)
		}
	}
	chk.table("command.blunder.table", c.Blunder.Table)
	m := c.Modifiers
	chk.dist("command.modifiers.distance.step", m.Distance.Step)
	if m.Distance.Step.In <= 0 || m.Distance.Step.Cm <= 0 {
		chk.bad("command.modifiers.distance.step: must be > 0")
	}
	chk.dist("command.modifiers.enemy_near.distance", m.EnemyNear.Distance)
	chk.dist("command.modifiers.enemy_near.variant_distance", m.EnemyNear.VariantDistance)
	for _, fm := range []struct {
		name string
		m    FormationModifier
	}{{"attack_column", m.AttackColumn}, {"column_off_road", m.ColumnOffRoad}, {"column_on_road", m.ColumnOnRoad}} {
		for _, f := range fm.m.Formations {
			chk.formation("command.modifiers."+fm.name, f)
		}
	}
	chk.dist("command.group_distance", c.GroupDistance)
	for _, f := range c.FailedMoveFormations {
		chk.formation("command.failed_move_formations", f)
	}
	if c.FailedMoveActions < 0 {
		chk.bad("command.failed_move_actions: negative")
	}
	chk.dist("command.follow_me.range", c.FollowMe.Range)
	chk.dist("command.steady.range", c.Steady.Range)
	chk.dist("command.initiative.range", c.Initiative.Range)
	if c.FormationChangeActions < 1 {
		chk.bad("command.formation_change_actions: must be >= 1")
	}
	for _, f := range c.LimberingFormations {
		chk.formation("command.limbering_formations", f)
	}
	for _, e := range c.Blunder.Table.Entries {
		if !slices.Contains(blunderResults, e.Result) {
			chk.bad("command.blunder.table: roll %d: result %q is not one the engine carries out (%s)", e.Roll, e.Result, strings.Join(blunderResults, ", "))
		}
	}
	if c.FollowMe.Actions < 1 {
		chk.bad("command.follow_me.actions: must be >= 1")
	}
	if c.Steady.Markers < 1 {
		chk.bad("command.steady.markers: must be >= 1")
	}
	if c.Initiative.Actions < 1 {
		chk.bad("command.initiative.actions: must be >= 1")
	}
}

// checkMovement checks movement (M): the normal move and formation-change
// tables, the formation test, turning, terrain, marches and retreats.
func (chk *rulesetCheck) checkMovement() {
	r := chk.r
	mv := r.Movement
	for _, tn := range sortedKeys(mv.NormalMove) {
		if _, ok := r.UnitTypes[tn]; !ok {
			chk.bad("movement.normal_move: unknown unit type %q", tn)
		}
		for _, f := range sortedKeys(mv.NormalMove[tn]) {
			if f != "default" {
				chk.formation("movement.normal_move."+tn, f)
			}
			chk.dist("movement.normal_move."+tn+"."+f, mv.NormalMove[tn][f])
		}
	}
	for _, tn := range sortedKeys(r.UnitTypes) {
		look := tn
		if as := r.UnitTypes[tn].MovesAs; as != "" {
			if _, ok := mv.NormalMove[tn]; !ok {
				look = as
			}
		}
		if _, ok := mv.NormalMove[look]["default"]; !ok {
			chk.bad("movement.normal_move: no default row for unit type %q", tn)
		}
	}
	if mv.AfterFiringFraction < 0 || mv.AfterFiringFraction > 1 {
		chk.bad("movement.after_firing_fraction: %v not in [0,1]", mv.AfterFiringFraction)
	}
	for _, e := range mv.FormationChange.Entries {
		if e.From != "*" {
			chk.formation("movement.formation_change.from", e.From)
		}
		if e.To != "*" {
			chk.formation("movement.formation_change.to", e.To)
		}
		if e.Fraction < 0 || e.Fraction > 1 {
			chk.bad("movement.formation_change: fraction %v not in [0,1]", e.Fraction)
		}
	}
	if !mv.FormationTest.Dice.valid() {
		chk.bad("movement.formation_test.dice: not a usable roll")
	}
	chk.dist("movement.formation_test.distance", mv.FormationTest.Distance)
	chk.dist("movement.flank_exposure_distance", mv.FlankExposureDistance)
	for _, tn := range mv.FlankExposureExemptTypes {
		if _, ok := r.UnitTypes[tn]; !ok {
			chk.bad("movement.flank_exposure_exempt_types: unknown unit type %q", tn)
		}
	}
	if mv.TurnCost != TurnCostOuterCorner && mv.TurnCost != TurnCostFree {
		chk.bad("movement.turn_cost: %q is neither %q nor %q", mv.TurnCost, TurnCostOuterCorner, TurnCostFree)
	}
	if mv.DifficultTerrain.DistanceMultiple < 1 || math.IsInf(mv.DifficultTerrain.DistanceMultiple, 0) {
		chk.bad("movement.difficult_terrain.distance_multiple: %v: want a number >= 1", mv.DifficultTerrain.DistanceMultiple)
	}
	chk.dist("movement.general_move", mv.GeneralMove)
	for _, p := range mv.FormationTest.Phases {
		if p != PhaseCommand && p != PhaseMovement {
			chk.bad("movement.formation_test.phases: %q is neither %q nor %q", p, PhaseCommand, PhaseMovement)
		}
	}
	if mv.FormationTest.PassAtLeast < 1 {
		chk.bad("movement.formation_test.pass_at_least: must be >= 1")
	}
	if mv.Retreat.Fraction < 0 || mv.Retreat.Fraction > 1 {
		chk.bad("movement.retreat.fraction: %v not in [0,1]", mv.Retreat.Fraction)
	}
	tm := mv.TacticalMarch
	for _, arm := range sortedKeys(tm.Formations) {
		for _, f := range tm.Formations[arm] {
			chk.formation("movement.tactical_march.formations."+arm, f)
		}
	}
	for _, k := range sortedKeys(tm.Speeds) {
		chk.dist("movement.tactical_march.speeds."+k, tm.Speeds[k])
	}
	if _, ok := tm.Speeds[tm.GeneralSpeed]; !ok {
		chk.bad("movement.tactical_march.general_speed: unknown speed class %q", tm.GeneralSpeed)
	}
	chk.dist("movement.tactical_march.stop_distance", tm.StopDistance)
	if !tm.BrigadierInitiative.Dice.valid() {
		chk.bad("movement.tactical_march.brigadier_initiative.dice: not a usable roll")
	}
	if !mv.Retreat.Dice.valid() {
		chk.bad("movement.retreat.dice: not a usable roll")
	}
	for _, k := range sortedKeys(mv.Retreat.Fixed) {
		if _, ok := r.UnitTypes[k]; !ok {
			chk.bad("movement.retreat.fixed: unknown unit type %q", k)
		}
		chk.dist("movement.retreat.fixed."+k, mv.Retreat.Fixed[k])
	}
}

// checkContact checks contact (K): the gap, the arcs, the leader point and
// the charge reach.
func (chk *rulesetCheck) checkContact() {
	r := chk.r
	chk.dist("contact.gap", r.Contact.Gap)
	if _, err := geom.ParseArcRule(r.Contact.Arcs); err != nil {
		chk.bad("contact.arcs: %v", err)
	}
	if r.Contact.LeaderPoint != LeaderFrontCenter {
		chk.bad("contact.leader_point: %q: the engine measures charges from %q, the middle of the front edge (K.10)", r.Contact.LeaderPoint, LeaderFrontCenter)
	}
	if r.Contact.ChargeReachMultiple <= 0 {
		chk.bad("contact.charge_reach_multiple: must be > 0")
	}
}

// checkFlankMarch checks flank_march (F): the arrival table, the edge
// exclusion and the mutual-flank-march table.
func (chk *rulesetCheck) checkFlankMarch() {
	r := chk.r
	a := r.FlankMarch.Arrival
	if !a.Dice.valid() {
		chk.bad("flank_march.arrival.dice: not a usable roll")
	} else {
		for total := a.Dice.Count; total <= a.Dice.Count*a.Dice.Sides; total++ {
			found := false
			for _, e := range a.Entries {
				if e.Roll == total {
					found = true
					if e.Entry != "ordered" && e.Entry != "opponent_choice" && e.Entry != "lost" {
						chk.bad("flank_march.arrival: roll %d: unknown entry %q", total, e.Entry)
					}
					if e.DelayTurns < 0 {
						chk.bad("flank_march.arrival: roll %d: negative delay", total)
					}
				}
			}
			if !found {
				chk.bad("flank_march.arrival: no entry for a roll of %d", total)
			}
		}
	}
	chk.dist("flank_march.edge_exclusion", r.FlankMarch.EdgeExclusion)
	fm := r.FlankMarch
	if fm.MutualMeasure != "" && fm.MutualMeasure != MeasureUnits && fm.MutualMeasure != MeasureVictoryPoints {
		chk.bad("flank_march.mutual_measure: %q is neither %q nor %q", fm.MutualMeasure, MeasureUnits, MeasureVictoryPoints)
	}
	bands := slices.Clone(fm.Mutual)
	sort.Slice(bands, func(i, j int) bool { return bands[i].MinPercent < bands[j].MinPercent })
	next := 0
	for i, b := range bands {
		if !slices.Contains(mutualResults, b.Result) {
			chk.bad("flank_march.mutual: result %q is not one the engine carries out (%s)", b.Result, strings.Join(mutualResults, ", "))
		}
		if b.MinPercent != next {
			chk.bad("flank_march.mutual: percentages from %d not covered (a band starts at %d)", next, b.MinPercent)
			break
		}
		if b.MaxPercent == nil {
			if i != len(bands)-1 {
				chk.bad("flank_march.mutual: only the last band may be open-ended")
			}
			next = -1
			break
		}
		if *b.MaxPercent < b.MinPercent {
			chk.bad("flank_march.mutual: band %d..%d is empty", b.MinPercent, *b.MaxPercent)
		}
		next = *b.MaxPercent + 1
	}
	if len(bands) > 0 && next != -1 {
		chk.bad("flank_march.mutual: the last band must be open-ended (no max_percent)")
	}
	if len(bands) == 0 {
		chk.bad("flank_march.mutual: empty")
	}
	hasOpponent := false
	for _, e := range fm.Arrival.Entries {
		hasOpponent = hasOpponent || e.Entry == EntryOpponentChoice
	}
	if !hasOpponent && slices.ContainsFunc(bands, func(b MutualBand) bool { return b.Result == MutualLoserRetires }) {
		chk.bad("flank_march.mutual: loser_retires needs an opponent_choice row in flank_march.arrival")
	}
}

// checkVictory checks victory (V): the statuses that score.
func (chk *rulesetCheck) checkVictory() {
	r := chk.r
	for _, st := range r.Victory.ScoringStatuses {
		if !slices.Contains(unitStatuses, st) {
			chk.bad("victory.scoring_statuses: unknown status %q", st)
		}
	}
}
