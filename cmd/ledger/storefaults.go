package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/clubledger/ledger/events"
)

// lostEvents watches for a log that has lost events the projection had
// applied: the projection's checkpoint ahead of the log's last sequence.
// That happens when the data folder's NATS files lost their tail (a disk or
// file-system fault, a power cut on a disk that lied about fsync, an older
// copy of the folder put back). New commands would then reuse the lost
// sequences and the projection would skip them, so while it holds every
// append is refused (events.ErrUnavailable, nothing appended), /readyz is
// 503 and `ledger projections status` names it, until an operator restores
// the folder from a backup or rebuilds the projection from the log as it is.
type lostEvents struct {
	a  *App
	mu sync.Mutex
	// fault is the last check's finding, nil when the log holds what the
	// projection holds.
	fault error
}

// LostEventsError is a log that ends before the projection's checkpoint.
type LostEventsError struct {
	Checkpoint, Last uint64
}

func (e *LostEventsError) Error() string {
	return fmt.Sprintf("the log has lost events: the projection holds events up to sequence %d, but the log ends at %d, so %d events the ledger acknowledged are missing from the data folder's NATS files "+
		"(a disk or file-system fault, or an older copy of the folder put back). Commands are refused until an operator acts: restore the data folder from a backup (docs/backup.md), "+
		"or carry on with the log as it is, losing those events, by rebuilding the projection: `ledger projections rebuild`",
		e.Checkpoint, e.Last, e.Checkpoint-e.Last)
}

// Unwrap makes the refusal an events.ErrUnavailable: 503 and exit 5,
// nothing appended.
func (e *LostEventsError) Unwrap() error { return events.ErrUnavailable }

// check compares the projection's checkpoint with the log's last sequence
// and keeps the finding. A log that does not answer leaves the last finding
// as it was (readiness reports the log itself).
func (l *lostEvents) check(ctx context.Context) error {
	last, err := l.a.Log.LastSequence(ctx)
	if err != nil {
		return l.current()
	}
	cp, err := l.a.DB.Checkpoint(ctx)
	if err != nil {
		return l.current()
	}
	var fault error
	if cp > last {
		fault = &LostEventsError{Checkpoint: cp, Last: last}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fault = fault
	return fault
}

// current is the last check's finding.
func (l *lostEvents) current() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fault
}

// gatedLog refuses every append while refuse says why; reads pass.
type gatedLog struct {
	events.Log
	refuse func() error
}

func (g gatedLog) Append(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope) error {
	if err := g.refuse(); err != nil {
		return fmt.Errorf("refused, nothing appended: %w", err)
	}
	return g.Log.Append(ctx, key, expected, batch)
}
