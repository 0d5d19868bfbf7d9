package projections_test

import (
	"context"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/projtest"
)

// BenchmarkTimelineAt measures one step of `ledger replay` through a long
// battle (about 9,000 events): the state after an event anywhere in it,
// with the default snapshot spacing and with none (a fold from the start).
func BenchmarkTimelineAt(b *testing.B) {
	ctx := context.Background()
	log := jstest.NewLog(b)
	if _, err := projtest.Fill(ctx, log, projtest.FillOptions{Events: 9000, Open: 1, Turns: 1000}); err != nil {
		b.Fatal(err)
	}
	key := events.Key{Campaign: "synth", Battle: "b00001"}
	for _, bc := range []struct {
		name  string
		every int
	}{{"snapshots-100", 100}, {"no-snapshots", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			tl, err := projections.LoadTimeline(ctx, log, key, campaign.Registry(), projections.TimelineOptions{SnapshotEvery: bc.every})
			if err != nil {
				b.Fatal(err)
			}
			v := uint64(0)
			for b.Loop() {
				v = (v + 7919) % tl.Len()
				if _, err := tl.At(v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tl.Len()), "events")
		})
	}
}
