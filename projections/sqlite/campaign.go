package sqlite

import (
	"context"
	"encoding/json"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
)

func (d *DB) applyCampaignEvent(ctx context.Context, tx *txw, e *events.Envelope, bt *batch) error {
	payload, err := d.reg.Upcast(e)
	if err != nil {
		return err
	}
	switch e.Type {
	case campaign.EvCreated:
		var c campaign.Created
		if err := json.Unmarshal(payload, &c); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO campaigns (id, name, era, ruleset) VALUES (?, ?, ?, ?)`,
			c.Campaign, c.Name, c.Era, c.Ruleset); err != nil {
			return err
		}
		for i, s := range c.Sides {
			if _, err := tx.ExecContext(ctx, `INSERT INTO campaign_sides (campaign, side, name, nation) VALUES (?, ?, ?, ?)`,
				c.Campaign, s.ID, s.Name, s.Nation); err != nil {
				return err
			}
			// Every side stands at nothing until a battle is counted.
			if _, err := tx.ExecContext(ctx, `INSERT INTO standings (campaign, side, position, name, played, won, drawn, lost, points)
				VALUES (?, ?, ?, ?, 0, 0, 0, 0, 0)`, c.Campaign, s.ID, i+1, s.Name); err != nil {
				return err
			}
		}
	case campaign.EvBattleAdded:
		var b campaign.BattleAdded
		if err := json.Unmarshal(payload, &b); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO campaign_battles (campaign, battle, number, name) VALUES (?, ?, ?, ?)`,
			e.Campaign, b.Battle, b.Number, b.Name); err != nil {
			return err
		}
		// Usually the battle has no events yet and this folds nothing; a
		// log where the battle had ended before it joined counts it now.
		bt.markStandings(e.Campaign, b.Number)
	case campaign.EvPlayerAdded:
		var p campaign.PlayerAdded
		if err := json.Unmarshal(payload, &p); err != nil {
			return err
		}
		// The token hash stays in the log: nothing that reads the
		// projection needs it, and a leaked file must not hand out a
		// hash to test guessed tokens against.
		if _, err := tx.ExecContext(ctx, `INSERT INTO players (campaign, player, name, role, side, seq) VALUES (?, ?, ?, ?, ?, ?)`,
			e.Campaign, p.Player, p.Name, p.Role, p.Side, e.Sequence); err != nil {
			return err
		}
		// campaign.token_reissued changes only the hash: no row.
	}
	return nil
}
