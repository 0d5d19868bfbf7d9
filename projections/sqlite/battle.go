package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// battleState is one battle's state folded by the rules engine, and the
// version of its stream it has reached.
type battleState struct {
	state   *rules.State
	version uint64
	// dirty marks the parts of the state with rows of their own that the
	// current batch changed (dirtyFlank...): writeBattleParts rewrites them.
	dirty uint8
	// used is when the projector last asked for it (DB.used): the least
	// recently used go first past the cache's bound (evictBattles).
	used uint64
}

// battle returns the folded state of key: from this process's cache, or
// from the battle_state row written with the last committed batch, or empty.
func (d *DB) battle(ctx context.Context, tx *txw, key events.Key) (*battleState, error) {
	d.used++
	if b, ok := d.battles[key]; ok {
		b.used = d.used
		return b, nil
	}
	b := &battleState{state: rules.NewState(), used: d.used}
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT version, state FROM battle_state WHERE campaign = ? AND battle = ?`,
		key.Campaign, key.Battle).Scan(&b.version, &raw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal([]byte(raw), b.state); err != nil {
			return nil, err
		}
	}
	d.battles[key] = b
	return b, nil
}

func (d *DB) applyBattleEvent(ctx context.Context, tx *txw, e *events.Envelope, it *preparedEvent, touched map[events.Key]*battleState) error {
	if it.err != nil {
		return it.err
	}
	key := e.Key()
	b, err := d.battle(ctx, tx, key)
	if err != nil {
		return err
	}
	rules.Apply(b.state, it.ev)
	b.version = e.Version
	b.dirty |= dirtyFor(e.Type)
	touched[key] = b
	for _, r := range it.rows {
		if _, err := tx.ExecContext(ctx, r.query, r.args...); err != nil {
			return err
		}
	}
	return nil
}

// insertEventRows writes the rows one event adds to the history tables
// (orders, rolls, unit actions, players' dice seeds).
func insertEventRows(ctx context.Context, tx execer, e *events.Envelope, ev rules.Event) error {
	var err error
	key := e.Key()
	action := func(turn int, unit string, used int, from, to *geom.Base, dist *float64, formation, target string, contact bool, detail string) error {
		var fx, fy, ff, tx_, ty, tf any
		if from != nil {
			fx, fy, ff = from.Center.X, from.Center.Y, from.Facing
		}
		if to != nil {
			tx_, ty, tf = to.Center.X, to.Center.Y, to.Facing
		}
		var dv any
		if dist != nil {
			dv = *dist
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO unit_actions
			(seq, campaign, battle, turn, unit, type, actions_used, from_x, from_y, from_facing, to_x, to_y, to_facing,
			 distance, formation, target, contact, detail, actor)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Sequence, key.Campaign, key.Battle, turn, unit, e.Type, used, fx, fy, ff, tx_, ty, tf,
			dv, formation, target, contact, detail, e.Author())
		return err
	}
	switch x := ev.(type) {
	case *rules.OrderResolved:
		units, _ := json.Marshal(x.Units)
		roll, _ := json.Marshal(x.Values)
		mods, _ := json.Marshal(x.Modifiers)
		blunder := ""
		if x.Blunder != nil {
			raw, _ := json.Marshal(x.Blunder)
			blunder = string(raw)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO orders
			(seq, campaign, battle, turn, general, units, roll, modifiers, base_rating, effective, outcome, actions, actor,
			 side, c_in_c, action, special, attached, blunder, summary)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Sequence, key.Campaign, key.Battle, x.Turn, x.General, string(units), string(roll), string(mods),
			x.BaseRating, x.Effective, x.Outcome, x.Actions, e.Author(),
			x.Side, x.CInC, x.Content.Action, x.Special, x.Attached, blunder, x.Summary)
	case *rules.DiceRolled:
		vals, _ := json.Marshal(x.Values)
		total := 0
		for _, v := range x.Values {
			total += v
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO rolls
			(seq, campaign, battle, counter, purpose, sides, dice, total, source, entered_by, actor)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Sequence, key.Campaign, key.Battle, x.Counter, x.Purpose, x.Sides, string(vals), total, x.Source, x.EnteredBy, e.Author())
	case *rules.UnitMoved:
		detail := ""
		if x.FailedMove {
			detail = "C.12 move after a failed order"
		}
		err = action(x.Turn, x.Unit, x.ActionsUsed, &x.From, &x.To, &x.Distance, "", "", false, detail)
	case *rules.UnitReformed:
		detail := x.FromFormation + " -> " + x.ToFormation
		if x.Free {
			detail += " (free)"
		}
		err = action(x.Turn, x.Unit, x.ActionsUsed, &x.From, &x.To, nil, x.ToFormation, "", false, detail)
	case *rules.ChargeDeclared:
		err = action(x.Turn, x.Unit, x.ActionsUsed, &x.From, &x.To, &x.Distance, "", x.Target, x.Contact, x.Reason)
	case *rules.BlunderCarriedOut:
		detail := x.Result
		if x.Stopped != "" {
			detail += ": " + x.Stopped
		}
		err = action(x.Turn, x.Unit, 0, &x.From, &x.To, &x.Distance, "", x.Target, x.Contact, detail)
	case *rules.InitiativeTaken:
		err = action(x.Turn, x.Unit, x.Actions, nil, nil, &x.Distance, x.Content.Formation, x.Enemy, false, x.Content.Action)
	case *rules.InitiativeDeclined:
		err = action(x.Turn, x.Unit, 0, nil, nil, nil, "", "", false, "")
	case *rules.DiceSeedAdded:
		_, err = tx.ExecContext(ctx, `INSERT INTO dice_seeds (seq, campaign, battle, period, player, seed, actor)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, e.Sequence, key.Campaign, key.Battle, x.Period, x.Player, x.Seed, e.Author())
	}
	return err
}

// writeBattle replaces the battle's current-state rows with its state
// after the batch: the rows are a function of the state alone, so a batch
// applied on a resumed state writes what an uninterrupted run would.
func writeBattle(ctx context.Context, tx *txw, key events.Key, b *battleState) error {
	s := b.state
	tb := s.TurnBook
	if _, err := tx.ExecContext(ctx, `INSERT INTO battles
		(campaign, battle, name, status, turn, phasing_side, phase, measurement, table_width, table_depth, version,
		 first_side, turn_limit, end_reason, roll_counter, current_general, orders_closed, initiative_closed, dice_period, dice_rolled)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (campaign, battle) DO UPDATE SET name = excluded.name, status = excluded.status,
		turn = excluded.turn, phasing_side = excluded.phasing_side, phase = excluded.phase,
		measurement = excluded.measurement, table_width = excluded.table_width,
		table_depth = excluded.table_depth, version = excluded.version,
		first_side = excluded.first_side, turn_limit = excluded.turn_limit, end_reason = excluded.end_reason,
		roll_counter = excluded.roll_counter, current_general = excluded.current_general,
		orders_closed = excluded.orders_closed, initiative_closed = excluded.initiative_closed,
		dice_period = excluded.dice_period, dice_rolled = excluded.dice_rolled`,
		key.Campaign, key.Battle, s.Name, s.Status, s.Turn, s.Phasing, s.Phase, s.Measurement,
		s.Table.Width, s.Table.Depth, b.version,
		s.FirstSide, s.TurnLimit, s.EndReason, s.RollCounter, tb.CurrentGeneral, tb.OrdersClosed, tb.InitiativeClosed,
		s.Dice.Period, s.Dice.Rolled); err != nil {
		return err
	}
	for _, t := range []string{"battle_sides", "brigades", "units", "generals", "unit_turns", "general_turns", "dice_periods"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(s.Units))
	for id := range s.Units {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		u := s.Units[id]
		if u == nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO units
			(campaign, battle, unit, side, brigade, name, type, formation, x, y, facing, width, depth, markers, status)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			key.Campaign, key.Battle, u.ID, u.Side, u.Brigade, u.Name, u.Type, u.Formation,
			u.Base.Center.X, u.Base.Center.Y, u.Base.Facing, u.Base.Width, u.Base.Depth, u.Markers, u.Status); err != nil {
			return err
		}
	}
	for i, sd := range s.Sides {
		cinc := ""
		if sd.CInC != nil {
			cinc = sd.CInC.ID
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO battle_sides (campaign, battle, side, position, name, nation, player, deployed, c_in_c)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, key.Campaign, key.Battle, sd.ID, i+1, sd.Name, sd.Nation, sd.Player, sd.Deployed, cinc); err != nil {
			return err
		}
		if c := sd.CInC; c != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO generals
				(campaign, battle, general, side, brigade, name, rating, x, y, attached_to, gifted) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?)`,
				key.Campaign, key.Battle, c.ID, sd.ID, c.Name, c.Rating, c.Position.X, c.Position.Y, c.AttachedTo, c.Gifted); err != nil {
				return err
			}
		}
		for _, br := range sd.Brigades {
			g := br.General
			if _, err := tx.ExecContext(ctx, `INSERT INTO generals
				(campaign, battle, general, side, brigade, name, rating, x, y, attached_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				key.Campaign, key.Battle, g.ID, sd.ID, br.ID, g.Name, g.Rating, g.Position.X, g.Position.Y, g.AttachedTo); err != nil {
				return err
			}
			units, _ := json.Marshal(br.Units)
			if _, err := tx.ExecContext(ctx, `INSERT INTO brigades (campaign, battle, brigade, side, name, brigade_order, general, units)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, key.Campaign, key.Battle, br.ID, sd.ID, br.Name, br.Order, g.ID, string(units)); err != nil {
				return err
			}
		}
	}
	for _, id := range sortedKeys(tb.Units) {
		u := tb.Units[id]
		if u == nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO unit_turns
			(campaign, battle, unit, orders, actions_granted, actions_left, move_actions, failed, blundered, failed_moves,
			 initiative, initiative_action, declined, may_charge, reforms, charged)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			key.Campaign, key.Battle, id, u.Orders, u.ActionsGranted, u.ActionsLeft, u.MoveActions, u.Failed, u.Blundered, u.FailedMoves,
			u.Initiative, u.InitiativeAction, u.Declined, u.MayCharge, u.Reforms, u.Charged); err != nil {
			return err
		}
	}
	for _, id := range sortedKeys(tb.Generals) {
		g := tb.Generals[id]
		if g == nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO general_turns (campaign, battle, general, orders, done, reason)
			VALUES (?, ?, ?, ?, ?, ?)`, key.Campaign, key.Battle, id, g.Orders, g.Done, g.Reason); err != nil {
			return err
		}
	}
	for i, p := range s.Dice.Periods {
		if _, err := tx.ExecContext(ctx, `INSERT INTO dice_periods (campaign, battle, period, number, commitment, revealed)
			VALUES (?, ?, ?, ?, ?, ?)`, key.Campaign, key.Battle, p.Period, i+1, p.Commitment, p.Revealed); err != nil {
			return err
		}
	}
	if b.dirty != 0 {
		if err := writeBattleParts(ctx, tx, key, b); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO battle_state (campaign, battle, version, state) VALUES (?, ?, ?, ?)
		ON CONFLICT (campaign, battle) DO UPDATE SET version = excluded.version, state = excluded.state`,
		key.Campaign, key.Battle, b.version, string(raw))
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
