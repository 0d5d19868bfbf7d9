package sqlite

import (
	"context"
	"fmt"

	"github.com/clubledger/ledger/projections"
)

// Campaigns lists every campaign the projection holds, by id, with the
// number of its battles (sides and battles themselves: Campaign).
func (d *DB) Campaigns(ctx context.Context) ([]projections.CampaignListed, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	rows, err := d.db.QueryContext(ctx, `SELECT c.id, c.name, c.era,
		(SELECT count(*) FROM campaign_battles cb WHERE cb.campaign = c.id)
		FROM campaigns c ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: campaigns: %w", err)
	}
	defer rows.Close()
	out := []projections.CampaignListed{}
	for rows.Next() {
		var c projections.CampaignListed
		if err := rows.Scan(&c.ID, &c.Name, &c.Era, &c.Battles); err != nil {
			return nil, fmt.Errorf("sqlite: campaigns: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
