// Package memlog is an events.Log held in memory: one process, nothing
// kept. It passes the same conformance suite as the JetStream log
// (events/eventstest), so that code above the log (the service, the door)
// can be tested on its own without a server. It is never the ledger's log:
// an acknowledged event must survive the process, and here none does.
package memlog

import (
	"context"
	"fmt"
	"sync"

	"github.com/clubledger/ledger/events"
)

// Log is an events.Log in memory. The zero value is not usable: use New.
type Log struct {
	mu     sync.Mutex
	all    []events.Envelope     // the whole log, in sequence order (sequence = index + 1)
	heads  map[events.Key]uint64 // each stream's last sequence
	ids    map[string]bool       // every event id stored: an append of one again is a duplicate
	notify chan struct{}         // closed and replaced at every append: wakes followers
}

var _ events.Log = (*Log)(nil)

// New returns an empty log.
func New() *Log {
	return &Log{heads: map[events.Key]uint64{}, ids: map[string]bool{}, notify: make(chan struct{})}
}

// Append stores batch atomically on key's stream if the stream's last event
// is at expected: ErrDuplicate when its first event was stored already (a
// batch sent again after a lost answer), ErrConflict when the stream moved
// on; a plain error for a batch that cannot be stored (an invalid key, an
// empty batch, an event not chained or of another stream).
func (l *Log) Append(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := key.Validate(); err != nil {
		return fmt.Errorf("memlog: append: %w", err)
	}
	if len(batch) == 0 {
		return fmt.Errorf("memlog: append %s: empty batch", key)
	}
	stored := make([]events.Envelope, len(batch))
	for i := range batch {
		e := &batch[i]
		switch {
		case e.ID == "":
			return fmt.Errorf("memlog: append %s: event %d has no id", key, i)
		case len(e.Raw) == 0:
			return fmt.Errorf("memlog: append %s: event %s is not chained (no stored form)", key, e.ID)
		case e.Key() != key:
			return fmt.Errorf("memlog: append %s: event %s belongs to %s", key, e.ID, e.Key())
		}
		// What a reader gets is the stored bytes decoded again, as from
		// any store: nothing of the caller's envelope but its bytes.
		d, err := events.Decode(e.Raw)
		if err != nil {
			return fmt.Errorf("memlog: append %s: event %s: %w", key, e.ID, err)
		}
		d.Raw = append([]byte(nil), e.Raw...)
		stored[i] = d
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids[batch[0].ID] {
		return fmt.Errorf("memlog: append %s: event %s is stored already: %w", key, batch[0].ID, events.ErrDuplicate)
	}
	if head := l.heads[key]; head != expected {
		return fmt.Errorf("memlog: append %s: expected the stream's last event at %d, it is at %d: %w", key, expected, head, events.ErrConflict)
	}
	for i := range stored {
		seq := uint64(len(l.all)) + 1
		stored[i].Sequence = seq
		batch[i].Sequence = seq
		l.all = append(l.all, stored[i])
		l.ids[stored[i].ID] = true
	}
	l.heads[key] = uint64(len(l.all))
	close(l.notify)
	l.notify = make(chan struct{})
	return nil
}

// Read returns key's events after the log sequence after, in order.
func (l *Log) Read(ctx context.Context, key events.Key, after uint64) ([]events.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := key.Validate(); err != nil {
		return nil, fmt.Errorf("memlog: read: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []events.Envelope
	for _, e := range l.all[min(after, uint64(len(l.all))):] {
		if e.Key() == key {
			out = append(out, e)
		}
	}
	return out, nil
}

// Follow calls fn with every event after the sequence after, in log order,
// until ctx ends (it returns ctx's error) or fn fails (it returns fn's);
// caughtUp, when not nil, once the events there at the start are delivered.
func (l *Log) Follow(ctx context.Context, after uint64, fn func(events.Envelope) error, caughtUp func()) error {
	l.mu.Lock()
	startLast := uint64(len(l.all))
	l.mu.Unlock()
	next := after + 1
	if startLast < next && caughtUp != nil {
		caughtUp()
		caughtUp = nil
	}
	for {
		l.mu.Lock()
		var pending []events.Envelope
		if next <= uint64(len(l.all)) {
			pending = append(pending, l.all[next-1:]...)
		}
		wake := l.notify
		l.mu.Unlock()
		for _, e := range pending {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
			next = e.Sequence + 1
			if caughtUp != nil && e.Sequence >= startLast {
				caughtUp()
				caughtUp = nil
			}
		}
		if len(pending) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// LastSequence is the sequence of the last event of the whole log.
func (l *Log) LastSequence(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return uint64(len(l.all)), nil
}

// Head is the sequence of key's last event (0: none). There is one copy of
// this log, so it is always the authority's.
func (l *Log) Head(ctx context.Context, key events.Key) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := key.Validate(); err != nil {
		return 0, fmt.Errorf("memlog: head: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heads[key], nil
}
