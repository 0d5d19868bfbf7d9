package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// StandingsView is a campaign's standings (V.4) as the projection holds
// them: each side's total, and every counted battle's points and results.
type StandingsView struct {
	Campaign string             `json:"campaign"`
	Name     string             `json:"name"`
	Sides    []SideStandingView `json:"sides"`
	Battles  []BattleResultView `json:"battles"`
}

// SideStandingView is one side's campaign total.
type SideStandingView struct {
	Side   string `json:"side"`
	Name   string `json:"name"`
	Played int    `json:"played"`
	Won    int    `json:"won"`
	Drawn  int    `json:"drawn"`
	Lost   int    `json:"lost"`
	Points int    `json:"points"`
}

// BattleResultView is one counted battle (ended and scored) of a campaign.
type BattleResultView struct {
	Number int              `json:"number"`
	Battle string           `json:"battle"`
	Name   string           `json:"name"`
	Sides  []SideResultView `json:"sides"`
}

// SideResultView is one side's points and result in one battle.
type SideResultView struct {
	Side   string `json:"side"`
	Points int    `json:"points"`
	Result string `json:"result"`
}

// RosterView is a side's roster after the campaign's last counted battle:
// the units it has for its next battle (V.3).
type RosterView struct {
	Campaign string `json:"campaign"`
	Side     string `json:"side"`
	// After is the last counted battle (empty: none yet), Number its
	// number in the campaign.
	After     string           `json:"after,omitempty"`
	Number    int              `json:"number,omitempty"`
	Units     []RosterUnitView `json:"units"`
	Destroyed []string         `json:"destroyed,omitempty"`
}

// RosterUnitView is one unit of a roster.
type RosterUnitView struct {
	Unit    string `json:"unit"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Markers int    `json:"markers"`
	// Battles counts the battles it fought in (came on the table).
	Battles int `json:"battles"`
	// Last is the last battle it belonged to; LastWas says how: fought,
	// or returned (a flank march that took no part).
	Last    string `json:"last"`
	LastWas string `json:"last_was"`
}

// Standings returns a campaign's standings.
func (d *DB) Standings(ctx context.Context, campaign string) (StandingsView, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v := StandingsView{Campaign: campaign, Sides: []SideStandingView{}, Battles: []BattleResultView{}}
	err := d.db.QueryRowContext(ctx, `SELECT name FROM campaigns WHERE id = ?`, campaign).Scan(&v.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("campaign %s: %w", campaign, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("sqlite: standings: %w", err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT side, name, played, won, drawn, lost, points FROM standings
		WHERE campaign = ? ORDER BY position`, campaign)
	if err != nil {
		return v, fmt.Errorf("sqlite: standings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s SideStandingView
		if err := rows.Scan(&s.Side, &s.Name, &s.Played, &s.Won, &s.Drawn, &s.Lost, &s.Points); err != nil {
			return v, err
		}
		v.Sides = append(v.Sides, s)
	}
	if err := rows.Err(); err != nil {
		return v, err
	}
	brows, err := d.db.QueryContext(ctx, `SELECT r.number, r.battle, coalesce(cb.name, ''), r.side, r.points, r.result
		FROM battle_results r
		JOIN standings s ON s.campaign = r.campaign AND s.side = r.side
		LEFT JOIN campaign_battles cb ON cb.campaign = r.campaign AND cb.battle = r.battle
		WHERE r.campaign = ? ORDER BY r.number, s.position`, campaign)
	if err != nil {
		return v, fmt.Errorf("sqlite: battle results: %w", err)
	}
	defer brows.Close()
	for brows.Next() {
		var b BattleResultView
		var s SideResultView
		if err := brows.Scan(&b.Number, &b.Battle, &b.Name, &s.Side, &s.Points, &s.Result); err != nil {
			return v, err
		}
		if n := len(v.Battles); n == 0 || v.Battles[n-1].Number != b.Number {
			v.Battles = append(v.Battles, b)
		}
		last := &v.Battles[len(v.Battles)-1]
		last.Sides = append(last.Sides, s)
	}
	return v, brows.Err()
}

// Roster returns a side's roster after the campaign's last counted battle.
func (d *DB) Roster(ctx context.Context, campaign, side string) (RosterView, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v := RosterView{Campaign: campaign, Side: side, Units: []RosterUnitView{}}
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM standings WHERE campaign = ? AND side = ?`, campaign, side).Scan(&n)
	if err != nil {
		return v, fmt.Errorf("sqlite: roster: %w", err)
	}
	if n == 0 {
		return v, fmt.Errorf("campaign %s, side %s: %w", campaign, side, ErrNotFound)
	}
	var last sql.NullInt64
	if err := d.db.QueryRowContext(ctx, `SELECT max(number) FROM battle_results WHERE campaign = ?`, campaign).Scan(&last); err != nil {
		return v, fmt.Errorf("sqlite: roster: %w", err)
	}
	if !last.Valid {
		return v, nil
	}
	v.Number = int(last.Int64)
	if err := d.db.QueryRowContext(ctx, `SELECT battle FROM battle_results WHERE campaign = ? AND number = ? LIMIT 1`,
		campaign, v.Number).Scan(&v.After); err != nil {
		return v, fmt.Errorf("sqlite: roster: %w", err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT unit, name, type, markers, battles, last_battle, last_was FROM rosters
		WHERE campaign = ? AND number = ? AND side = ? ORDER BY unit`, campaign, v.Number, side)
	if err != nil {
		return v, fmt.Errorf("sqlite: roster: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u RosterUnitView
		if err := rows.Scan(&u.Unit, &u.Name, &u.Type, &u.Markers, &u.Battles, &u.Last, &u.LastWas); err != nil {
			return v, err
		}
		v.Units = append(v.Units, u)
	}
	if err := rows.Err(); err != nil {
		return v, err
	}
	drows, err := d.db.QueryContext(ctx, `SELECT unit FROM roster_destroyed
		WHERE campaign = ? AND side = ? AND number <= ? ORDER BY number, position`, campaign, side, v.Number)
	if err != nil {
		return v, fmt.Errorf("sqlite: roster: %w", err)
	}
	defer drows.Close()
	for drows.Next() {
		var id string
		if err := drows.Scan(&id); err != nil {
			return v, err
		}
		v.Destroyed = append(v.Destroyed, id)
	}
	return v, drows.Err()
}
