package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/clubledger/ledger/events"
)

// SetSinglePublish chooses how l appends a single event: a plain publish
// (true, the default) or an atomic batch of one. Tests run both paths.
func SetSinglePublish(l *Log, on bool) { l.singlePublish = on }

// NoteAcked makes l believe it has appended up to seq on key's stream, as if
// a replica answering Read lagged behind that.
func NoteAcked(l *Log, key events.Key, seq uint64) { l.noteAcked(Subject(key), seq) }

// ReadLeader reads key's events after after from the stream leader only,
// the path Read takes when a replica lags.
func ReadLeader(ctx context.Context, l *Log, key events.Key, after uint64) ([]events.Envelope, error) {
	return l.readLeader(ctx, key, Subject(key), after)
}

// ReadOrdered reads key's events after after through one ephemeral ordered
// consumer: the alternative to direct batch gets that BenchmarkRead compares
// Read with.
func ReadOrdered(ctx context.Context, l *Log, key events.Key, after uint64) ([]events.Envelope, error) {
	cons, err := l.js.OrderedConsumer(ctx, l.name, natsjs.OrderedConsumerConfig{
		FilterSubjects: []string{Subject(key)},
		DeliverPolicy:  natsjs.DeliverByStartSequencePolicy,
		OptStartSeq:    after + 1,
	})
	if err != nil {
		return nil, err
	}
	// A consumer per read must not linger on the server: delete it.
	defer func() {
		if ci := cons.CachedInfo(); ci != nil {
			_ = l.js.DeleteConsumer(context.Background(), l.name, ci.Name)
		}
	}()
	var out []events.Envelope
	for {
		batch, err := cons.FetchNoWait(readPage)
		if err != nil {
			return nil, err
		}
		n := 0
		var pending uint64
		for m := range batch.Messages() {
			md, err := m.Metadata()
			if err != nil {
				return nil, err
			}
			e, err := decodeAt(key, m.Data(), md.Sequence.Stream)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
			n++
			pending = md.NumPending
		}
		if err := batch.Error(); err != nil && !errors.Is(err, natsjs.ErrNoMessages) {
			return nil, fmt.Errorf("fetch: %w", err)
		}
		if n == 0 || pending == 0 {
			return out, nil
		}
	}
}

// ReadGetBatch reads key's events after after with jetstreamext.GetBatch,
// the library's direct batch get: BenchmarkRead compares it with Read's own
// multiplexed direct gets.
func ReadGetBatch(ctx context.Context, l *Log, key events.Key, after uint64) ([]events.Envelope, error) {
	var out []events.Envelope
	seq := after + 1
	for {
		it, err := jetstreamext.GetBatch(ctx, l.js, l.name, readPage,
			jetstreamext.GetBatchSeq(seq), jetstreamext.GetBatchSubject(Subject(key)))
		if err != nil {
			return nil, err
		}
		n, pending, none := 0, uint64(1), false
		for m, err := range it {
			if err != nil {
				if errors.Is(err, jetstreamext.ErrNoMessages) {
					none = true
					break
				}
				return nil, err
			}
			e, err := decodeAt(key, m.Data, m.Sequence)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
			n++
			seq = m.Sequence + 1
			if pending, err = strconv.ParseUint(m.Header.Get(numPendingHeader), 10, 64); err != nil {
				return nil, err
			}
		}
		switch {
		case none, n > 0 && pending == 0:
			return out, nil
		case n == 0:
			return nil, errors.New("direct get: no answer")
		}
	}
}

// SetGuardEvery makes g list the consumers again as often as every.
func SetGuardEvery(g *Guard, every time.Duration) {
	g.mu.Lock()
	g.every = every
	g.mu.Unlock()
}
