package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/clubledger/ledger/events"
)

// ErrNotFound is returned by queries for a campaign or battle the
// projection does not hold.
var ErrNotFound = errors.New("sqlite: not found")

// BattleView is a battle as the projection holds it.
type BattleView struct {
	Campaign    string        `json:"campaign"`
	Battle      string        `json:"battle"`
	Name        string        `json:"name"`
	Status      string        `json:"status"`
	Turn        int           `json:"turn"`
	PhasingSide string        `json:"phasing_side"`
	Phase       string        `json:"phase"`
	Measurement string        `json:"measurement"`
	TableWidth  float64       `json:"table_width"`
	TableDepth  float64       `json:"table_depth"`
	Version     uint64        `json:"version"`
	Units       []UnitView    `json:"units"`
	Generals    []GeneralView `json:"generals"`
}

// UnitView is one unit row.
type UnitView struct {
	Unit      string  `json:"unit"`
	Side      string  `json:"side"`
	Brigade   string  `json:"brigade"`
	Name      string  `json:"name"`
	Type      string  `json:"type"`
	Formation string  `json:"formation"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Facing    float64 `json:"facing"`
	Width     float64 `json:"width"`
	Depth     float64 `json:"depth"`
	Markers   int     `json:"markers"`
	Status    string  `json:"status"`
}

// GeneralView is one general row (C-in-C with an empty brigade).
type GeneralView struct {
	General    string  `json:"general"`
	Side       string  `json:"side"`
	Brigade    string  `json:"brigade"`
	Name       string  `json:"name"`
	Rating     int     `json:"rating"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	AttachedTo string  `json:"attached_to,omitempty"`
}

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

// CampaignView is a campaign and its battles.
type CampaignView struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Era     string           `json:"era"`
	Sides   []SideView       `json:"sides"`
	Battles []CampaignBattle `json:"battles"`
}

// SideView is a side of a campaign.
type SideView struct {
	Side   string `json:"side"`
	Name   string `json:"name"`
	Nation string `json:"nation,omitempty"`
}

// CampaignBattle is one battle of a campaign with where it stands.
type CampaignBattle struct {
	Number int    `json:"number"`
	Battle string `json:"battle"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Turn   int    `json:"turn"`
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
