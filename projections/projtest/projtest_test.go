package projtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/rules"
)

// TestFillFoldsThroughTheRules checks that a filled log is what the rules
// engine would have written: every battle's chain is intact and its events
// fold into a battle that ended after the turns asked for.
func TestFillFoldsThroughTheRules(t *testing.T) {
	log := jstest.NewLog(t)
	ctx := context.Background()
	start := time.Now()
	st, err := projtest.Fill(ctx, log, projtest.FillOptions{Events: 3000, Turns: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v in %s", st, time.Since(start))
	if st.Events < 3000 || st.Battles < 4 {
		t.Fatalf("stats %+v", st)
	}
	last, _ := log.LastSequence(ctx)
	if last != st.Last || int(last) != st.Events {
		t.Fatalf("log ends at %d, fill says %d (%d events)", last, st.Last, st.Events)
	}
	evs, err := log.Read(ctx, events.Key{Campaign: "synth", Battle: "b00001"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
	s := rules.NewState()
	for _, e := range evs {
		p, err := campaign.Registry().Upcast(&e)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := rules.DecodeEvent(e.Type, p)
		if err != nil {
			t.Fatal(err)
		}
		rules.Apply(s, ev)
	}
	if s.Status != rules.StatusEnded || s.Turn != 11 {
		t.Fatalf("battle 1 is %s at turn %d", s.Status, s.Turn)
	}
}
