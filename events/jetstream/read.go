package jetstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
)

// Reading the log: a stream's events (Read), every event in order
// (Follow), a stream's head and the log's last sequence.

// Read returns key's events after sequence after, in order, with Raw and
// Sequence set. It pages through the stream with direct batch gets (no
// consumer is created), which any replica may answer. A replica can lag the
// leader by a moment; if the answer ends before an event this Log itself
// appended, Read fetches the rest from the stream leader, so a process always
// reads its own writes; when no replica serves direct gets yet (a stream
// just created), the leader answers the whole read. Writes made through
// other connections may show up a moment later; Append's expected sequence
// catches decisions made on such a read, and Head confirms a refusal.
//
// Each request (a page, or one event from the leader) is bounded by the
// request timeout; a server that does not answer is events.ErrUnavailable.
func (l *Log) Read(ctx context.Context, key events.Key, after uint64) ([]events.Envelope, error) {
	if err := key.Validate(); err != nil {
		return nil, fmt.Errorf("jetstream: read: %w", err)
	}
	subj := Subject(key)
	evs, err := l.readDirect(ctx, key, subj, after)
	if errors.Is(err, nats.ErrNoResponders) {
		// No replica serves direct gets yet (a stream just created, or
		// replicas catching up): the leader answers.
		evs, err = l.readLeader(ctx, key, subj, after)
	}
	if err != nil {
		return nil, fmt.Errorf("jetstream: read %s: %w", key, unavailable(err))
	}
	end := after
	if n := len(evs); n > 0 {
		end = evs[n-1].Sequence
	}
	if l.lastAcked(subj) > end {
		tail, err := l.readLeader(ctx, key, subj, end)
		if err != nil {
			return nil, fmt.Errorf("jetstream: read %s from the leader: %w", key, unavailable(err))
		}
		evs = append(evs, tail...)
	}
	return evs, nil
}

// decodeAt decodes a stored event and checks that it belongs to key.
func decodeAt(key events.Key, data []byte, seq uint64) (events.Envelope, error) {
	e, err := events.Decode(data)
	if err != nil {
		return events.Envelope{}, fmt.Errorf("sequence %d: %w", seq, err)
	}
	if e.Key() != key {
		return events.Envelope{}, fmt.Errorf("sequence %d: event %s of %s stored on %s's subject", seq, e.ID, e.Key(), key)
	}
	e.Sequence = seq
	return e, nil
}

// Follow delivers every event of the log after sequence after, in log order,
// through one ordered consumer (no durable state on the server; the caller
// keeps its checkpoint). caughtUp, if not nil, is called once, right after
// the event that was the log's last when Follow started has been delivered
// (at once if there was none after after). Follow returns fn's error if fn
// fails, and ctx.Err() when ctx ends; it never returns nil.
//
// Follow first asks the stream leader for the last sequence: a server that
// does not answer makes it fail at once with events.ErrUnavailable. Once
// following, it rides out an outage: the ordered consumer is made again
// when the servers answer again, from the next sequence, and nothing is
// skipped or delivered twice.
func (l *Log) Follow(ctx context.Context, after uint64, fn func(events.Envelope) error, caughtUp func()) error {
	target, err := l.LastSequence(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("jetstream: follow: %w", err)
	}
	caught := caughtUp == nil
	if !caught && target <= after {
		caughtUp()
		caught = true
	}
	// nats.go creates the consumer here, with this context only.
	cctx, ccancel := bounded(ctx, l.timeout)
	cons, err := l.js.OrderedConsumer(cctx, l.name, natsjs.OrderedConsumerConfig{
		FilterSubjects: []string{SubjectAll},
		DeliverPolicy:  natsjs.DeliverByStartSequencePolicy,
		OptStartSeq:    after + 1,
		// nats.go recreates a lost ordered consumer inside Next, by
		// default for ever, holding the consumer's lock, so that neither
		// ctx nor Stop ends the wait: after a leader's kill a serve's
		// projector waited there for as long as the killed server was
		// down (TestServeReadinessOverALeaderKill). A few tries, then
		// Follow fails (ErrUnavailable) and its caller follows again.
		MaxResetAttempts: followResetAttempts,
	})
	ccancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("jetstream: follow: %w", unavailable(err))
	}
	it, err := l.startMessages(ctx, cons)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("jetstream: follow: %w", err)
	}
	defer it.Stop()
	// When there are events to deliver, the first must come within the
	// request timeout: a server that still answers as the leader without a
	// quorum may accept the consumer and deliver nothing.
	first := target > after
	for {
		var m natsjs.Msg
		var err error
		if first {
			m, err = l.firstMessage(ctx, it)
			first = false
		} else {
			m, err = it.Next(natsjs.NextContext(ctx))
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Whatever stopped the delivery (nats.go's bounded tries to
			// recreate a lost consumer included), the caller may follow
			// again from where it is: never a reason to stop following.
			return fmt.Errorf("jetstream: follow: %w", unavailableOrWrap(err))
		}
		md, err := m.Metadata()
		if err != nil {
			return fmt.Errorf("jetstream: follow: %w", err)
		}
		seq := md.Sequence.Stream
		e, err := events.Decode(m.Data())
		if err != nil {
			return fmt.Errorf("jetstream: follow: sequence %d: %w", seq, err)
		}
		e.Sequence = seq
		if err := fn(e); err != nil {
			return err
		}
		if !caught && seq >= target {
			caughtUp()
			caught = true
		}
	}
}

// followResetAttempts bounds how many times nats.go tries to recreate
// Follow's ordered consumer after losing it (each try waits up to 10 s).
const followResetAttempts = 2

// startMessages creates the ordered consumer's server side (nats.go does it
// in Messages, retrying for as long as the servers do not answer) and gives
// up after the request timeout: a server that still answers as the stream's
// leader without a quorum cannot create it. The abandoned attempt is
// stopped when it ends.
func (l *Log) startMessages(ctx context.Context, cons natsjs.Consumer) (natsjs.MessagesContext, error) {
	type started struct {
		it  natsjs.MessagesContext
		err error
	}
	ch := make(chan started, 1)
	go func() {
		it, err := cons.Messages()
		ch <- started{it, err}
	}()
	abandon := func() {
		go func() {
			if s := <-ch; s.it != nil {
				s.it.Stop()
			}
		}()
	}
	t := time.NewTimer(l.timeout)
	defer t.Stop()
	select {
	case s := <-ch:
		if s.err != nil {
			return nil, unavailable(s.err)
		}
		return s.it, nil
	case <-ctx.Done():
		abandon()
		return nil, ctx.Err()
	case <-t.C:
		abandon()
		return nil, fmt.Errorf("%w: the server did not create the log's consumer within %s (no quorum, or a leader being elected; try again in a few seconds)", events.ErrUnavailable, l.timeout)
	}
}

// firstMessage waits for it's first message for at most the request
// timeout (the iterator is stopped by the caller when it gives up, which
// ends the wait).
func (l *Log) firstMessage(ctx context.Context, it natsjs.MessagesContext) (natsjs.Msg, error) {
	type next struct {
		m   natsjs.Msg
		err error
	}
	ch := make(chan next, 1)
	go func() {
		m, err := it.Next(natsjs.NextContext(ctx))
		ch <- next{m, err}
	}()
	t := time.NewTimer(l.timeout)
	defer t.Stop()
	select {
	case n := <-ch:
		return n.m, n.err
	case <-t.C:
		return nil, fmt.Errorf("%w: the server delivered none of the log's events within %s (no quorum, or a leader being elected; try again in a few seconds)", events.ErrUnavailable, l.timeout)
	}
}

// Head returns the sequence of key's last event (0: none), asked of the
// stream leader (its message-get API; direct gets, which any replica may
// answer, are not used), so it is never behind an acknowledged append. A
// decision that refuses confirms with it that it was made on the newest
// state.
func (l *Log) Head(ctx context.Context, key events.Key) (uint64, error) {
	if err := key.Validate(); err != nil {
		return 0, fmt.Errorf("jetstream: head: %w", err)
	}
	rctx, cancel := bounded(ctx, l.timeout)
	defer cancel()
	seq, _, _, err := leaderGet(rctx, l.js, l.name, leaderGetRequest{LastFor: Subject(key)})
	if errors.Is(err, errNoMessage) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("jetstream: head of %s: %w", key, unavailable(err))
	}
	// A Read after this looks as far as the leader's head, fetching from
	// the leader what a lagging replica does not have yet.
	l.noteAcked(Subject(key), seq)
	return seq, nil
}

// peerSilence is how long a stream's leader may go without hearing from a
// replica before LastSequence counts it as gone: five of nats-server's
// one-second heartbeats.
const peerSilence = 5 * time.Second

// LastSequence returns the sequence of the log's last event (0: empty), as
// the stream leader knows it. A replica's answer while the stream has no
// leader (one is being elected) is events.ErrUnavailable: nothing can be
// appended then. A leader that has lost its quorum keeps
// answering for a while (nats-server steps it down only after 10 to 20 s):
// when it reports that fewer than a majority of the stream's servers,
// itself included, have been heard from within peerSilence, LastSequence
// answers events.ErrUnavailable instead, so that a readiness check sees the
// lost quorum within seconds.
func (l *Log) LastSequence(ctx context.Context) (uint64, error) {
	rctx, cancel := bounded(ctx, l.timeout)
	defer cancel()
	st, err := l.js.Stream(rctx, l.name)
	if err != nil {
		return 0, fmt.Errorf("jetstream: last sequence: %w", unavailable(err))
	}
	info := st.CachedInfo()
	if ci := info.Cluster; ci != nil && ci.Leader == "" {
		// A replica answers for a stream whose leader is gone while the
		// others elect a new one: it holds the events, but none can be
		// appended until there is a leader.
		return 0, fmt.Errorf("jetstream: last sequence: %w: the stream has no leader (its servers are electing one; no event can be appended until then)", events.ErrUnavailable)
	}
	if ci := info.Cluster; ci != nil && len(ci.Replicas) > 0 {
		up, all := 1, len(ci.Replicas)+1
		for _, r := range ci.Replicas {
			if !r.Offline && r.Active <= peerSilence {
				up++
			}
		}
		if up <= all/2 {
			return 0, fmt.Errorf("jetstream: last sequence: %w: the stream's leader %s has heard from %d of its %d servers within %s: no quorum (start the missing servers)",
				events.ErrUnavailable, ci.Leader, up, all, peerSilence)
		}
	}
	return info.State.LastSeq, nil
}
