// Package eventstest is the conformance suite of events.Log: the behaviour
// every implementation must show, run against each of them (goes'
// eventstoretest.Run).
package eventstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
)

// Run tests the events.Log contract on the logs newLog returns. newLog may
// hand every test a log on the same store: each test writes to streams of
// its own, and reads the whole log only from the sequence it started at.
// Tests run one after the other, so the last sequence is stable while a test
// runs.
func Run(t *testing.T, newLog func(t *testing.T) events.Log) {
	tests := []struct {
		name string
		fn   func(t *testing.T, log events.Log)
	}{
		{"AppendToEmpty", testAppendToEmpty},
		{"AppendContinues", testAppendContinues},
		{"StaleExpectedConflicts", testStaleExpected},
		{"SameBatchAgainIsDuplicate", testDuplicate},
		{"MultiEventBatch", testMultiEventBatch},
		{"ReadAfter", testReadAfter},
		{"StreamsStaySeparate", testStreamsSeparate},
		{"InvalidAppends", testInvalidAppends},
		{"Follow", testFollow},
		{"FollowStopsOnError", testFollowError},
		{"ConcurrentAppenders", testConcurrent},
		{"Head", testHead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newLog(t)) })
	}
}

// timeout bounds every test's calls; generous because CI machines are slow.
const timeout = 30 * time.Second

func ctxFor(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

var keySeq atomic.Uint64

// nonce keeps keys apart when newLog reuses a store across runs.
var nonce = func() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// newCampaign returns a campaign id no other test uses.
func newCampaign() string {
	return fmt.Sprintf("c%s-%d", nonce, keySeq.Add(1))
}

// newBatch builds a command's events for key (not yet chained). Event ids
// must be unique across the whole log, so the command id is made unique by
// prefixing cmd with the campaign id, which no other test uses.
func newBatch(key events.Key, cmd string, types ...string) []events.Envelope {
	cmd = key.Campaign + "." + cmd
	out := make([]events.Envelope, len(types))
	for i, typ := range types {
		out[i] = events.Envelope{
			ID:        fmt.Sprintf("%s/%d", cmd, i),
			Campaign:  key.Campaign,
			Battle:    key.Battle,
			Type:      typ,
			Schema:    1,
			Time:      time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
			Actor:     "umpire",
			CommandID: cmd,
			Audience:  events.AudienceAll,
			Payload:   json.RawMessage(fmt.Sprintf(`{"cmd":%q,"n":%d}`, cmd, i)),
		}
	}
	return out
}

// chained builds and chains a command's events after last (nil: empty stream).
func chained(t *testing.T, last *events.Envelope, key events.Key, cmd string, types ...string) []events.Envelope {
	t.Helper()
	b := newBatch(key, cmd, types...)
	if err := events.Chain(last, b); err != nil {
		t.Fatalf("chain: %v", err)
	}
	return b
}

func mustAppend(t *testing.T, log events.Log, key events.Key, expected uint64, batch []events.Envelope) {
	t.Helper()
	if err := log.Append(ctxFor(t), key, expected, batch); err != nil {
		t.Fatalf("append %s expecting %d: %v", key, expected, err)
	}
	for i := range batch {
		if batch[i].Sequence == 0 {
			t.Fatalf("append %s: event %s got no sequence", key, batch[i].ID)
		}
	}
}

func mustRead(t *testing.T, log events.Log, key events.Key, after uint64) []events.Envelope {
	t.Helper()
	evs, err := log.Read(ctxFor(t), key, after)
	if err != nil {
		t.Fatalf("read %s after %d: %v", key, after, err)
	}
	return evs
}

func mustLast(t *testing.T, log events.Log) uint64 {
	t.Helper()
	seq, err := log.LastSequence(ctxFor(t))
	if err != nil {
		t.Fatalf("last sequence: %v", err)
	}
	return seq
}

// sameEvents checks that got is want as stored: same ids, bytes and sequences.
func sameEvents(t *testing.T, got, want []events.Envelope) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events %v, want %d %v", len(got), ids(got), len(want), ids(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Sequence != w.Sequence || string(g.Raw) != string(w.Raw) {
			t.Fatalf("event %d: got %s at %d (%s), want %s at %d (%s)", i, g.ID, g.Sequence, g.Raw, w.ID, w.Sequence, w.Raw)
		}
		if g.Version != w.Version || g.Type != w.Type || g.PrevHash != w.PrevHash || g.Campaign != w.Campaign || g.Battle != w.Battle {
			t.Fatalf("event %d: decoded %+v, want %+v", i, g, w)
		}
	}
}

func ids(evs []events.Envelope) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = fmt.Sprintf("%s@%d", e.ID, e.Sequence)
	}
	return out
}

func testAppendToEmpty(t *testing.T, log events.Log) {
	key := events.Key{Campaign: newCampaign()}
	if evs := mustRead(t, log, key, 0); len(evs) != 0 {
		t.Fatalf("new stream has events: %v", ids(evs))
	}
	b := chained(t, nil, key, "cmd-1", "campaign.created")
	mustAppend(t, log, key, 0, b)
	if last := mustLast(t, log); last != b[0].Sequence {
		t.Fatalf("last sequence %d, want the appended %d", last, b[0].Sequence)
	}
	got := mustRead(t, log, key, 0)
	sameEvents(t, got, b)
	if err := events.VerifyChain(got); err != nil {
		t.Fatal(err)
	}
}

func testAppendContinues(t *testing.T, log events.Log) {
	key := events.Key{Campaign: newCampaign(), Battle: "b1"}
	b1 := chained(t, nil, key, "cmd-1", "battle.started")
	mustAppend(t, log, key, 0, b1)
	b2 := chained(t, &b1[0], key, "cmd-2", "unit.moved")
	mustAppend(t, log, key, b1[0].Sequence, b2)
	if b2[0].Sequence <= b1[0].Sequence {
		t.Fatalf("second event at %d, not after the first at %d", b2[0].Sequence, b1[0].Sequence)
	}
	got := mustRead(t, log, key, 0)
	sameEvents(t, got, append(b1, b2...))
	if err := events.VerifyChain(got); err != nil {
		t.Fatal(err)
	}
}

func testStaleExpected(t *testing.T, log events.Log) {
	ctx := ctxFor(t)
	key := events.Key{Campaign: newCampaign()}
	b1 := chained(t, nil, key, "cmd-1", "campaign.created")
	mustAppend(t, log, key, 0, b1)
	b2 := chained(t, &b1[0], key, "cmd-2", "player.joined")
	mustAppend(t, log, key, b1[0].Sequence, b2)
	want := append(b1, b2...)
	last := mustLast(t, log)

	cases := []struct {
		name     string
		expected uint64
		batch    []events.Envelope
	}{
		{"one event, expecting the previous event", b1[0].Sequence, chained(t, &b1[0], key, "cmd-3", "player.joined")},
		{"one event, expecting an empty stream", 0, chained(t, nil, key, "cmd-4", "campaign.created")},
		{"one event, expecting a future sequence", last + 100, chained(t, &b2[0], key, "cmd-5", "player.joined")},
		{"three events, expecting the previous event", b1[0].Sequence, chained(t, &b1[0], key, "cmd-6", "player.joined", "player.joined", "side.chosen")},
		{"three events, expecting an empty stream", 0, chained(t, nil, key, "cmd-7", "campaign.created", "player.joined", "side.chosen")},
	}
	for _, c := range cases {
		err := log.Append(ctx, key, c.expected, c.batch)
		if !errors.Is(err, events.ErrConflict) {
			t.Fatalf("%s: got %v, want ErrConflict", c.name, err)
		}
		if errors.Is(err, events.ErrDuplicate) {
			t.Fatalf("%s: conflict also reported as duplicate: %v", c.name, err)
		}
	}
	sameEvents(t, mustRead(t, log, key, 0), want)
	if got := mustLast(t, log); got != last {
		t.Fatalf("refused appends moved the log from %d to %d", last, got)
	}
}

func testDuplicate(t *testing.T, log events.Log) {
	ctx := ctxFor(t)
	key := events.Key{Campaign: newCampaign(), Battle: "b1"}
	one := chained(t, nil, key, "cmd-1", "battle.started")
	mustAppend(t, log, key, 0, one)
	three := chained(t, &one[0], key, "cmd-2", "unit.moved", "unit.moved", "order.resolved")
	mustAppend(t, log, key, one[0].Sequence, three)
	want := append(append([]events.Envelope{}, one...), three...)
	last := mustLast(t, log)

	retry := func(b []events.Envelope) []events.Envelope {
		c := append([]events.Envelope{}, b...)
		for i := range c {
			c[i].Sequence = 0
		}
		return c
	}
	cases := []struct {
		name     string
		expected uint64
		batch    []events.Envelope
	}{
		{"one event, same expected", 0, retry(one)},
		{"three events, same expected", one[0].Sequence, retry(three)},
		{"three events, expecting what is now last", three[2].Sequence, retry(three)},
	}
	for _, c := range cases {
		err := log.Append(ctx, key, c.expected, c.batch)
		if !errors.Is(err, events.ErrDuplicate) {
			t.Fatalf("%s: got %v, want ErrDuplicate", c.name, err)
		}
		if errors.Is(err, events.ErrConflict) {
			t.Fatalf("%s: duplicate also reported as conflict: %v", c.name, err)
		}
	}
	sameEvents(t, mustRead(t, log, key, 0), want)
	if got := mustLast(t, log); got != last {
		t.Fatalf("duplicate appends moved the log from %d to %d", last, got)
	}
}

func testMultiEventBatch(t *testing.T, log events.Log) {
	key := events.Key{Campaign: newCampaign(), Battle: "b1"}
	b := chained(t, nil, key, "cmd-1", "battle.started", "unit.deployed", "unit.deployed", "unit.deployed", "turn.began")
	mustAppend(t, log, key, 0, b)
	for i := 1; i < len(b); i++ {
		if b[i].Sequence != b[0].Sequence+uint64(i) {
			t.Fatalf("batch sequences not consecutive: %v", ids(b))
		}
	}
	if last := mustLast(t, log); last != b[len(b)-1].Sequence {
		t.Fatalf("last sequence %d, want the batch's last %d", last, b[len(b)-1].Sequence)
	}
	got := mustRead(t, log, key, 0)
	sameEvents(t, got, b)
	if err := events.VerifyChain(got); err != nil {
		t.Fatal(err)
	}
	// And a batch continuing it.
	b2 := chained(t, &b[len(b)-1], key, "cmd-2", "unit.moved", "unit.moved")
	mustAppend(t, log, key, b[len(b)-1].Sequence, b2)
	got = mustRead(t, log, key, 0)
	sameEvents(t, got, append(b, b2...))
	if err := events.VerifyChain(got); err != nil {
		t.Fatal(err)
	}
}

func testReadAfter(t *testing.T, log events.Log) {
	key := events.Key{Campaign: newCampaign()}
	var all []events.Envelope
	var last *events.Envelope
	var expected uint64
	for i := range 5 {
		b := chained(t, last, key, fmt.Sprintf("cmd-%d", i), "player.joined")
		mustAppend(t, log, key, expected, b)
		all = append(all, b...)
		last, expected = &all[len(all)-1], b[0].Sequence
	}
	sameEvents(t, mustRead(t, log, key, 0), all)
	sameEvents(t, mustRead(t, log, key, all[1].Sequence), all[2:])
	if evs := mustRead(t, log, key, all[4].Sequence); len(evs) != 0 {
		t.Fatalf("read after the last event: %v", ids(evs))
	}
	if evs := mustRead(t, log, events.Key{Campaign: newCampaign()}, 0); len(evs) != 0 {
		t.Fatalf("read of a stream never written: %v", ids(evs))
	}
}

func testStreamsSeparate(t *testing.T, log events.Log) {
	c := newCampaign()
	keys := []events.Key{{Campaign: c}, {Campaign: c, Battle: "b1"}, {Campaign: c, Battle: "b2"}, {Campaign: newCampaign()}}
	stored := make([][]events.Envelope, len(keys))
	for round := range 4 {
		for k, key := range keys {
			var last *events.Envelope
			var expected uint64
			if n := len(stored[k]); n > 0 {
				last, expected = &stored[k][n-1], stored[k][n-1].Sequence
			}
			types := []string{"x.happened"}
			if round%2 == 1 {
				types = append(types, "y.happened")
			}
			b := chained(t, last, key, fmt.Sprintf("cmd-%d-%d", k, round), types...)
			mustAppend(t, log, key, expected, b)
			stored[k] = append(stored[k], b...)
		}
	}
	for k, key := range keys {
		got := mustRead(t, log, key, 0)
		sameEvents(t, got, stored[k])
		if err := events.VerifyChain(got); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
}

func testInvalidAppends(t *testing.T, log events.Log) {
	ctx := ctxFor(t)
	key := events.Key{Campaign: newCampaign()}
	last := mustLast(t, log)
	cases := []struct {
		name  string
		key   events.Key
		batch []events.Envelope
	}{
		{"invalid campaign id", events.Key{Campaign: "Bad.Id"}, chained(t, nil, events.Key{Campaign: "Bad.Id"}, "cmd-1", "x.happened")},
		{"empty batch", key, nil},
		{"not chained", key, newBatch(key, "cmd-2", "x.happened")},
		{"event of another stream", key, chained(t, nil, events.Key{Campaign: newCampaign()}, "cmd-3", "x.happened")},
	}
	for _, c := range cases {
		err := log.Append(ctx, c.key, 0, c.batch)
		if err == nil || errors.Is(err, events.ErrConflict) || errors.Is(err, events.ErrDuplicate) {
			t.Fatalf("%s: got %v, want a plain error", c.name, err)
		}
	}
	if got := mustLast(t, log); got != last {
		t.Fatalf("invalid appends moved the log from %d to %d", last, got)
	}
}

// follower runs Follow in the background and collects what it delivers.
type follower struct {
	mu       sync.Mutex
	got      []events.Envelope
	caught   int
	caughtAt int // len(got) when caughtUp was called
	done     chan error
	cancel   context.CancelFunc
}

func startFollow(t *testing.T, log events.Log, after uint64, fnErr func(events.Envelope) error) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(ctxFor(t))
	f := &follower{done: make(chan error, 1), cancel: cancel}
	go func() {
		f.done <- log.Follow(ctx, after, func(e events.Envelope) error {
			f.mu.Lock()
			f.got = append(f.got, e)
			f.mu.Unlock()
			if fnErr != nil {
				return fnErr(e)
			}
			return nil
		}, func() {
			f.mu.Lock()
			f.caught++
			f.caughtAt = len(f.got)
			f.mu.Unlock()
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-f.done
	})
	return f
}

// waitFor polls cond until it holds or the test's time is up.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-time.After(5 * time.Millisecond)
	}
}

func (f *follower) snapshot() ([]events.Envelope, int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]events.Envelope{}, f.got...), f.caught, f.caughtAt
}

func testFollow(t *testing.T, log events.Log) {
	start := mustLast(t, log)

	// Nothing after start: caught up at once.
	idle := startFollow(t, log, start, nil)
	waitFor(t, "caughtUp on an idle log", func() bool { _, c, _ := idle.snapshot(); return c == 1 })

	key := events.Key{Campaign: newCampaign(), Battle: "b1"}
	other := events.Key{Campaign: newCampaign()}
	b1 := chained(t, nil, key, "cmd-1", "battle.started", "unit.deployed")
	mustAppend(t, log, key, 0, b1)
	o1 := chained(t, nil, other, "cmd-2", "campaign.created")
	mustAppend(t, log, other, 0, o1)
	b2 := chained(t, &b1[1], key, "cmd-3", "unit.moved")
	mustAppend(t, log, key, b1[1].Sequence, b2)
	existing := []events.Envelope{b1[0], b1[1], o1[0], b2[0]}

	f := startFollow(t, log, start, nil)
	waitFor(t, "caughtUp after the existing events", func() bool { _, c, _ := f.snapshot(); return c == 1 })
	got, _, at := f.snapshot()
	if at != len(existing) {
		t.Fatalf("caughtUp called after %d events, want %d", at, len(existing))
	}
	sameEvents(t, got, existing)

	// Following from the middle delivers only what comes after.
	mid := startFollow(t, log, b1[1].Sequence, nil)
	waitFor(t, "caughtUp from the middle", func() bool { _, c, _ := mid.snapshot(); return c == 1 })

	b3 := chained(t, &b2[0], key, "cmd-4", "order.resolved")
	mustAppend(t, log, key, b2[0].Sequence, b3)
	want := append(existing, b3...)
	waitFor(t, "the new event", func() bool { g, _, _ := f.snapshot(); return len(g) >= len(want) })
	waitFor(t, "the new event, from the middle", func() bool { g, _, _ := mid.snapshot(); return len(g) >= 3 })
	got, caught, _ := f.snapshot()
	sameEvents(t, got, want)
	if caught != 1 {
		t.Fatalf("caughtUp called %d times", caught)
	}
	gotMid, caughtMid, atMid := mid.snapshot()
	sameEvents(t, gotMid, want[2:])
	if caughtMid != 1 || atMid != 2 {
		t.Fatalf("from the middle: caughtUp called %d times, after %d events; want once, after 2", caughtMid, atMid)
	}
	waitFor(t, "the events, by the follower started on an idle log", func() bool { g, _, _ := idle.snapshot(); return len(g) >= len(want) })
	g, _, _ := idle.snapshot()
	sameEvents(t, g, want)

	// Stopping: Follow returns when its context ends.
	f.cancel()
	select {
	case err := <-f.done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("follow after cancel returned %v, want nil or context.Canceled", err)
		}
		f.done <- err // for the cleanup
	case <-time.After(timeout):
		t.Fatal("follow did not return after its context was cancelled")
	}
}

func testFollowError(t *testing.T, log events.Log) {
	start := mustLast(t, log)
	key := events.Key{Campaign: newCampaign()}
	var last *events.Envelope
	var expected uint64
	for i := range 3 {
		b := chained(t, last, key, fmt.Sprintf("cmd-%d", i), "x.happened")
		mustAppend(t, log, key, expected, b)
		last, expected = &b[0], b[0].Sequence
	}
	boom := errors.New("projection failed")
	n := 0
	f := startFollow(t, log, start, func(events.Envelope) error {
		n++
		if n == 2 {
			return boom
		}
		return nil
	})
	select {
	case err := <-f.done:
		if !errors.Is(err, boom) {
			t.Fatalf("follow returned %v, want fn's error", err)
		}
		f.done <- err
	case <-time.After(timeout):
		t.Fatal("follow did not stop when fn failed")
	}
	if got, _, _ := f.snapshot(); len(got) != 2 {
		t.Fatalf("fn called %d times, want 2 (stop at the error)", len(got))
	}
}

func testConcurrent(t *testing.T, log events.Log) {
	const writers, each = 8, 25
	key := events.Key{Campaign: newCampaign(), Battle: "b1"}
	ctx := ctxFor(t)
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen []events.Envelope // this writer's copy of the stream
			for i := range each {
				cmd := fmt.Sprintf("w%d-cmd%d", w, i)
				for attempt := 0; ; attempt++ {
					if attempt > 10000 {
						errs <- fmt.Errorf("%s: gave up after %d conflicts", cmd, attempt)
						return
					}
					var after uint64
					if n := len(seen); n > 0 {
						after = seen[n-1].Sequence
					}
					more, err := log.Read(ctx, key, after)
					if err != nil {
						errs <- fmt.Errorf("%s: read: %w", cmd, err)
						return
					}
					seen = append(seen, more...)
					var last *events.Envelope
					var expected uint64
					if n := len(seen); n > 0 {
						last, expected = &seen[n-1], seen[n-1].Sequence
					}
					b := newBatch(key, cmd, "unit.moved")
					if err := events.Chain(last, b); err != nil {
						errs <- err
						return
					}
					err = log.Append(ctx, key, expected, b)
					if errors.Is(err, events.ErrConflict) {
						conflicts.Add(1)
						continue
					}
					if err != nil {
						errs <- fmt.Errorf("%s: append: %w", cmd, err)
						return
					}
					seen = append(seen, b...)
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := mustRead(t, log, key, 0)
	if len(got) != writers*each {
		t.Fatalf("stream holds %d events, want %d", len(got), writers*each)
	}
	if err := events.VerifyChain(got); err != nil {
		t.Fatal(err)
	}
	unique := map[string]bool{}
	for _, e := range got {
		unique[e.ID] = true
	}
	if len(unique) != writers*each {
		t.Fatalf("%d distinct event ids, want %d", len(unique), writers*each)
	}
	t.Logf("%d appends, %d conflicts retried", writers*each, conflicts.Load())
}

// testHead checks Log.Head: 0 for a stream without events; the last event's
// sequence after every append, of one event or a batch, and at once (Head
// answers from the authority of the log, never a lagging copy); unmoved by
// other streams' appends and by refused appends.
func testHead(t *testing.T, log events.Log) {
	ctx := ctxFor(t)
	key := events.Key{Campaign: newCampaign(), Battle: "b1"}
	other := events.Key{Campaign: key.Campaign}
	head := func(k events.Key) uint64 {
		t.Helper()
		h, err := log.Head(ctx, k)
		if err != nil {
			t.Fatalf("head of %s: %v", k, err)
		}
		return h
	}
	if h := head(key); h != 0 {
		t.Fatalf("head of a stream without events: %d, want 0", h)
	}
	b1 := chained(t, nil, key, "cmd-1", "battle.started")
	mustAppend(t, log, key, 0, b1)
	if h := head(key); h != b1[0].Sequence {
		t.Fatalf("head after one event: %d, want %d", h, b1[0].Sequence)
	}
	o := chained(t, nil, other, "cmd-o", "campaign.created")
	mustAppend(t, log, other, 0, o)
	if h := head(key); h != b1[0].Sequence {
		t.Fatalf("head moved with another stream's append: %d, want %d", h, b1[0].Sequence)
	}
	if h := head(other); h != o[0].Sequence {
		t.Fatalf("head of the other stream: %d, want %d", h, o[0].Sequence)
	}
	b2 := chained(t, &b1[0], key, "cmd-2", "unit.moved", "unit.moved", "order.resolved")
	mustAppend(t, log, key, b1[0].Sequence, b2)
	if h := head(key); h != b2[2].Sequence {
		t.Fatalf("head after a batch: %d, want its last event %d", h, b2[2].Sequence)
	}
	stale := chained(t, &b1[0], key, "cmd-3", "unit.moved")
	if err := log.Append(ctx, key, b1[0].Sequence, stale); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("stale append: %v, want ErrConflict", err)
	}
	if h := head(key); h != b2[2].Sequence {
		t.Fatalf("head moved with a refused append: %d, want %d", h, b2[2].Sequence)
	}
	if _, err := log.Head(ctx, events.Key{Campaign: "bad campaign"}); err == nil {
		t.Fatal("head of an invalid key answered")
	}
}
