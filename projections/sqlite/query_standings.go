package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

// CampaignStandings returns a campaign's standings and rosters as
// campaign.Service.Standings folds them from the log (the same
// campaign.Standings, field for field, but for what rescores changed:
// projections.Standings.Corrected), read from the standings,
// battle_results, rosters and roster_destroyed rows with the checkpoint in
// one read transaction, so that the sequence is the one the rows hold.
// A campaign the projection does not hold is ErrNotFound.
func (d *DB) CampaignStandings(ctx context.Context, id string) (projections.Standings, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v, err := d.campaignStandings(ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		err = d.unreadableErr(fmt.Errorf("sqlite: standings of %s: %w", id, err))
	}
	return v, err
}

func (d *DB) campaignStandings(ctx context.Context, id string) (projections.Standings, error) {
	out := projections.Standings{}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	// The checkpoint first: SQLite's read transaction takes its snapshot at
	// its first read, and every row below is read from that snapshot.
	err = tx.QueryRowContext(ctx, `SELECT sequence FROM checkpoint WHERE projection = ?`, Name).Scan(&out.Sequence)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, err
	}
	st := &out.Standings
	// Lists are lists, empty rather than null, as the service's fold has them.
	st.Sides, st.Battles, st.Rosters = []campaign.SideStanding{}, []campaign.BattleResult{}, []campaign.Roster{}
	st.Campaign = id
	err = tx.QueryRowContext(ctx, `SELECT name FROM campaigns WHERE id = ?`, id).Scan(&st.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("campaign %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return out, err
	}
	if err := scanRows(ctx, tx, func(rows *sql.Rows) error {
		var s campaign.SideStanding
		if err := rows.Scan(&s.Side, &s.Name, &s.Points, &s.Played, &s.Won, &s.Drawn, &s.Lost); err != nil {
			return err
		}
		st.Sides = append(st.Sides, s)
		return nil
	}, `SELECT side, name, points, played, won, drawn, lost FROM standings WHERE campaign = ? ORDER BY position`, id); err != nil {
		return out, err
	}
	// Every battle of the campaign, in its order, with its status as the
	// service says it ("not_created" before battle.created).
	byNumber := map[int]int{}
	if err := scanRows(ctx, tx, func(rows *sql.Rows) error {
		var b campaign.BattleResult
		if err := rows.Scan(&b.Number, &b.Battle, &b.Name, &b.Status); err != nil {
			return err
		}
		if b.Status == "" || b.Status == rules.StatusNew {
			b.Status = "not_created"
		}
		byNumber[b.Number] = len(st.Battles)
		st.Battles = append(st.Battles, b)
		return nil
	}, `SELECT cb.number, cb.battle, cb.name, coalesce(b.status, '')
		FROM campaign_battles cb LEFT JOIN battles b ON b.campaign = cb.campaign AND b.battle = cb.battle
		WHERE cb.campaign = ? ORDER BY cb.number, cb.battle`, id); err != nil {
		return out, err
	}
	battle := func(number int) *campaign.BattleResult {
		if i, ok := byNumber[number]; ok {
			return &st.Battles[i]
		}
		return nil
	}
	// Each counted battle's points and results, in the campaign's side order.
	last := 0
	if err := scanRows(ctx, tx, func(rows *sql.Rows) error {
		var n int
		var p campaign.SidePoints
		if err := rows.Scan(&n, &p.Side, &p.Points, &p.Result); err != nil {
			return err
		}
		if b := battle(n); b != nil {
			b.Points = append(b.Points, p)
		}
		last = max(last, n)
		return nil
	}, `SELECT r.number, r.side, r.points, r.result FROM battle_results r
		JOIN standings s ON s.campaign = r.campaign AND s.side = r.side
		WHERE r.campaign = ? ORDER BY r.number, s.position`, id); err != nil {
		return out, err
	}
	// The units each counted battle destroyed, side by side: the battle's
	// list, and each side's roster's list of the units gone for good.
	destroyed := map[string][]string{}
	if err := scanRows(ctx, tx, func(rows *sql.Rows) error {
		var n int
		var side, unit string
		if err := rows.Scan(&n, &side, &unit); err != nil {
			return err
		}
		if b := battle(n); b != nil {
			b.Destroyed = append(b.Destroyed, unit)
		}
		destroyed[side] = append(destroyed[side], unit)
		return nil
	}, `SELECT d.number, d.side, d.unit FROM roster_destroyed d
		JOIN standings s ON s.campaign = d.campaign AND s.side = d.side
		WHERE d.campaign = ? ORDER BY d.number, s.position, d.position`, id); err != nil {
		return out, err
	}
	// Each side's roster after the last counted battle.
	units := map[string][]campaign.RosterUnit{}
	if last > 0 {
		if err := scanRows(ctx, tx, func(rows *sql.Rows) error {
			var side string
			var u campaign.RosterUnit
			if err := rows.Scan(&side, &u.ID, &u.Name, &u.Type, &u.Markers, &u.Battles, &u.Last, &u.LastWas); err != nil {
				return err
			}
			units[side] = append(units[side], u)
			return nil
		}, `SELECT side, unit, name, type, markers, battles, last_battle, last_was FROM rosters
			WHERE campaign = ? AND number = ? ORDER BY side, unit`, id, last); err != nil {
			return out, err
		}
	}
	for _, s := range st.Sides {
		st.Rosters = append(st.Rosters, campaign.Roster{Side: s.Side, Units: units[s.Side], Destroyed: destroyed[s.Side]})
	}
	if err := returned(ctx, tx, st, battle); err != nil {
		return out, err
	}
	// The counted battles whose disputes upheld corrected something.
	err = scanRows(ctx, tx, func(rows *sql.Rows) error {
		var b string
		if err := rows.Scan(&b); err != nil {
			return err
		}
		out.Corrected = append(out.Corrected, b)
		return nil
	}, `SELECT DISTINCT d.battle FROM disputes d
		WHERE d.campaign = ? AND d.status = ? AND d.corrections > 0
		AND EXISTS (SELECT 1 FROM battle_results r WHERE r.campaign = d.campaign AND r.battle = d.battle)
		ORDER BY d.battle`, id, rules.DisputeStatusUpheld)
	return out, err
}

// returned fills each counted battle's flank marchers back on their roster
// with no losses (campaign.BattleResult.Returned) in the fold's own order,
// which no row keeps: for the battles whose roster rows name a unit
// returned from them, the battle's final state (battle_state) is folded
// again by campaign.StandingsFold.Add, the step that made the rows, onto
// empty rosters (what it returns depends on the state and the sides only).
func returned(ctx context.Context, tx *sql.Tx, st *campaign.Standings, battle func(int) *campaign.BattleResult) error {
	type counted struct {
		number int
		state  string
	}
	var todo []counted
	if err := scanRows(ctx, tx, func(rows *sql.Rows) error {
		var c counted
		if err := rows.Scan(&c.number, &c.state); err != nil {
			return err
		}
		todo = append(todo, c)
		return nil
	}, `SELECT DISTINCT r.number, bs.state FROM rosters r
		JOIN battle_state bs ON bs.campaign = r.campaign AND bs.battle = r.battle
		WHERE r.campaign = ? AND r.last_battle = r.battle AND r.last_was = 'returned'
		ORDER BY r.number`, st.Campaign); err != nil {
		return err
	}
	for _, c := range todo {
		b := battle(c.number)
		if b == nil {
			continue
		}
		s := rules.NewState()
		if err := json.Unmarshal([]byte(c.state), s); err != nil {
			return fmt.Errorf("battle %s's state: %w", b.Battle, err)
		}
		f := &campaign.StandingsFold{Sides: append([]campaign.SideStanding(nil), st.Sides...), Rosters: map[string]map[string]campaign.RosterUnit{}}
		for _, sd := range st.Sides {
			f.Rosters[sd.Side] = map[string]campaign.RosterUnit{}
		}
		if o, ok := f.Add(campaign.BattleAdded{Battle: b.Battle, Name: b.Name, Number: b.Number}, s); ok {
			b.Returned = o.Returned
		}
	}
	return nil
}

// scanRows runs query in tx and calls scan for each row.
func scanRows(ctx context.Context, tx *sql.Tx, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
