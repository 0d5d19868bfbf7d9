package projections

import (
	"context"
	"fmt"
	"sync"

	"github.com/clubledger/ledger/events"
)

// LostWatch watches for a log that has lost events the projection had
// applied: the projection's checkpoint ahead of the log's last sequence.
// That happens when the data folder's NATS files lost their tail (a disk or
// file-system fault, a power cut on a disk that lied about fsync, an older
// copy of the folder put back). New commands would then reuse the lost
// sequences and the projection would skip them, so while it holds a ledger
// refuses every append (events.Gate; events.ErrUnavailable, nothing
// appended), /readyz is 503 and `ledger projections status` names it, until
// an operator restores the folder from a backup or rebuilds the projection
// from the log as it is.
type LostWatch struct {
	Projection interface {
		Checkpoint(ctx context.Context) (uint64, error)
	}
	Log events.Log

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

// Check compares the projection's checkpoint with the log's last sequence
// and keeps the finding (a *LostEventsError, or nil). A log or projection
// that does not answer leaves the last finding as it was (readiness reports
// the log itself). The checkpoint is read first: the log only grows, so a
// log read after it that ends before it has lost events; read the other
// way round, a command appended and projected between the two reads looked
// like a lost event, and the gate refused the next command (seen after a
// leader's kill, TestServeReadinessOverALeaderKill).
func (w *LostWatch) Check(ctx context.Context) error {
	cp, err := w.Projection.Checkpoint(ctx)
	if err != nil {
		return w.Current()
	}
	last, err := w.Log.LastSequence(ctx)
	if err != nil {
		return w.Current()
	}
	var fault error
	if cp > last {
		fault = &LostEventsError{Checkpoint: cp, Last: last}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fault = fault
	return fault
}

// Current is the last check's finding.
func (w *LostWatch) Current() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fault
}
