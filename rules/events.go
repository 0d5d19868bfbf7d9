package rules

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/clubledger/ledger/rules/geom"
)

// Event is a past-tense fact about a battle, stored as a JSON payload.
type Event interface {
	// EventType is the persisted type name ("order.resolved").
	EventType() string
	// Audience is who may read it: "all", "umpire" or "side:<id>".
	Audience() string
}

// Audiences of events.
const (
	AudienceAll    = "all"
	AudienceUmpire = "umpire"
)

// Event type names: persisted forever, never renamed or reused.
const (
	EvBattleCreated = "battle.created"
	EvArmyDeployed  = "army.deployed"
	EvBattleStarted = "battle.started"
	EvTurnStarted   = "turn.started"
	EvPhaseEnded    = "phase.ended"
	EvPhaseStarted  = "phase.started"
	EvDiceRolled    = "dice.rolled"
	EvOrderResolved = "order.resolved"
	EvUnitMoved     = "unit.moved"
	EvBattleEnded   = "battle.ended"

	EvInitiativeTaken    = "initiative.taken"
	EvInitiativeDeclined = "initiative.declined"
	EvUnitReformed       = "unit.reformed"
	EvChargeDeclared     = "charge.declared"
	EvBlunderCarriedOut  = "blunder.carried_out"
)

type eventInfo struct {
	schema int
	doc    string
	new    func() Event
}

var eventRegistry = map[string]eventInfo{
	EvBattleCreated: {1, "A battle was opened: measurement, table, sides, who starts, turn limit and the full ruleset in force.", func() Event { return &BattleCreated{} }},
	EvArmyDeployed:  {1, "A side deployed its C-in-C, brigades and units (bases resolved from the ruleset).", func() Event { return &ArmyDeployed{} }},
	EvBattleStarted: {1, "The battle began; the first side has the first turn (T.1).", func() Event { return &BattleStarted{} }},
	EvTurnStarted:   {1, "A turn began with its phasing side and first phase; the turn's bookkeeping is reset (T.1).", func() Event { return &TurnStarted{} }},
	EvPhaseEnded:    {1, "A phase of the current turn ended (T.2-T.4).", func() Event { return &PhaseEnded{} }},
	EvPhaseStarted:  {1, "The next phase of the current turn began (T.2-T.4).", func() Event { return &PhaseStarted{} }},
	EvDiceRolled:    {1, "One roll: counter, purpose, dice, faces, source and who entered them; replay reads it and never rolls again.", func() Event { return &DiceRolled{} }},
	EvOrderResolved: {1, "An order's roll was read against the general's modified rating: actions granted, failure or blunder (C.2-C.8, C.11, C.12).", func() Event { return &OrderResolved{} }},
	EvUnitMoved:     {1, "A unit moved with actions of its order (C.6, C.17), or its normal move in the movement phase (M.3); without a charge order, stopped 1\" short of an enemy its move would have reached (C.9).", func() Event { return &UnitMoved{} }},
	EvBattleEnded:   {1, "The battle ended: turn limit, umpire or players (T.5).", func() Event { return &BattleEnded{} }},
	EvDiceCommitted: {1, "The SHA-256 commitment to a dice period's secret seed, recorded before its first roll.", func() Event { return &DiceCommitted{} }},
	EvDiceSeedAdded: {1, "A player added a seed of their own to the current dice period, before its first roll.", func() Event { return &DiceSeedAdded{} }},
	EvDiceRevealed:  {1, "A dice period's secret seed, revealed when it ended and checked against its commitment.", func() Event { return &DiceRevealed{} }},

	EvInitiativeTaken:    {1, "A unit took an initiative order: one action, no roll, an enemy within range (C.15).", func() Event { return &InitiativeTaken{} }},
	EvInitiativeDeclined: {1, "A unit declined initiative to wait for its general's order (C.15).", func() Event { return &InitiativeDeclined{} }},
	EvUnitReformed:       {1, "A unit changed formation, its command point staying in place (C.16); in the movement phase, re-forming (M.8), a deployment after its tactical march (M.14) or an M.4 change.", func() Event { return &UnitReformed{} }},
	EvChargeDeclared:     {1, "A unit charged as an action (C.6, C.9) into contact: the side hit, the leader point's path with its one turn, the placement and the terrain crossed (K.4-K.8). Older events may be pending (no move).", func() Event { return &ChargeDeclared{} }},
	EvBlunderCarriedOut:  {1, "A unit carried out its blunder-table result (C.5): the move the engine computed, and why it stopped.", func() Event { return &BlunderCarriedOut{} }},
}

// EventType describes one event type for registries and docs.
type EventType struct {
	Name   string
	Schema int
	Doc    string
}

// EventTypes returns every type Decide can emit, sorted by name.
func EventTypes() []EventType {
	out := make([]EventType, 0, len(eventRegistry))
	for n, i := range eventRegistry {
		out = append(out, EventType{Name: n, Schema: i.schema, Doc: i.doc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DecodeEvent decodes a stored payload. It is tolerant of unknown fields (a
// newer writer), unlike DecodeCommand.
func DecodeEvent(typ string, payload []byte) (Event, error) {
	i, ok := eventRegistry[typ]
	if !ok {
		return nil, fmt.Errorf("unknown event type %q", typ)
	}
	e := i.new()
	if err := json.Unmarshal(payload, e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, err)
	}
	return e, nil
}

// BattleCreated is battle.created.
type BattleCreated struct {
	Battle      string     `json:"battle"`
	Campaign    string     `json:"campaign,omitempty"`
	Name        string     `json:"name,omitempty"`
	Measurement string     `json:"measurement"`
	Table       geom.Table `json:"table"`
	Sides       []SideSpec `json:"sides"`
	FirstSide   string     `json:"first_side"`
	TurnLimit   int        `json:"turn_limit,omitempty"`
	// Terrain is the table's terrain pieces.
	Terrain []geom.Terrain `json:"terrain,omitempty"`
	// Objectives are the scenario's objectives and their values (V.2).
	Objectives []Objective `json:"objectives,omitempty"`
	// Ruleset is the full resolved ruleset, default plus overlay: replay uses it.
	Ruleset *Ruleset `json:"ruleset"`
	// Overlay is the campaign's overlay text as given, for the record.
	Overlay string `json:"overlay,omitempty"`
}

// EventType implements Event.
func (*BattleCreated) EventType() string { return EvBattleCreated }

// Audience implements Event.
func (*BattleCreated) Audience() string { return AudienceAll }

// DeployedUnit is a unit as deployed: its base fully resolved.
type DeployedUnit struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Formation string    `json:"formation"`
	Base      geom.Base `json:"base"`
	Markers   int       `json:"markers,omitempty"`
}

// DeployedBrigade is a brigade as deployed.
type DeployedBrigade struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Order   string         `json:"order"`
	General General        `json:"general"`
	Units   []DeployedUnit `json:"units"`
}

// ArmyDeployed is army.deployed.
type ArmyDeployed struct {
	Side     string            `json:"side"`
	CInC     Commander         `json:"c_in_c"`
	Brigades []DeployedBrigade `json:"brigades"`
}

// EventType implements Event.
func (*ArmyDeployed) EventType() string { return EvArmyDeployed }

// Audience implements Event.
func (*ArmyDeployed) Audience() string { return AudienceAll }

// BattleStarted is battle.started.
type BattleStarted struct {
	FirstSide string `json:"first_side"`
}

// EventType implements Event.
func (*BattleStarted) EventType() string { return EvBattleStarted }

// Audience implements Event.
func (*BattleStarted) Audience() string { return AudienceAll }

// TurnStarted is turn.started.
type TurnStarted struct {
	Turn  int    `json:"turn"`
	Side  string `json:"side"`
	Phase string `json:"phase"`
}

// EventType implements Event.
func (*TurnStarted) EventType() string { return EvTurnStarted }

// Audience implements Event.
func (*TurnStarted) Audience() string { return AudienceAll }

// PhaseEnded is phase.ended.
type PhaseEnded struct {
	Turn  int    `json:"turn"`
	Side  string `json:"side"`
	Phase string `json:"phase"`
}

// EventType implements Event.
func (*PhaseEnded) EventType() string { return EvPhaseEnded }

// Audience implements Event.
func (*PhaseEnded) Audience() string { return AudienceAll }

// PhaseStarted is phase.started.
type PhaseStarted struct {
	Turn  int    `json:"turn"`
	Side  string `json:"side"`
	Phase string `json:"phase"`
}

// EventType implements Event.
func (*PhaseStarted) EventType() string { return EvPhaseStarted }

// Audience implements Event.
func (*PhaseStarted) Audience() string { return AudienceAll }

// DiceRolled is dice.rolled: one roll, recorded before the decision it feeds.
type DiceRolled struct {
	Counter   uint64 `json:"counter"`
	Purpose   string `json:"purpose"`
	Count     int    `json:"count"`
	Sides     int    `json:"sides"`
	Values    []int  `json:"values"`
	Source    string `json:"source"`
	EnteredBy string `json:"entered_by,omitempty"`
	// Command is the command whose decision the roll feeds ("order.give").
	Command string `json:"command"`
	Turn    int    `json:"turn"`
	// Period is the dice seed period a digital roll derives from.
	Period string `json:"period,omitempty"`
}

// EventType implements Event.
func (*DiceRolled) EventType() string { return EvDiceRolled }

// Audience implements Event.
func (*DiceRolled) Audience() string { return AudienceAll }

// Modifier is one C.7 modifier applied to a rating, with its reason.
type Modifier struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	Value  int    `json:"value"`
}

// BlunderResult is the C.5 blunder-table roll and the entry it reads.
type BlunderResult struct {
	Counter uint64 `json:"counter"`
	Values  []int  `json:"values"`
	Roll    int    `json:"roll"`
	Result  string `json:"result"`
	Doc     string `json:"doc,omitempty"`
}

// OrderResolved is order.resolved: everything needed to see why an order
// came out as it did.
type OrderResolved struct {
	Turn        int            `json:"turn"`
	Side        string         `json:"side"`
	General     string         `json:"general"`
	CInC        bool           `json:"c_in_c,omitempty"`
	Units       []string       `json:"units"`
	Content     OrderContent   `json:"content"`
	RollCounter uint64         `json:"roll_counter"`
	Values      []int          `json:"values"`
	Total       int            `json:"total"`
	BaseRating  int            `json:"base_rating"`
	Modifiers   []Modifier     `json:"modifiers"`
	Effective   int            `json:"effective_rating"`
	Outcome     string         `json:"outcome"` // actions | failed | blunder
	Actions     int            `json:"actions"` // granted to each unit (C.3)
	Blunder     *BlunderResult `json:"blunder,omitempty"`
	// FailedMoves lists failed (not blundered) units that may still make one
	// move (C.12) of FailedMoveActions actions.
	FailedMoves       []string `json:"failed_moves,omitempty"`
	FailedMoveActions int      `json:"failed_move_actions,omitempty"`
	// ClosedGeneral is the general that moving on to this one closed (C.10).
	ClosedGeneral string `json:"closed_general,omitempty"`
	// GeneralDone: this general gives no more orders this turn (C.4).
	GeneralDone bool `json:"general_done,omitempty"`
	// OrdersClosed: the C-in-C failed, nobody gives orders this turn (C.11).
	OrdersClosed bool `json:"orders_closed,omitempty"`
	// Special is "follow_me" or "steady" (C.13, C.14); empty for an ordinary order.
	Special string `json:"special,omitempty"`
	// Attached is the unit the general joined (C.13, C.14 success).
	Attached string `json:"attached,omitempty"`
	// MarkersRemoved is the casualty markers "Steady!" removed (C.14).
	MarkersRemoved int `json:"markers_removed,omitempty"`
	// InitiativeClosed: this is the turn's first general's order, which
	// closes initiative (C.1, C.15); InitiativeForfeited lists units whose
	// initiative action was not carried out and is lost.
	InitiativeClosed    bool     `json:"initiative_closed,omitempty"`
	InitiativeForfeited []string `json:"initiative_forfeited,omitempty"`
	// Summary is the decision in words, for the table and the timeline.
	Summary string `json:"summary"`
}

// EventType implements Event.
func (*OrderResolved) EventType() string { return EvOrderResolved }

// Audience implements Event.
func (*OrderResolved) Audience() string { return AudienceAll }

// UnitMoved is unit.moved.
type UnitMoved struct {
	Turn        int        `json:"turn"`
	Unit        string     `json:"unit"`
	From        geom.Base  `json:"from"`
	To          geom.Base  `json:"to"`
	Path        []geom.Vec `json:"path,omitempty"`
	Distance    float64    `json:"distance"`
	ActionsUsed int        `json:"actions_used"`
	// FailedMove: the move was the C.12 move of a unit that failed its order.
	FailedMove bool `json:"failed_move,omitempty"`
	// Route is the path with the turns made at waypoints, when there were any.
	Route []Waypoint `json:"route,omitempty"`
	// Cost is what the move took from its allowance (the path, turns and
	// difficult terrain), Allowed the allowance, when they differ from Distance.
	Cost    float64 `json:"cost,omitempty"`
	Allowed float64 `json:"allowed,omitempty"`
	// Phase is "movement" for a normal move in the movement phase (M.3),
	// which uses MovementUsed of the unit's normal move (M.4-M.6).
	Phase        string  `json:"phase,omitempty"`
	MovementUsed float64 `json:"movement_used,omitempty"`
	// StoppedShort: without a charge order the move would have come within
	// Short (the 1" gap) of Enemy, so it stopped there, Short from it, on
	// its way to Planned; Path and Route are the part it made (C.9).
	StoppedShort bool      `json:"stopped_short,omitempty"`
	Enemy        string    `json:"enemy,omitempty"`
	Short        float64   `json:"short,omitempty"`
	Planned      *geom.Vec `json:"planned,omitempty"`
}

// EventType implements Event.
func (*UnitMoved) EventType() string { return EvUnitMoved }

// Audience implements Event.
func (*UnitMoved) Audience() string { return AudienceAll }

// BattleEnded is battle.ended.
type BattleEnded struct {
	Turn   int    `json:"turn"`
	Reason string `json:"reason"`
	// TurnLimit: ended by the scenario's turn limit (T.1, T.5).
	TurnLimit bool `json:"turn_limit,omitempty"`
}

// EventType implements Event.
func (*BattleEnded) EventType() string { return EvBattleEnded }

// Audience implements Event.
func (*BattleEnded) Audience() string { return AudienceAll }

// InitiativeTaken is initiative.taken: a unit's own commander gave it one
// action, no roll, because an enemy was within range (C.15).
type InitiativeTaken struct {
	Turn    int          `json:"turn"`
	Unit    string       `json:"unit"`
	Content OrderContent `json:"content"`
	Actions int          `json:"actions"`
	// Enemy is the nearest enemy unit, Distance base to base, Range the limit.
	Enemy    string  `json:"enemy"`
	Distance float64 `json:"distance"`
	Range    float64 `json:"range"`
}

// EventType implements Event.
func (*InitiativeTaken) EventType() string { return EvInitiativeTaken }

// Audience implements Event.
func (*InitiativeTaken) Audience() string { return AudienceAll }

// InitiativeDeclined is initiative.declined (C.15).
type InitiativeDeclined struct {
	Turn int    `json:"turn"`
	Unit string `json:"unit"`
}

// EventType implements Event.
func (*InitiativeDeclined) EventType() string { return EvInitiativeDeclined }

// Audience implements Event.
func (*InitiativeDeclined) Audience() string { return AudienceAll }

// UnitReformed is unit.reformed: a formation change (C.16).
type UnitReformed struct {
	Turn          int       `json:"turn"`
	Unit          string    `json:"unit"`
	FromFormation string    `json:"from_formation"`
	ToFormation   string    `json:"to_formation"`
	From          geom.Base `json:"from"`
	To            geom.Base `json:"to"`
	ActionsUsed   int       `json:"actions_used"`
	// Free: limbering or unlimbering of a type that does it for free (C.16).
	Free bool `json:"free,omitempty"`
	// Phase is "movement" for a change in the movement phase, which uses
	// MovementUsed of the unit's normal move (M.4); Reordered: a disordered
	// unit formed again (M.8).
	Phase        string  `json:"phase,omitempty"`
	MovementUsed float64 `json:"movement_used,omitempty"`
	Reordered    bool    `json:"reordered,omitempty"`
	// AfterMarch: a deployment in the movement phase after the unit's
	// tactical march, paid with ActionsUsed of its order (M.14, C.16).
	AfterMarch bool `json:"after_march,omitempty"`
}

// EventType implements Event.
func (*UnitReformed) EventType() string { return EvUnitReformed }

// Audience implements Event.
func (*UnitReformed) Audience() string { return AudienceAll }

// ChargeDeclared is charge.declared: a charge action (C.6, C.9). Contact
// says the engine moved the unit into contact (From -> To) by the charge
// rules (K.4-K.10, charge_path.go); the fields from Measured on record how.
// Pending and Reason appear only in events recorded before the engine
// decided every charge: the unit stayed where it was.
type ChargeDeclared struct {
	Turn        int       `json:"turn"`
	Unit        string    `json:"unit"`
	Target      string    `json:"target"`
	ActionsUsed int       `json:"actions_used"`
	Reach       float64   `json:"reach"`    // distance the actions allow (C.17)
	Distance    float64   `json:"distance"` // leader point's path to contact
	Side        geom.Arc  `json:"side,omitempty"`
	From        geom.Base `json:"from"`
	To          geom.Base `json:"to"`
	Contact     bool      `json:"contact"`
	Pending     bool      `json:"pending,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	// Measured is K.4's distance: leader point to the nearest point of the
	// target (at most Reach, twice the speed). Path is the leader point's
	// path (start, the turn point if any, end; Distance is its length);
	// TurnDegrees the one turn (K.5, clockwise positive), made at
	// Path[TurnAt]; Slide the leader point's offset from the middle of the
	// side hit, to the charger's right (K.6); Crossed the difficult terrain
	// on the path (K.5, for the melee); Pushed the enemy units moved back
	// (K.9, each a charge.pushed_back that follows).
	Measured    float64    `json:"measured,omitempty"`
	Path        []geom.Vec `json:"path,omitempty"`
	TurnDegrees float64    `json:"turn_degrees,omitempty"`
	TurnAt      int        `json:"turn_at,omitempty"`
	Slide       float64    `json:"slide,omitempty"`
	Crossed     []string   `json:"crossed,omitempty"`
	Pushed      []string   `json:"pushed,omitempty"`
}

// EventType implements Event.
func (*ChargeDeclared) EventType() string { return EvChargeDeclared }

// Audience implements Event.
func (*ChargeDeclared) Audience() string { return AudienceAll }

// BlunderCarriedOut is blunder.carried_out: what the blunder table made a
// unit do (C.5). Planned is one move of its type; Distance is how far it
// went before Stopped (why it went no farther, empty if it went all the way).
type BlunderCarriedOut struct {
	Turn     int       `json:"turn"`
	Unit     string    `json:"unit"`
	Roll     int       `json:"roll"`
	Result   string    `json:"result"`
	From     geom.Base `json:"from"`
	To       geom.Base `json:"to"`
	Planned  float64   `json:"planned"`
	Distance float64   `json:"distance"`
	Stopped  string    `json:"stopped,omitempty"`
	// Target and Contact: a blunder charge that reached the nearest enemy.
	Target  string `json:"target,omitempty"`
	Contact bool   `json:"contact,omitempty"`
}

// EventType implements Event.
func (*BlunderCarriedOut) EventType() string { return EvBlunderCarriedOut }

// Audience implements Event.
func (*BlunderCarriedOut) Audience() string { return AudienceAll }
