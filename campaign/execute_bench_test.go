package campaign_test

import (
	"context"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/internal/dicetest"
)

// BenchmarkExecuteMove times a typical battle command through the whole
// service: a player's unit.move, as a dry run (decided in full, nothing
// appended, so every iteration decides the same move on the same state),
// on an in-memory log. Its allocations are the body's way in (the limits,
// the authorizer, the decoding) and the decision (issue 29).
func BenchmarkExecuteMove(b *testing.B) {
	svc := campaign.NewService(memlog.New(), memlog.NewVault(), campaign.Options{Entropy: dicetest.Entropy(b)})
	started(b, svc)
	exec(b, svc, "o1", "order.give", "b1", map[string]any{"general": "red-gen", "units": []string{"red-inf1"},
		"content": map[string]string{"action": "move"}}, 3, 3)
	req := campaign.Request{ID: "m1", Campaign: "c1", Battle: "b1", Name: "unit.move", DryRun: true,
		Principal: campaign.Principal{Campaign: "c1", Player: "alice", Role: campaign.RolePlayer, Side: "red"},
		Body:      []byte(`{"unit":"red-inf1","to":{"x":20,"y":15},"actions":1}`)}
	ctx := context.Background()
	if _, err := svc.Execute(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Execute(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
