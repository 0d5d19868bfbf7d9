package projections_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

func stateJSON(t *testing.T, s *rules.State) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTimelineEqualsLiveState plays the example battle through the real
// service, capturing the state the service built live after every command,
// and checks that the timeline replayed from the log gives the same state
// at each of those versions; and, at every single event (also those in the
// middle of a command), the same state as a plain fold from the first
// event, whatever the snapshot spacing.
func TestTimelineEqualsLiveState(t *testing.T) {
	ctx := context.Background()
	l := campaigntest.Open(t, campaigntest.Options{})
	log, svc := l.Log, l.Service
	sc, err := campaign.LoadScenario("../examples/first-battle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	key := events.Key{Campaign: sc.Campaign, Battle: sc.LastBattle()}
	live := map[uint64][]byte{}
	err = sc.Play(ctx, svc, campaign.Operator("umpire"), func(r campaign.StepResult) {
		if r.Request.Battle != key.Battle {
			return
		}
		st, v, err := svc.State(ctx, key)
		if err != nil {
			t.Fatalf("step %d: %v", r.Number, err)
		}
		live[v] = stateJSON(t, st)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(live) < 10 {
		t.Fatalf("only %d live states captured", len(live))
	}

	for _, every := range []int{1, 4, 7, projections.DefaultSnapshotEvery} {
		tl, err := projections.LoadTimeline(ctx, log, key, campaign.Registry(), projections.TimelineOptions{SnapshotEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		for v, want := range live {
			got, err := tl.At(v)
			if err != nil {
				t.Fatal(err)
			}
			if g := stateJSON(t, got); !bytes.Equal(g, want) {
				t.Fatalf("every %d: state at version %d differs from the live one:\n got %s\nwant %s", every, v, g, want)
			}
		}
		fold := rules.NewState()
		for v := uint64(0); v <= tl.Len(); v++ {
			if v > 0 {
				_, ev, err := tl.Event(v)
				if err != nil {
					t.Fatal(err)
				}
				rules.Apply(fold, ev)
			}
			got, err := tl.At(v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stateJSON(t, got), stateJSON(t, fold)) {
				t.Fatalf("every %d: state at version %d differs from a plain fold", every, v)
			}
		}
		// At hands out copies: changing one leaves the timeline alone.
		s, _ := tl.At(tl.Len())
		for _, u := range s.Units {
			u.Base.Center.X += 100
		}
		again, _ := tl.At(tl.Len())
		if !bytes.Equal(stateJSON(t, again), live[tl.Len()]) {
			t.Fatalf("every %d: changing a state from At changed the timeline", every)
		}
		if _, err := tl.At(tl.Len() + 1); err == nil {
			t.Fatal("a state after the last event")
		}
		// The head at each event is its stored bytes' hash.
		stored, err := log.Read(ctx, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range stored {
			if got := tl.Hash(e.Version); got != events.Hash(e.Raw) {
				t.Fatalf("every %d: hash at %d is %q", every, e.Version, got)
			}
		}
		if tl.Hash(0) != "" || tl.Hash(tl.Len()+1) != "" {
			t.Fatal("a hash outside the battle")
		}
	}
	// Each version's hash is its stored event's (the head at that version).
	stored, err := log.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := projections.LoadTimeline(ctx, log, key, campaign.Registry(), projections.TimelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range stored {
		if got, want := tl.Hash(e.Version), events.Hash(e.Raw); got != want || want == "" {
			t.Fatalf("hash at version %d: %q, the stored event's %q", e.Version, got, want)
		}
	}
	if tl.Hash(0) != "" || tl.Hash(tl.Len()+1) != "" {
		t.Fatal("a hash for no event")
	}
}
