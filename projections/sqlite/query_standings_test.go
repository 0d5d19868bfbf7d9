package sqlite_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/projections/sqlite"
)

// checkCampaignStandings holds the standings the door reads from the
// projection (DB.CampaignStandings) equal to those the service folds from
// the log, field for field in their JSON, but for what rescores changed
// (the log's): each rescored battle is among those the projection names
// Corrected. The sequence is the checkpoint.
func checkCampaignStandings(t *testing.T, db *sqlite.DB, want campaign.Standings) {
	t.Helper()
	ctx := context.Background()
	got, err := db.CampaignStandings(ctx, want.Campaign)
	if err != nil {
		t.Fatal(err)
	}
	want.Battles = slices.Clone(want.Battles)
	for i, b := range want.Battles {
		if len(b.Rescores) > 0 && !slices.Contains(got.Corrected, b.Battle) {
			t.Errorf("battle %s was rescored; the projection's corrected battles are %v", b.Battle, got.Corrected)
		}
		want.Battles[i].Rescores = nil
	}
	g, _ := json.Marshal(got.Standings)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("the projection's standings:\n%s\nthe service folds:\n%s", g, w)
	}
	cp, err := db.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sequence != cp || cp == 0 {
		t.Errorf("standings at sequence %d, checkpoint %d", got.Sequence, cp)
	}
}
