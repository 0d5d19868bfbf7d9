package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
)

// ErrNotFound is returned by queries for a campaign or battle the
// projection does not hold.
var ErrNotFound = projections.ErrNotFound

// The views the queries answer with are the projections package's, so that
// readers (the web server) need not import this adapter.
type (
	BattleView     = projections.BattleView
	UnitView       = projections.UnitView
	GeneralView    = projections.GeneralView
	CampaignView   = projections.CampaignView
	SideView       = projections.SideView
	CampaignBattle = projections.CampaignBattle
)

// Battle returns a battle's projected state.
func (d *DB) Battle(ctx context.Context, key events.Key) (BattleView, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v := BattleView{Campaign: key.Campaign, Battle: key.Battle}
	err := d.db.QueryRowContext(ctx, `SELECT name, status, turn, phasing_side, phase, measurement, table_width, table_depth, version
		FROM battles WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle).
		Scan(&v.Name, &v.Status, &v.Turn, &v.PhasingSide, &v.Phase, &v.Measurement, &v.TableWidth, &v.TableDepth, &v.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("battle %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("sqlite: battle %s: %w", key, err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT unit, side, brigade, name, type, formation, x, y, facing, width, depth, markers, status
		FROM units WHERE campaign = ? AND battle = ? ORDER BY side, brigade, unit`, key.Campaign, key.Battle)
	if err != nil {
		return v, fmt.Errorf("sqlite: units: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u UnitView
		if err := rows.Scan(&u.Unit, &u.Side, &u.Brigade, &u.Name, &u.Type, &u.Formation, &u.X, &u.Y, &u.Facing, &u.Width, &u.Depth, &u.Markers, &u.Status); err != nil {
			return v, err
		}
		v.Units = append(v.Units, u)
	}
	if err := rows.Err(); err != nil {
		return v, err
	}
	grows, err := d.db.QueryContext(ctx, `SELECT general, side, brigade, name, rating, x, y, attached_to
		FROM generals WHERE campaign = ? AND battle = ? ORDER BY side, brigade, general`, key.Campaign, key.Battle)
	if err != nil {
		return v, fmt.Errorf("sqlite: generals: %w", err)
	}
	defer grows.Close()
	for grows.Next() {
		var g GeneralView
		if err := grows.Scan(&g.General, &g.Side, &g.Brigade, &g.Name, &g.Rating, &g.X, &g.Y, &g.AttachedTo); err != nil {
			return v, err
		}
		v.Generals = append(v.Generals, g)
	}
	return v, grows.Err()
}

// Campaign returns a campaign with its sides and battles.
func (d *DB) Campaign(ctx context.Context, id string) (CampaignView, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v := CampaignView{ID: id}
	err := d.db.QueryRowContext(ctx, `SELECT name, era FROM campaigns WHERE id = ?`, id).Scan(&v.Name, &v.Era)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("campaign %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("sqlite: campaign: %w", err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT side, name, nation FROM campaign_sides WHERE campaign = ? ORDER BY rowid`, id)
	if err != nil {
		return v, err
	}
	defer rows.Close()
	for rows.Next() {
		var s SideView
		if err := rows.Scan(&s.Side, &s.Name, &s.Nation); err != nil {
			return v, err
		}
		v.Sides = append(v.Sides, s)
	}
	brows, err := d.db.QueryContext(ctx, `SELECT cb.number, cb.battle, cb.name, coalesce(b.status, ''), coalesce(b.turn, 0)
		FROM campaign_battles cb LEFT JOIN battles b ON b.campaign = cb.campaign AND b.battle = cb.battle
		WHERE cb.campaign = ? ORDER BY cb.number`, id)
	if err != nil {
		return v, err
	}
	defer brows.Close()
	for brows.Next() {
		var b CampaignBattle
		if err := brows.Scan(&b.Number, &b.Battle, &b.Name, &b.Status, &b.Turn); err != nil {
			return v, err
		}
		v.Battles = append(v.Battles, b)
	}
	return v, brows.Err()
}
