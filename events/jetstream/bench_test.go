package jetstream_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

// event returns one unchained event of key for command cmd.
func event(key events.Key, cmd string, i int) events.Envelope {
	return events.Envelope{
		ID: fmt.Sprintf("%s/%d", cmd, i), Campaign: key.Campaign, Battle: key.Battle,
		Type: "unit.moved", Schema: 1, Actor: "p1", CommandID: cmd, Audience: events.AudienceAll,
		Payload: []byte(`{"unit":"u1","from":[10,12],"to":[14,12],"formation":"column"}`),
	}
}

// appendN appends n single-event commands to key after last (nil: empty
// stream) and returns the last event.
func appendN(tb testing.TB, l *jetstream.Log, key events.Key, last *events.Envelope, n int, prefix string) *events.Envelope {
	tb.Helper()
	ctx := context.Background()
	for i := range n {
		b := []events.Envelope{event(key, fmt.Sprintf("%s-%d", prefix, i), 0)}
		if err := events.Chain(last, b); err != nil {
			tb.Fatal(err)
		}
		var expected uint64
		if last != nil {
			expected = last.Sequence
		}
		if err := l.Append(ctx, key, expected, b); err != nil {
			tb.Fatal(err)
		}
		last = &b[0]
	}
	return last
}

// BenchmarkAppend measures one single-event append, as a command makes it:
// embedded server, SyncAlways on, expected sequence and message id checked.
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []struct {
		name   string
		single bool
	}{{"Publish", true}, {"BatchOfOne", false}} {
		b.Run(mode.name, func(b *testing.B) {
			l := jstest.OpenLog(b, jstest.RunServer(b), jetstream.Config{})
			jetstream.SetSinglePublish(l, mode.single)
			key := events.Key{Campaign: "bench", Battle: "b1"}
			last := appendN(b, l, key, nil, 1, "warm")
			b.ResetTimer()
			appendN(b, l, key, last, b.N, "cmd")
		})
	}
}

// BenchmarkAppendBatch measures a five-event command (atomic batch).
func BenchmarkAppendBatch(b *testing.B) {
	l := jstest.OpenLog(b, jstest.RunServer(b), jetstream.Config{})
	key := events.Key{Campaign: "bench", Battle: "b1"}
	var last *events.Envelope
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		batch := make([]events.Envelope, 5)
		for j := range batch {
			batch[j] = event(key, fmt.Sprintf("cmd-%d", i), j)
		}
		if err := events.Chain(last, batch); err != nil {
			b.Fatal(err)
		}
		var expected uint64
		if last != nil {
			expected = last.Sequence
		}
		if err := l.Append(ctx, key, expected, batch); err != nil {
			b.Fatal(err)
		}
		last = &batch[4]
	}
}

// BenchmarkRead reads a whole battle of 10 and of 2,000 events, interleaved
// in the log with as many events of another battle, through Read (direct
// batch gets on one multiplexed subscription), jetstreamext.GetBatch (direct
// batch gets, a subscription per request), an ephemeral ordered consumer
// (created and deleted per read), and the leader-only message get Read
// falls back on. It reports events read per second.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{10, 2000} {
		l := jstest.OpenLog(b, jstest.RunServer(b), jetstream.Config{})
		key := events.Key{Campaign: "bench", Battle: "b1"}
		noise := events.Key{Campaign: "bench", Battle: "b2"}
		var last, lastNoise *events.Envelope
		for i := range n {
			last = appendN(b, l, key, last, 1, fmt.Sprintf("k%d", i))
			lastNoise = appendN(b, l, noise, lastNoise, 1, fmt.Sprintf("n%d", i))
		}
		methods := []struct {
			name string
			read func(context.Context, *jetstream.Log, events.Key, uint64) ([]events.Envelope, error)
		}{
			{"Direct", func(ctx context.Context, l *jetstream.Log, k events.Key, after uint64) ([]events.Envelope, error) {
				return l.Read(ctx, k, after)
			}},
			{"GetBatch", jetstream.ReadGetBatch},
			{"Ordered", jetstream.ReadOrdered},
			{"Leader", jetstream.ReadLeader},
		}
		for _, m := range methods {
			if m.name == "Leader" && n > 10 {
				continue // one request per event: not a bulk path
			}
			b.Run(fmt.Sprintf("%s/%d", m.name, n), func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					evs, err := m.read(ctx, l, key, 0)
					if err != nil {
						b.Fatal(err)
					}
					if len(evs) != n {
						b.Fatalf("read %d events, want %d", len(evs), n)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
