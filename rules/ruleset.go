package rules

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/rules/dice"
	"github.com/clubledger/ledger/rules/geom"
)

// Measurement systems a battle may be played in (RULES.md preamble).
const (
	Inches      = "in"
	Centimetres = "cm"
)

//go:embed rulesets/default.yaml
var defaultRulesetYAML []byte

// DefaultRulesetYAML returns the embedded default ruleset file as written,
// comments included, for tools that show or export it.
func DefaultRulesetYAML() []byte { return bytes.Clone(defaultRulesetYAML) }

// Ruleset holds every [table] and [choice] value of RULES.md and every number
// of the seed texts as data, so that a campaign can override them and the Go
// code holds no rule numbers. A Ruleset recorded in a State is never mutated:
// Clone shares it.
type Ruleset struct {
	Name        string               `yaml:"name" json:"name"`
	Version     int                  `yaml:"version" json:"version"`
	Doc         string               `yaml:"doc,omitempty" json:"doc,omitempty"`
	Era         string               `yaml:"era" json:"era"`
	Measurement MeasurementRules     `yaml:"measurement" json:"measurement"`
	Turn        TurnRules            `yaml:"turn" json:"turn"`
	Formations  map[string]Formation `yaml:"formations" json:"formations"`
	UnitTypes   map[string]UnitType  `yaml:"unit_types" json:"unit_types"`
	Command     CommandRules         `yaml:"command" json:"command"`
	Movement    MovementRules        `yaml:"movement" json:"movement"`
	Contact     ContactRules         `yaml:"contact" json:"contact"`
	FlankMarch  FlankMarchRules      `yaml:"flank_march" json:"flank_march"`
	Victory     VictoryRules         `yaml:"victory" json:"victory"`
	Dice        DiceRules            `yaml:"dice" json:"dice"`
}

// DiceRules configure the ledger's digital dice (docs/dice.md).
type DiceRules struct {
	// Scheme is the derivation that digital rolls follow ("ledger-dice-v1").
	Scheme string `yaml:"scheme" json:"scheme"`
	// SeedPeriod is "battle" (one committed seed, revealed at the end) or
	// "turn" (a new seed each turn, the last one revealed as the turn ends).
	SeedPeriod string `yaml:"seed_period" json:"seed_period"`
}

// Distance is one length given in both measurement systems, because the texts
// give their own conversions (10 cm = 6", 35 cm = 20") rather than a factor.
type Distance struct {
	In float64 `yaml:"in" json:"in"`
	Cm float64 `yaml:"cm" json:"cm"`
}

// For returns the distance in the measurement system m ("in" or "cm").
func (d Distance) For(m string) float64 {
	if m == Centimetres {
		return d.Cm
	}
	return d.In
}

func (d Distance) valid() bool {
	return d.In >= 0 && d.Cm >= 0 && !math.IsInf(d.In, 0) && !math.IsInf(d.Cm, 0) && !math.IsNaN(d.In) && !math.IsNaN(d.Cm)
}

// DiceSpec is a number of dice with a number of sides ("2D6").
type DiceSpec struct {
	Count int `yaml:"count" json:"count"`
	Sides int `yaml:"sides" json:"sides"`
}

// String renders the spec as "2D6".
func (d DiceSpec) String() string { return fmt.Sprintf("%dD%d", d.Count, d.Sides) }

func (d DiceSpec) valid() bool {
	return d.Count >= 1 && d.Count <= 100 && d.Sides >= 2 && d.Sides <= 1000
}

// MeasurementRules lists the systems a battle may use.
type MeasurementRules struct {
	Systems []string `yaml:"systems" json:"systems"`
	Default string   `yaml:"default" json:"default"`
}

// Phase names of the turn sequence (T.2-T.4).
const (
	PhaseCommand  = "command"
	PhaseMovement = "movement"
	PhaseCombat   = "combat"
)

// T.7 options: how a unit's ordinary moves are made.
const (
	MovesCommandActions = "command_actions"
	MovesMovementTable  = "movement_table"
)

// TurnRules is the turn sequence [choice] of T.1-T.7.
type TurnRules struct {
	Phases        []string `yaml:"phases" json:"phases"`
	OrdinaryMoves string   `yaml:"ordinary_moves" json:"ordinary_moves"`
}

// Formation is one formation a unit may stand in.
type Formation struct {
	Doc        string `yaml:"doc,omitempty" json:"doc,omitempty"`
	CloseOrder bool   `yaml:"close_order" json:"close_order"`
}

// BaseSize is a base's front width and depth.
type BaseSize struct {
	Width Distance `yaml:"width" json:"width"`
	Depth Distance `yaml:"depth" json:"depth"`
}

// FormationMove is a C.17 exception for one formation of a type.
type FormationMove struct {
	MovePerAction Distance `yaml:"move_per_action" json:"move_per_action"`
	// MaxMovesPerTurn caps the move actions a turn (C.17 manhandled guns); 0 = no cap.
	MaxMovesPerTurn int `yaml:"max_moves_per_turn,omitempty" json:"max_moves_per_turn,omitempty"`
}

// UnitType is one kind of unit: its C.17 move, M.12 march class, formations,
// default base, V.1 value and C.16 limbering.
type UnitType struct {
	Doc              string                   `yaml:"doc,omitempty" json:"doc,omitempty"`
	Arm              string                   `yaml:"arm" json:"arm"`
	MovePerAction    Distance                 `yaml:"move_per_action" json:"move_per_action"`
	FormationMoves   map[string]FormationMove `yaml:"formation_moves,omitempty" json:"formation_moves,omitempty"`
	TacticalMarch    string                   `yaml:"tactical_march" json:"tactical_march"`
	MovesAs          string                   `yaml:"moves_as,omitempty" json:"moves_as,omitempty"`
	Formations       []string                 `yaml:"formations" json:"formations"`
	DefaultFormation string                   `yaml:"default_formation" json:"default_formation"`
	Base             BaseSize                 `yaml:"base" json:"base"`
	FormationBases   map[string]BaseSize      `yaml:"formation_bases,omitempty" json:"formation_bases,omitempty"`
	VictoryPoints    int                      `yaml:"victory_points" json:"victory_points"`
	FreeLimbering    bool                     `yaml:"free_limbering,omitempty" json:"free_limbering,omitempty"`
}

// HasFormation reports whether the type may stand in formation f.
func (t UnitType) HasFormation(f string) bool { return slices.Contains(t.Formations, f) }

// Move returns the C.17 distance of one move action in formation f, in
// system m, and the cap on move actions a turn (0 = none).
func (t UnitType) Move(f, m string) (perAction float64, maxPerTurn int) {
	if fm, ok := t.FormationMoves[f]; ok {
		return fm.MovePerAction.For(m), fm.MaxMovesPerTurn
	}
	return t.MovePerAction.For(m), 0
}

// BaseFor returns the default base size of the type in formation f.
func (t UnitType) BaseFor(f string) BaseSize {
	if b, ok := t.FormationBases[f]; ok {
		return b
	}
	return t.Base
}

// ResultBand is one row of the C.3 result table, by offset = effective rating
// minus roll. MaxOffset nil means no upper bound.
type ResultBand struct {
	MinOffset int  `yaml:"min_offset" json:"min_offset"`
	MaxOffset *int `yaml:"max_offset,omitempty" json:"max_offset,omitempty"`
	Actions   int  `yaml:"actions" json:"actions"`
}

// TableEntry is one row of a dice table (C.5 blunder table).
type TableEntry struct {
	Roll   int    `yaml:"roll" json:"roll"`
	Result string `yaml:"result" json:"result"`
	Doc    string `yaml:"doc,omitempty" json:"doc,omitempty"`
}

// DiceTable is a table read with one roll.
type DiceTable struct {
	Dice    DiceSpec     `yaml:"dice" json:"dice"`
	Entries []TableEntry `yaml:"entries" json:"entries"`
}

// Lookup returns the entry for a roll total.
func (t DiceTable) Lookup(total int) (TableEntry, bool) {
	for _, e := range t.Entries {
		if e.Roll == total {
			return e, true
		}
	}
	return TableEntry{}, false
}

// BlunderRules is C.5: the blunder roll and its table.
type BlunderRules struct {
	Values []int     `yaml:"values" json:"values"`
	Table  DiceTable `yaml:"table" json:"table"`
}

// DistanceModifier is the C.7 modifier per full step between general and unit.
type DistanceModifier struct {
	Step  Distance `yaml:"step" json:"step"`
	Value int      `yaml:"value" json:"value"`
}

// EnemyNearModifier is the C.7 modifier for an enemy unit near the unit.
type EnemyNearModifier struct {
	Distance        Distance `yaml:"distance" json:"distance"`
	VariantDistance Distance `yaml:"variant_distance" json:"variant_distance"`
	UseVariant      bool     `yaml:"use_variant" json:"use_variant"`
	Value           int      `yaml:"value" json:"value"`
}

// Range returns the distance in force (the ЧП variant when chosen).
func (e EnemyNearModifier) Range() Distance {
	if e.UseVariant {
		return e.VariantDistance
	}
	return e.Distance
}

// FormationModifier is a C.7 modifier for units in given formations.
type FormationModifier struct {
	Formations   []string `yaml:"formations" json:"formations"`
	Value        int      `yaml:"value" json:"value"`
	ExcludedEras []string `yaml:"excluded_eras,omitempty" json:"excluded_eras,omitempty"`
}

// CommandModifiers are the C.7 modifiers to the command rating.
type CommandModifiers struct {
	Distance      DistanceModifier  `yaml:"distance" json:"distance"`
	EnemyNear     EnemyNearModifier `yaml:"enemy_near" json:"enemy_near"`
	AttackColumn  FormationModifier `yaml:"attack_column" json:"attack_column"`
	ColumnOffRoad FormationModifier `yaml:"column_off_road" json:"column_off_road"`
	ColumnOnRoad  FormationModifier `yaml:"column_on_road" json:"column_on_road"`
}

// SpecialOrder holds the numbers of C.13-C.15.
type SpecialOrder struct {
	Range   Distance `yaml:"range" json:"range"`
	Actions int      `yaml:"actions,omitempty" json:"actions,omitempty"`
	Markers int      `yaml:"markers,omitempty" json:"markers,omitempty"`
}

// CommandRules is the command phase (C).
type CommandRules struct {
	OrderRoll              DiceSpec         `yaml:"order_roll" json:"order_roll"`
	RatingMin              int              `yaml:"rating_min" json:"rating_min"`
	RatingMax              int              `yaml:"rating_max" json:"rating_max"`
	Results                []ResultBand     `yaml:"results" json:"results"`
	Blunder                BlunderRules     `yaml:"blunder" json:"blunder"`
	Modifiers              CommandModifiers `yaml:"modifiers" json:"modifiers"`
	GroupDistance          Distance         `yaml:"group_distance" json:"group_distance"`
	FailedMoveFormations   []string         `yaml:"failed_move_formations" json:"failed_move_formations"`
	FailedMoveActions      int              `yaml:"failed_move_actions" json:"failed_move_actions"`
	FollowMe               SpecialOrder     `yaml:"follow_me" json:"follow_me"`
	Steady                 SpecialOrder     `yaml:"steady" json:"steady"`
	Initiative             SpecialOrder     `yaml:"initiative" json:"initiative"`
	FormationChangeActions int              `yaml:"formation_change_actions" json:"formation_change_actions"`
	// LimberingFormations are the two formations between which a change is
	// limbering or unlimbering, free for free_limbering types (C.16).
	LimberingFormations []string `yaml:"limbering_formations" json:"limbering_formations"`
}

// Outcome values of an order (C.3-C.5).
const (
	OutcomeActions = "actions"
	OutcomeFailed  = "failed"
	OutcomeBlunder = "blunder"
	// OutcomeSuccess is a "Follow me!" or "Steady!" roll at most the
	// effective rating (C.13, C.14).
	OutcomeSuccess = "success"
)

// Resolve reads C.3 and C.5: the outcome of an order roll against effective
// rating r, and the actions it grants.
func (c CommandRules) Resolve(values []int, r int) (outcome string, actions int) {
	if c.IsBlunder(values) {
		return OutcomeBlunder, 0
	}
	off := r - sum(values)
	for _, b := range c.Results {
		if off >= b.MinOffset && (b.MaxOffset == nil || off <= *b.MaxOffset) {
			return OutcomeActions, b.Actions
		}
	}
	return OutcomeFailed, 0
}

// IsBlunder reports whether a roll is the C.5 blunder (the same dice faces,
// in any order).
func (c CommandRules) IsBlunder(values []int) bool {
	if len(values) != len(c.Blunder.Values) || len(values) == 0 {
		return false
	}
	a, b := slices.Clone(values), slices.Clone(c.Blunder.Values)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// MoveTable is the M.3 normal move by formation ("default" for the rest).
type MoveTable map[string]Distance

// TableEntryFraction is one row of the M.4 formation-change table.
type TableEntryFraction struct {
	From     string  `yaml:"from" json:"from"`
	To       string  `yaml:"to" json:"to"`
	Fraction float64 `yaml:"fraction" json:"fraction"`
}

// FormationChangeTable is M.4: the fraction of a normal move a change costs.
type FormationChangeTable struct {
	Default          float64              `yaml:"default" json:"default"`
	ReformDisordered float64              `yaml:"reform_disordered" json:"reform_disordered"`
	Entries          []TableEntryFraction `yaml:"entries" json:"entries"`
}

// Fraction returns the cost of changing from one formation to another.
func (t FormationChangeTable) Fraction(from, to string) float64 {
	for _, e := range t.Entries {
		if (e.From == from || e.From == "*") && (e.To == to || e.To == "*") {
			return e.Fraction
		}
	}
	return t.Default
}

// FormationTest is M.9.
type FormationTest struct {
	Distance    Distance `yaml:"distance" json:"distance"`
	Dice        DiceSpec `yaml:"dice" json:"dice"`
	PassAtLeast int      `yaml:"pass_at_least" json:"pass_at_least"`
	// Phases where the test is taken: the default, every phase where
	// formations change (T.2); a ruleset may narrow it.
	Phases []string `yaml:"phases,omitempty" json:"phases,omitempty"`
}

// Turn costs of a move ([choice], movement.turn_cost).
const (
	TurnCostOuterCorner = "outer_corner"
	TurnCostFree        = "free"
)

// DifficultTerrain is the [choice] for difficult terrain: the part of the
// centre's path inside a difficult piece counts DistanceMultiple times.
type DifficultTerrain struct {
	DistanceMultiple float64 `yaml:"distance_multiple" json:"distance_multiple"`
}

// InitiativeRoll is a roll that succeeds at or below a number (M.15).
type InitiativeRoll struct {
	Dice   DiceSpec `yaml:"dice" json:"dice"`
	AtMost int      `yaml:"at_most" json:"at_most"`
}

// TacticalMarchRules is M.11-M.15.
type TacticalMarchRules struct {
	Orders              []string            `yaml:"orders" json:"orders"`
	Formations          map[string][]string `yaml:"formations" json:"formations"`
	Speeds              map[string]Distance `yaml:"speeds" json:"speeds"`
	GeneralSpeed        string              `yaml:"general_speed" json:"general_speed"`
	StopDistance        Distance            `yaml:"stop_distance" json:"stop_distance"`
	BrigadesByNation    map[string]int      `yaml:"brigades_by_nation" json:"brigades_by_nation"`
	BrigadesDefault     int                 `yaml:"brigades_default" json:"brigades_default"`
	GiftedBonus         int                 `yaml:"gifted_bonus" json:"gifted_bonus"`
	BrigadierInitiative InitiativeRoll      `yaml:"brigadier_initiative" json:"brigadier_initiative"`
}

// RetreatRules is M.17: fraction of the fixed distance plus dice.
type RetreatRules struct {
	Fraction float64             `yaml:"fraction" json:"fraction"`
	Dice     DiceSpec            `yaml:"dice" json:"dice"`
	Fixed    map[string]Distance `yaml:"fixed" json:"fixed"`
}

// MovementRules is the movement phase (M).
type MovementRules struct {
	NormalMove            map[string]MoveTable            `yaml:"normal_move" json:"normal_move"`
	NationNormalMove      map[string]map[string]MoveTable `yaml:"nation_normal_move,omitempty" json:"nation_normal_move,omitempty"`
	AfterFiringFraction   float64                         `yaml:"after_firing_fraction" json:"after_firing_fraction"`
	FormationChange       FormationChangeTable            `yaml:"formation_change" json:"formation_change"`
	FormationTest         FormationTest                   `yaml:"formation_test" json:"formation_test"`
	FlankExposureDistance Distance                        `yaml:"flank_exposure_distance" json:"flank_exposure_distance"`
	// FlankExposureExemptTypes move without M.10 when evading (horse artillery).
	FlankExposureExemptTypes []string `yaml:"flank_exposure_exempt_types,omitempty" json:"flank_exposure_exempt_types,omitempty"`
	// TurnCost is how a turn on the spot is paid ([choice]).
	TurnCost string `yaml:"turn_cost,omitempty" json:"turn_cost,omitempty"`
	// DifficultTerrain slows moves ([choice]).
	DifficultTerrain DifficultTerrain `yaml:"difficult_terrain" json:"difficult_terrain"`
	// GeneralMove is an unattached general's move in the movement phase (M.2).
	GeneralMove   Distance           `yaml:"general_move" json:"general_move"`
	TacticalMarch TacticalMarchRules `yaml:"tactical_march" json:"tactical_march"`
	Retreat       RetreatRules       `yaml:"retreat" json:"retreat"`
}

// LeaderFrontCenter is the K.10 leader point the engine implements: the
// middle of the front edge (contact.leader_point, [choice]).
const LeaderFrontCenter = "front_center"

// ContactRules is K.
type ContactRules struct {
	Gap                  Distance `yaml:"gap" json:"gap"`
	ChargeReachMultiple  float64  `yaml:"charge_reach_multiple" json:"charge_reach_multiple"`
	ChargeMaxTurnDegrees float64  `yaml:"charge_max_turn_degrees" json:"charge_max_turn_degrees"`
	Arcs                 string   `yaml:"arcs" json:"arcs"`
	LeaderPoint          string   `yaml:"leader_point" json:"leader_point"`
}

// ArrivalEntry is one row of the F.2 arrival table.
type ArrivalEntry struct {
	Roll               int    `yaml:"roll" json:"roll"`
	DelayTurns         int    `yaml:"delay_turns,omitempty" json:"delay_turns,omitempty"`
	Entry              string `yaml:"entry" json:"entry"`
	ArtilleryExtraMove bool   `yaml:"artillery_extra_move,omitempty" json:"artillery_extra_move,omitempty"`
}

// ArrivalTable is F.2.
type ArrivalTable struct {
	Dice    DiceSpec       `yaml:"dice" json:"dice"`
	Entries []ArrivalEntry `yaml:"entries" json:"entries"`
}

// MutualBand is one row of the F.10 mutual flank march table.
type MutualBand struct {
	MinPercent int    `yaml:"min_percent" json:"min_percent"`
	MaxPercent *int   `yaml:"max_percent,omitempty" json:"max_percent,omitempty"`
	Result     string `yaml:"result" json:"result"`
	Doc        string `yaml:"doc,omitempty" json:"doc,omitempty"`
}

// FlankMarchRules is F.
type FlankMarchRules struct {
	Arrival       ArrivalTable `yaml:"arrival" json:"arrival"`
	EdgeExclusion Distance     `yaml:"edge_exclusion" json:"edge_exclusion"`
	Mutual        []MutualBand `yaml:"mutual" json:"mutual"`
	// MutualMeasure is what "more troops" counts in F.10: "units" or
	// "victory_points" ([choice]; empty: units).
	MutualMeasure string `yaml:"mutual_measure,omitempty" json:"mutual_measure,omitempty"`
}

// VictoryRules is V.
type VictoryRules struct {
	ScoringStatuses        []string `yaml:"scoring_statuses" json:"scoring_statuses"`
	LostFlankMarchersCount bool     `yaml:"lost_flank_marchers_count" json:"lost_flank_marchers_count"`
}

// DefaultRuleset returns a fresh copy of the embedded default ruleset. It
// panics only if the embedded file is broken, which a test guards.
func DefaultRuleset() *Ruleset {
	r, err := parseRuleset(defaultRulesetYAML)
	if err != nil {
		panic(fmt.Sprintf("rules: embedded default ruleset: %v", err))
	}
	return r
}

func parseRuleset(b []byte) (*Ruleset, error) {
	var r Ruleset
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("ruleset: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// LoadRuleset returns base overridden by a YAML overlay (a campaign's
// changes): mappings merge key by key, lists and scalars replace what they
// name, keys the ruleset does not know are an error. The result is validated;
// base is not changed. A nil base means the default ruleset.
func LoadRuleset(base *Ruleset, overlay []byte) (*Ruleset, error) {
	if base == nil {
		base = DefaultRuleset()
	}
	baseYAML, err := yaml.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("ruleset: encode base: %w", err)
	}
	var merged any
	if err := yaml.Unmarshal(baseYAML, &merged); err != nil {
		return nil, fmt.Errorf("ruleset: decode base: %w", err)
	}
	if len(bytes.TrimSpace(overlay)) > 0 {
		var over any
		if err := yaml.Unmarshal(overlay, &over); err != nil {
			return nil, fmt.Errorf("ruleset overlay: %w", err)
		}
		if over != nil {
			if _, ok := over.(map[string]any); !ok {
				return nil, errors.New("ruleset overlay: want a mapping at the top level")
			}
			merged = mergeYAML(merged, over)
		}
	}
	out, err := yaml.Marshal(merged)
	if err != nil {
		return nil, fmt.Errorf("ruleset: encode merged: %w", err)
	}
	return parseRuleset(out)
}

// mergeYAML merges over into base: mappings key by key, anything else replaced.
func mergeYAML(base, over any) any {
	bm, ok1 := base.(map[string]any)
	om, ok2 := over.(map[string]any)
	if !ok1 || !ok2 {
		return over
	}
	out := make(map[string]any, len(bm)+len(om))
	for k, v := range bm {
		out[k] = v
	}
	for k, v := range om {
		if bv, ok := out[k]; ok {
			out[k] = mergeYAML(bv, v)
		} else {
			out[k] = v
		}
	}
	return out
}

// Validate checks that the ruleset is complete and consistent enough for the
// engine never to fail on it: every reference resolves, every table covers
// its dice.
func (r *Ruleset) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	dist := func(name string, d Distance) {
		if !d.valid() {
			bad("%s: distance must be finite and >= 0 (in %v, cm %v)", name, d.In, d.Cm)
		}
	}
	if r.Name == "" {
		bad("name: missing")
	}
	if r.Dice.Scheme != dice.Scheme {
		bad("dice.scheme: %q is not a scheme this program knows (%s)", r.Dice.Scheme, dice.Scheme)
	}
	if r.Dice.SeedPeriod != SeedPeriodBattle && r.Dice.SeedPeriod != SeedPeriodTurn {
		bad("dice.seed_period: %q: want %s or %s", r.Dice.SeedPeriod, SeedPeriodBattle, SeedPeriodTurn)
	}
	if len(r.Measurement.Systems) == 0 {
		bad("measurement.systems: empty")
	}
	for _, m := range r.Measurement.Systems {
		if m != Inches && m != Centimetres {
			bad("measurement.systems: %q is neither %q nor %q", m, Inches, Centimetres)
		}
	}
	if !slices.Contains(r.Measurement.Systems, r.Measurement.Default) {
		bad("measurement.default: %q is not one of the systems", r.Measurement.Default)
	}
	// T
	if !slices.Contains(r.Turn.Phases, PhaseCommand) {
		bad("turn.phases: must include %q", PhaseCommand)
	}
	seen := map[string]bool{}
	for _, p := range r.Turn.Phases {
		if p != PhaseCommand && p != PhaseMovement && p != PhaseCombat {
			bad("turn.phases: unknown phase %q", p)
		}
		if seen[p] {
			bad("turn.phases: %q twice", p)
		}
		seen[p] = true
	}
	if r.Turn.OrdinaryMoves != MovesCommandActions && r.Turn.OrdinaryMoves != MovesMovementTable {
		bad("turn.ordinary_moves: %q is neither %q nor %q", r.Turn.OrdinaryMoves, MovesCommandActions, MovesMovementTable)
	}
	// Formations and unit types.
	if len(r.UnitTypes) == 0 {
		bad("unit_types: empty")
	}
	formation := func(where, f string) {
		if _, ok := r.Formations[f]; !ok {
			bad("%s: unknown formation %q", where, f)
		}
	}
	for _, name := range sortedKeys(r.UnitTypes) {
		t := r.UnitTypes[name]
		w := "unit_types." + name
		dist(w+".move_per_action", t.MovePerAction)
		if len(t.Formations) == 0 {
			bad("%s.formations: empty", w)
		}
		for _, f := range t.Formations {
			formation(w+".formations", f)
		}
		if !t.HasFormation(t.DefaultFormation) {
			bad("%s.default_formation: %q is not one of its formations", w, t.DefaultFormation)
		}
		for _, f := range sortedKeys(t.FormationMoves) {
			if !t.HasFormation(f) {
				bad("%s.formation_moves: %q is not one of its formations", w, f)
			}
			dist(w+".formation_moves."+f, t.FormationMoves[f].MovePerAction)
			if t.FormationMoves[f].MaxMovesPerTurn < 0 {
				bad("%s.formation_moves.%s.max_moves_per_turn: negative", w, f)
			}
		}
		if t.Base.Width.In <= 0 || t.Base.Width.Cm <= 0 || t.Base.Depth.In <= 0 || t.Base.Depth.Cm <= 0 {
			bad("%s.base: width and depth must be > 0 in both systems", w)
		}
		for _, f := range sortedKeys(t.FormationBases) {
			b := t.FormationBases[f]
			if !t.HasFormation(f) {
				bad("%s.formation_bases: %q is not one of its formations", w, f)
			}
			if b.Width.In <= 0 || b.Width.Cm <= 0 || b.Depth.In <= 0 || b.Depth.Cm <= 0 {
				bad("%s.formation_bases.%s: width and depth must be > 0 in both systems", w, f)
			}
		}
		if _, ok := r.Movement.TacticalMarch.Speeds[t.TacticalMarch]; !ok {
			bad("%s.tactical_march: unknown speed class %q", w, t.TacticalMarch)
		}
		if t.MovesAs != "" {
			if _, ok := r.UnitTypes[t.MovesAs]; !ok {
				bad("%s.moves_as: unknown unit type %q", w, t.MovesAs)
			}
		}
		if t.VictoryPoints < 0 {
			bad("%s.victory_points: negative", w)
		}
		if _, ok := r.Movement.TacticalMarch.Formations[t.Arm]; !ok {
			bad("%s.arm: %q has no tactical-march formations (movement.tactical_march.formations)", w, t.Arm)
		}
	}
	// C
	c := r.Command
	if !c.OrderRoll.valid() {
		bad("command.order_roll: %s is not a usable roll", c.OrderRoll)
	}
	if c.RatingMin < 0 || c.RatingMax < c.RatingMin {
		bad("command.rating_min/rating_max: %d..%d", c.RatingMin, c.RatingMax)
	}
	if len(c.Results) == 0 {
		bad("command.results: empty")
	} else {
		// Bands must tile offsets 0..infinity without gap or overlap (C.3).
		bands := slices.Clone(c.Results)
		sort.Slice(bands, func(i, j int) bool { return bands[i].MinOffset < bands[j].MinOffset })
		next := 0
		for i, b := range bands {
			if b.MinOffset != next {
				bad("command.results: offsets from %d not covered (band starts at %d)", next, b.MinOffset)
				break
			}
			if b.Actions < 1 {
				bad("command.results: band from %d grants %d actions", b.MinOffset, b.Actions)
			}
			if b.MaxOffset == nil {
				if i != len(bands)-1 {
					bad("command.results: only the last band may be open-ended")
				}
				next = -1
				break
			}
			if *b.MaxOffset < b.MinOffset {
				bad("command.results: band %d..%d is empty", b.MinOffset, *b.MaxOffset)
			}
			next = *b.MaxOffset + 1
		}
		if next != -1 {
			bad("command.results: the last band must be open-ended (no max_offset)")
		}
	}
	if len(c.Blunder.Values) != c.OrderRoll.Count {
		bad("command.blunder.values: %d values for a %s order roll", len(c.Blunder.Values), c.OrderRoll)
	}
	for _, v := range c.Blunder.Values {
		if v < 1 || v > c.OrderRoll.Sides {
			bad("command.blunder.values: %d is not a face of a D%d", v, c.OrderRoll.Sides)
		}
	}
	table := func(w string, t DiceTable) {
		if !t.Dice.valid() {
			bad("%s.dice: %s is not a usable roll", w, t.Dice)
			return
		}
		for total := t.Dice.Count; total <= t.Dice.Count*t.Dice.Sides; total++ {
			if _, ok := t.Lookup(total); !ok {
				bad("%s: no entry for a roll of %d", w, total)
			}
		}
	}
	table("command.blunder.table", c.Blunder.Table)
	m := c.Modifiers
	dist("command.modifiers.distance.step", m.Distance.Step)
	if m.Distance.Step.In <= 0 || m.Distance.Step.Cm <= 0 {
		bad("command.modifiers.distance.step: must be > 0")
	}
	dist("command.modifiers.enemy_near.distance", m.EnemyNear.Distance)
	dist("command.modifiers.enemy_near.variant_distance", m.EnemyNear.VariantDistance)
	for _, fm := range []struct {
		name string
		m    FormationModifier
	}{{"attack_column", m.AttackColumn}, {"column_off_road", m.ColumnOffRoad}, {"column_on_road", m.ColumnOnRoad}} {
		for _, f := range fm.m.Formations {
			formation("command.modifiers."+fm.name, f)
		}
	}
	dist("command.group_distance", c.GroupDistance)
	for _, f := range c.FailedMoveFormations {
		formation("command.failed_move_formations", f)
	}
	if c.FailedMoveActions < 0 {
		bad("command.failed_move_actions: negative")
	}
	dist("command.follow_me.range", c.FollowMe.Range)
	dist("command.steady.range", c.Steady.Range)
	dist("command.initiative.range", c.Initiative.Range)
	if c.FormationChangeActions < 1 {
		bad("command.formation_change_actions: must be >= 1")
	}
	for _, f := range c.LimberingFormations {
		formation("command.limbering_formations", f)
	}
	for _, e := range c.Blunder.Table.Entries {
		if !slices.Contains(blunderResults, e.Result) {
			bad("command.blunder.table: roll %d: result %q is not one the engine carries out (%s)", e.Roll, e.Result, strings.Join(blunderResults, ", "))
		}
	}
	// M
	mv := r.Movement
	for _, tn := range sortedKeys(mv.NormalMove) {
		if _, ok := r.UnitTypes[tn]; !ok {
			bad("movement.normal_move: unknown unit type %q", tn)
		}
		for _, f := range sortedKeys(mv.NormalMove[tn]) {
			if f != "default" {
				formation("movement.normal_move."+tn, f)
			}
			dist("movement.normal_move."+tn+"."+f, mv.NormalMove[tn][f])
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
			bad("movement.normal_move: no default row for unit type %q", tn)
		}
	}
	if mv.AfterFiringFraction < 0 || mv.AfterFiringFraction > 1 {
		bad("movement.after_firing_fraction: %v not in [0,1]", mv.AfterFiringFraction)
	}
	for _, e := range mv.FormationChange.Entries {
		if e.From != "*" {
			formation("movement.formation_change.from", e.From)
		}
		if e.To != "*" {
			formation("movement.formation_change.to", e.To)
		}
		if e.Fraction < 0 || e.Fraction > 1 {
			bad("movement.formation_change: fraction %v not in [0,1]", e.Fraction)
		}
	}
	if !mv.FormationTest.Dice.valid() {
		bad("movement.formation_test.dice: not a usable roll")
	}
	dist("movement.formation_test.distance", mv.FormationTest.Distance)
	dist("movement.flank_exposure_distance", mv.FlankExposureDistance)
	for _, tn := range mv.FlankExposureExemptTypes {
		if _, ok := r.UnitTypes[tn]; !ok {
			bad("movement.flank_exposure_exempt_types: unknown unit type %q", tn)
		}
	}
	if mv.TurnCost != TurnCostOuterCorner && mv.TurnCost != TurnCostFree {
		bad("movement.turn_cost: %q is neither %q nor %q", mv.TurnCost, TurnCostOuterCorner, TurnCostFree)
	}
	if mv.DifficultTerrain.DistanceMultiple < 1 || math.IsInf(mv.DifficultTerrain.DistanceMultiple, 0) {
		bad("movement.difficult_terrain.distance_multiple: %v: want a number >= 1", mv.DifficultTerrain.DistanceMultiple)
	}
	dist("movement.general_move", mv.GeneralMove)
	for _, p := range mv.FormationTest.Phases {
		if p != PhaseCommand && p != PhaseMovement {
			bad("movement.formation_test.phases: %q is neither %q nor %q", p, PhaseCommand, PhaseMovement)
		}
	}
	if mv.FormationTest.PassAtLeast < 1 {
		bad("movement.formation_test.pass_at_least: must be >= 1")
	}
	if mv.Retreat.Fraction < 0 || mv.Retreat.Fraction > 1 {
		bad("movement.retreat.fraction: %v not in [0,1]", mv.Retreat.Fraction)
	}
	tm := mv.TacticalMarch
	for _, arm := range sortedKeys(tm.Formations) {
		for _, f := range tm.Formations[arm] {
			formation("movement.tactical_march.formations."+arm, f)
		}
	}
	for _, k := range sortedKeys(tm.Speeds) {
		dist("movement.tactical_march.speeds."+k, tm.Speeds[k])
	}
	if _, ok := tm.Speeds[tm.GeneralSpeed]; !ok {
		bad("movement.tactical_march.general_speed: unknown speed class %q", tm.GeneralSpeed)
	}
	dist("movement.tactical_march.stop_distance", tm.StopDistance)
	if !tm.BrigadierInitiative.Dice.valid() {
		bad("movement.tactical_march.brigadier_initiative.dice: not a usable roll")
	}
	if !mv.Retreat.Dice.valid() {
		bad("movement.retreat.dice: not a usable roll")
	}
	for _, k := range sortedKeys(mv.Retreat.Fixed) {
		if _, ok := r.UnitTypes[k]; !ok {
			bad("movement.retreat.fixed: unknown unit type %q", k)
		}
		dist("movement.retreat.fixed."+k, mv.Retreat.Fixed[k])
	}
	// K
	dist("contact.gap", r.Contact.Gap)
	if _, err := geom.ParseArcRule(r.Contact.Arcs); err != nil {
		bad("contact.arcs: %v", err)
	}
	if r.Contact.LeaderPoint != LeaderFrontCenter {
		bad("contact.leader_point: %q: the engine measures charges from %q, the middle of the front edge (K.10)", r.Contact.LeaderPoint, LeaderFrontCenter)
	}
	if c.FollowMe.Actions < 1 {
		bad("command.follow_me.actions: must be >= 1")
	}
	if c.Steady.Markers < 1 {
		bad("command.steady.markers: must be >= 1")
	}
	if c.Initiative.Actions < 1 {
		bad("command.initiative.actions: must be >= 1")
	}
	if r.Contact.ChargeReachMultiple <= 0 {
		bad("contact.charge_reach_multiple: must be > 0")
	}
	// F
	a := r.FlankMarch.Arrival
	if !a.Dice.valid() {
		bad("flank_march.arrival.dice: not a usable roll")
	} else {
		for total := a.Dice.Count; total <= a.Dice.Count*a.Dice.Sides; total++ {
			found := false
			for _, e := range a.Entries {
				if e.Roll == total {
					found = true
					if e.Entry != "ordered" && e.Entry != "opponent_choice" && e.Entry != "lost" {
						bad("flank_march.arrival: roll %d: unknown entry %q", total, e.Entry)
					}
					if e.DelayTurns < 0 {
						bad("flank_march.arrival: roll %d: negative delay", total)
					}
				}
			}
			if !found {
				bad("flank_march.arrival: no entry for a roll of %d", total)
			}
		}
	}
	dist("flank_march.edge_exclusion", r.FlankMarch.EdgeExclusion)
	// V
	for _, st := range r.Victory.ScoringStatuses {
		if !slices.Contains(unitStatuses, st) {
			bad("victory.scoring_statuses: unknown status %q", st)
		}
	}
	errs = append(errs, r.flankVictoryProblems()...)
	if len(errs) > 0 {
		return fmt.Errorf("ruleset %q invalid: %s", r.Name, strings.Join(errs, "; "))
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}
