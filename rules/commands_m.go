package rules

import "github.com/clubledger/ledger/rules/geom"

// Command names of the movement phase (M), generals (M.2) and the recorded
// combat outcomes (T.4).
const (
	// CmdMovementHandOver: the phasing side has moved; the next side moves (M.1).
	CmdMovementHandOver = "movement.hand_over"
	// CmdMarchDeclare: a brigade starts a tactical march (M.11, M.15).
	CmdMarchDeclare = "march.declare"
	// CmdUnitMarch: one unit of a marching brigade marches (M.12, M.13).
	CmdUnitMarch = "unit.march"
	// CmdBrigadeOrder: a brigade's order changes (T.6, M.15).
	CmdBrigadeOrder = "brigade.order"
	// CmdGeneralMove: an unattached general moves, and may join a unit (M.2).
	CmdGeneralMove = "general.move"
	// CmdGeneralDetach: an attached general leaves his unit (M.2).
	CmdGeneralDetach = "general.detach"
	// CmdUnitFire: a unit fired, as entered at the table (M.5, T.4).
	CmdUnitFire = "unit.fire"
	// CmdCombatRecord: a combat outcome entered at the table (T.4, M.17).
	CmdCombatRecord = "combat.record"
)

// HandOverMovement (movement.hand_over) ends the moves of the side moving in
// the movement phase and gives the phase to the next side (M.1: the phasing
// side moves all its units first, then the other). The phasing side's
// phase.end still ends the whole movement phase, so a side with nothing to
// move need not hand over.
type HandOverMovement struct {
	Side string `json:"side"`
}

// CommandName implements Command.
func (*HandOverMovement) CommandName() string { return CmdMovementHandOver }

// DeclareMarch (march.declare) starts a brigade's tactical march this turn
// (M.11): the order allows it and all its units stand in march formations.
// Within the side's number of marches a turn (M.15) it is granted; beyond
// it, Initiative asks the brigadier's initiative roll for one more.
type DeclareMarch struct {
	Brigade    string `json:"brigade"`
	Initiative bool   `json:"initiative,omitempty"`
}

// CommandName implements Command.
func (*DeclareMarch) CommandName() string { return CmdMarchDeclare }

// MarchUnit (unit.march) marches one unit of a brigade whose march was
// declared, at the M.12 speed, along a path as unit.move's. A unit that
// comes within the M.13 distance of an enemy stops there: the engine cuts
// the path at that point and records it.
type MarchUnit struct {
	Unit   string     `json:"unit"`
	To     geom.Vec   `json:"to"`
	Facing *float64   `json:"facing,omitempty"`
	Path   []Waypoint `json:"path,omitempty"`
}

// CommandName implements Command.
func (*MarchUnit) CommandName() string { return CmdUnitMarch }

// ChangeBrigadeOrder (brigade.order) changes a brigade's order (T.6): by
// the brigadier's order-change initiative, a recorded roll (M.15), or by
// the umpire's word (ByUmpire, no roll).
type ChangeBrigadeOrder struct {
	Brigade  string `json:"brigade"`
	Order    string `json:"order"`
	ByUmpire bool   `json:"by_umpire,omitempty"`
}

// CommandName implements Command.
func (*ChangeBrigadeOrder) CommandName() string { return CmdBrigadeOrder }

// MoveGeneral (general.move) moves an unattached general in the movement
// phase up to his full distance (M.2), in a straight line to To. Join names
// a unit of his side he ends in base contact with: he joins it and moves
// with it from then on.
type MoveGeneral struct {
	General string   `json:"general"`
	To      geom.Vec `json:"to"`
	Join    string   `json:"join,omitempty"`
}

// CommandName implements Command.
func (*MoveGeneral) CommandName() string { return CmdGeneralMove }

// DetachGeneral (general.detach) makes an attached general leave his unit in
// the movement phase (M.2); he may then move on his own.
type DetachGeneral struct {
	General string `json:"general"`
}

// CommandName implements Command.
func (*DetachGeneral) CommandName() string { return CmdGeneralDetach }

// FireUnit (unit.fire) records that a unit fired (the texts give no firing
// rules: the fact is entered). Under movement_table it halves the unit's
// move this turn (M.5).
type FireUnit struct {
	Unit      string `json:"unit"`
	Target    string `json:"target,omitempty"`
	EnteredBy string `json:"entered_by,omitempty"`
	Note      string `json:"note,omitempty"`
}

// CommandName implements Command.
func (*FireUnit) CommandName() string { return CmdUnitFire }

// Combat results entered by combat.record (T.4).
const (
	ResultCasualties = "casualties" // Markers added (or removed, negative)
	ResultDisorder   = "disorder"   // the unit becomes disordered (M.8)
	ResultRetreat    = "retreat"    // it retreats (M.17 for cavalry and horse artillery)
	ResultRout       = "rout"       // it routs (M.17 likewise)
	ResultRally      = "rally"      // a disordered, retreating or routed unit is in good order again
	ResultDestroyed  = "destroyed"  // it is removed
)

var combatResults = []string{ResultCasualties, ResultDisorder, ResultRetreat, ResultRout, ResultRally, ResultDestroyed}

// RecordCombat (combat.record) enters one combat outcome for a unit (T.4):
// the texts give no firing or melee rules, so outcomes are entered, not
// judged, and the ledger keeps the state consistent. Markers adds casualty
// markers (negative removes) with any result. A retreat or rout moves the
// unit straight from its centre toward Toward: cavalry and horse artillery
// go the M.17 distance (a fraction of the fixed distance plus a recorded
// roll); other units go Distance, as entered. Facing (nil: keep it) is its
// facing at the end. A unit that would not end wholly on the table leaves it.
type RecordCombat struct {
	Unit      string    `json:"unit"`
	Result    string    `json:"result"`
	Markers   int       `json:"markers,omitempty"`
	Toward    *geom.Vec `json:"toward,omitempty"`
	Distance  float64   `json:"distance,omitempty"`
	Facing    *float64  `json:"facing,omitempty"`
	EnteredBy string    `json:"entered_by,omitempty"`
	Note      string    `json:"note,omitempty"`
}

// CommandName implements Command.
func (*RecordCombat) CommandName() string { return CmdCombatRecord }
