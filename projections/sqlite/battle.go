package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// battleState is one battle's state folded by the rules engine, and the
// version of its stream it has reached.
type battleState struct {
	state   *rules.State
	version uint64
}

// battle returns the folded state of key: from this process's cache, or
// from the battle_state row written with the last committed batch, or empty.
func (d *DB) battle(ctx context.Context, tx *sql.Tx, key events.Key) (*battleState, error) {
	if b, ok := d.battles[key]; ok {
		return b, nil
	}
	b := &battleState{state: rules.NewState()}
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

func (d *DB) applyBattleEvent(ctx context.Context, tx *sql.Tx, e *events.Envelope, touched map[events.Key]*battleState) error {
	key := e.Key()
	b, err := d.battle(ctx, tx, key)
	if err != nil {
		return err
	}
	payload, err := campaign.Registry().Upcast(e)
	if err != nil {
		return err
	}
	ev, err := rules.DecodeEvent(e.Type, payload)
	if err != nil {
		return err
	}
	rules.Apply(b.state, ev)
	b.version = e.Version
	touched[key] = b
	switch x := ev.(type) {
	case *rules.OrderResolved:
		units, _ := json.Marshal(x.Units)
		roll, _ := json.Marshal(x.Values)
		mods, _ := json.Marshal(x.Modifiers)
		_, err = tx.ExecContext(ctx, `INSERT INTO orders
			(seq, campaign, battle, turn, general, units, roll, modifiers, base_rating, effective, outcome, actions, actor)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Sequence, key.Campaign, key.Battle, x.Turn, x.General, string(units), string(roll), string(mods),
			x.BaseRating, x.Effective, x.Outcome, x.Actions, e.Actor)
	case *rules.DiceRolled:
		vals, _ := json.Marshal(x.Values)
		total := 0
		for _, v := range x.Values {
			total += v
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO rolls
			(seq, campaign, battle, counter, purpose, sides, dice, total, source, entered_by, actor)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Sequence, key.Campaign, key.Battle, x.Counter, x.Purpose, x.Sides, string(vals), total, x.Source, x.EnteredBy, e.Actor)
	}
	return err
}

// writeBattle replaces the battle's rows with its state after the batch.
func writeBattle(ctx context.Context, tx *sql.Tx, key events.Key, b *battleState) error {
	s := b.state
	if _, err := tx.ExecContext(ctx, `INSERT INTO battles
		(campaign, battle, name, status, turn, phasing_side, phase, measurement, table_width, table_depth, version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (campaign, battle) DO UPDATE SET name = excluded.name, status = excluded.status,
		turn = excluded.turn, phasing_side = excluded.phasing_side, phase = excluded.phase,
		measurement = excluded.measurement, table_width = excluded.table_width,
		table_depth = excluded.table_depth, version = excluded.version`,
		key.Campaign, key.Battle, s.Name, s.Status, s.Turn, s.Phasing, s.Phase, s.Measurement,
		s.Table.Width, s.Table.Depth, b.version); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM units WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle); err != nil {
		return err
	}
	ids := make([]string, 0, len(s.Units))
	for id := range s.Units {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		u := s.Units[id]
		if _, err := tx.ExecContext(ctx, `INSERT INTO units
			(campaign, battle, unit, side, brigade, name, type, formation, x, y, facing, width, depth, markers, status)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			key.Campaign, key.Battle, u.ID, u.Side, u.Brigade, u.Name, u.Type, u.Formation,
			u.Base.Center.X, u.Base.Center.Y, u.Base.Facing, u.Base.Width, u.Base.Depth, u.Markers, u.Status); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM generals WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle); err != nil {
		return err
	}
	for _, sd := range s.Sides {
		if sd.CInC != nil {
			c := sd.CInC
			if _, err := tx.ExecContext(ctx, `INSERT INTO generals
				(campaign, battle, general, side, brigade, name, rating, x, y) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?)`,
				key.Campaign, key.Battle, c.ID, sd.ID, c.Name, c.Rating, c.Position.X, c.Position.Y); err != nil {
				return err
			}
		}
		for _, br := range sd.Brigades {
			g := br.General
			if _, err := tx.ExecContext(ctx, `INSERT INTO generals
				(campaign, battle, general, side, brigade, name, rating, x, y) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				key.Campaign, key.Battle, g.ID, sd.ID, br.ID, g.Name, g.Rating, g.Position.X, g.Position.Y); err != nil {
				return err
			}
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
