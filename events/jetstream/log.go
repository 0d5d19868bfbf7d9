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
	// RequestTimeout bounds every request to the server (default
	// DefaultRequestTimeout): past it the call fails with
	// events.ErrUnavailable.
	RequestTimeout time.Duration
	// OpenWait bounds how long Open retries a server that does not answer
	// (default DefaultOpenWait).
	OpenWait time.Duration
	// BatchesInFlight bounds this Log's atomic batches (appends of several
	// events) in flight at once; more wait for a place, within their
	// request's context. nats-server 2.15 refuses more than 50 in flight
	// per stream (API error 10210): with several ledger processes on one
	// stream, give each a share. Default DefaultBatchesInFlight.
	BatchesInFlight int
}

// DefaultBatchesInFlight is Config.BatchesInFlight's default: below the
// server's 50 per stream, with room for the tools.
const DefaultBatchesInFlight = 40

func (c Config) requestTimeout() time.Duration {
	if c.RequestTimeout > 0 {
		return c.RequestTimeout
	}
	return DefaultRequestTimeout
}

func (c Config) openWait() time.Duration {
	if c.OpenWait > 0 {
		return c.OpenWait
	}
	return DefaultOpenWait
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
	if c.RequestTimeout < 0 || c.OpenWait < 0 {
		return c, fmt.Errorf("jetstream: request timeout %s, open wait %s: must not be negative", c.RequestTimeout, c.OpenWait)
	}
	if c.BatchesInFlight == 0 {
		c.BatchesInFlight = DefaultBatchesInFlight
	}
	if c.BatchesInFlight < 1 {
		return c, fmt.Errorf("jetstream: batches in flight %d: want at least 1", c.BatchesInFlight)
	}
	return c, nil
}

// StreamConfig returns the JetStream configuration of the ledger stream:
// append-only (no delete, no purge), kept forever, atomic batches and
// direct gets allowed, no consumer kept longer than ConsumerIdle unused.
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
		// No consumer stays on the stream for ever, whoever made it: the
		// server drops every one, durable or not, ConsumerIdle after its
		// last use, and refuses one that asks for longer (issue 25, item 6).
		ConsumerLimits: natsjs.StreamConsumerLimits{InactiveThreshold: ConsumerIdle},
	}, nil
}

// Log is the ledger's event log on one JetStream stream. It is safe for
// concurrent use.
type Log struct {
	js      natsjs.JetStream
	name    string
	timeout time.Duration // bounds every request (Config.RequestTimeout)

	// singlePublish makes one-event appends a plain publish instead of a
	// batch of one (see Append).
	singlePublish bool

	// batches holds a place for each atomic batch in flight
	// (Config.BatchesInFlight).
	batches chan struct{}

	// direct routes direct get answers to Read's requests.
	direct directMux

	// acked remembers, per subject, the last sequence this Log had
	// acknowledged, so that Read can notice a lagging replica (see Read).
	mu    sync.Mutex
	acked ackedSeqs
}

// ackedKeep is how many subjects' last acknowledged sequences a Log keeps
// in each of its two generations (ackedSeqs): about 100 bytes each.
const ackedKeep = 8192

// ackedSeqs remembers the last sequence acknowledged on each subject
// written recently, within a bound: once the current generation holds
// ackedKeep subjects it becomes the previous one, and what the previous
// one held is forgotten, its highest sequence kept as a floor. A subject
// not remembered answers the floor: a sequence at or after its own last
// acknowledged one (sequences grow across the whole stream), so Read
// still fetches from the leader whatever a lagging replica lacks, at the
// cost of one more request to the leader for a subject this process wrote
// long ago. Without the bound the map grew by a subject for every battle
// written, for as long as the process ran (docs/performance.md).
type ackedSeqs struct {
	cur, prev map[string]uint64
	floor     uint64
}

func (a *ackedSeqs) note(subj string, seq uint64) {
	if seq <= a.get(subj) {
		return
	}
	if a.cur == nil {
		a.cur = map[string]uint64{}
	}
	if _, ok := a.cur[subj]; !ok && len(a.cur) >= ackedKeep {
		for _, s := range a.prev {
			a.floor = max(a.floor, s)
		}
		a.prev, a.cur = a.cur, make(map[string]uint64, ackedKeep)
	}
	a.cur[subj] = seq
}

func (a *ackedSeqs) get(subj string) uint64 {
	if s, ok := a.cur[subj]; ok {
		return s
	}
	if s, ok := a.prev[subj]; ok {
		return s
	}
	return a.floor
}

func (a *ackedSeqs) len() int { return len(a.cur) + len(a.prev) }

var _ events.Log = (*Log)(nil)

// Open returns the log on the ledger stream, creating the stream when it
// does not exist (the ledger's user may create it, never change it), and
// refuses, with a *GuardError naming every difference, a stream whose
// configuration lets messages be deleted, purged, dropped or expired
// (Check). It does not bring an existing stream's configuration up to
// date: Provision does, as the administrator.
//
// A server that does not answer (a cluster still electing its leaders, or
// without quorum) is retried for up to cfg.OpenWait; then Open fails with
// events.ErrUnavailable.
func Open(ctx context.Context, js natsjs.JetStream, cfg Config) (*Log, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	sc, err := c.StreamConfig()
	if err != nil {
		return nil, err
	}
	info, err := openStream(ctx, js, sc, c.openWait(), c.requestTimeout())
	if err != nil {
		return nil, fmt.Errorf("jetstream: open stream %s: %w", sc.Name, err)
	}
	if f := checkStream("stream", info.Config, sc); len(f) > 0 {
		return nil, &GuardError{Findings: f}
	}
	return &Log{
		js: js, name: sc.Name, timeout: c.requestTimeout(), singlePublish: true, batches: make(chan struct{}, c.BatchesInFlight),
		direct: directMux{nc: js.Conn()},
	}, nil
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
// the server has already stored is events.ErrDuplicate, also when it is
// sent again after a fault. A server that does not answer within the
// request timeout, or answers that it cannot store now, is
// events.ErrUnavailable: the outcome is unknown, and sending the same batch
// again tells (ErrDuplicate if it was stored).
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

	if len(msgs) > 1 || !l.singlePublish {
		// A place among the batches in flight, waited for within the
		// caller's context: the server refuses more than it stages at once.
		select {
		case l.batches <- struct{}{}:
			defer func() { <-l.batches }()
		case <-ctx.Done():
			return l.appendError(ctx, key, expected, batch, ctx.Err())
		}
	}
	pctx, cancel := bounded(ctx, l.timeout)
	defer cancel()
	last, err := l.publish(pctx, key, msgs)
	for pause := time.Millisecond; err != nil && l.stillAtExpected(ctx, pctx, key, expected, err); pause = min(2*pause, 50*time.Millisecond) {
		// A replicated stream's leader answers 10164 while it is still
		// applying the last write to this subject (it acknowledges a write
		// before it forgets it is in process: applyStreamMsgOp in
		// nats-server). Nothing was stored after expected, so the
		// expectation still holds: wait a moment and send the same batch
		// again, within the same bound.
		select {
		case <-time.After(pause):
		case <-pctx.Done():
			return l.appendError(ctx, key, expected, batch, pctx.Err())
		}
		last, err = l.publish(pctx, key, msgs)
	}
	if err != nil {
		if errors.Is(err, events.ErrDuplicate) {
			return err
		}
		return l.appendError(ctx, key, expected, batch, err)
	}
	// An atomic batch is stored contiguously: the ack names its last message.
	first := last - uint64(len(batch)) + 1
	for i := range batch {
		batch[i].Sequence = first + uint64(i)
	}
	l.noteAcked(subj, last)
	return nil
}

// publish sends msgs, one plain publish or one atomic batch, and returns
// the sequence of the last. A plain publish the server reports as a
// duplicate is events.ErrDuplicate; other errors are the server's, for
// appendError to map.
func (l *Log) publish(ctx context.Context, key events.Key, msgs []*nats.Msg) (uint64, error) {
	if len(msgs) == 1 && l.singlePublish {
		// No retries on "no responders" inside the client: the bound is ours.
		ack, err := l.js.PublishMsg(ctx, msgs[0], natsjs.WithRetryAttempts(0))
		if err != nil {
			return 0, err
		}
		if ack.Duplicate {
			return 0, fmt.Errorf("jetstream: append %s: %w (event %s is at sequence %d)", key, events.ErrDuplicate, msgs[0].Header.Get(natsjs.MsgIDHeader), ack.Sequence)
		}
		return ack.Sequence, nil
	}
	// The first message's flow-control ack has a timeout of its own (the
	// client's 5 s default): bound it too.
	fc := jetstreamext.BatchFlowControl{AckFirst: true, AckTimeout: l.timeout}
	if dl, ok := ctx.Deadline(); ok {
		fc.AckTimeout = max(time.Until(dl), time.Millisecond)
	}
	ack, err := jetstreamext.PublishMsgBatch(ctx, l.js, msgs, fc)
	if err != nil {
		return 0, err
	}
	if ack.BatchSize != uint64(len(msgs)) || ack.Sequence < uint64(len(msgs)) {
		return 0, fmt.Errorf("jetstream: append %s: batch of %d acknowledged as %d ending at %d", key, len(msgs), ack.BatchSize, ack.Sequence)
	}
	return ack.Sequence, nil
}

// stillAtExpected tells whether err is a replicated stream's 10164 (wrong
// last sequence, without the number) while key's stream has nothing after
// expected and there is time left to send again.
func (l *Log) stillAtExpected(ctx, pctx context.Context, key events.Key, expected uint64, err error) bool {
	var apiErr *natsjs.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode != codeWrongLastSequenceConstant || pctx.Err() != nil {
		return false
	}
	after, rerr := l.Read(pctx, key, expected)
	return rerr == nil && len(after) == 0 && ctx.Err() == nil
}

// appendError maps a refused append. A wrong expected sequence may hide a
// repeated command: a single server checks the expected sequence of a plain
// publish before its message id (a cluster checks the id first), and past
// the duplicate window only the sequence is checked. So a conflict is
// reported as a duplicate when the batch's first event is already stored
// after expected; when that cannot be read, the outcome is unknown
// (events.ErrUnavailable), never a conflict that would make the caller
// decide the command again.
func (l *Log) appendError(ctx context.Context, key events.Key, expected uint64, batch []events.Envelope, err error) error {
	var apiErr *natsjs.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode {
		case codeWrongLastSequence, codeWrongLastSequenceConstant:
			seq, ok, n, rerr := l.stored(ctx, key, expected, batch[0].ID)
			if rerr != nil {
				return fmt.Errorf("jetstream: append %s expecting %d: refused as a conflict (%s), and whether event %s is stored cannot be read: %w",
					key, expected, apiErr.Description, batch[0].ID, unavailableOrWrap(rerr))
			}
			if ok {
				return fmt.Errorf("jetstream: append %s: %w (event %s is at sequence %d)", key, events.ErrDuplicate, batch[0].ID, seq)
			}
			if n == 0 && l.headAtLeast(ctx, key, expected) {
				// The read may have come from a replica that has not yet
				// caught up with another writer's event: ask the leader,
				// which has every event it counted and could store.
				if evs, lerr := l.readLeader(ctx, key, Subject(key), expected); lerr == nil && len(evs) > 0 {
					for _, e := range evs {
						if e.ID == batch[0].ID {
							return fmt.Errorf("jetstream: append %s: %w (event %s is at sequence %d)", key, events.ErrDuplicate, e.ID, e.Sequence)
						}
					}
					return fmt.Errorf("jetstream: append %s expecting %d: %w (%s)", key, expected, events.ErrConflict, apiErr.Description)
				}
				// The server's head is past expected, yet nothing after
				// expected can be read: a write it counted but could not
				// store (a failed fsync or a full disk leaves it so), or a
				// replica that has not caught up. Not another writer's
				// event: deciding the command again would meet the same
				// refusal. The outcome is unknown; the same events are
				// sent again once the store answers.
				return fmt.Errorf("jetstream: append %s expecting %d (outcome unknown: send the same events again): %w: the stream's head is past sequence %d but no event after it can be read (%s): a write the server could not store, or a replica behind",
					key, expected, events.ErrUnavailable, expected, apiErr.Description)
			}
			return fmt.Errorf("jetstream: append %s expecting %d: %w (%s)", key, expected, events.ErrConflict, apiErr.Description)
		case codeBatchDuplicateMsgID:
			return fmt.Errorf("jetstream: append %s: %w (%s)", key, events.ErrDuplicate, apiErr.Description)
		}
	}
	return fmt.Errorf("jetstream: append %s (outcome unknown: send the same events again): %w", key, unavailable(err))
}

// unavailableOrWrap makes err events.ErrUnavailable: a read that failed
// for another reason still leaves the outcome unknown.
func unavailableOrWrap(err error) error {
	if err = unavailable(err); errors.Is(err, events.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %v", events.ErrUnavailable, err)
}

// headAtLeast tells whether key's head, as the server says it, is at or
// past seq, or cannot be told (a head behind seq is a caller expecting
// more than the stream holds: a plain conflict).
func (l *Log) headAtLeast(ctx context.Context, key events.Key, seq uint64) bool {
	h, err := l.Head(ctx, key)
	return err != nil || h >= seq
}

// stored looks for the event id among key's events after sequence after,
// and says how many events it read there.
func (l *Log) stored(ctx context.Context, key events.Key, after uint64, id string) (uint64, bool, int, error) {
	evs, err := l.Read(ctx, key, after)
	if err != nil {
		return 0, false, 0, err
	}
	for _, e := range evs {
		if e.ID == id {
			return e.Sequence, true, len(evs), nil
		}
	}
	return 0, false, len(evs), nil
}

func (l *Log) noteAcked(subj string, seq uint64) {
	l.mu.Lock()
	l.acked.note(subj, seq)
	l.mu.Unlock()
}

func (l *Log) lastAcked(subj string) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked.get(subj)
}
