package campaign

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Service runs commands against the log.
type Service struct {
	log     events.Log
	vault   events.Vault
	now     func() time.Time
	retries int
	cached  int
	entropy io.Reader
	signer  *events.Signer
	keys    *events.Keyring

	mu      sync.Mutex
	streams map[events.Key]*stream
	// maxEvent is Options.MaxEventBytes.
	maxEvent int
}

// Options tune a Service.
type Options struct {
	// Now stamps accepted commands; defaults to time.Now in UTC.
	Now func() time.Time
	// Retries bounds how often a command is decided again after a conflict.
	Retries int
	// Entropy is where secret dice seeds and sealing salts come from:
	// the operating system's random source unless a test needs a battle
	// it can predict.
	Entropy io.Reader
	// Signer signs every event the service appends (the ledger's key,
	// package keys); nil appends unsigned events, as before signing.
	Signer *events.Signer
	// Keys, when set, are the ledger's keys: every event the service reads
	// from the log must be signed by one of them (or be older than
	// signing) and follow the one before in its stream, so that the
	// service never decides on, nor signs on top of, an event the ledger
	// did not write (docs/audit.md).
	Keys *events.Keyring
	// CachedStreams bounds the streams (battles and campaigns) whose
	// folded state the service keeps between commands; beyond it idle ones
	// are dropped and read again from the log when next used. Default
	// DefaultCachedStreams.
	CachedStreams int
	// MaxEventBytes is the most bytes one stored event may take: the
	// log's largest message less room for its headers (the NATS
	// connection's MaxPayload less EventHeadroom). A command whose event
	// would be larger is refused before anything is appended. Default
	// DefaultMaxEventBytes.
	MaxEventBytes int
}

// DefaultMaxEventBytes is Options.MaxEventBytes's default: NATS's default
// largest message, 1 MiB, less EventHeadroom.
const DefaultMaxEventBytes = 1<<20 - EventHeadroom

// EventHeadroom is the room left in a log message for what it carries
// beside the event: its subject, message id and expected sequence.
const EventHeadroom = 8 << 10

// NewService returns a service appending to log and keeping sealed values in vault.
func NewService(log events.Log, vault events.Vault, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Now().UTC() }
	}
	if opts.Retries <= 0 {
		opts.Retries = 16
	}
	if opts.Entropy == nil {
		opts.Entropy = crand.Reader
	}
	if opts.CachedStreams <= 0 {
		opts.CachedStreams = DefaultCachedStreams
	}
	if opts.MaxEventBytes <= 0 {
		opts.MaxEventBytes = DefaultMaxEventBytes
	}
	return &Service{log: log, vault: vault, now: opts.Now, retries: opts.Retries, cached: opts.CachedStreams, entropy: opts.Entropy,
		signer: opts.Signer, keys: opts.Keys, streams: map[events.Key]*stream{}, maxEvent: opts.MaxEventBytes}
}

// stream caches one stream's folded state so that a command does not read
// the whole stream each time. The cache is only an optimisation: it is
// refreshed from the log on any conflict, and the log decides.
type stream struct {
	mu       sync.Mutex // serialises this process's commands on the stream
	key      events.Key
	last     *events.Envelope
	battle   *rules.State
	campaign *State
	// commands indexes the stream's command ids: what the idempotency
	// check needs of each, not its events (a long battle's events stayed
	// in memory for as long as its stream was cached: issue 24, item 10).
	// A repeated command's events are read again from the log.
	commands map[string]*recordedCommand
}

// recordedCommand is what the stream's cache keeps of one command id: its
// events' place in the log, and what tells the same command from another.
type recordedCommand struct {
	first, last uint64 // log sequences of its first and last event
	events      int
	requestHash string
	typ         string // its first event's type, version and actor
	version     uint64
	actor       string
}

// DefaultCachedStreams is Options.CachedStreams's default: a league's
// battles in play at once, with their campaigns.
const DefaultCachedStreams = 1024

func (s *Service) stream(key events.Key) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.streams[key]
	if !ok && len(s.streams) >= s.cached {
		for k, other := range s.streams {
			if len(s.streams) < s.cached/2 {
				break
			}
			if other.mu.TryLock() {
				delete(s.streams, k)
				other.mu.Unlock()
			}
		}
	}
	if !ok {
		st = &stream{key: key, commands: map[string]*recordedCommand{}}
		if key.Battle != "" {
			st.battle = rules.NewState()
		} else {
			st.campaign = &State{}
		}
		s.streams[key] = st
	}
	return st
}

// KnowsToken says whether token is a person's of a campaign whose state
// the service holds now (no read of the log): a quick answer to "is this
// anybody's token?" for the door, which refuses an unknown token as
// unauthenticated and a person's as forbidden where only the operator may.
func (s *Service) KnowsToken(token string) bool {
	if !strings.HasPrefix(token, tokenPrefix) {
		return false
	}
	s.mu.Lock()
	var held []*stream
	for k, st := range s.streams {
		if k.Battle == "" {
			held = append(held, st)
		}
	}
	s.mu.Unlock()
	for _, st := range held {
		st.mu.Lock()
		_, ok := st.campaign.Authenticate(token)
		st.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// Cached says how many streams' states the service holds (the server's
// metrics); Options.CachedStreams bounds it.
func (s *Service) Cached() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// forget drops an empty stream from the cache, so that asking about ids
// that do not exist does not grow it.
func (s *Service) forget(key events.Key, st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams[key] == st {
		delete(s.streams, key)
	}
}

// refresh reads the stream's events after the cached position and folds them in.
func (s *Service) refresh(ctx context.Context, st *stream) error {
	var after uint64
	if st.last != nil {
		after = st.last.Sequence
	}
	evs, err := s.log.Read(ctx, st.key, after)
	if err != nil {
		return fmt.Errorf("campaign: read %s: %w", st.key, err)
	}
	for i := range evs {
		if s.keys != nil {
			if err := verifyRead(s.keys, st.last, &evs[i]); err != nil {
				return fmt.Errorf("campaign: %s is stopped at an event the ledger did not write: %w; nothing more is appended to it (ledger audit names it)", st.key, err)
			}
		}
		if err := st.fold(evs[i]); err != nil {
			return err
		}
	}
	return nil
}

// verifyRead checks one event read from the log: signed by the ledger and
// chained after last.
func verifyRead(keys *events.Keyring, last, e *events.Envelope) error {
	if _, err := keys.Check(e); err != nil {
		return err
	}
	want, prev := uint64(1), ""
	if last != nil {
		want, prev = last.Version+1, events.Hash(last.Raw)
	}
	if e.Version != want || e.PrevHash != prev {
		return &events.ChainError{Version: e.Version, ID: e.ID, Reason: fmt.Sprintf("version %d and prev_hash %.12s… do not follow the stream's last event (version %d)", e.Version, e.PrevHash, want-1)}
	}
	return nil
}

func (st *stream) fold(e events.Envelope) error {
	payload, err := Registry().Upcast(&e)
	if err != nil {
		return fmt.Errorf("campaign: %s: %w", st.key, err)
	}
	if st.battle != nil {
		ev, err := rules.DecodeEvent(e.Type, payload)
		if err != nil {
			return fmt.Errorf("campaign: %s event %s: %w", st.key, e.ID, err)
		}
		rules.Apply(st.battle, ev)
	} else if err := ApplyCampaign(st.campaign, e, payload); err != nil {
		return err
	}
	e2 := e
	st.last = &e2
	if r := st.commands[e.CommandID]; r != nil {
		r.last, r.events = e.Sequence, r.events+1
	} else {
		st.commands[e.CommandID] = &recordedCommand{first: e.Sequence, last: e.Sequence, events: 1, requestHash: e.RequestHash,
			typ: e.Type, version: e.Version, actor: e.Actor}
	}
	return nil
}

// State returns a copy of a battle's current state, read from the log.
func (s *Service) State(ctx context.Context, key events.Key) (*rules.State, uint64, error) {
	if key.Battle == "" {
		return nil, 0, errors.New("campaign: a battle state needs a battle id")
	}
	if err := key.Validate(); err != nil {
		return nil, 0, err
	}
	st := s.stream(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.refresh(ctx, st); err != nil {
		return nil, 0, err
	}
	if st.last == nil {
		s.forget(key, st)
	}
	var v uint64
	if st.last != nil {
		v = st.last.Version
	}
	return st.battle.Clone(), v, nil
}

// Campaign returns a campaign's state, read from the log. A campaign that
// does not exist comes back empty (State.Exists is false) and is not kept.
func (s *Service) Campaign(ctx context.Context, id string) (State, error) {
	key := events.Key{Campaign: id}
	if err := key.Validate(); err != nil {
		return State{}, err
	}
	st := s.stream(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.refresh(ctx, st); err != nil {
		return State{}, err
	}
	if st.last == nil {
		s.forget(key, st)
	}
	c := *st.campaign
	c.Sides = append([]Side(nil), c.Sides...)
	c.Battles = append([]BattleAdded(nil), c.Battles...)
	return c, nil
}

// call is one request on its way through the service: the principal it
// acts as, its fingerprint and its body decoded.
type call struct {
	Request
	as   Principal // whom the command is authorised and decided as
	hash string    // RequestHash
	// cmd is the body decoded, once (decodeBody): a rules.Command or a
	// campaign's own *Create, *AddPlayer or *ReissueToken. The authorizer
	// and the decision read it; nothing decodes Body again.
	cmd any
}

// Execute decides req against the current state and appends its events. A
// refusal comes back as *rules.Refusal, a principal asking for what they
// may not do as *Forbidden, and either appends nothing. With req.DryRun
// nothing is appended in any case.
//
// The body is read twice and decoded once (issue 29): CheckBody scans its
// tokens against the limits and builds no value; decodeBody decodes it,
// strictly, into the command's typed value, which the authorizer and the
// decision take. (The command's fingerprint, RequestHash, compacts the
// body's bytes, which builds no value either.)
func (s *Service) Execute(ctx context.Context, req Request) (Outcome, error) {
	if !commandID.MatchString(req.ID) {
		return Outcome{}, Invalid("id", "a command id is 1 to 128 letters, digits, '-' or '_'")
	}
	key := events.Key{Campaign: req.Campaign, Battle: req.Battle}
	if err := InvalidKey(key); err != nil {
		return Outcome{}, err
	}
	if err := CheckBody(req.Body); err != nil {
		return Outcome{}, err
	}
	as, err := s.commandFor(ctx, req)
	if err != nil {
		return Outcome{}, err
	}
	// Decoded here, once; a body that cannot be read is said where it
	// was before: after who may give the command for a campaign's own,
	// after the battle is named for a battle's.
	cmd, bad := decodeBody(req.Name, req.Body)
	if err := enteredByOthers(req.Principal, cmd, req.Dice); err != nil {
		return Outcome{}, err
	}
	c := call{Request: req, as: as, hash: requestHash(req), cmd: cmd}
	switch req.Name {
	case CmdCreate, CmdPlayerAdd, CmdTokenReissue:
		if req.Battle != "" {
			return Outcome{}, rules.Refuse("campaign", "campaign.battle_given", "%s addresses a campaign, not a battle", req.Name)
		}
		if err := authorize(as, req.Name, cmd, nil); err != nil {
			return Outcome{}, err
		}
		if bad != nil {
			return Outcome{}, bad
		}
		if req.Name != CmdCreate {
			return s.executePeople(ctx, key, c)
		}
		return s.executeCampaign(ctx, key, c)
	}
	if req.Battle == "" {
		return Outcome{}, rules.Refuse("campaign", "battle.missing", "%s needs a battle", req.Name)
	}
	if bad != nil {
		return Outcome{}, bad
	}
	return s.executeBattle(ctx, key, c)
}

// decodeBody decodes a command's body into its typed value, strictly (a
// field the command does not have is refused): the one decoding of the
// body (issue 29, TestBodyDecodedOnce). A campaign's own command is read
// as before, its first JSON value; a battle's by rules.DecodeCommand,
// which refuses trailing data. The error is the refusal to give: the
// ledger's words for what cannot be read (badBody), or a value's own
// refusal.
func decodeBody(name string, body json.RawMessage) (any, error) {
	var v any
	switch name {
	case CmdCreate:
		v = new(Create)
	case CmdPlayerAdd:
		v = new(AddPlayer)
	case CmdTokenReissue:
		v = new(ReissueToken)
	default:
		cmd, err := rules.DecodeCommand(name, body)
		if err != nil {
			var r *rules.Refusal
			if errors.As(err, &r) {
				return nil, r
			}
			return nil, badBody(name, err)
		}
		return cmd, nil
	}
	if len(body) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, badBody(name, err)
	}
	return v, nil
}

func (s *Service) executeCampaign(ctx context.Context, key events.Key, c call) (Outcome, error) {
	cr := *c.cmd.(*Create)
	if cr.Campaign == "" {
		cr.Campaign = key.Campaign
	}
	if cr.Campaign != key.Campaign {
		return Outcome{}, rules.Refuse("campaign", "campaign.mismatch", "body names campaign %q, request %q", cr.Campaign, key.Campaign)
	}
	return s.run(ctx, key, c, func(st *stream) ([]pending, error) {
		created, err := decideCreate(st.campaign, cr)
		if err != nil {
			return nil, err
		}
		return []pending{{typ: EvCreated, audience: events.AudienceAll, payload: created}}, nil
	})
}

func (s *Service) executePeople(ctx context.Context, key events.Key, c call) (Outcome, error) {
	token, hash, err := NewToken()
	if err != nil {
		return Outcome{}, err
	}
	var decide func(*stream) ([]pending, error)
	switch c.Name {
	case CmdPlayerAdd:
		a := *c.cmd.(*AddPlayer)
		decide = func(st *stream) ([]pending, error) {
			ev, err := decideAddPlayer(st.campaign, a, hash)
			if err != nil {
				return nil, err
			}
			return []pending{{typ: EvPlayerAdded, audience: events.AudienceAll, payload: ev}}, nil
		}
	case CmdTokenReissue:
		r := *c.cmd.(*ReissueToken)
		decide = func(st *stream) ([]pending, error) {
			ev, err := decideReissue(st.campaign, r, hash)
			if err != nil {
				return nil, err
			}
			return []pending{{typ: EvTokenReissued, audience: events.AudienceAll, payload: ev}}, nil
		}
	}
	out, err := s.run(ctx, key, c, decide)
	if err == nil && !out.Duplicate && !out.DryRun {
		out.Token = token
	}
	return out, err
}

// pending is an event decided but not yet stored.
type pending struct {
	typ      string
	audience string
	payload  any
}

func (s *Service) executeBattle(ctx context.Context, key events.Key, c call) (Outcome, error) {
	cmd := c.cmd.(rules.Command)
	// A battle belongs to a campaign that must exist; battle.create also
	// records the battle on the campaign's stream, first, so that the
	// campaign's order of battles is the order of creation.
	if c.Name == rules.CmdBattleCreate {
		if err := authorize(c.as, c.Name, c.cmd, nil); err != nil {
			return Outcome{}, err
		}
		if err := s.addBattle(ctx, key, c, cmd); err != nil {
			return Outcome{}, err
		}
	}
	return s.run(ctx, key, c, func(st *stream) ([]pending, error) {
		// Who may do what is decided on the very state the rules see.
		if err := authorize(c.as, c.Name, c.cmd, st.battle); err != nil {
			return nil, err
		}
		prepared, err := s.prepare(ctx, key, st.battle, cmd, c.DryRun)
		if err != nil {
			return nil, err
		}
		if prepared, err = s.disputeFacts(ctx, st, c, prepared); err != nil {
			return nil, err
		}
		d, finish, err := s.diceFor(ctx, key, st.battle, c)
		if err != nil {
			return nil, err
		}
		evs, err := rules.Decide(st.battle, prepared, d)
		if err != nil {
			return nil, err
		}
		if err := finish(); err != nil {
			return nil, err
		}
		out := make([]pending, len(evs))
		for i, e := range evs {
			out[i] = pending{typ: e.EventType(), audience: e.Audience(), payload: e}
		}
		return out, nil
	})
}

// decided says whether err is a decision (a refusal by the rules or the
// service, a principal forbidden) rather than a failure: a decision made
// on a state that might be stale is confirmed against the log's head.
func decided(err error) bool {
	var r *rules.Refusal
	var f *Forbidden
	return errors.As(err, &r) || errors.As(err, &f)
}

// run is the optimistic loop shared by every stream: decide on the cached
// state, append with its position as the expectation, and on a conflict
// refresh and decide again. A refusal is only given once the stream's head
// at the log's authority (Log.Head) confirms the state it was decided on is
// the newest: with several processes on one log, this process's copy may
// lag another's append by a moment, and a refusal appends nothing that a
// sequence check could catch.
func (s *Service) run(ctx context.Context, key events.Key, c call, decide func(*stream) ([]pending, error)) (Outcome, error) {
	st := s.stream(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.refresh(ctx, st); err != nil {
		return Outcome{}, err
	}
	confirmed := false
	for attempt := 1; attempt <= s.retries+1; attempt++ {
		if out, ok, err := s.recorded(ctx, st, c, attempt-1); ok || err != nil {
			return out, err
		}
		pend, err := decide(st)
		if err != nil && c.DryRun {
			var nd *NeedsDice
			if errors.As(err, &nd) {
				return Outcome{Key: key, DryRun: true, Events: []events.Envelope{}}, err
			}
		}
		if err != nil && decided(err) && !confirmed {
			confirmed = true
			fresh, ferr := s.confirmHead(ctx, st)
			if ferr != nil {
				return Outcome{}, ferr
			}
			if !fresh {
				continue // the log had moved on: decide again on the newest state
			}
		}
		if err != nil {
			if st.last == nil {
				s.forget(key, st) // a refusal on an empty stream leaves nothing cached
			}
			return Outcome{}, err
		}
		if len(pend) == 0 {
			return Outcome{}, fmt.Errorf("campaign: %s decided no events", c.Name)
		}
		batch, err := s.envelopes(key, c, pend)
		if err != nil {
			return Outcome{}, err
		}
		var expected uint64
		if st.last != nil {
			expected = st.last.Sequence
		}
		if err := events.ChainSigned(st.last, batch, s.signer); err != nil {
			return Outcome{}, err
		}
		if err := s.fits(batch); err != nil {
			// The log would refuse it whole, whatever is sent again.
			if st.last == nil {
				s.forget(key, st)
			}
			return Outcome{}, err
		}
		if c.DryRun {
			for i := range batch {
				batch[i].Raw = nil
			}
			if st.last == nil {
				s.forget(key, st)
			}
			return Outcome{Key: key, Events: batch, DryRun: true, Attempts: attempt}, nil
		}
		err = s.log.Append(ctx, key, expected, batch)
		switch {
		case err == nil:
			for i := range batch {
				if err := st.fold(batch[i]); err != nil {
					return Outcome{}, err
				}
			}
			return Outcome{Key: key, Events: cloneEnvs(batch), Attempts: attempt}, nil
		case errors.Is(err, events.ErrConflict), errors.Is(err, events.ErrDuplicate):
			// Someone else appended (or this very command got through
			// before an error reached us): read what happened and look
			// again, after a short random pause so that two writers in a
			// tight race do not keep colliding.
			if errors.Is(err, events.ErrConflict) {
				if werr := backoff(ctx, attempt); werr != nil {
					return Outcome{}, werr
				}
			}
			if _, herr := s.confirmHead(ctx, st); herr != nil {
				return Outcome{}, herr
			}
			if errors.Is(err, events.ErrDuplicate) {
				if out, ok, rerr := s.recorded(ctx, st, c, attempt); ok || rerr != nil {
					return out, rerr
				}
				return Outcome{}, fmt.Errorf("campaign: %s on %s: the log holds these event ids but not on this stream: %w", c.Name, key, err)
			}
		default:
			return Outcome{}, fmt.Errorf("campaign: append %s: %w", key, err)
		}
	}
	return Outcome{}, fmt.Errorf("campaign: %s on %s: still conflicting after %d attempts: %w", c.Name, key, s.retries+1, events.ErrConflict)
}

// recorded answers a command whose id the stream already holds: its
// recorded outcome when it is the same command from the same principal, an
// IdempotencyConflict otherwise. ok is false for an id not yet used.
func (s *Service) recorded(ctx context.Context, st *stream, c call, attempts int) (Outcome, bool, error) {
	r, ok := st.commands[c.ID]
	if !ok {
		return Outcome{}, false, nil
	}
	same := r.requestHash == c.hash
	if r.requestHash == "" {
		// Recorded before commands were fingerprinted: the same id from
		// the same principal is taken as the same command.
		same = r.actor == c.Principal.Player
	}
	if !same {
		// Who may do this is decided before anything is said of what the
		// id recorded: a reader trying someone's used id learns nothing
		// of it (issue 25, item 4).
		if err := authorize(c.as, c.Name, c.cmd, st.battle); err != nil {
			return Outcome{}, true, err
		}
		return Outcome{}, true, &IdempotencyConflict{ID: c.ID, EarlierType: r.typ, EarlierVersion: r.version, EarlierActor: r.actor}
	}
	done, err := s.recordedEvents(ctx, st.key, c.ID, r)
	if err != nil {
		return Outcome{}, true, err
	}
	return Outcome{Key: st.key, Events: done, Duplicate: true, DryRun: c.DryRun, Attempts: attempts}, true, nil
}

// recordedEvents reads a recorded command's events back from the log:
// they are one atomic batch, from its first sequence on.
func (s *Service) recordedEvents(ctx context.Context, key events.Key, id string, r *recordedCommand) ([]events.Envelope, error) {
	evs, err := s.log.Read(ctx, key, r.first-1)
	if err != nil {
		return nil, fmt.Errorf("campaign: read the recorded events of command %s on %s: %w", id, key, err)
	}
	out := make([]events.Envelope, 0, r.events)
	for _, e := range evs {
		if e.Sequence > r.last {
			break
		}
		if e.CommandID == id {
			out = append(out, e)
		}
	}
	if len(out) != r.events {
		return nil, fmt.Errorf("campaign: command %s on %s recorded %d events at sequences %d-%d, the log now gives %d: %w", id, key, r.events, r.first, r.last, len(out), events.ErrUnavailable)
	}
	return out, nil
}

// confirmHead asks the log's authority for the stream's head and reads up
// to it: fresh is true when the cached state already was the newest.
func (s *Service) confirmHead(ctx context.Context, st *stream) (fresh bool, err error) {
	head, err := s.log.Head(ctx, st.key)
	if err != nil {
		return false, fmt.Errorf("campaign: confirm the head of %s: %w", st.key, err)
	}
	var at uint64
	if st.last != nil {
		at = st.last.Sequence
	}
	if head <= at {
		return true, nil
	}
	if err := s.refresh(ctx, st); err != nil {
		return false, err
	}
	return false, nil
}

func (s *Service) envelopes(key events.Key, c call, pend []pending) ([]events.Envelope, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	onBehalf := ""
	if c.as.Player != c.Principal.Player {
		onBehalf = c.as.Player
	}
	out := make([]events.Envelope, len(pend))
	for i, p := range pend {
		body, err := json.Marshal(p.payload)
		if err != nil {
			return nil, fmt.Errorf("campaign: encode %s: %w", p.typ, err)
		}
		info, ok := Registry().Lookup(p.typ)
		if !ok {
			return nil, fmt.Errorf("campaign: event type %q is not registered", p.typ)
		}
		out[i] = events.Envelope{
			ID:          fmt.Sprintf("%s/%s/%d", key, c.ID, i),
			Campaign:    key.Campaign,
			Battle:      key.Battle,
			Type:        p.typ,
			Schema:      info.Schema,
			Time:        now,
			Actor:       c.Principal.Player,
			OnBehalfOf:  onBehalf,
			CommandID:   c.ID,
			RequestHash: c.hash,
			Audience:    p.audience,
			Payload:     body,
		}
	}
	return out, nil
}

// backoff waits a random time, growing with the attempt: full jitter on
// 1ms * 2^attempt, at most 128ms.
func backoff(ctx context.Context, attempt int) error {
	ceiling := time.Millisecond << min(attempt, 7)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(ceiling))))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func cloneEnvs(in []events.Envelope) []events.Envelope { return append([]events.Envelope(nil), in...) }

// badBody refuses a command whose body cannot be read, in the ledger's
// words (rules.BodyWords): the field and the kind of value it wants, never
// the JSON decoder's Go words.
func badBody(name string, err error) error {
	var be *rules.BodyError
	w := rules.BodyWords(err)
	if errors.As(err, &be) {
		w = be.Words
	}
	return rules.Refuse("command", "command.bad_body", "%s: %s", name, w)
}

// fits refuses a batch with an event larger than the log stores
// (Options.MaxEventBytes), naming it and both sizes.
func (s *Service) fits(batch []events.Envelope) error {
	for _, e := range batch {
		if len(e.Raw) > s.maxEvent {
			return s.tooLarge(e.Type, len(e.Raw))
		}
	}
	return nil
}

// tooLarge is the refusal of a command whose event typ would take n bytes,
// more than the log stores.
func (s *Service) tooLarge(typ string, n int) *rules.Refusal {
	return rules.Refuse("command", "command.too_large", "its event %s would take %d bytes, the log stores at most %d: send less in one command", typ, n, s.maxEvent).
		WithNumbers(map[string]float64{"bytes": float64(n), "max": float64(s.maxEvent)})
}
