// Package projections defines how read models follow the log: a Projection
// applies batches of events and records, in the same transaction, the log
// sequence it has reached; Run feeds it from an events.Log. A projection can
// always be deleted and rebuilt from the log (docs/principles.md principle 1).
package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clubledger/ledger/events"
)

// Projection is a read model fed in log order.
type Projection interface {
	// Checkpoint returns the sequence of the last event applied (0: none).
	Checkpoint(ctx context.Context) (uint64, error)
	// ApplyBatch applies evs, which follow the checkpoint in log order, and
	// moves the checkpoint to the last of them, all in one transaction:
	// after a crash either the whole batch and its checkpoint are there or
	// neither is.
	ApplyBatch(ctx context.Context, evs []events.Envelope) error
}

// Preparer is a Projection that can do apart, and ahead, the part of
// applying a batch that depends on its events alone (decoding payloads,
// hashing, checking signatures, making the rows each event adds): Run then
// prepares the next batch on a goroutine of its own while the one before is
// applied, so that a rebuild uses a second core for that part. A type that
// embeds a Preparer to change how batches are applied must change
// ApplyPrepared too (or hide the Preparer): Run does not call ApplyBatch
// on a Preparer.
type Preparer interface {
	Projection
	// PrepareBatch prepares evs. It reads no state of the projection, so it
	// may run while ApplyPrepared applies an earlier batch.
	PrepareBatch(evs []events.Envelope) Prepared
	// ApplyPrepared is ApplyBatch of a batch PrepareBatch made.
	ApplyPrepared(ctx context.Context, b Prepared) error
}

// Prepared is a batch a Preparer prepared: its events, and what the
// projection made of them.
type Prepared interface {
	Events() []events.Envelope
}

// ProjectionError is Run's error when the projection itself failed (reading
// its checkpoint, applying a batch), as against the log: following again
// does not mend it, unless it is ErrStorage (a disk that takes writes
// again).
type ProjectionError struct {
	Op  string // "checkpoint", "apply events 5..9"
	Err error
}

func (e *ProjectionError) Error() string { return "projections: " + e.Op + ": " + e.Err.Error() }
func (e *ProjectionError) Unwrap() error { return e.Err }

// Progress reports how far a run has come.
type Progress struct {
	// Applied is the number of events applied by this run.
	Applied uint64
	// Sequence is the checkpoint reached.
	Sequence uint64
	// Target is the log's last sequence when the run started.
	Target uint64
	// Start is when the run started.
	Start time.Time
}

// RunOptions tune Run.
type RunOptions struct {
	// BatchSize is the most events applied in one transaction. Default 1000
	// (measured: 500 rebuilt at about 0.46 of the raw read rate, 1000 at 0.66).
	BatchSize int
	// Follow keeps running after catching up, applying new events as they
	// arrive, until the context ends. Without it Run returns once the
	// projection has reached the log's last sequence at the start.
	Follow bool
	// Until, when not 0, stops the run once the projection has reached
	// this log sequence (or the log's end, if that comes first), even with
	// Follow: `projections verify` rebuilds a scratch copy up to the live
	// projection's checkpoint this way.
	Until uint64
	// OnProgress, if set, is called after every batch.
	OnProgress func(Progress)
}

// MaxBatchSize is the most events Run applies in one transaction: a larger
// RunOptions.BatchSize is taken as this. Each batch in flight (read, being
// prepared, being applied, waiting at a hand-over) is held in memory, and
// batches past a few thousand events no longer make a rebuild faster
// (docs/performance.md): the door refuses a larger one.
const MaxBatchSize = 10_000

// ErrBusy is a rebuild or a verification of a projection asked for while
// another is running on it: refused, nothing changed; wait for the first
// to finish.
var ErrBusy = errors.New("a rebuild or a verification of the projection is already running")

// errCaughtUp stops Follow once the run has caught up.
var errCaughtUp = errors.New("caught up")

// Run feeds p from log, starting after p's checkpoint, in batches.
func Run(ctx context.Context, log events.Log, p Projection, opts RunOptions) error {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1000
	}
	opts.BatchSize = min(opts.BatchSize, MaxBatchSize)
	from, err := p.Checkpoint(ctx)
	if err != nil {
		return &ProjectionError{Op: "checkpoint", Err: err}
	}
	target, err := log.LastSequence(ctx)
	if err != nil {
		return fmt.Errorf("projections: last sequence: %w", err)
	}
	if opts.Until > 0 {
		target = min(target, opts.Until)
		opts.Follow = false
	}
	prog := Progress{Sequence: from, Target: target, Start: time.Now()}
	if !opts.Follow && from >= target {
		if opts.OnProgress != nil {
			opts.OnProgress(prog)
		}
		return nil
	}
	// The log is read (and each event decoded) while the previous batch is
	// being written: a reader and one applier, handing over whole batches;
	// with a Preparer, a third stage between them prepares each batch
	// while the one before is applied.
	followCtx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	batches := make(chan []events.Envelope, 1)
	toApply := make(chan Prepared, 1)
	pp, preparing := p.(Preparer)
	go func() {
		defer close(toApply)
		for b := range batches {
			var pb Prepared = plain(b)
			if preparing {
				pb = pp.PrepareBatch(b)
			}
			toApply <- pb
		}
	}()
	applied := make(chan error, 1)
	go func() {
		var failed error
		for pb := range toApply {
			if failed != nil {
				continue // drain what the reader had already handed over
			}
			b := pb.Events()
			var err error
			if preparing {
				err = pp.ApplyPrepared(ctx, pb)
			} else {
				err = p.ApplyBatch(ctx, b)
			}
			if err != nil {
				failed = &ProjectionError{Op: fmt.Sprintf("apply events %d..%d", b[0].Sequence, b[len(b)-1].Sequence), Err: err}
				stopFollow()
				continue
			}
			prog.Applied += uint64(len(b))
			prog.Sequence = b[len(b)-1].Sequence
			if opts.OnProgress != nil {
				opts.OnProgress(prog)
			}
		}
		applied <- failed
	}()
	batch := make([]events.Envelope, 0, opts.BatchSize)
	send := func() {
		if len(batch) == 0 {
			return
		}
		select {
		case batches <- batch:
		case <-followCtx.Done():
		}
		batch = make([]events.Envelope, 0, opts.BatchSize)
	}
	// Past the log's end at the start, a following run applies each event
	// as it comes: new events arrive one command at a time and should be
	// visible at once.
	err = log.Follow(followCtx, from, func(e events.Envelope) error {
		batch = append(batch, e)
		if len(batch) >= opts.BatchSize || e.Sequence >= target {
			send()
		}
		if !opts.Follow && e.Sequence >= target {
			return errCaughtUp
		}
		return nil
	}, nil)
	if errors.Is(err, errCaughtUp) {
		err = nil
	}
	if err == nil && followCtx.Err() == nil {
		send()
	}
	close(batches)
	if aerr := <-applied; aerr != nil {
		return aerr
	}
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// plain is a batch no Preparer prepared.
type plain []events.Envelope

func (p plain) Events() []events.Envelope { return p }
