package projections_test

import (
	"context"
	"errors"
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/projections"
)

// at is a projection's checkpoint, as LostWatch reads it.
type at uint64

func (a *at) Checkpoint(context.Context) (uint64, error) { return uint64(*a), nil }

// TestLostWatch: a log that ends before the projection's checkpoint has
// lost events, named with both numbers and unavailable (nothing may be
// appended); once the projection is at or behind the log again (rebuilt,
// or the log restored), the finding clears.
func TestLostWatch(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	fill(t, log, 5)
	cp := at(5)
	w := &projections.LostWatch{Projection: &cp, Log: log}
	if err := w.Check(ctx); err != nil || w.Current() != nil {
		t.Fatalf("projection at the log's end: %v", err)
	}
	cp = 8 // the projection holds three events the log no longer has
	err := w.Check(ctx)
	var lost *projections.LostEventsError
	if !errors.As(err, &lost) || lost.Checkpoint != 8 || lost.Last != 5 || !errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("Check = %v, want lost events 8 against 5, unavailable", err)
	}
	if w.Current() != err {
		t.Fatalf("Current = %v, want the last finding", w.Current())
	}
	gated := events.Gate(log, w.Current, nil)
	if err := gated.Append(ctx, events.Key{Campaign: "c", Battle: "b"}, 5, nil); !errors.Is(err, events.ErrUnavailable) || !errors.As(err, &lost) {
		t.Fatalf("an append through the gate = %v, want refused as lost events", err)
	}
	if last, _ := log.LastSequence(ctx); last != 5 {
		t.Fatalf("the log moved to %d through a refusing gate", last)
	}
	cp = 3 // rebuilt from the log as it is
	if err := w.Check(ctx); err != nil || w.Current() != nil {
		t.Fatalf("projection behind the log: %v", err)
	}
	fill2 := func() error {
		evs, err := log.Read(ctx, events.Key{Campaign: "c", Battle: "b"}, 0)
		if err != nil {
			return err
		}
		next := []events.Envelope{{ID: "e6", Campaign: "c", Battle: "b", Type: "test.happened", Schema: 1, Time: evs[4].Time, Payload: []byte(`{}`)}}
		if err := events.Chain(&evs[4], next); err != nil {
			return err
		}
		return gated.Append(ctx, events.Key{Campaign: "c", Battle: "b"}, 5, next)
	}
	if err := fill2(); err != nil {
		t.Fatalf("an append through the gate once cleared: %v", err)
	}
}
