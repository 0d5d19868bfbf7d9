// The commands the rules take and the events they record, registered in
// one place: commandTable and eventTable. A new command or event is one row
// here and its chapter's types and functions; event type names are
// persisted forever, never renamed or reused (docs/architecture.md).

package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
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

// commandEntry is one command the rules take: its name, a fresh value to
// decode its body into, and the decision.
type commandEntry struct {
	name   string
	new    func() Command
	decide decider
}

// decider judges a command in a state with the dice it may roll.
type decider func(s *State, c Command, dice Dice) ([]Event, *Refusal, error)

// decides adapts a decision that rolls no dice.
func decides[C Command](f func(*State, C) ([]Event, *Refusal)) decider {
	return func(s *State, c Command, _ Dice) ([]Event, *Refusal, error) {
		cc, ok := c.(C)
		if !ok {
			return nil, refuse(RuleInput, "unknown_command", "unknown command %q", c.CommandName()), nil
		}
		evs, r := f(s, cc)
		return evs, r, nil
	}
}

// rolls adapts a decision that may roll dice.
func rolls[C Command](f func(*State, C, Dice) ([]Event, *Refusal, error)) decider {
	return func(s *State, c Command, dice Dice) ([]Event, *Refusal, error) {
		cc, ok := c.(C)
		if !ok {
			return nil, refuse(RuleInput, "unknown_command", "unknown command %q", c.CommandName()), nil
		}
		return f(s, cc, dice)
	}
}

// eventEntry is one event type the rules record: its name, schema version
// and documentation, a fresh value to decode a payload into, and how its
// chapter applies and describes it.
type eventEntry struct {
	name     string
	schema   int
	doc      string
	new      func() Event
	apply    func(*State, Event)
	describe func(Event) string
}

// commandTable is every command, by chapter of the rules.
var commandTable = []commandEntry{
	// The battle's life cycle (battle.go)
	{CmdBattleCreate, func() Command { return &CreateBattle{} }, decides(decideCreate)},
	{CmdArmyDeploy, func() Command { return &DeployArmy{} }, decides(decideDeploy)},
	{CmdBattleStart, func() Command { return &StartBattle{} }, decides(decideStart)},
	{CmdPhaseEnd, func() Command { return &EndPhase{} }, decides(decideEndPhase)},
	{CmdBattleEnd, func() Command { return &EndBattle{} }, decides(decideEndBattle)},
	// The command phase (command.go)
	{CmdOrderGive, func() Command { return &GiveOrder{} }, rolls(decideOrder)},
	{CmdInitiativeTake, func() Command { return &TakeInitiative{} }, decides(decideInitiative)},
	{CmdInitiativeDecline, func() Command { return &DeclineInitiative{} }, decides(decideDecline)},
	// Moves, formation changes and generals (movement.go)
	{CmdUnitMove, func() Command { return &MoveUnit{} }, decides(decideMove)},
	{CmdUnitReform, func() Command { return &ReformUnit{} }, rolls(decideReform)},
	{CmdMovementHandOver, func() Command { return &HandOverMovement{} }, decides(decideHandOver)},
	{CmdGeneralMove, func() Command { return &MoveGeneral{} }, decides(decideGeneralMove)},
	{CmdGeneralDetach, func() Command { return &DetachGeneral{} }, decides(decideGeneralDetach)},
	// Tactical marches (march.go)
	{CmdMarchDeclare, func() Command { return &DeclareMarch{} }, rolls(decideDeclareMarch)},
	{CmdUnitMarch, func() Command { return &MarchUnit{} }, decides(decideMarch)},
	{CmdBrigadeOrder, func() Command { return &ChangeBrigadeOrder{} }, rolls(decideBrigadeOrder)},
	// Charges (charge.go)
	{CmdUnitCharge, func() Command { return &ChargeUnit{} }, decides(decideCharge)},
	// Combat outcomes (combat.go)
	{CmdUnitFire, func() Command { return &FireUnit{} }, decides(decideFire)},
	{CmdCombatRecord, func() Command { return &RecordCombat{} }, rolls(decideCombat)},
	// Flank marches (flank.go)
	{CmdFlankDeclare, func() Command { return &DeclareFlankMarch{} }, rolls(decideFlankDeclare)},
	{CmdFlankChooseEntry, func() Command { return &ChooseFlankEntry{} }, decides(decideFlankChooseEntry)},
	{CmdFlankEnter, func() Command { return &EnterFlank{} }, decides(decideFlankEnter)},
	{CmdFlankRally, func() Command { return &RallyFlankMarcher{} }, decides(decideFlankRally)},
	// Victory (victory.go)
	{CmdObjectiveHold, func() Command { return &HoldObjective{} }, decides(decideObjectiveHold)},
	// Retractions and disputes (dispute.go)
	{CmdRetractRequest, func() Command { return &RequestRetract{} }, decides(decideRetractRequest)},
	{CmdRetractAgree, func() Command { return &AgreeRetract{} }, decides(decideRetractAgree)},
	{CmdRetractDecline, func() Command { return &DeclineRetract{} }, decides(decideRetractDecline)},
	{CmdDisputeRaise, func() Command { return &RaiseDispute{} }, decides(decideRaise)},
	{CmdDisputeUphold, func() Command { return &UpholdDispute{} }, decides(decideUphold)},
	{CmdDisputeDismiss, func() Command { return &DismissDispute{} }, decides(decideDismiss)},
	// Dice (dice.go)
	{CmdDiceAddSeed, func() Command { return &AddDiceSeed{} }, decides(decideAddSeed)},
}

// eventTable is every event type Decide can emit, by chapter of the rules.
var eventTable = []eventEntry{
	// The battle's life cycle (battle.go)
	{EvBattleCreated, 1, "A battle was opened: measurement, table, sides, who starts, turn limit and the full ruleset in force.", func() Event { return &BattleCreated{} }, applyBattle, describeBattle},
	{EvArmyDeployed, 1, "A side deployed its C-in-C, brigades and units (bases resolved from the ruleset).", func() Event { return &ArmyDeployed{} }, applyBattle, describeBattle},
	{EvBattleStarted, 1, "The battle began; the first side has the first turn (T.1).", func() Event { return &BattleStarted{} }, applyBattle, describeBattle},
	{EvTurnStarted, 1, "A turn began with its phasing side and first phase; the turn's bookkeeping is reset (T.1).", func() Event { return &TurnStarted{} }, applyBattle, describeBattle},
	{EvPhaseEnded, 1, "A phase of the current turn ended (T.2-T.4).", func() Event { return &PhaseEnded{} }, applyBattle, describeBattle},
	{EvPhaseStarted, 1, "The next phase of the current turn began (T.2-T.4).", func() Event { return &PhaseStarted{} }, applyBattle, describeBattle},
	{EvBattleEnded, 1, "The battle ended: turn limit, umpire or players (T.5).", func() Event { return &BattleEnded{} }, applyBattle, describeBattle},
	// The command phase (command.go)
	{EvOrderResolved, 1, "An order's roll was read against the general's modified rating: actions granted, failure or blunder (C.2-C.8, C.11, C.12).", func() Event { return &OrderResolved{} }, applyCommand, describeCommand},
	{EvInitiativeTaken, 1, "A unit took an initiative order: one action, no roll, an enemy within range (C.15).", func() Event { return &InitiativeTaken{} }, applyCommand, describeCommand},
	{EvInitiativeDeclined, 1, "A unit declined initiative to wait for its general's order (C.15).", func() Event { return &InitiativeDeclined{} }, applyCommand, describeCommand},
	{EvBlunderCarriedOut, 1, "A unit carried out its blunder-table result (C.5): the move the engine computed, and why it stopped.", func() Event { return &BlunderCarriedOut{} }, applyCommand, describeCommand},
	// Moves, formation changes and generals (movement.go)
	{EvUnitMoved, 1, "A unit moved with actions of its order (C.6, C.17), or its normal move in the movement phase (M.3); without a charge order, stopped 1\" short of an enemy its move would have reached (C.9).", func() Event { return &UnitMoved{} }, applyMovement, describeMovement},
	{EvUnitReformed, 1, "A unit changed formation, its command point staying in place (C.16); in the movement phase, re-forming (M.8), a deployment after its tactical march (M.14) or an M.4 change.", func() Event { return &UnitReformed{} }, applyMovement, describeMovement},
	{EvFormationTested, 1, "A unit changing formation near a formed close-order enemy took the formation test (M.9); on a failure it stays as it was.", func() Event { return &FormationTested{} }, applyMovement, describeMovement},
	{EvMovementHandedOver, 1, "The side moving in the movement phase finished; the next side moves (M.1).", func() Event { return &MovementHandedOver{} }, applyMovement, describeMovement},
	{EvGeneralMoved, 1, "An unattached general moved in the movement phase, and perhaps joined a unit (M.2).", func() Event { return &GeneralMoved{} }, applyMovement, describeMovement},
	{EvGeneralDetached, 1, "An attached general left his unit in the movement phase (M.2).", func() Event { return &GeneralDetached{} }, applyMovement, describeMovement},
	// Tactical marches (march.go)
	{EvMarchDeclared, 1, "A brigade's tactical march this turn: granted within the nation's number (M.15) or by a brigadier's initiative roll, or that roll failed (M.11, M.15).", func() Event { return &MarchDeclared{} }, applyMarch, describeMarch},
	{EvUnitMarched, 1, "A unit of a marching brigade marched (M.12); stopped where it came within the M.13 distance of an enemy.", func() Event { return &UnitMarched{} }, applyMarch, describeMarch},
	{EvBrigadeOrderChange, 1, "A brigade's order changed by the umpire, or a brigadier's order-change initiative roll (T.6, M.15) succeeded or failed.", func() Event { return &BrigadeOrderChanged{} }, applyMarch, describeMarch},
	// Charges (charge.go)
	{EvChargeDeclared, 1, "A unit charged as an action (C.6, C.9) into contact: the side hit, the leader point's path with its one turn, the placement and the terrain crossed (K.4-K.8). Older events may be pending (no move).", func() Event { return &ChargeDeclared{} }, applyCharge, describeCharge},
	{EvChargePushedBack, 1, "An enemy unit a charger ended touching, other than its target, moved back the gap (1\") if the room behind it allowed, else as far as the room allowed (K.9).", func() Event { return &ChargePushedBack{} }, applyCharge, describeCharge},
	// Combat outcomes (combat.go)
	{EvUnitFired, 1, "A unit fired, as entered at the table (M.5, T.4).", func() Event { return &UnitFired{} }, applyCombat, describeCombat},
	{EvCombatRecorded, 1, "A combat outcome entered at the table: casualty markers, disorder, retreat or rout (M.17 distance), rally, destruction (T.4).", func() Event { return &CombatRecorded{} }, applyCombat, describeCombat},
	// Flank marches (flank_events.go)
	{EvFlankDeclared, 1, "A flank march declared openly by its table edge only, with the commitment (SHA-256) to its sealed orders and the arrival roll: the turn it may enter, where, or lost (F.1, F.2, F.8).", func() Event { return &FlankDeclared{} }, applyFlank, describeFlank},
	{EvFlankFightResolved, 1, "Two sides' flank marches met on one edge: their sizes, by how much the larger outnumbers the smaller, the mutual-flank-march table's result and each march's new arrival (F.10).", func() Event { return &FlankFightResolved{} }, applyFlank, describeFlank},
	{EvFlankEntryChosen, 1, "The opponent chose the point of the edge where a flank march arriving at the opponent's choice enters (F.4).", func() Event { return &FlankEntryChosen{} }, applyFlank, describeFlank},
	{EvFlankRevealed, 1, "A flank march's sealed orders revealed, as the exact text its commitment hashes: when it arrives (its units join off the table) or, if it never did, when the battle ends (F.1, F.9).", func() Event { return &FlankRevealed{} }, applyFlank, describeFlank},
	{EvFlankUnitEntered, 1, "A flank-marching unit came on at its march's entry point and moved at full speed (F.3, F.5).", func() Event { return &FlankUnitEntered{} }, applyFlank, describeFlank},
	{EvFlankRallied, 1, "A flank marcher that left the table was rallied off it and waits to enter again with its march (F.7).", func() Event { return &FlankRallied{} }, applyFlank, describeFlank},
	// Victory (victory.go)
	{EvObjectiveHeld, 1, "Who holds a scenario objective, as the umpire judges it; the holder at the end scores its value (V.2).", func() Event { return &ObjectiveHeld{} }, applyVictory, describeVictory},
	{EvBattleScored, 1, "Each side's victory points as the battle ends: enemy units destroyed or gone off the table, objectives held; flank marchers that never came on, lost ones above all, counted for neither side (V.1-V.3, F.9).", func() Event { return &BattleScored{} }, applyVictory, describeVictory},
	// Retractions and disputes (dispute_events.go)
	{EvRetractRequested, 1, "A player asked to take back their last command (no die rolled since); what it would restore, and what the command left, are recorded. The opponent agrees or declines.", func() Event { return &RetractRequested{} }, applyDispute, describeDispute},
	{EvRetractDeclined, 1, "A retraction request was declined by the opponent or withdrawn; nothing changes.", func() Event { return &RetractDeclined{} }, applyDispute, describeDispute},
	{EvCommandRetracted, 1, "A command was taken back with the opponent's agreement: its events stay in the log, and this compensating event restores exactly what they changed (units, generals, the turn's actions).", func() Event { return &CommandRetracted{} }, applyDispute, describeDispute},
	{EvDisputeRaised, 1, "A player disputed an event of the battle, with a reason; the umpire rules on it.", func() Event { return &DisputeRaised{} }, applyDispute, describeDispute},
	{EvDisputeUpheld, 1, "The umpire upheld a dispute, with a ruling; the corrections that follow point at the disputed event, which stays in the log.", func() Event { return &DisputeUpheld{} }, applyDispute, describeDispute},
	{EvDisputeDismissed, 1, "The umpire dismissed a dispute, with a ruling; nothing changes.", func() Event { return &DisputeDismissed{} }, applyDispute, describeDispute},
	{EvUnitCorrected, 1, "The umpire corrected a unit (base, formation, markers, status, actions left) as an upheld dispute ruled; the values before are recorded.", func() Event { return &UnitCorrected{} }, applyDispute, describeDispute},
	{EvOrderCorrected, 1, "The disputed order resolved again by the rules from its corrected inputs (the dice as thrown, the general, where he stood, who was on a road), and what follows from it set on the table now: actions, a blunder, a general's lock-out (C.2-C.14).", func() Event { return &OrderCorrected{} }, applyCorrection, describeCorrection},
	{EvCommandUndone, 1, "The disputed command's moves undone (a move, march or charge with its pushes, a formation change, a flank marcher's entry, a general's move): what the battle would be without them, later events standing; its events stay in the log.", func() Event { return &CommandUndone{} }, applyCorrection, describeCorrection},
	{EvGeneralCorrected, 1, "The umpire corrected a general: his position, the unit he is with, whether he gives more orders this turn; the values before are recorded.", func() Event { return &GeneralCorrected{} }, applyCorrection, describeCorrection},
	{EvFlankCorrected, 1, "The umpire corrected a flank march: its arrival roll as thrown (read on the arrival table), arrival turn, the point the opponent chose, or its loss; units it could not have brought on go back off the table (F.2-F.9).", func() Event { return &FlankCorrected{} }, applyCorrection, describeCorrection},
	{EvObjectiveCorrected, 1, "The umpire corrected who held an objective (V.2).", func() Event { return &ObjectiveCorrected{} }, applyCorrection, describeCorrection},
	{EvBattleRescored, 1, "An ended battle scored again by the rules from its corrected state, never typed in (V.1-V.3, F.9), with the score it replaces and the campaign's later battles that had started, which stand as played.", func() Event { return &BattleRescored{} }, applyCorrection, describeCorrection},
	// Dice (dice.go)
	{EvDiceRolled, 1, "One roll: counter, purpose, dice, faces, source and who entered them; replay reads it and never rolls again.", func() Event { return &DiceRolled{} }, applyDice, describeDice},
	{EvDiceCommitted, 1, "The SHA-256 commitment to a dice period's secret seed, recorded before its first roll.", func() Event { return &DiceCommitted{} }, applyDice, describeDice},
	{EvDiceSeedAdded, 1, "A player added a seed of their own to the current dice period, before its first roll.", func() Event { return &DiceSeedAdded{} }, applyDice, describeDice},
	{EvDiceRevealed, 1, "A dice period's secret seed, revealed when it ended and checked against its commitment.", func() Event { return &DiceRevealed{} }, applyDice, describeDice},
}

// commandIndex and eventIndex find the tables' rows by name. They are
// built in init, not as initialised variables, because the rows refer to
// decisions that themselves apply and describe events.
var (
	commandIndex map[string]*commandEntry
	eventIndex   map[string]*eventEntry
)

func init() {
	commandIndex = make(map[string]*commandEntry, len(commandTable))
	for i := range commandTable {
		c := &commandTable[i]
		if _, dup := commandIndex[c.name]; dup {
			panic("rules: command " + c.name + " registered twice")
		}
		commandIndex[c.name] = c
	}
	eventIndex = make(map[string]*eventEntry, len(eventTable))
	for i := range eventTable {
		e := &eventTable[i]
		if _, dup := eventIndex[e.name]; dup {
			panic("rules: event " + e.name + " registered twice")
		}
		eventIndex[e.name] = e
	}
}

// CommandNames returns every command name, sorted.
func CommandNames() []string {
	names := make([]string, 0, len(commandIndex))
	for n := range commandIndex {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DecodeCommand decodes a command body strictly: unknown fields and trailing
// data are errors, so a typo never silently drops part of a command.
func DecodeCommand(name string, body []byte) (Command, error) {
	en, ok := commandIndex[name]
	if !ok {
		return nil, fmt.Errorf("unknown command %q", name)
	}
	c := en.new()
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, &BodyError{Command: name, Words: BodyWords(err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &BodyError{Command: name, Words: words("trailing data after the command")}
	}
	return c, nil
}

// EventType describes one event type for registries and docs.
type EventType struct {
	Name   string
	Schema int
	Doc    string
}

// EventTypes returns every type Decide can emit, sorted by name.
func EventTypes() []EventType {
	out := make([]EventType, 0, len(eventIndex))
	for n, i := range eventIndex {
		out = append(out, EventType{Name: n, Schema: i.schema, Doc: i.doc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// decodeOptions are encoding/json's semantics but for its second scan of
// the input, as events.Decode has them.
var decodeOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// DecodeEvent decodes a stored payload. It is tolerant of unknown fields (a
// newer writer), unlike DecodeCommand.
func DecodeEvent(typ string, payload []byte) (Event, error) {
	i, ok := eventIndex[typ]
	if !ok {
		return nil, fmt.Errorf("unknown event type %q", typ)
	}
	e := i.new()
	// encoding/json's semantics, decoded as events.Decode decodes (see
	// there): in one scan, not a syntax check first and a decoding after.
	if err := jsonv2.Unmarshal(payload, e, decodeOptions); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, err)
	}
	return e, nil
}
