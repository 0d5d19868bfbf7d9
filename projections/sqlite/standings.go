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

// Campaign standings and rosters (V.3, V.4; campaign/standings.go).
//
// The service derives them on demand by folding every ended battle of the
// campaign from its events (campaign.FoldStandings). The projection cannot
// afford that on every battle's end (a campaign of a thousand battles would
// fold a million battles), so it folds incrementally: the standing and the
// rosters after each counted battle are rows (battle_results, rosters,
// roster_destroyed), and when battles change, the fold restarts from the
// rows after the last counted battle before the first one changed, adding
// each later ended battle's final state, which the projector already holds.
// Each step is campaign.StandingsFold.Add, the very step FoldStandings
// takes, so the projection and the service cannot disagree.

// Results of a battle for a side, as campaign.StandingsFold gives them.
const (
	ResultWon   = campaign.ResultWon
	ResultDrawn = campaign.ResultDrawn
	ResultLost  = campaign.ResultLost
)

// markStandings asks the batch to fold campaign's standings again from its
// battle number from.
func (bt *batch) markStandings(campaign string, from int) {
	if cur, ok := bt.standings[campaign]; !ok || from < cur {
		bt.standings[campaign] = from
	}
}

// markEndedBattles marks, for every battle the batch touched that has
// ended, its campaign from that battle: its score, or a correction after
// its end, changes the standings and rosters from it on.
func markEndedBattles(ctx context.Context, tx *txw, bt *batch, keys []events.Key) error {
	for _, k := range keys {
		if bt.touched[k].state.Status != rules.StatusEnded {
			continue
		}
		var n int
		err := tx.QueryRowContext(ctx, `SELECT number FROM campaign_battles WHERE campaign = ? AND battle = ?`, k.Campaign, k.Battle).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			continue // not (yet) a battle of the campaign: battle_added marks it
		}
		if err != nil {
			return err
		}
		bt.markStandings(k.Campaign, n)
	}
	return nil
}

// refreshStandings folds the campaign's standings and rosters again from
// its battle number from on, starting from the rows after the last counted
// battle before it.
func (d *DB) refreshStandings(ctx context.Context, tx *txw, camp string, from int, touched map[events.Key]*battleState) error {
	f := &campaign.StandingsFold{Rosters: map[string]map[string]campaign.RosterUnit{}}
	rows, err := tx.QueryContext(ctx, `SELECT side, name FROM standings WHERE campaign = ? ORDER BY position`, camp)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s campaign.SideStanding
		if err := rows.Scan(&s.Side, &s.Name); err != nil {
			rows.Close()
			return err
		}
		f.Sides = append(f.Sides, s)
		f.Rosters[s.Side] = map[string]campaign.RosterUnit{}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(f.Sides) == 0 {
		return nil // no campaign.created: nothing to stand
	}
	var prev sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(number) FROM battle_results WHERE campaign = ? AND number < ?`, camp, from).Scan(&prev); err != nil {
		return err
	}
	if prev.Valid {
		if err := loadFold(ctx, tx, f, camp, int(prev.Int64)); err != nil {
			return err
		}
	}
	for _, t := range []string{"battle_results", "rosters", "roster_destroyed"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE campaign = ? AND number >= ?`, camp, from); err != nil {
			return err
		}
	}
	type later struct {
		b      campaign.BattleAdded
		status string
	}
	var battles []later
	rows, err = tx.QueryContext(ctx, `SELECT cb.number, cb.battle, cb.name, coalesce(b.status, '')
		FROM campaign_battles cb LEFT JOIN battles b ON b.campaign = cb.campaign AND b.battle = cb.battle
		WHERE cb.campaign = ? AND cb.number >= ? ORDER BY cb.number, cb.battle`, camp, from)
	if err != nil {
		return err
	}
	for rows.Next() {
		var l later
		if err := rows.Scan(&l.b.Number, &l.b.Battle, &l.b.Name, &l.status); err != nil {
			rows.Close()
			return err
		}
		battles = append(battles, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, l := range battles {
		if l.status != rules.StatusEnded {
			continue
		}
		key := events.Key{Campaign: camp, Battle: l.b.Battle}
		st, err := d.endedState(ctx, tx, key, touched)
		if err != nil {
			return err
		}
		out, counted := f.Add(l.b, st)
		if !counted {
			continue
		}
		if err := writeFoldStep(ctx, tx, f, camp, l.b, out); err != nil {
			return err
		}
	}
	for _, s := range f.Sides {
		if _, err := tx.ExecContext(ctx, `UPDATE standings SET played = ?, won = ?, drawn = ?, lost = ?, points = ?
			WHERE campaign = ? AND side = ?`, s.Played, s.Won, s.Drawn, s.Lost, s.Points, camp, s.Side); err != nil {
			return err
		}
	}
	return nil
}

// endedState returns an ended battle's final state: the batch's, or the
// one committed in battle_state (not cached: ended battles stay out of
// memory).
func (d *DB) endedState(ctx context.Context, tx *txw, key events.Key, touched map[events.Key]*battleState) (*rules.State, error) {
	if b, ok := touched[key]; ok {
		return b.state, nil
	}
	if b, ok := d.battles[key]; ok {
		return b.state, nil
	}
	var raw string
	if err := tx.QueryRowContext(ctx, `SELECT state FROM battle_state WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle).Scan(&raw); err != nil {
		return nil, err
	}
	st := rules.NewState()
	if err := json.Unmarshal([]byte(raw), st); err != nil {
		return nil, err
	}
	return st, nil
}

// loadFold reads the standings and rosters after the counted battle number.
func loadFold(ctx context.Context, tx *txw, f *campaign.StandingsFold, camp string, number int) error {
	rows, err := tx.QueryContext(ctx, `SELECT side, played, won, drawn, lost, total_points FROM battle_results
		WHERE campaign = ? AND number = ?`, camp, number)
	if err != nil {
		return err
	}
	for rows.Next() {
		var side string
		var s campaign.SideStanding
		if err := rows.Scan(&side, &s.Played, &s.Won, &s.Drawn, &s.Lost, &s.Points); err != nil {
			rows.Close()
			return err
		}
		if ss := f.Side(side); ss != nil {
			ss.Played, ss.Won, ss.Drawn, ss.Lost, ss.Points = s.Played, s.Won, s.Drawn, s.Lost, s.Points
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = tx.QueryContext(ctx, `SELECT side, unit, name, type, markers, battles, last_battle, last_was FROM rosters
		WHERE campaign = ? AND number = ?`, camp, number)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var side string
		var u campaign.RosterUnit
		if err := rows.Scan(&side, &u.ID, &u.Name, &u.Type, &u.Markers, &u.Battles, &u.Last, &u.LastWas); err != nil {
			return err
		}
		if r := f.Rosters[side]; r != nil {
			r[u.ID] = u
		}
	}
	return rows.Err()
}

// writeFoldStep writes the rows of one counted battle: each side's result
// and standing after it, its roster after it, and the units it destroyed.
func writeFoldStep(ctx context.Context, tx *txw, f *campaign.StandingsFold, camp string, b campaign.BattleAdded, out campaign.BattleOutcome) error {
	for i, s := range f.Sides {
		if _, err := tx.ExecContext(ctx, `INSERT INTO battle_results
			(campaign, number, battle, side, points, result, played, won, drawn, lost, total_points)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			camp, b.Number, b.Battle, s.Side, out.Points[i], out.Results[i], s.Played, s.Won, s.Drawn, s.Lost, s.Points); err != nil {
			return err
		}
		r := f.Rosters[s.Side]
		ids := make([]string, 0, len(r))
		for id := range r {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			u := r[id]
			if _, err := tx.ExecContext(ctx, `INSERT INTO rosters
				(campaign, number, battle, side, unit, name, type, markers, battles, last_battle, last_was)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				camp, b.Number, b.Battle, s.Side, u.ID, u.Name, u.Type, u.Markers, u.Battles, u.Last, u.LastWas); err != nil {
				return err
			}
		}
		for j, id := range out.Destroyed[s.Side] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO roster_destroyed (campaign, number, side, position, battle, unit)
				VALUES (?, ?, ?, ?, ?, ?)`, camp, b.Number, s.Side, j+1, b.Battle, id); err != nil {
				return err
			}
		}
	}
	return nil
}
