package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/clubledger/ledger/events"
)

// Defaults of Config.
const (
	DefaultStream          = "LEDGER"
	DefaultDuplicateWindow = 2 * time.Minute
)

// Subjects of the ledger stream. See the package documentation.
const (
	// SubjectAll matches every event of the ledger.
	SubjectAll = "ledger.>"
	// SubjectCampaignPrefix followed by a campaign id is a campaign's own stream.
	SubjectCampaignPrefix = "ledger.campaign."
	// SubjectBattlePrefix followed by "<campaign>.<battle>" is a battle's stream.
	SubjectBattlePrefix = "ledger.battle."
)

// Informative headers set on every stored event so that standard tools
// (`nats stream view`, `nats sub`) show what a message is without decoding
// its body. The body (the envelope) stays the only truth.
const (
	HeaderType     = "Ledger-Type"     // the event type, "order.resolved"
	HeaderVersion  = "Ledger-Version"  // the event's version in its stream
	HeaderCommand  = "Ledger-Command"  // the id of the command that caused it
	HeaderAudience = "Ledger-Audience" // who may read it
)

// JetStream API error codes the log maps.
const (
	codeWrongLastSequence         = 10071 // JSStreamWrongLastSequenceErr
	codeWrongLastSequenceConstant = 10164 // JSStreamWrongLastSequenceConstantErr (replicated streams)
	codeBatchDuplicateMsgID       = 10201 // JSAtomicPublishContainsDuplicateMessageErr
	codeMessageNotFound           = 10037 // JSNoMessageFoundErr
	codeClusterNotAvailable       = 10008 // JSClusterNotAvailErr
	codeClusterNoPeers            = 10005 // JSClusterNoPeersErr
)

// readPage is how many events one direct batch get asks for.
const readPage = 1000

// Subject returns the subject key's events are stored on. k must be valid
// (events.Key.Validate).
func Subject(k events.Key) string {
	if k.Battle == "" {
		return SubjectCampaignPrefix + k.Campaign
	}
	return SubjectBattlePrefix + k.Campaign + "." + k.Battle
}

// Config describes the ledger stream.
type Config struct {
	// Stream is the JetStream stream name (default DefaultStream).
	Stream string
	// Replicas is how many servers keep each event (default 1; 3 in a
	// three-node cluster).
	Replicas int
	// DuplicateWindow is how long the server remembers message ids to
	// recognise a command appended twice (default DefaultDuplicateWindow).
	// Past the window a repeated append is still refused, as a conflict,
	// by its expected sequence.
	DuplicateWindow time.Duration
}

func (c Config) withDefaults() (Config, error) {
	if c.Stream == "" {
		c.Stream = DefaultStream
	}
	if strings.ContainsAny(c.Stream, ". *>\t\r\n/\\") {
		return c, fmt.Errorf("jetstream: stream name %q: no dots, spaces, slashes or wildcards", c.Stream)
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		return c, fmt.Errorf("jetstream: replicas %d: want 1 to 5", c.Replicas)
	}
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = DefaultDuplicateWindow
	}
	if c.DuplicateWindow < 0 {
		return c, fmt.Errorf("jetstream: duplicate window %s: must be positive", c.DuplicateWindow)
	}
	return c, nil
}

// StreamConfig returns the JetStream configuration of the ledger stream:
// append-only (no delete, no purge), kept forever, atomic batches and
// direct gets allowed.
func (c Config) StreamConfig() (natsjs.StreamConfig, error) {
	c, err := c.withDefaults()
	if err != nil {
		return natsjs.StreamConfig{}, err
	}
	return natsjs.StreamConfig{
		Name:               c.Stream,
		Description:        "campaign ledger events (append-only)",
		Subjects:           []string{SubjectAll},
		Storage:            natsjs.FileStorage,
		Replicas:           c.Replicas,
		Retention:          natsjs.LimitsPolicy,
		MaxMsgs:            -1,
		MaxBytes:           -1,
		MaxAge:             0,
		MaxMsgsPerSubject:  -1,
		MaxMsgSize:         -1,
		Discard:            natsjs.DiscardOld,
		Duplicates:         c.DuplicateWindow,
		DenyDelete:         true,
		DenyPurge:          true,
		AllowAtomicPublish: true,
		AllowDirect:        true,
	}, nil
}

// Log is the ledger's event log on one JetStream stream. It is safe for
// concurrent use.
type Log struct {
	js     natsjs.JetStream
	stream natsjs.Stream
	name   string

	// singlePublish makes one-event appends a plain publish instead of a
	// batch of one (see Append).
	singlePublish bool

	// direct routes direct get answers to Read's requests.
	direct directMux

	// acked remembers, per subject, the last sequence this Log had
	// acknowledged, so that Read can notice a lagging replica (see Read).
	mu    sync.Mutex
	acked map[string]uint64
}

var _ events.Log = (*Log)(nil)

// Open creates the ledger stream, or updates its configuration, and returns
// the log on it. In a cluster that is still electing its leaders the first
// requests may go unanswered: Open retries them until ctx ends.
func Open(ctx context.Context, js natsjs.JetStream, cfg Config) (*Log, error) {
	sc, err := cfg.StreamConfig()
	if err != nil {
		return nil, err
	}
	var st natsjs.Stream
	err = retryAdmin(ctx, func(ctx context.Context) error {
		var err error
		st, err = js.CreateOrUpdateStream(ctx, sc)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("jetstream: open stream %s: %w", sc.Name, err)
	}
	return &Log{
		js: js, stream: st, name: sc.Name, singlePublish: true,
		direct: directMux{nc: js.Conn()}, acked: map[string]uint64{},
	}, nil
}

// retryAdmin runs an administrative request (create a stream or a bucket)
// with short per-attempt deadlines, retrying while the cluster is not ready,
// until it succeeds, fails for good, or ctx ends.
func retryAdmin(ctx context.Context, f func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := f(actx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !transient(err) {
			return err
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// transient reports errors that a cluster electing its leaders answers.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, natsjs.ErrNoStreamResponse) {
		return true
	}
	var apiErr *natsjs.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode == codeClusterNotAvailable || apiErr.ErrorCode == codeClusterNoPeers
	}
	return false
}

// Name returns the stream's name.
func (l *Log) Name() string { return l.name }

// Append stores batch on key's stream, all or none, if the stream's last
// event is still at sequence expected. Each event is one message whose data
// is exactly its Raw, with its ID as Nats-Msg-Id; the first message carries
// Nats-Expected-Last-Subject-Sequence (0 when the stream must be empty).
// Several events go as one atomic batch; a single event as a plain publish,
// which measured about ten times faster (see the package documentation).
//
// A wrong expected sequence is events.ErrConflict; a batch whose message ids
// the server has already stored is events.ErrDuplicate.
func (l *Log) Append(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope) error {
	if err := key.Validate(); err != nil {
		return fmt.Errorf("jetstream: append: %w", err)
	}
	if len(batch) == 0 {
		return fmt.Errorf("jetstream: append %s: empty batch", key)
	}
	subj := Subject(key)
	msgs := make([]*nats.Msg, len(batch))
	for i := range batch {
		e := &batch[i]
		if e.ID == "" {
			return fmt.Errorf("jetstream: append %s: event %d has no id", key, i)
		}
		if len(e.Raw) == 0 {
			return fmt.Errorf("jetstream: append %s: event %s is not chained (no stored form)", key, e.ID)
		}
		if e.Key() != key {
			return fmt.Errorf("jetstream: append %s: event %s belongs to %s", key, e.ID, e.Key())
		}
		h := nats.Header{}
		h.Set(natsjs.MsgIDHeader, e.ID)
		if i == 0 {
			h.Set(natsjs.ExpectedLastSubjSeqHeader, strconv.FormatUint(expected, 10))
		}
		h.Set(HeaderType, e.Type)
		h.Set(HeaderVersion, strconv.FormatUint(e.Version, 10))
		h.Set(HeaderCommand, e.CommandID)
		h.Set(HeaderAudience, e.Audience)
		msgs[i] = &nats.Msg{Subject: subj, Header: h, Data: e.Raw}
	}

	var last uint64
	if len(msgs) == 1 && l.singlePublish {
		ack, err := l.js.PublishMsg(ctx, msgs[0])
		if err != nil {
			return l.appendError(ctx, key, expected, batch, err)
		}
		if ack.Duplicate {
			return fmt.Errorf("jetstream: append %s: %w (event %s is at sequence %d)", key, events.ErrDuplicate, batch[0].ID, ack.Sequence)
		}
		last = ack.Sequence
	} else {
		ack, err := jetstreamext.PublishMsgBatch(ctx, l.js, msgs)
		if err != nil {
			return l.appendError(ctx, key, expected, batch, err)
		}
		if ack.BatchSize != uint64(len(msgs)) || ack.Sequence < uint64(len(msgs)) {
			return fmt.Errorf("jetstream: append %s: batch of %d acknowledged as %d ending at %d", key, len(msgs), ack.BatchSize, ack.Sequence)
		}
		last = ack.Sequence
	}
	// An atomic batch is stored contiguously: the ack names its last message.
	first := last - uint64(len(batch)) + 1
	for i := range batch {
		batch[i].Sequence = first + uint64(i)
	}
	l.noteAcked(subj, last)
	return nil
}

// appendError maps a refused append. A wrong expected sequence may hide a
// repeated command: a single server checks the expected sequence of a plain
// publish before its message id (a cluster checks the id first), and past
// the duplicate window only the sequence is checked. So a conflict is
// reported as a duplicate when the batch's first event is already stored
// after expected.
func (l *Log) appendError(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope, err error) error {
	var apiErr *natsjs.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode {
		case codeWrongLastSequence, codeWrongLastSequenceConstant:
			if seq, ok := l.stored(ctx, key, expected, batch[0].ID); ok {
				return fmt.Errorf("jetstream: append %s: %w (event %s is at sequence %d)", key, events.ErrDuplicate, batch[0].ID, seq)
			}
			return fmt.Errorf("jetstream: append %s expecting %d: %w (%s)", key, expected, events.ErrConflict, apiErr.Description)
		case codeBatchDuplicateMsgID:
			return fmt.Errorf("jetstream: append %s: %w (%s)", key, events.ErrDuplicate, apiErr.Description)
		}
	}
	return fmt.Errorf("jetstream: append %s: %w", key, err)
}

// stored looks for the event id among key's events after sequence after.
// A failed read answers "not found": the caller then reports the conflict.
func (l *Log) stored(ctx context.Context, key events.Key, after uint64, id string) (uint64, bool) {
	evs, err := l.Read(ctx, key, after)
	if err != nil {
		return 0, false
	}
	for _, e := range evs {
		if e.ID == id {
			return e.Sequence, true
		}
	}
	return 0, false
}

func (l *Log) noteAcked(subj string, seq uint64) {
	l.mu.Lock()
	if seq > l.acked[subj] {
		l.acked[subj] = seq
	}
	l.mu.Unlock()
}

func (l *Log) lastAcked(subj string) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked[subj]
}

// Read returns key's events after sequence after, in order, with Raw and
// Sequence set. It pages through the stream with direct batch gets (no
// consumer is created), which any replica may answer. A replica can lag the
// leader by a moment; if the answer ends before an event this Log itself
// appended, Read fetches the rest from the stream leader, so a process always
// reads its own writes; when no replica serves direct gets yet (a stream
// just created), the leader answers the whole read. Writes made through other connections may show up a
// moment later; Append's expected sequence catches decisions made on such a
// read.
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
		return nil, fmt.Errorf("jetstream: read %s: %w", key, err)
	}
	end := after
	if n := len(evs); n > 0 {
		end = evs[n-1].Sequence
	}
	if l.lastAcked(subj) > end {
		tail, err := l.readLeader(ctx, key, subj, end)
		if err != nil {
			return nil, fmt.Errorf("jetstream: read %s from the leader: %w", key, err)
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
	cons, err := l.js.OrderedConsumer(ctx, l.name, natsjs.OrderedConsumerConfig{
		FilterSubjects: []string{SubjectAll},
		DeliverPolicy:  natsjs.DeliverByStartSequencePolicy,
		OptStartSeq:    after + 1,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("jetstream: follow: %w", err)
	}
	it, err := cons.Messages()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("jetstream: follow: %w", err)
	}
	defer it.Stop()
	for {
		m, err := it.Next(natsjs.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("jetstream: follow: %w", err)
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

// Head returns the sequence of key's last event (0: none), asked of the
// stream leader.
func (l *Log) Head(ctx context.Context, key events.Key) (uint64, error) {
	if err := key.Validate(); err != nil {
		return 0, fmt.Errorf("jetstream: head: %w", err)
	}
	seq, _, _, err := leaderGet(ctx, l.js, l.name, leaderGetRequest{LastFor: Subject(key)})
	if errors.Is(err, errNoMessage) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("jetstream: head of %s: %w", key, err)
	}
	// A Read after this looks as far as the leader's head, fetching from
	// the leader what a lagging replica does not have yet.
	l.noteAcked(Subject(key), seq)
	return seq, nil
}

// LastSequence returns the sequence of the log's last event (0: empty), as
// the stream leader knows it.
func (l *Log) LastSequence(ctx context.Context) (uint64, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("jetstream: last sequence: %w", err)
	}
	return info.State.LastSeq, nil
}
