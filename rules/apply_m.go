package rules

// applyMovement folds the events of the movement phase, generals and
// combat outcomes. Like Apply it never fails: facts that do not fit the
// state change what they can.
func applyMovement(s *State, e Event) {
	tb := &s.TurnBook
	switch ev := e.(type) {
	case *MovementHandedOver:
		tb.MovedSides = append(tb.MovedSides, ev.From)
		tb.Mover = ev.To
	case *MarchDeclared:
		if ev.By == MarchByInitiative {
			if tb.MarchTries == nil {
				tb.MarchTries = map[string]bool{}
			}
			tb.MarchTries[ev.Brigade] = true
		}
		if ev.Granted {
			if tb.Marches == nil {
				tb.Marches = map[string]string{}
			}
			tb.Marches[ev.Brigade] = ev.By
		}
	case *UnitMarched:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Base = ev.To
		s.followUnit(ev.Unit)
		ut := tb.unit(ev.Unit)
		ut.Marched = ev.Marched
		ut.MarchEnded = ut.MarchEnded || ev.Ended
	case *BrigadeOrderChanged:
		if ev.By == OrderByInitiative {
			if tb.OrderTries == nil {
				tb.OrderTries = map[string]bool{}
			}
			tb.OrderTries[ev.Brigade] = true
		}
		if b, _ := s.brigade(ev.Brigade); b != nil && ev.Changed {
			b.Order = ev.To
		}
	case *GeneralMoved:
		att, pos := s.generalPtrs(ev.General)
		if pos == nil {
			return
		}
		*pos = ev.To
		tb.general(ev.General).Moved = ev.Moved
		if ev.Joined != "" {
			s.attach(ev.General, ev.Joined)
		} else {
			*att = ""
		}
	case *GeneralDetached:
		if att, _ := s.generalPtrs(ev.General); att != nil {
			*att = ""
		}
	case *UnitFired:
		tb.unit(ev.Unit).Fired = true
	case *CombatRecorded:
		u := s.Units[ev.Unit]
		if u == nil {
			return
		}
		u.Markers, u.Status = ev.Markers, ev.Status
		if ev.To != nil {
			u.Base = *ev.To
			s.followUnit(ev.Unit)
		}
		if ev.Status == UnitDisordered && ev.StatusBefore != UnitDisordered {
			u.DisorderedTurn, u.DisorderedPhase = ev.Turn, ev.Phase
		}
		if ev.Status != UnitDisordered {
			u.DisorderedTurn, u.DisorderedPhase = 0, ""
		}
		if !u.active() {
			s.detachFrom(ev.Unit)
		}
	case *FormationTested:
		ut := tb.unit(ev.Unit)
		if !ev.Passed {
			ut.ActionsLeft -= ev.ActionsUsed
			ut.MovementUsed += ev.MovementUsed
		}
	}
}
