package events

import (
	"context"
	"errors"
	"fmt"
)

// ErrConflict is returned by Append when the stream has moved past the
// expected position: another writer appended first. The caller reloads and
// decides again.
var ErrConflict = errors.New("events: conflict: the stream changed since it was read")

// ErrDuplicate is returned by Append when the command's events were already
// stored (the store recognised their message ids). The caller answers with
// the recorded outcome instead of failing.
var ErrDuplicate = errors.New("events: duplicate: this command was already appended")

// ErrUnavailable is returned (wrapped, with what happened in words) when the
// store cannot answer: no quorum, a leader being elected, no space left, a
// timeout. For an append the outcome is unknown: the events may or may not
// have been stored. The caller retries with the same command id, which
// answers with the recorded outcome if they were.
var ErrUnavailable = errors.New("events: the log is unavailable")

// ErrDenied is returned when the store refuses to delete or purge: the log is
// append-only (docs/principles.md principle 2).
var ErrDenied = errors.New("events: denied: the log never deletes or purges")

// Log is the append-only event log.
type Log interface {
	// Append stores batch atomically, all or none, on key's stream, provided
	// the stream's last event is still at log sequence expected (0: the stream
	// is empty). batch must already be chained (Chain). On success the
	// envelopes get their Sequence. Errors: ErrConflict, ErrDuplicate.
	Append(ctx context.Context, key Key, expected uint64, batch []Envelope) error
	// Read returns the events of key's stream whose log sequence is greater
	// than after (0: from the first), in order.
	Read(ctx context.Context, key Key, after uint64) ([]Envelope, error)
	// Follow calls fn with every event of the whole log whose sequence is
	// greater than after, in log order, until ctx ends or fn fails. When
	// caughtUp is not nil it is called once, when the events existing at the
	// start have all been delivered.
	Follow(ctx context.Context, after uint64, fn func(Envelope) error, caughtUp func()) error
	// LastSequence returns the sequence of the last event in the whole log.
	LastSequence(ctx context.Context) (uint64, error)
	// Head returns the log sequence of key's last event (0: none) as the
	// authority of the log knows it (the stream leader), never a lagging
	// copy's: a decision that refuses confirms with it that it was made
	// on the newest state.
	Head(ctx context.Context, key Key) (uint64, error)
}

// ErrNotFound is returned by a Vault for a name it does not hold.
var ErrNotFound = errors.New("events: not found")

// Vault keeps the sealed values that hidden information needs (the secret
// dice seed before its reveal, a flank march's sealed orders). Its content is
// never written to the log; the log holds only commitments (hashes) to it.
// Names are dot-separated tokens ("dice.camp1.b1.seed.1").
type Vault interface {
	// Put stores value under name. Putting a name twice is refused unless
	// the value is identical: a sealed value never changes.
	Put(ctx context.Context, name string, value []byte) error
	// Get returns the value under name, or ErrNotFound.
	Get(ctx context.Context, name string) ([]byte, error)
}

// StoreFault is a store that cannot write: the disk holding it is full, or
// a write or fsync failed. It is ErrUnavailable (errors.Is): nothing the
// caller sends is recorded while it lasts. Full tells the two apart, Free
// and Size are the disk's free and total bytes when known (0 when not),
// and Cause is what the store said.
type StoreFault struct {
	Full       bool
	Free, Size uint64
	Cause      string
}

func (e *StoreFault) Error() string {
	if e.Full {
		return fmt.Sprintf("no space left on the data folder's disk (%s free of %s; %s): free space on that disk, and the ledger takes commands again by itself within a few seconds, no restart needed",
			Bytes(e.Free), Bytes(e.Size), e.Cause)
	}
	return fmt.Sprintf("the data folder's disk failed a write (%s; %s free): check the disk (the system log, dmesg); the ledger tries the disk again by itself every few seconds and takes commands once it writes",
		e.Cause, Bytes(e.Free))
}

// Unwrap makes a store fault an ErrUnavailable.
func (e *StoreFault) Unwrap() error { return ErrUnavailable }

// Bytes writes a size for people: 512 B, 3.2 MiB, 1.5 GiB.
func Bytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
