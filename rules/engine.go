// Decide, Apply and Describe: the three things the engine does with the
// commands and events of every chapter (registry.go lists them).

package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Decide judges cmd against s and returns the events that record what
// happened, or an error: a *Refusal when the rules do not allow the command,
// or a wrapped dice error (ErrNoDice, ErrBadRoll, the source's own) when a
// roll could not be had. It never changes s. Every roll it needs is asked of
// dice and recorded as a dice.rolled event before the event it feeds.
func Decide(s *State, cmd Command, dice Dice) ([]Event, error) {
	if s == nil {
		s = NewState()
	}
	if cmd == nil {
		return nil, refuse(RuleInput, "no_command", "no command")
	}
	if _, ok := cmd.(*CreateBattle); !ok {
		if s.Status == StatusNew || s.Ruleset == nil {
			return nil, refuse(RuleBattle, "no_battle", "no battle has been created yet")
		}
		if s.Status == StatusEnded && !IsDisputeCommand(cmd.CommandName()) {
			return nil, refuse("T.5", "battle_ended", "the battle has ended (%s)", s.EndReason)
		}
	}
	var evs []Event
	var r *Refusal
	var err error
	switch c := cmd.(type) {
	case *CreateBattle:
		evs, r = decideCreate(s, c)
	case *DeployArmy:
		evs, r = decideDeploy(s, c)
	case *StartBattle:
		evs, r = decideStart(s, c)
	case *EndPhase:
		evs, r = decideEndPhase(s, c)
	case *EndBattle:
		evs, r = decideEndBattle(s, c)
	case *GiveOrder:
		evs, r, err = decideOrder(s, c, dice)
	case *MoveUnit:
		evs, r = decideMove(s, c)
	case *AddDiceSeed:
		evs, r = decideAddSeed(s, c)
	case *TakeInitiative:
		evs, r = decideInitiative(s, c)
	case *DeclineInitiative:
		evs, r = decideDecline(s, c)
	case *ReformUnit:
		evs, r, err = decideReform(s, c, dice)
	case *ChargeUnit:
		evs, r = decideCharge(s, c)
	case *HandOverMovement:
		evs, r = decideHandOver(s, c)
	case *DeclareMarch:
		evs, r, err = decideDeclareMarch(s, c, dice)
	case *MarchUnit:
		evs, r = decideMarch(s, c)
	case *ChangeBrigadeOrder:
		evs, r, err = decideBrigadeOrder(s, c, dice)
	case *MoveGeneral:
		evs, r = decideGeneralMove(s, c)
	case *DetachGeneral:
		evs, r = decideGeneralDetach(s, c)
	case *FireUnit:
		evs, r = decideFire(s, c)
	case *RecordCombat:
		evs, r, err = decideCombat(s, c, dice)
	case *DeclareFlankMarch, *ChooseFlankEntry, *EnterFlank, *RallyFlankMarcher, *HoldObjective:
		evs, r, err = decideFlankVictory(s, c, dice)
	case *RequestRetract, *AgreeRetract, *DeclineRetract, *RaiseDispute, *UpholdDispute, *DismissDispute:
		evs, r = decideDispute(s, c)
	default:
		return nil, refuse(RuleInput, "unknown_command", "unknown command %q", cmd.CommandName())
	}
	if err != nil {
		return nil, err
	}
	if r != nil {
		return nil, r
	}
	return evs, nil
}

// Apply folds one event into s. It never fails and never validates: Decide
// judged the command, the event is a fact. Events that do not fit s (as a
// fuzzer may send) change what they can and are otherwise ignored.
func Apply(s *State, e Event) {
	if s == nil || e == nil {
		return
	}
	if s.Units == nil {
		s.Units = map[string]*Unit{}
	}
	switch ev := e.(type) {
	case *BattleCreated:
		s.Battle, s.Campaign, s.Name = ev.Battle, ev.Campaign, ev.Name
		s.Measurement, s.Table = ev.Measurement, ev.Table
		s.Ruleset = ev.Ruleset
		s.Terrain = ev.Terrain
		s.Victory.Objectives = ev.Objectives
		s.FirstSide, s.TurnLimit = ev.FirstSide, ev.TurnLimit
		s.Sides = nil
		for _, sd := range ev.Sides {
			s.Sides = append(s.Sides, Side{ID: sd.ID, Name: sd.Name, Nation: sd.Nation, Player: sd.Player})
		}
		s.Status = StatusSetup
	case *ArmyDeployed:
		sd := s.side(ev.Side)
		if sd == nil {
			return
		}
		ci := ev.CInC
		sd.CInC = &ci
		sd.Brigades = nil
		for _, b := range ev.Brigades {
			br := Brigade{ID: b.ID, Name: b.Name, Order: b.Order, General: b.General}
			for _, u := range b.Units {
				br.Units = append(br.Units, u.ID)
				s.Units[u.ID] = &Unit{ID: u.ID, Name: u.Name, Side: ev.Side, Brigade: b.ID, Type: u.Type,
					Formation: u.Formation, Base: u.Base, Markers: u.Markers, Status: UnitOK}
			}
			sd.Brigades = append(sd.Brigades, br)
		}
		sd.Deployed = true
		all := len(s.Sides) > 0
		for _, x := range s.Sides {
			all = all && x.Deployed
		}
		if all && s.Status == StatusSetup {
			s.Status = StatusDeployed
		}
	case *BattleStarted:
		s.Status = StatusInProgress
		if ev.FirstSide != "" {
			s.FirstSide = ev.FirstSide
		}
	case *TurnStarted:
		s.Turn, s.Phasing, s.Phase = ev.Turn, ev.Side, ev.Phase
		s.TurnBook = TurnBook{}
	case *PhaseEnded:
		// The next event (phase.started, turn.started or battle.ended) says what follows.
	case *PhaseStarted:
		s.Phase = ev.Phase
	case *DiceRolled:
		s.RollCounter = ev.Counter
		applyDice(s, ev)
	case *DiceCommitted, *DiceSeedAdded, *DiceRevealed:
		applyDice(s, ev)
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
	case *UnitMoved:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Base = ev.To
		s.followUnit(ev.Unit)
		ut := s.TurnBook.unit(ev.Unit)
		if ev.Phase == PhaseMovement {
			ut.MovementUsed += ev.MovementUsed
			ut.NormalMoved = true
			return
		}
		ut.MoveActions += ev.ActionsUsed
		if ev.FailedMove {
			ut.FailedMoves -= ev.ActionsUsed
		} else {
			ut.ActionsLeft -= ev.ActionsUsed
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
	case *UnitReformed:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Formation, u.Base = ev.ToFormation, ev.To
		s.followUnit(ev.Unit)
		if ev.Reordered {
			u.Status, u.DisorderedTurn, u.DisorderedPhase = UnitOK, 0, ""
		}
		ut := s.TurnBook.unit(ev.Unit)
		if ev.Phase == PhaseMovement && !ev.AfterMarch {
			ut.MovementUsed += ev.MovementUsed
			return
		}
		ut.ActionsLeft -= ev.ActionsUsed
		ut.Reforms++
	case *ChargeDeclared:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		if ev.Contact {
			u.Base = ev.To
			s.followUnit(ev.Unit)
		}
		ut := s.TurnBook.unit(ev.Unit)
		ut.ActionsLeft -= ev.ActionsUsed
		ut.MoveActions += ev.ActionsUsed
		ut.Charged = ev.Target
	case *ChargePushedBack:
		applyCharge(s, ev)
	case *BlunderCarriedOut:
		if u := s.Units[ev.Unit]; u != nil {
			u.Base = ev.To
			s.followUnit(ev.Unit)
		}
	case *MovementHandedOver, *MarchDeclared, *UnitMarched, *BrigadeOrderChanged, *GeneralMoved, *GeneralDetached,
		*UnitFired, *CombatRecorded, *FormationTested:
		applyMovement(s, ev)
	case *FlankDeclared, *FlankFightResolved, *FlankEntryChosen, *FlankRevealed, *FlankUnitEntered, *FlankRallied:
		applyFlank(s, ev)
	case *ObjectiveHeld, *BattleScored:
		applyVictory(s, ev)
	case *RetractRequested, *RetractDeclined, *CommandRetracted, *DisputeRaised, *DisputeUpheld, *DisputeDismissed, *UnitCorrected:
		applyDispute(s, ev)
	case *BattleEnded:
		s.Status = StatusEnded
		s.EndReason = ev.Reason
	}
}

// Describe says in one line what an event records, for the CLI's tables,
// the event log and the timeline. Distances are in the battle's unit.
func Describe(e Event) string {
	if d := describeDice(e); d != "" {
		return d
	}
	if d := describeMovement(e); d != "" {
		return d
	}
	if d := describeFlank(e) + describeVictory(e); d != "" {
		return d
	}
	if d := describeDispute(e); d != "" {
		return d
	}
	if d := describeCharge(e); d != "" {
		return d
	}
	switch ev := e.(type) {
	case *BattleCreated:
		return fmt.Sprintf("battle %q created: %gx%g %s table, %d sides, %s first, turn limit %d, ruleset %s v%d",
			firstNonEmpty(ev.Name, ev.Battle), ev.Table.Width, ev.Table.Depth, ev.Measurement, len(ev.Sides), ev.FirstSide, ev.TurnLimit, ev.Ruleset.Name, ev.Ruleset.Version)
	case *ArmyDeployed:
		units := 0
		for _, b := range ev.Brigades {
			units += len(b.Units)
		}
		return fmt.Sprintf("%s deployed: C-in-C %s (rating %d), %d brigades, %d units", ev.Side, ev.CInC.ID, ev.CInC.Rating, len(ev.Brigades), units)
	case *BattleStarted:
		return fmt.Sprintf("battle started; %s has the first turn", ev.FirstSide)
	case *TurnStarted:
		return fmt.Sprintf("turn %d: the %s phase of %s", ev.Turn, ev.Phase, ev.Side)
	case *PhaseEnded:
		return fmt.Sprintf("turn %d: the %s phase of %s ended", ev.Turn, ev.Phase, ev.Side)
	case *PhaseStarted:
		return fmt.Sprintf("turn %d: the %s phase of %s", ev.Turn, ev.Phase, ev.Side)
	case *DiceRolled:
		vals := make([]string, len(ev.Values))
		for i, v := range ev.Values {
			vals[i] = fmt.Sprint(v)
		}
		src := ev.Source
		if ev.EnteredBy != "" {
			src += " by " + ev.EnteredBy
		}
		return fmt.Sprintf("roll #%d %dD%d = %s (%s) for %s", ev.Counter, ev.Count, ev.Sides, strings.Join(vals, "+"), src, ev.Purpose)
	case *OrderResolved:
		if ev.Summary != "" {
			return fmt.Sprintf("%s orders %s: %s", ev.General, strings.Join(ev.Units, ", "), ev.Summary)
		}
		return fmt.Sprintf("%s orders %s: %s, %d actions", ev.General, strings.Join(ev.Units, ", "), ev.Outcome, ev.Actions)
	case *UnitMoved:
		s := fmt.Sprintf("%s moved %.1f using %s: (%.1f,%.1f) facing %.0f -> (%.1f,%.1f) facing %.0f",
			ev.Unit, ev.Distance, plural(ev.ActionsUsed, "action", "actions"),
			ev.From.Center.X, ev.From.Center.Y, ev.From.Facing, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.FailedMove {
			s += " (C.12 move after a failed order)"
		}
		if ev.Phase == PhaseMovement {
			s = strings.Replace(s, "using 0 actions", fmt.Sprintf("in the movement phase (M.3, %.2f of its move)", ev.MovementUsed), 1)
		}
		if ev.Cost > 0 {
			s += fmt.Sprintf("; cost %.1f of %.1f with turns and terrain", ev.Cost, ev.Allowed)
		}
		if ev.StoppedShort {
			s += fmt.Sprintf("; stopped %g short of %s (C.9: no charge order)", ev.Short, ev.Enemy)
			if ev.Planned != nil {
				s += fmt.Sprintf(" on its way to (%.1f,%.1f)", ev.Planned.X, ev.Planned.Y)
			}
		}
		return s
	case *BattleEnded:
		return fmt.Sprintf("battle ended in turn %d: %s", ev.Turn, ev.Reason)
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
	case *UnitReformed:
		cost := plural(ev.ActionsUsed, "action", "actions")
		if ev.Free {
			cost = "no action (free limbering)"
		}
		if ev.AfterMarch {
			cost += " after its tactical march (M.14)"
		}
		return fmt.Sprintf("%s formed %s from %s using %s (C.16): (%.1f,%.1f) facing %.0f -> (%.1f,%.1f) facing %.0f",
			ev.Unit, ev.ToFormation, ev.FromFormation, cost, ev.From.Center.X, ev.From.Center.Y, ev.From.Facing, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
	case *ChargeDeclared:
		if ev.Contact {
			return fmt.Sprintf("%s charged %s using %s: %.1f of %.1f reach into contact with its %s (C.9): (%.1f,%.1f) facing %.0f",
				ev.Unit, ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Distance, ev.Reach, ev.Side, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		}
		return fmt.Sprintf("%s declared a charge on %s using %s; contact pending the charge rules: %s", ev.Unit, ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Reason)
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
	if e == nil {
		return ""
	}
	return e.EventType()
}
