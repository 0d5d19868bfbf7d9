// The command phase (docs/rules.md C, seed 002): generals' orders, initiative
// and blunders; what every action of a unit checks (actingUnit) and how far
// a move action goes (moveAllowance). Orders: command_order.go; their odds:
// command_odds.go; initiative: command_initiative.go; blunders:
// command_blunder.go.

package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Command names of the command phase (C).
const (
	CmdOrderGive = "order.give"
	// CmdInitiativeTake is an initiative order (C.15).
	CmdInitiativeTake = "initiative.take"
	// CmdInitiativeDecline records that a unit waits for its general (C.15).
	CmdInitiativeDecline = "initiative.decline"
)

// Event type names of the command phase: persisted forever, never renamed
// or reused.
const (
	EvOrderResolved      = "order.resolved"
	EvInitiativeTaken    = "initiative.taken"
	EvInitiativeDeclined = "initiative.declined"
	EvBlunderCarriedOut  = "blunder.carried_out"
)

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

// Modifier is one C.7 modifier applied to a rating, with its reason.
// Kind names the modifier and the fields after it hold its numbers and
// names, so that the reason can be said in any language (i18n templates
// read them); Reason is the English the engine wrote.
type Modifier struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	// Words are the format and values Reason is printed from, for the
	// reader's language (i18n, phrase.modifier); not stored: an event's
	// modifier read back has its Reason only.
	Words Words `json:"-"`
	Value int   `json:"value"`
	// Kind is distance, enemy_near, attack_column, column_on_road or
	// column_off_road (absent in events recorded before it was).
	Kind string `json:"kind,omitempty"`
	// Unit is the recipient measured; Enemy the enemy near it.
	Unit  string `json:"unit,omitempty"`
	Enemy string `json:"enemy,omitempty"`
	// Distance was measured; Step is the distance modifier's step and
	// Steps the full steps in it; Range the enemy-near range.
	Distance float64 `json:"distance,omitempty"`
	Step     float64 `json:"step,omitempty"`
	Steps    int     `json:"steps,omitempty"`
	Range    float64 `json:"range,omitempty"`
	// Variant: the ЧП variant's range (C.7).
	Variant bool `json:"variant,omitempty"`
	// Formations qualify for a formation bonus; Road says how the road
	// was known: declared or terrain.
	Formations []string `json:"formations,omitempty"`
	Road       string   `json:"road,omitempty"`
}

// Kinds of C.7 modifiers (Modifier.Kind) and how a road was known.
const (
	ModDistance      = "distance"
	ModEnemyNear     = "enemy_near"
	ModAttackColumn  = "attack_column"
	ModColumnOnRoad  = "column_on_road"
	ModColumnOffRoad = "column_off_road"
	RoadDeclared     = "declared"
	RoadTerrain      = "terrain"
)

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

// specialRule is the rule of a special order: C.13 or C.14.
func specialRule(special string) string {
	if special == SpecialSteady {
		return "C.14"
	}
	return "C.13"
}

// actingUnit checks what every action command checks: the battle is in
// the phasing side's command phase, the unit is its own and on the table,
// it has an order or initiative this turn, and did not fail (C.3, C.4, C.5).
// C.12's one move after a failure is judged by unit.move itself.
func actingUnit(s *State, id string) (*Unit, UnitTurn, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, UnitTurn{}, r
	}
	u := s.Units[id]
	if u == nil {
		return nil, UnitTurn{}, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", id)
	}
	if u.Side != s.Phasing {
		return nil, UnitTurn{}, refuse("T.2", "not_phasing", "turn %d is %s's turn; unit %s of %s may not act", s.Turn, s.Phasing, u.ID, u.Side).with("turn", s.Turn)
	}
	if s.Phase != PhaseCommand {
		return nil, UnitTurn{}, refuse("T.3", "not_command_phase", "actions are carried out in the command phase; in the %s phase units move by unit.march, unit.move (movement_table) or re-form (M.8)", s.Phase)
	}
	if !u.active() {
		return nil, UnitTurn{}, refuse("T.4", "unit_inactive", "unit %s is %s and cannot act", u.ID, u.Status)
	}
	if u.Status == UnitRouted {
		return nil, UnitTurn{}, refuse("T.4", "unit_routed", "unit %s is routed: it moves only as its rout is recorded (combat.record), until it rallies", u.ID)
	}
	ut := s.TurnBook.peekUnit(u.ID)
	if r := orderRefusal(u, ut); r != nil {
		return nil, ut, r
	}
	return u, ut, nil
}

// orderRefusal refuses an action of a unit without actions of its own this
// turn: it blundered (C.5), failed (C.4), or had no order or initiative
// (C.3).
func orderRefusal(u *Unit, ut UnitTurn) *Refusal {
	switch {
	case ut.Failed && ut.Blundered:
		return refuse("C.5", "blundered", "unit %s blundered its order this turn: it carried out the blunder table and does nothing of its own", u.ID)
	case ut.Failed:
		return refuse("C.4", "unit_failed", "unit %s failed its order this turn and does nothing", u.ID)
	case ut.Orders == 0 && !ut.Initiative:
		return refuse("C.3", "no_order", "unit %s has no order this turn, so no actions", u.ID)
	}
	return nil
}

// moveAllowance is the C.17 distance per move action of u, checked against
// the type's cap of moves a turn, with the label messages use
// (phrase.label: the type, and the formation when it moves its own pace).
func moveAllowance(s *State, u *Unit, ut UnitTurn, actions int) (per float64, label Words, r *Refusal) {
	m := s.Measurement
	t := s.Ruleset.UnitTypes[u.Type]
	per, maxPerTurn := t.Move(u.Formation, m)
	label = words("%s", u.Type)
	if _, ok := t.FormationMoves[u.Formation]; ok {
		label = words("%s %s", u.Type, u.Formation)
	}
	if per <= 0 {
		return 0, label, refuse("C.17", "cannot_move", "%s moves %s per action: unit %s cannot move", label, fmtLen(per, m), u.ID).with("per_action", per)
	}
	if maxPerTurn > 0 && ut.MoveActions+actions > maxPerTurn {
		return 0, label, refuse("C.17", "moves_per_turn", "%s makes at most %s a turn; unit %s has made %d", label, plural(maxPerTurn, "move", "moves"), u.ID, ut.MoveActions).
			with("max_moves", maxPerTurn, "moves_made", ut.MoveActions, "actions", actions)
	}
	return per, label, nil
}

// applyCommand folds the events of the command phase: orders, initiative,
// blunders.
func applyCommand(s *State, e Event) {
	switch ev := e.(type) {
	case *OrderResolved:
		tb := &s.TurnBook
		if ev.ClosedGeneral != "" {
			cg := tb.general(ev.ClosedGeneral)
			if !cg.Done {
				cg.Done, cg.Reason = true, "C.10"
			}
		}
		tb.CurrentGeneral = ev.General
		g := tb.general(ev.General)
		g.Orders++
		if ev.GeneralDone {
			g.Done, g.Reason = true, "C.4"
		}
		if ev.Special != "" {
			g.Done, g.Reason = true, specialRule(ev.Special)
		}
		if ev.OrdersClosed {
			tb.OrdersClosed = true
		}
		tb.InitiativeClosed = true
		for _, id := range ev.InitiativeForfeited {
			tb.unit(id).ActionsLeft = 0
		}
		if ev.Attached != "" {
			s.attach(ev.General, ev.Attached)
			if u := s.Units[ev.Attached]; u != nil {
				u.Markers -= ev.MarkersRemoved
			}
		}
		for _, id := range ev.Units {
			ut := tb.unit(id)
			ut.Orders++
			if ev.Outcome == OutcomeActions || ev.Outcome == OutcomeSuccess {
				ut.ActionsGranted += ev.Actions
				ut.ActionsLeft += ev.Actions
				if ev.Content.Action == ActionCharge || (ev.Special == SpecialFollowMe && ev.Outcome == OutcomeSuccess) {
					ut.MayCharge = true
				}
				continue
			}
			ut.Failed = true
			ut.Blundered = ev.Outcome == OutcomeBlunder
			if slices.Contains(ev.FailedMoves, id) {
				ut.FailedMoves = ev.FailedMoveActions
			}
		}
	case *InitiativeTaken:
		ut := s.TurnBook.unit(ev.Unit)
		ut.Initiative, ut.InitiativeAction, ut.InitiativeFormation = true, ev.Content.Action, ev.Content.Formation
		ut.ActionsGranted += ev.Actions
		ut.ActionsLeft += ev.Actions
		if ev.Content.Action == ActionCharge {
			ut.MayCharge = true
		}
	case *InitiativeDeclined:
		s.TurnBook.unit(ev.Unit).Declined = true
	case *BlunderCarriedOut:
		if u := s.Units[ev.Unit]; u != nil {
			u.Base = ev.To
			s.followUnit(ev.Unit)
		}
	}
}

// describeCommand says the events of the command phase in words.
func describeCommand(e Event) string {
	switch ev := e.(type) {
	case *OrderResolved:
		if ev.Summary != "" {
			return fmt.Sprintf("%s orders %s: %s", ev.General, strings.Join(ev.Units, ", "), ev.Summary)
		}
		return fmt.Sprintf("%s orders %s: %s, %d actions", ev.General, strings.Join(ev.Units, ", "), ev.Outcome, ev.Actions)
	case *InitiativeTaken:
		what := ev.Content.Action
		if ev.Content.Formation != "" {
			what += " to " + ev.Content.Formation
		}
		if ev.Content.Target != "" {
			what += " " + ev.Content.Target
		}
		return fmt.Sprintf("%s takes initiative (C.15): %s to %s, no roll; enemy %s is %.1f away, within %g", ev.Unit, plural(ev.Actions, "action", "actions"), what, ev.Enemy, ev.Distance, ev.Range)
	case *InitiativeDeclined:
		return fmt.Sprintf("%s declines initiative and waits for its general (C.15)", ev.Unit)
	case *BlunderCarriedOut:
		s := fmt.Sprintf("%s blundered (C.5, table %d: %s)", ev.Unit, ev.Roll, ev.Result)
		switch {
		case ev.Contact:
			s += fmt.Sprintf(": charged %s, %.1f into contact", ev.Target, ev.Distance)
		case ev.Result == BlunderHold:
			s += ": stands still"
		default:
			s += fmt.Sprintf(": moved %.1f of %.1f, (%.1f,%.1f) -> (%.1f,%.1f)", ev.Distance, ev.Planned, ev.From.Center.X, ev.From.Center.Y, ev.To.Center.X, ev.To.Center.Y)
		}
		if ev.Stopped != "" {
			s += "; " + ev.Stopped
		}
		return s
	}
	return ""
}
