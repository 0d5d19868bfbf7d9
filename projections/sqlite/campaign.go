package sqlite

import (
	"context"
	"encoding/json"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
)

func (d *DB) applyCampaignEvent(ctx context.Context, tx *txw, e *events.Envelope) error {
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
		for _, s := range c.Sides {
			if _, err := tx.ExecContext(ctx, `INSERT INTO campaign_sides (campaign, side, name, nation) VALUES (?, ?, ?, ?)`,
				c.Campaign, s.ID, s.Name, s.Nation); err != nil {
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
	}
	return nil
}
