package projections

import (
	"context"
	"fmt"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// DefaultSnapshotEvery is how many events apart a Timeline keeps a copy of
// the state, unless told otherwise.
const DefaultSnapshotEvery = 100

// Timeline is one battle's history in memory: its events, decoded once, and
// a copy of the folded state every few events, so that the state after any
// event is at most SnapshotEvery-1 applications away. The CLI's `ledger
// replay` and the HTTP API's battlefield-at-a-moment use it. It replays
// through the same rules.Apply as the live service and the projection, and
// never rolls a die: the rolls are in the events.
//
// A Timeline is safe for concurrent reads (At, Event); Append must not run
// concurrently with them.
type Timeline struct {
	hashes []string // each event's stored-form hash
	key    events.Key
	reg    *events.Registry
	every  int
	envs   []events.Envelope
	evs    []rules.Event
	// snaps[i] is the state after version i*every (snaps[0]: empty).
	snaps []*rules.State
	// head is the state after the last event.
	head *rules.State
}

// TimelineOptions tune a Timeline.
type TimelineOptions struct {
	// SnapshotEvery is the distance between kept states (default
	// DefaultSnapshotEvery). Memory is about len/SnapshotEvery states.
	SnapshotEvery int
}

// NewTimeline returns the empty timeline of key's battle, which decodes and
// upcasts events with reg.
func NewTimeline(key events.Key, reg *events.Registry, opts TimelineOptions) *Timeline {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = DefaultSnapshotEvery
	}
	head := rules.NewState()
	return &Timeline{key: key, reg: reg, every: opts.SnapshotEvery, head: head, snaps: []*rules.State{head.Clone()}}
}

// LoadTimeline reads key's battle stream from log into a Timeline.
func LoadTimeline(ctx context.Context, log events.Log, key events.Key, reg *events.Registry, opts TimelineOptions) (*Timeline, error) {
	if key.Battle == "" {
		return nil, fmt.Errorf("timeline %s: a timeline is a battle's; no battle given", key)
	}
	evs, err := log.Read(ctx, key, 0)
	if err != nil {
		return nil, fmt.Errorf("timeline %s: %w", key, err)
	}
	t := NewTimeline(key, reg, opts)
	if err := t.Append(evs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Append adds the battle's next events, which must continue its versions
// without a gap (a live view appends what it is sent).
func (t *Timeline) Append(evs ...events.Envelope) error {
	for i := range evs {
		e := evs[i]
		if e.Key() != t.key {
			return fmt.Errorf("timeline %s: event %s belongs to %s", t.key, e.ID, e.Key())
		}
		if want := uint64(len(t.envs)) + 1; e.Version != want {
			return fmt.Errorf("timeline %s: event %s has version %d where %d was expected", t.key, e.ID, e.Version, want)
		}
		payload, err := t.reg.Upcast(&e)
		if err != nil {
			return fmt.Errorf("timeline %s: %w", t.key, err)
		}
		ev, err := rules.DecodeEvent(e.Type, payload)
		if err != nil {
			return fmt.Errorf("timeline %s: event %s: %w", t.key, e.ID, err)
		}
		rules.Apply(t.head, ev)
		h := ""
		if len(e.Raw) > 0 {
			h = events.Hash(e.Raw)
		}
		t.hashes = append(t.hashes, h)
		e.Raw = nil // the stored form is not needed here, only its hash; keep memory to the decoded events
		t.envs = append(t.envs, e)
		t.evs = append(t.evs, ev)
		if len(t.envs)%t.every == 0 {
			t.snaps = append(t.snaps, t.head.Clone())
		}
	}
	return nil
}

// Hash returns the hash of the stored form of the event at version (1..Len),
// the value the next event's prev_hash carries; "" for an event appended
// without its stored form.
func (t *Timeline) Hash(version uint64) string {
	if version == 0 || version > uint64(len(t.hashes)) {
		return ""
	}
	return t.hashes[version-1]
}

// Key returns the battle the timeline is of.
func (t *Timeline) Key() events.Key { return t.key }

// Len returns the number of events, which is also the last version.
func (t *Timeline) Len() uint64 { return uint64(len(t.envs)) }

// At returns the battle's state just after the event of the given version
// (0: before the first event, the empty state). The state is the caller's
// own copy.
func (t *Timeline) At(version uint64) (*rules.State, error) {
	if version > t.Len() {
		return nil, fmt.Errorf("timeline %s: no event %d: the battle has %d events", t.key, version, t.Len())
	}
	if version == t.Len() {
		return t.head.Clone(), nil
	}
	i := int(version) / t.every
	s := t.snaps[i].Clone()
	for v := i*t.every + 1; v <= int(version); v++ {
		rules.Apply(s, t.evs[v-1])
	}
	return s, nil
}

// Event returns the stored envelope of the given version (from 1) and its
// decoded, upcast event.
func (t *Timeline) Event(version uint64) (events.Envelope, rules.Event, error) {
	if version == 0 || version > t.Len() {
		return events.Envelope{}, nil, fmt.Errorf("timeline %s: no event %d: the battle has %d events", t.key, version, t.Len())
	}
	return t.envs[version-1], t.evs[version-1], nil
}
