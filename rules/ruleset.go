package rules

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Measurement systems a battle may be played in (docs/rules.md preamble).
const (
	Inches      = "in"
	Centimetres = "cm"
)

//go:embed rulesets/default.yaml
var defaultRulesetYAML []byte

// DefaultRulesetYAML returns the embedded default ruleset file as written,
// comments included, for tools that show or export it.
func DefaultRulesetYAML() []byte { return bytes.Clone(defaultRulesetYAML) }

// Ruleset holds every [table] and [choice] value of docs/rules.md and every number
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
	// Scheme is the derivation that digital rolls follow: "ledger-dice-v3";
	// "ledger-dice-v2" or "ledger-dice-v1" for battles begun with them (a
	// v2 battle's new rolls are by v3, dice.RollScheme; docs/dice.md).
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
