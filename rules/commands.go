package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/clubledger/ledger/rules/geom"
)

// Command is a request to change a battle, decoded from JSON. The service
// stamps actor, time and command id outside; the rules see only the body.
type Command interface {
	// CommandName is the persisted name ("order.give").
	CommandName() string
}

// Command names.
const (
	CmdBattleCreate = "battle.create"
	CmdArmyDeploy   = "army.deploy"
	CmdBattleStart  = "battle.start"
	CmdPhaseEnd     = "phase.end"
	CmdOrderGive    = "order.give"
	CmdUnitMove     = "unit.move"
	CmdBattleEnd    = "battle.end"
	// CmdInitiativeTake is an initiative order (C.15).
	CmdInitiativeTake = "initiative.take"
	// CmdInitiativeDecline records that a unit waits for its general (C.15).
	CmdInitiativeDecline = "initiative.decline"
	// CmdUnitReform is a formation change (C.16).
	CmdUnitReform = "unit.reform"
	// CmdUnitCharge is a charge action (C.6, C.9).
	CmdUnitCharge = "unit.charge"
)

var commandFactories = map[string]func() Command{
	CmdBattleCreate: func() Command { return &CreateBattle{} },
	CmdArmyDeploy:   func() Command { return &DeployArmy{} },
	CmdBattleStart:  func() Command { return &StartBattle{} },
	CmdPhaseEnd:     func() Command { return &EndPhase{} },
	CmdOrderGive:    func() Command { return &GiveOrder{} },
	CmdUnitMove:     func() Command { return &MoveUnit{} },
	CmdBattleEnd:    func() Command { return &EndBattle{} },
	CmdDiceAddSeed:  func() Command { return &AddDiceSeed{} },

	CmdInitiativeTake:    func() Command { return &TakeInitiative{} },
	CmdInitiativeDecline: func() Command { return &DeclineInitiative{} },
	CmdUnitReform:        func() Command { return &ReformUnit{} },
	CmdUnitCharge:        func() Command { return &ChargeUnit{} },

	CmdMovementHandOver: func() Command { return &HandOverMovement{} },
	CmdMarchDeclare:     func() Command { return &DeclareMarch{} },
	CmdUnitMarch:        func() Command { return &MarchUnit{} },
	CmdBrigadeOrder:     func() Command { return &ChangeBrigadeOrder{} },
	CmdGeneralMove:      func() Command { return &MoveGeneral{} },
	CmdGeneralDetach:    func() Command { return &DetachGeneral{} },
	CmdUnitFire:         func() Command { return &FireUnit{} },
	CmdCombatRecord:     func() Command { return &RecordCombat{} },
}

// CommandNames returns every command name, sorted.
func CommandNames() []string {
	names := make([]string, 0, len(commandFactories))
	for n := range commandFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DecodeCommand decodes a command body strictly: unknown fields and trailing
// data are errors, so a typo never silently drops part of a command.
func DecodeCommand(name string, body []byte) (Command, error) {
	f, ok := commandFactories[name]
	if !ok {
		return nil, fmt.Errorf("unknown command %q", name)
	}
	c := f()
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, fmt.Errorf("decode %s: %w", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("decode %s: trailing data after the command", name)
	}
	return c, nil
}

// SideSpec names a side at battle.create.
type SideSpec struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Nation string `json:"nation,omitempty"`
	Player string `json:"player,omitempty"`
}

// CreateBattle (battle.create) opens a battle: measurement system, table,
// sides, who starts (T.1), the turn limit and an optional ruleset overlay
// (YAML text over the default ruleset).
type CreateBattle struct {
	Battle      string     `json:"battle"`
	Campaign    string     `json:"campaign,omitempty"`
	Name        string     `json:"name,omitempty"`
	Measurement string     `json:"measurement,omitempty"` // "in" or "cm"; the ruleset's default when empty
	Table       geom.Table `json:"table"`
	Sides       []SideSpec `json:"sides"`
	FirstSide   string     `json:"first_side"`
	TurnLimit   int        `json:"turn_limit,omitempty"`
	Ruleset     string     `json:"ruleset,omitempty"`
	// Terrain is the table's terrain pieces: name, kind (comma-separated
	// flags: impassable, difficult, road, blocks-sight) and outline.
	Terrain []geom.Terrain `json:"terrain,omitempty"`
	// Objectives are the scenario's objectives and their values (V.2).
	Objectives []Objective `json:"objectives,omitempty"`
}

// CommandName implements Command.
func (*CreateBattle) CommandName() string { return CmdBattleCreate }

// CommanderSpec is the C-in-C at deployment.
type CommanderSpec struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Rating   int      `json:"rating"`
	Position geom.Vec `json:"position"`
	Gifted   bool     `json:"gifted,omitempty"`
}

// GeneralSpec is a brigade's general at deployment.
type GeneralSpec struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Rating   int      `json:"rating"`
	Position geom.Vec `json:"position"`
}

// UnitSpec is a unit at deployment. Position is the centre of its base;
// Width and Depth default to the ruleset's base for its type and formation;
// Formation defaults to the type's default formation.
type UnitSpec struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Formation string   `json:"formation,omitempty"`
	Position  geom.Vec `json:"position"`
	Facing    float64  `json:"facing"`
	Width     float64  `json:"width,omitempty"`
	Depth     float64  `json:"depth,omitempty"`
	Markers   int      `json:"markers,omitempty"`
}

// BrigadeSpec is a brigade at deployment.
type BrigadeSpec struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Order   string      `json:"order"`
	General GeneralSpec `json:"general"`
	Units   []UnitSpec  `json:"units"`
}

// DeployArmy (army.deploy) places one side's C-in-C, brigades and units.
type DeployArmy struct {
	Side     string        `json:"side"`
	CInC     CommanderSpec `json:"c_in_c"`
	Brigades []BrigadeSpec `json:"brigades"`
}

// CommandName implements Command.
func (*DeployArmy) CommandName() string { return CmdArmyDeploy }

// StartBattle (battle.start) begins turn 1 once every side is deployed.
type StartBattle struct {
	sealing
}

// CommandName implements Command.
func (*StartBattle) CommandName() string { return CmdBattleStart }

// EndPhase (phase.end) closes the current phase; Side must be the phasing side.
type EndPhase struct {
	Side string `json:"side"`
	sealing
}

// CommandName implements Command.
func (*EndPhase) CommandName() string { return CmdPhaseEnd }

// Order content actions (C.2, C.6, C.9).
const (
	ActionMove      = "move"
	ActionFormation = "formation"
	ActionCharge    = "charge"
)

// OrderContent is what a general orders (C.2): its kind, an optional target
// formation or unit, and the words said at the table.
type OrderContent struct {
	Action    string `json:"action"`              // move | formation | charge
	Formation string `json:"formation,omitempty"` // for "formation"
	Target    string `json:"target,omitempty"`    // enemy unit for "charge"
	Text      string `json:"text,omitempty"`      // "march to the hill and form line"
}

// Special orders (C.13, C.14), named in GiveOrder.Special.
const (
	SpecialFollowMe = "follow_me"
	SpecialSteady   = "steady"
)

// GiveOrder (order.give) is one order of a general or the C-in-C to one unit
// or a group (C.2, C.8), resolved with a roll (C.3). Special makes it
// "Follow me!" or "Steady!" (C.13, C.14): one unit, the general's last order
// of the turn; its content may then be left empty (C.13: shouting "Follow
// me!" is enough).
type GiveOrder struct {
	General string       `json:"general"`
	Units   []string     `json:"units"`
	Content OrderContent `json:"content"`
	Special string       `json:"special,omitempty"` // "", follow_me or steady
	// OnRoad lists the recipients the player declares standing on a road,
	// for the C.7 column bonus, until terrain is modelled.
	OnRoad []string `json:"on_road,omitempty"`
}

// CommandName implements Command.
func (*GiveOrder) CommandName() string { return CmdOrderGive }

// MoveUnit (unit.move) moves a unit: in the command phase with actions
// from its order (C.6, C.17; Actions defaults to 1), in the movement phase
// as its M.3 normal move under the movement_table option (no actions). The
// base's centre goes from where it stands through Path's waypoints to To in
// straight legs; a waypoint with a facing turns the unit on the spot there,
// and Facing (nil: keep it) turns it at the end. The move costs the
// centre's path, plus the turns (movement.turn_cost) and difficult terrain
// (movement.difficult_terrain). Evading marks horse artillery evading,
// which M.10 exempts.
type MoveUnit struct {
	Unit    string     `json:"unit"`
	To      geom.Vec   `json:"to"`
	Facing  *float64   `json:"facing,omitempty"`
	Path    []Waypoint `json:"path,omitempty"`
	Actions int        `json:"actions,omitempty"`
	Evading bool       `json:"evading,omitempty"`
}

// CommandName implements Command.
func (*MoveUnit) CommandName() string { return CmdUnitMove }

// EndBattle (battle.end) ends the battle by the umpire's or both players' word (T.5).
type EndBattle struct {
	Reason string `json:"reason"`
	sealing
}

// CommandName implements Command.
func (*EndBattle) CommandName() string { return CmdBattleEnd }

// TakeInitiative (initiative.take) is an initiative order (C.15): the unit's
// own commander gives it one action, no roll, when an enemy is within the
// ruleset's range, before any general's order of the turn. Content.Action
// is the one action: move, formation (Content.Formation optional) or charge
// (Content.Target optional). The unit then carries it out with unit.move,
// unit.reform or unit.charge.
type TakeInitiative struct {
	Unit    string       `json:"unit"`
	Content OrderContent `json:"content"`
}

// CommandName implements Command.
func (*TakeInitiative) CommandName() string { return CmdInitiativeTake }

// DeclineInitiative (initiative.decline) records that a unit that could take
// initiative waits for its general's order instead (C.15). Declining is
// optional: a unit that simply takes no initiative has declined too.
type DeclineInitiative struct {
	Unit string `json:"unit"`
}

// CommandName implements Command.
func (*DeclineInitiative) CommandName() string { return CmdInitiativeDecline }

// ReformUnit (unit.reform) changes a unit's formation with one whole action
// (C.16): the command point, the middle of its front edge, stays where it
// is; the unit may pivot on it to Facing (nil keeps the facing). The new
// base takes the ruleset's size for the new formation.
type ReformUnit struct {
	Unit      string   `json:"unit"`
	Formation string   `json:"formation"`
	Facing    *float64 `json:"facing,omitempty"`
}

// CommandName implements Command.
func (*ReformUnit) CommandName() string { return CmdUnitReform }

// ChargeUnit (unit.charge) is a charge as one action (C.6, C.9): allowed only
// when the unit's order said "charge" (or "Follow me!", or an initiative
// charge). Actions defaults to 1 (more actions reach farther).
type ChargeUnit struct {
	Unit    string `json:"unit"`
	Target  string `json:"target"`
	Actions int    `json:"actions,omitempty"`
}

// CommandName implements Command.
func (*ChargeUnit) CommandName() string { return CmdUnitCharge }
