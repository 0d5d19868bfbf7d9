package projections_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/projections"
)

// fill appends n events to one stream of log, chained, one at a time.
func fill(t *testing.T, log events.Log, n int) {
	t.Helper()
	key := events.Key{Campaign: "c", Battle: "b"}
	var last *events.Envelope
	for i := 1; i <= n; i++ {
		batch := []events.Envelope{{ID: fmt.Sprintf("e%d", i), Campaign: key.Campaign, Battle: key.Battle, Type: "test.happened",
			Schema: 1, Time: time.Unix(int64(i), 0).UTC(), Payload: []byte(`{}`)}}
		if err := events.Chain(last, batch); err != nil {
			t.Fatal(err)
		}
		if err := log.Append(context.Background(), key, uint64(i-1), batch); err != nil {
			t.Fatal(err)
		}
		last = &batch[0]
	}
}

// staged is a Preparer that records what it is given. Applying its first
// batch waits until the second has been prepared: Run must prepare a
// batch while the one before is being applied.
type staged struct {
	mu         sync.Mutex
	checkpoint uint64
	prepared   [][]uint64 // each batch's sequences, as prepared
	applied    []uint64   // every sequence applied, in order
	secondPrep chan struct{}
	failAt     int // the batch (1-based) whose application fails; 0: none
}

type stagedBatch struct {
	evs []events.Envelope
	n   int // which batch this was, 1-based
}

func (b stagedBatch) Events() []events.Envelope { return b.evs }

func (s *staged) Checkpoint(context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkpoint, nil
}

func (s *staged) ApplyBatch(context.Context, []events.Envelope) error {
	return errors.New("ApplyBatch called: Run must use ApplyPrepared on a Preparer")
}

func (s *staged) PrepareBatch(evs []events.Envelope) projections.Prepared {
	s.mu.Lock()
	defer s.mu.Unlock()
	seqs := make([]uint64, len(evs))
	for i, e := range evs {
		seqs[i] = e.Sequence
	}
	s.prepared = append(s.prepared, seqs)
	if len(s.prepared) == 2 {
		close(s.secondPrep)
	}
	return stagedBatch{evs: evs, n: len(s.prepared)}
}

func (s *staged) ApplyPrepared(ctx context.Context, p projections.Prepared) error {
	b := p.(stagedBatch)
	if b.n == 1 {
		select {
		case <-s.secondPrep:
		case <-time.After(10 * time.Second):
			return errors.New("the second batch was not prepared while the first was being applied")
		}
	}
	if b.n == s.failAt {
		return errors.New("the disk is full")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range b.evs {
		s.applied = append(s.applied, e.Sequence)
		s.checkpoint = e.Sequence
	}
	return nil
}

// TestRunPreparesAhead: with a Preparer, Run prepares each batch once, on
// its own stage, while the batch before it is applied, and applies them in
// the log's order, every event once.
func TestRunPreparesAhead(t *testing.T) {
	log := memlog.New()
	fill(t, log, 25)
	p := &staged{secondPrep: make(chan struct{})}
	if err := projections.Run(context.Background(), log, p, projections.RunOptions{BatchSize: 10}); err != nil {
		t.Fatal(err)
	}
	if len(p.prepared) != 3 || len(p.prepared[0]) != 10 || len(p.prepared[1]) != 10 || len(p.prepared[2]) != 5 {
		t.Fatalf("batches prepared %v, want 10, 10 and 5 events", p.prepared)
	}
	if len(p.applied) != 25 {
		t.Fatalf("applied %v, want 1..25", p.applied)
	}
	for i, seq := range p.applied {
		if seq != uint64(i+1) {
			t.Fatalf("applied %v, want 1..25 in order", p.applied)
		}
	}
}

// TestRunPreparedFailureStops: a batch that fails to apply stops the run
// with a ProjectionError naming its events; no batch after it is applied.
func TestRunPreparedFailureStops(t *testing.T) {
	log := memlog.New()
	fill(t, log, 35)
	p := &staged{secondPrep: make(chan struct{}), failAt: 2}
	err := projections.Run(context.Background(), log, p, projections.RunOptions{BatchSize: 10})
	var pe *projections.ProjectionError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "apply events 11..20") || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("Run = %v, want a ProjectionError for events 11..20", err)
	}
	if len(p.applied) != 10 || p.checkpoint != 10 {
		t.Fatalf("applied %v (checkpoint %d), want the first batch only", p.applied, p.checkpoint)
	}
}
