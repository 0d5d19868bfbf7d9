package rules

import "github.com/clubledger/ledger/rules/geom"

// Event types of the movement phase, generals and combat outcomes.
const (
	EvMovementHandedOver = "movement.handed_over"
	EvMarchDeclared      = "march.declared"
	EvUnitMarched        = "unit.marched"
	EvBrigadeOrderChange = "brigade.order_changed"
	EvGeneralMoved       = "general.moved"
	EvGeneralDetached    = "general.detached"
	EvUnitFired          = "unit.fired"
	EvCombatRecorded     = "combat.recorded"
	EvFormationTested    = "formation.tested"
)

func init() {
	for k, v := range map[string]eventInfo{
		EvMovementHandedOver: {1, "The side moving in the movement phase finished; the next side moves (M.1).", func() Event { return &MovementHandedOver{} }},
		EvMarchDeclared:      {1, "A brigade's tactical march this turn: granted within the nation's number (M.15) or by a brigadier's initiative roll, or that roll failed (M.11, M.15).", func() Event { return &MarchDeclared{} }},
		EvUnitMarched:        {1, "A unit of a marching brigade marched (M.12); stopped where it came within the M.13 distance of an enemy.", func() Event { return &UnitMarched{} }},
		EvBrigadeOrderChange: {1, "A brigade's order changed by the umpire, or a brigadier's order-change initiative roll (T.6, M.15) succeeded or failed.", func() Event { return &BrigadeOrderChanged{} }},
		EvGeneralMoved:       {1, "An unattached general moved in the movement phase, and perhaps joined a unit (M.2).", func() Event { return &GeneralMoved{} }},
		EvGeneralDetached:    {1, "An attached general left his unit in the movement phase (M.2).", func() Event { return &GeneralDetached{} }},
		EvUnitFired:          {1, "A unit fired, as entered at the table (M.5, T.4).", func() Event { return &UnitFired{} }},
		EvCombatRecorded:     {1, "A combat outcome entered at the table: casualty markers, disorder, retreat or rout (M.17 distance), rally, destruction (T.4).", func() Event { return &CombatRecorded{} }},
		EvFormationTested:    {1, "A unit changing formation near a formed close-order enemy took the formation test (M.9); on a failure it stays as it was.", func() Event { return &FormationTested{} }},
	} {
		eventRegistry[k] = v
	}
}

// MovementHandedOver is movement.handed_over (M.1).
type MovementHandedOver struct {
	Turn int    `json:"turn"`
	From string `json:"from"`
	To   string `json:"to"`
}

// EventType implements Event.
func (*MovementHandedOver) EventType() string { return EvMovementHandedOver }

// Audience implements Event.
func (*MovementHandedOver) Audience() string { return AudienceAll }

// RollRecord is a roll read against a number: which roll (its dice.rolled
// counter), its faces and total.
type RollRecord struct {
	Counter uint64 `json:"counter"`
	Values  []int  `json:"values"`
	Total   int    `json:"total"`
}

// MarchDeclared is march.declared (M.11, M.15). Granted says whether the
// brigade marches; By is "allowance" (within Limit) or "initiative" (the
// brigadier's roll, at most AtMost).
type MarchDeclared struct {
	Turn    int         `json:"turn"`
	Side    string      `json:"side"`
	Brigade string      `json:"brigade"`
	Order   string      `json:"order"`
	Limit   int         `json:"limit"`
	Marches int         `json:"marches"` // brigades marching before this one
	By      string      `json:"by"`
	Roll    *RollRecord `json:"roll,omitempty"`
	AtMost  int         `json:"at_most,omitempty"`
	Granted bool        `json:"granted"`
}

// EventType implements Event.
func (*MarchDeclared) EventType() string { return EvMarchDeclared }

// Audience implements Event.
func (*MarchDeclared) Audience() string { return AudienceAll }

// UnitMarched is unit.marched (M.12, M.13): Distance is what the march cost
// (path, turns, difficult terrain), Marched the unit's total this turn, Speed
// its M.12 speed. Ended: it came within the M.13 distance of Enemy and
// stopped there (Planned is where it was going).
type UnitMarched struct {
	Turn     int        `json:"turn"`
	Unit     string     `json:"unit"`
	Brigade  string     `json:"brigade"`
	From     geom.Base  `json:"from"`
	To       geom.Base  `json:"to"`
	Path     []geom.Vec `json:"path,omitempty"`
	Distance float64    `json:"distance"`
	Marched  float64    `json:"marched"`
	Speed    float64    `json:"speed"`
	Ended    bool       `json:"ended,omitempty"`
	Enemy    string     `json:"enemy,omitempty"`
	Planned  *geom.Vec  `json:"planned,omitempty"`
}

// EventType implements Event.
func (*UnitMarched) EventType() string { return EvUnitMarched }

// Audience implements Event.
func (*UnitMarched) Audience() string { return AudienceAll }

// BrigadeOrderChanged is brigade.order_changed (T.6, M.15): By is "umpire"
// or "initiative"; Changed is false when the initiative roll failed.
type BrigadeOrderChanged struct {
	Turn    int         `json:"turn"`
	Side    string      `json:"side"`
	Brigade string      `json:"brigade"`
	From    string      `json:"from"`
	To      string      `json:"to"`
	By      string      `json:"by"`
	Roll    *RollRecord `json:"roll,omitempty"`
	AtMost  int         `json:"at_most,omitempty"`
	Changed bool        `json:"changed"`
}

// EventType implements Event.
func (*BrigadeOrderChanged) EventType() string { return EvBrigadeOrderChange }

// Audience implements Event.
func (*BrigadeOrderChanged) Audience() string { return AudienceAll }

// GeneralMoved is general.moved (M.2): Moved is his total this phase,
// Allowed his full distance; Joined the unit he joined at the end.
type GeneralMoved struct {
	Turn     int      `json:"turn"`
	General  string   `json:"general"`
	Side     string   `json:"side"`
	From     geom.Vec `json:"from"`
	To       geom.Vec `json:"to"`
	Distance float64  `json:"distance"`
	Moved    float64  `json:"moved"`
	Allowed  float64  `json:"allowed"`
	Joined   string   `json:"joined,omitempty"`
}

// EventType implements Event.
func (*GeneralMoved) EventType() string { return EvGeneralMoved }

// Audience implements Event.
func (*GeneralMoved) Audience() string { return AudienceAll }

// GeneralDetached is general.detached (M.2).
type GeneralDetached struct {
	Turn    int    `json:"turn"`
	General string `json:"general"`
	Unit    string `json:"unit"`
}

// EventType implements Event.
func (*GeneralDetached) EventType() string { return EvGeneralDetached }

// Audience implements Event.
func (*GeneralDetached) Audience() string { return AudienceAll }

// UnitFired is unit.fired (M.5, T.4).
type UnitFired struct {
	Turn      int    `json:"turn"`
	Phase     string `json:"phase"`
	Unit      string `json:"unit"`
	Target    string `json:"target,omitempty"`
	EnteredBy string `json:"entered_by,omitempty"`
	Note      string `json:"note,omitempty"`
}

// EventType implements Event.
func (*UnitFired) EventType() string { return EvUnitFired }

// Audience implements Event.
func (*UnitFired) Audience() string { return AudienceAll }

// CombatRecorded is combat.recorded (T.4): the result entered, the markers
// and status before and after, and for a retreat or rout the move: Fixed and
// Fraction with Roll for M.17 (Distance = Fraction x Fixed + roll), else the
// entered Distance. OffTable: the unit left the table.
type CombatRecorded struct {
	Turn          int         `json:"turn"`
	Phase         string      `json:"phase"`
	Unit          string      `json:"unit"`
	Result        string      `json:"result"`
	MarkersBefore int         `json:"markers_before"`
	Markers       int         `json:"markers"`
	StatusBefore  string      `json:"status_before"`
	Status        string      `json:"status"`
	From          *geom.Base  `json:"from,omitempty"`
	To            *geom.Base  `json:"to,omitempty"`
	Distance      float64     `json:"distance,omitempty"`
	Fixed         float64     `json:"fixed,omitempty"`
	Fraction      float64     `json:"fraction,omitempty"`
	Roll          *RollRecord `json:"roll,omitempty"`
	OffTable      bool        `json:"off_table,omitempty"`
	EnteredBy     string      `json:"entered_by,omitempty"`
	Note          string      `json:"note,omitempty"`
}

// EventType implements Event.
func (*CombatRecorded) EventType() string { return EvCombatRecorded }

// Audience implements Event.
func (*CombatRecorded) Audience() string { return AudienceAll }

// FormationTested is formation.tested (M.9): the enemy that made the test
// necessary, the roll against PassAtLeast, and what a failure cost.
type FormationTested struct {
	Turn         int        `json:"turn"`
	Unit         string     `json:"unit"`
	Formation    string     `json:"formation"` // the formation it tried to form
	Enemy        string     `json:"enemy"`
	Distance     float64    `json:"distance"`
	Roll         RollRecord `json:"roll"`
	PassAtLeast  int        `json:"pass_at_least"`
	Passed       bool       `json:"passed"`
	ActionsUsed  int        `json:"actions_used,omitempty"`
	MovementUsed float64    `json:"movement_used,omitempty"`
}

// EventType implements Event.
func (*FormationTested) EventType() string { return EvFormationTested }

// Audience implements Event.
func (*FormationTested) Audience() string { return AudienceAll }
