package rules

import "slices"

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

// specialRule is the rule of a special order: C.13 or C.14.
func specialRule(special string) string {
	if special == SpecialSteady {
		return "C.14"
	}
	return "C.13"
}
