package sqlite

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Parts of a battle's state that have rows of their own beyond those
// writeBattle rewrites every batch. Each is rewritten from the folded state,
// like the current-state rows, but only in a batch that applied an event
// able to change it: most batches hold none.
const (
	dirtyFlank = 1 << iota
	dirtyObjectives
	dirtyScore
)

// dirtyFor says which of those parts an event type can change. The rules
// change FlankBook only in applyFlank and flank.corrected, the objectives
// and who holds them in battle.created, applyVictory and
// objective.corrected, the score only in battle.scored and
// battle.rescored (a correction after the end: the standings follow it
// through markEndedBattles).
func dirtyFor(typ string) uint8 {
	switch {
	case strings.HasPrefix(typ, "flank."):
		return dirtyFlank
	case typ == rules.EvObjectiveHeld, typ == rules.EvBattleCreated, typ == rules.EvObjectiveCorrected:
		return dirtyObjectives
	case typ == rules.EvBattleScored, typ == rules.EvBattleRescored:
		return dirtyScore
	}
	return 0
}

// Statuses of a flank march in the flank_marches table.
const (
	MarchDeclared   = "declared"
	MarchLost       = "lost"
	MarchArriving   = "arriving"
	MarchArrived    = "arrived"
	MarchNotArrived = "not_arrived"
)

// marchStatus reads a march's status off its state.
func marchStatus(m *rules.FlankMarch) string {
	switch {
	case m.Entry == rules.EntryLost:
		return MarchLost
	case m.RevealedAt == "":
		return MarchDeclared
	case m.RevealedAt == rules.RevealBattleEnd:
		return MarchNotArrived
	case len(m.Waiting) > 0:
		return MarchArriving
	}
	return MarchArrived
}

// writeBattleParts rewrites the parts of the battle the batch changed.
func writeBattleParts(ctx context.Context, tx *txw, key events.Key, b *battleState) error {
	s := b.state
	del := func(table string) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle)
		return err
	}
	if b.dirty&dirtyFlank != 0 {
		if err := del("flank_marches"); err != nil {
			return err
		}
		for i := range s.Flank.Marches {
			m := &s.Flank.Marches[i]
			entered, _ := json.Marshal(nonNil(m.Entered))
			waiting, _ := json.Marshal(nonNil(m.Waiting))
			// Sealed until revealed (F.1, docs/principles.md principle 6): the
			// state holds the orders only once flank.revealed is applied,
			// and the projection shows them no earlier.
			var ex, ey, brigades, units any
			if m.RevealedAt != "" && m.Orders != nil {
				at := m.Orders.Entry
				if m.ChosenEntry != nil {
					at = *m.ChosenEntry
				}
				ex, ey = at.X, at.Y
				raw, _ := json.Marshal(m.Orders.Brigades)
				brigades = string(raw)
				n := 0
				for _, fb := range m.Orders.Brigades {
					n += len(fb.Units)
				}
				units = n
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO flank_marches
				(campaign, battle, march, side, edge, status, entry_kind, roll, declared_turn, arrival_turn, artillery_extra_move,
				 fight, commitment, revealed, entry_x, entry_y, brigades, units, entered, waiting)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				key.Campaign, key.Battle, m.N, m.Side, string(m.Edge), marchStatus(m), m.Entry, m.Roll, m.DeclaredTurn, m.ArrivalTurn,
				m.ArtilleryExtraMove, m.Fight, m.Commitment, m.RevealedAt, ex, ey, brigades, units, string(entered), string(waiting)); err != nil {
				return err
			}
		}
	}
	if b.dirty&dirtyObjectives != 0 {
		if err := del("objectives"); err != nil {
			return err
		}
		for i, o := range s.Victory.Objectives {
			var x, y any
			if o.Position != nil {
				x, y = o.Position.X, o.Position.Y
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO objectives (campaign, battle, objective, position, name, value, x, y, held_by)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, key.Campaign, key.Battle, o.ID, i+1, o.Name, o.Value, x, y, s.Victory.Held[o.ID]); err != nil {
				return err
			}
		}
	}
	if b.dirty&dirtyScore != 0 {
		if err := del("victory_points"); err != nil {
			return err
		}
		if err := del("victory_excluded"); err != nil {
			return err
		}
		if sc := s.Victory.Score; sc != nil {
			for i, ss := range sc.Sides {
				up, op := 0, 0
				for _, u := range ss.Units {
					up += u.Value
				}
				for _, o := range ss.Objectives {
					op += o.Value
				}
				units, _ := json.Marshal(nonNil(ss.Units))
				objs, _ := json.Marshal(nonNil(ss.Objectives))
				if _, err := tx.ExecContext(ctx, `INSERT INTO victory_points
					(campaign, battle, side, position, points, unit_points, objective_points, units, objectives)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, key.Campaign, key.Battle, ss.Side, i+1, ss.Points, up, op, string(units), string(objs)); err != nil {
					return err
				}
			}
			for i, x := range sc.Excluded {
				if _, err := tx.ExecContext(ctx, `INSERT INTO victory_excluded
					(campaign, battle, position, unit, side, type, march, value, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					key.Campaign, key.Battle, i+1, x.Unit, x.Side, x.Type, x.March, x.Value, x.Reason); err != nil {
					return err
				}
			}
		}
	}
	b.dirty = 0
	return nil
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// insertDisputeRows keeps the disputes and retractions tables: a row when
// a dispute is raised or a retraction requested, updated by the ruling or
// the answer. Who did it is the event's actor.
func insertDisputeRows(ctx context.Context, tx execer, e *events.Envelope, ev rules.Event) error {
	key := e.Key()
	var err error
	switch x := ev.(type) {
	case *rules.DisputeRaised:
		_, err = tx.ExecContext(ctx, `INSERT INTO disputes
			(campaign, battle, dispute, event_version, event_type, status, reason, raised_by, raised_seq, ruling, corrections, ruled_by, ruled_seq)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', 0, '', NULL)`,
			key.Campaign, key.Battle, x.Dispute, x.EventVersion, x.DisputedType, rules.DisputeOpen, x.Reason, e.Author(), e.Sequence)
	case *rules.DisputeUpheld:
		_, err = tx.ExecContext(ctx, `UPDATE disputes SET status = ?, ruling = ?, corrections = ?, ruled_by = ?, ruled_seq = ?
			WHERE campaign = ? AND battle = ? AND dispute = ?`,
			rules.DisputeStatusUpheld, x.Ruling, x.Corrections, e.Author(), e.Sequence, key.Campaign, key.Battle, x.Dispute)
	case *rules.DisputeDismissed:
		_, err = tx.ExecContext(ctx, `UPDATE disputes SET status = ?, ruling = ?, ruled_by = ?, ruled_seq = ?
			WHERE campaign = ? AND battle = ? AND dispute = ?`,
			rules.DisputeStatusDismissed, x.Ruling, e.Author(), e.Sequence, key.Campaign, key.Battle, x.Dispute)
	case *rules.RetractRequested:
		versions, _ := json.Marshal(nonNil(x.Versions))
		types, _ := json.Marshal(nonNil(x.Types))
		_, err = tx.ExecContext(ctx, `INSERT INTO retractions
			(campaign, battle, request, command_id, versions, types, turn, phase, status, requested_by, requested_seq, answered_by, answered_seq, reason)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', NULL, '')`,
			key.Campaign, key.Battle, x.Request, x.CommandID, string(versions), string(types), x.Turn, x.Phase, rules.RetractPending, e.Author(), e.Sequence)
	case *rules.RetractDeclined:
		_, err = tx.ExecContext(ctx, `UPDATE retractions SET status = ?, answered_by = ?, answered_seq = ?, reason = ?
			WHERE campaign = ? AND battle = ? AND request = ?`,
			rules.RetractStatusDeclined, e.Author(), e.Sequence, x.Reason, key.Campaign, key.Battle, x.Request)
	case *rules.CommandRetracted:
		_, err = tx.ExecContext(ctx, `UPDATE retractions SET status = ?, answered_by = ?, answered_seq = ?
			WHERE campaign = ? AND battle = ? AND request = ?`,
			rules.RetractDone, e.Author(), e.Sequence, key.Campaign, key.Battle, x.Request)
	}
	return err
}
