// The commands the rules take and the events they record, registered in
// one place.

package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Command is a request to change a battle, decoded from JSON. The service
// stamps actor, time and command id outside; the rules see only the body.
type Command interface {
	// CommandName is the persisted name ("order.give").
	CommandName() string
}

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
