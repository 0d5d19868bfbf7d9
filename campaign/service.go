package campaign

import (
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

// Request is one command as it reaches the service from the CLI, a scenario
// file or HTTP.
type Request struct {
	// ID identifies the command; a repeated ID appends nothing new and
	// answers with the recorded outcome. Required.
	ID string `json:"id"`
	// Actor is who gives the command.
	Actor string `json:"actor"`
	// Campaign and Battle address the stream; Battle is empty for campaign
	// commands.
	Campaign string `json:"campaign"`
	Battle   string `json:"battle,omitempty"`
	// Name is the command name ("order.give").
	Name string `json:"name"`
	// Body is the command's JSON.
	Body json.RawMessage `json:"body"`
	// Dice are physical dice entered for the command; empty means digital.
	Dice DiceInput `json:"dice"`
}

// Outcome is what an accepted command appended.
type Outcome struct {
	Key    events.Key        `json:"key"`
	Events []events.Envelope `json:"events"`
	// Duplicate is true when the command id had already been applied: the
	// events are the ones recorded then and nothing new was appended.
	Duplicate bool `json:"duplicate"`
	// Attempts counts decisions made: more than one after conflicts.
	Attempts int `json:"attempts"`
	// Token is a secret issued by the command (player.add,
	// player.reissue_token): shown once to the caller, stored only as its
	// hash. Empty on a duplicate: a lost token is reissued, never shown twice.
	Token string `json:"token,omitempty"`
}

// Service runs commands against the log.
type Service struct {
	log     events.Log
	vault   events.Vault
	now     func() time.Time
	retries int
	entropy io.Reader

	mu      sync.Mutex
	streams map[events.Key]*stream
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
}

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
	return &Service{log: log, vault: vault, now: opts.Now, retries: opts.Retries, entropy: opts.Entropy, streams: map[events.Key]*stream{}}
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
	commands map[string][]events.Envelope // command id -> its events
}

// maxCachedStreams bounds the streams whose folded state the service keeps;
// beyond it idle ones are dropped and read again when next used.
const maxCachedStreams = 256

func (s *Service) stream(key events.Key) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.streams[key]
	if !ok && len(s.streams) >= maxCachedStreams {
		for k, other := range s.streams {
			if len(s.streams) < maxCachedStreams/2 {
				break
			}
			if other.mu.TryLock() {
				delete(s.streams, k)
				other.mu.Unlock()
			}
		}
	}
	if !ok {
		st = &stream{key: key, commands: map[string][]events.Envelope{}}
		if key.Battle != "" {
			st.battle = rules.NewState()
		} else {
			st.campaign = &State{}
		}
		s.streams[key] = st
	}
	return st
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
		if err := st.fold(evs[i]); err != nil {
			return err
		}
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
	st.commands[e.CommandID] = append(st.commands[e.CommandID], e2)
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

// Execute decides req against the current state and appends its events. A
// refusal comes back as *rules.Refusal and appends nothing.
func (s *Service) Execute(ctx context.Context, req Request) (Outcome, error) {
	if strings.TrimSpace(req.ID) == "" {
		return Outcome{}, errors.New("campaign: a command needs an id")
	}
	if strings.ContainsAny(req.ID, " \t\n.*>") || len(req.ID) > 128 {
		return Outcome{}, fmt.Errorf("campaign: command id %q: no spaces, dots or wildcards, at most 128 characters", req.ID)
	}
	if req.Actor == "" {
		return Outcome{}, errors.New("campaign: a command needs an actor")
	}
	key := events.Key{Campaign: req.Campaign, Battle: req.Battle}
	if err := key.Validate(); err != nil {
		return Outcome{}, &rules.Refusal{Rule: "ids", Code: "bad_id", Message: err.Error()}
	}
	switch req.Name {
	case CmdCreate, CmdPlayerAdd, CmdTokenReissue:
		if req.Battle != "" {
			return Outcome{}, &rules.Refusal{Rule: "campaign", Code: "campaign.battle_given", Message: req.Name + " addresses a campaign, not a battle"}
		}
		if req.Name != CmdCreate {
			return s.executePeople(ctx, key, req)
		}
		return s.executeCampaign(ctx, key, req)
	}
	if req.Battle == "" {
		return Outcome{}, &rules.Refusal{Rule: "campaign", Code: "battle.missing", Message: fmt.Sprintf("%s needs a battle", req.Name)}
	}
	return s.executeBattle(ctx, key, req)
}

func (s *Service) executeCampaign(ctx context.Context, key events.Key, req Request) (Outcome, error) {
	var c Create
	if err := strictJSON(req.Body, &c); err != nil {
		return Outcome{}, &rules.Refusal{Rule: "command", Code: "command.bad_body", Message: fmt.Sprintf("%s: %v", req.Name, err)}
	}
	if c.Campaign == "" {
		c.Campaign = key.Campaign
	}
	if c.Campaign != key.Campaign {
		return Outcome{}, &rules.Refusal{Rule: "campaign", Code: "campaign.mismatch", Message: fmt.Sprintf("body names campaign %q, request %q", c.Campaign, key.Campaign)}
	}
	return s.run(ctx, key, req, func(st *stream) ([]pending, error) {
		created, err := decideCreate(st.campaign, c)
		if err != nil {
			return nil, err
		}
		return []pending{{typ: EvCreated, audience: events.AudienceAll, payload: created}}, nil
	})
}

func (s *Service) executePeople(ctx context.Context, key events.Key, req Request) (Outcome, error) {
	token, hash, err := NewToken()
	if err != nil {
		return Outcome{}, err
	}
	var decide func(*stream) ([]pending, error)
	switch req.Name {
	case CmdPlayerAdd:
		var c AddPlayer
		if err := strictJSON(req.Body, &c); err != nil {
			return Outcome{}, &rules.Refusal{Rule: "command", Code: "command.bad_body", Message: fmt.Sprintf("%s: %v", req.Name, err)}
		}
		decide = func(st *stream) ([]pending, error) {
			ev, err := decideAddPlayer(st.campaign, c, hash)
			if err != nil {
				return nil, err
			}
			return []pending{{typ: EvPlayerAdded, audience: events.AudienceAll, payload: ev}}, nil
		}
	case CmdTokenReissue:
		var c ReissueToken
		if err := strictJSON(req.Body, &c); err != nil {
			return Outcome{}, &rules.Refusal{Rule: "command", Code: "command.bad_body", Message: fmt.Sprintf("%s: %v", req.Name, err)}
		}
		decide = func(st *stream) ([]pending, error) {
			ev, err := decideReissue(st.campaign, c, hash)
			if err != nil {
				return nil, err
			}
			return []pending{{typ: EvTokenReissued, audience: events.AudienceAll, payload: ev}}, nil
		}
	}
	out, err := s.run(ctx, key, req, decide)
	if err == nil && !out.Duplicate {
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

func (s *Service) executeBattle(ctx context.Context, key events.Key, req Request) (Outcome, error) {
	cmd, err := rules.DecodeCommand(req.Name, req.Body)
	if err != nil {
		var r *rules.Refusal
		if errors.As(err, &r) {
			return Outcome{}, r
		}
		return Outcome{}, &rules.Refusal{Rule: "command", Code: "command.bad_body", Message: fmt.Sprintf("%s: %v", req.Name, err)}
	}
	// A battle belongs to a campaign that must exist; battle.create also
	// records the battle on the campaign's stream, first, so that the
	// campaign's order of battles is the order of creation.
	if req.Name == rules.CmdBattleCreate {
		if err := s.addBattle(ctx, key, req, cmd); err != nil {
			return Outcome{}, err
		}
	}
	return s.run(ctx, key, req, func(st *stream) ([]pending, error) {
		prepared, err := s.prepare(ctx, key, st.battle, cmd)
		if err != nil {
			return nil, err
		}
		if prepared, err = s.disputeFacts(ctx, st, req, prepared); err != nil {
			return nil, err
		}
		d, finish, err := s.diceFor(ctx, key, st.battle, req)
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

// run is the optimistic loop shared by every stream: decide on the cached
// state, append with its position as the expectation, and on a conflict
// refresh and decide again.
func (s *Service) run(ctx context.Context, key events.Key, req Request, decide func(*stream) ([]pending, error)) (Outcome, error) {
	st := s.stream(key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.refresh(ctx, st); err != nil {
		return Outcome{}, err
	}
	for attempt := 1; attempt <= s.retries+1; attempt++ {
		if done, ok := st.commands[req.ID]; ok {
			return Outcome{Key: key, Events: cloneEnvs(done), Duplicate: true, Attempts: attempt - 1}, nil
		}
		pend, err := decide(st)
		if err != nil {
			if st.last == nil {
				s.forget(key, st) // a refusal on an empty stream leaves nothing cached
			}
			return Outcome{}, err
		}
		if len(pend) == 0 {
			return Outcome{}, fmt.Errorf("campaign: %s decided no events", req.Name)
		}
		batch, err := s.envelopes(key, req, pend)
		if err != nil {
			return Outcome{}, err
		}
		var expected uint64
		if st.last != nil {
			expected = st.last.Sequence
		}
		if err := events.Chain(st.last, batch); err != nil {
			return Outcome{}, err
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
			if rerr := s.refresh(ctx, st); rerr != nil {
				return Outcome{}, rerr
			}
			if errors.Is(err, events.ErrDuplicate) {
				if done, ok := st.commands[req.ID]; ok {
					return Outcome{Key: key, Events: cloneEnvs(done), Duplicate: true, Attempts: attempt}, nil
				}
				return Outcome{}, fmt.Errorf("campaign: %s on %s: the log holds these event ids but not on this stream: %w", req.Name, key, err)
			}
		default:
			return Outcome{}, fmt.Errorf("campaign: append %s: %w", key, err)
		}
	}
	return Outcome{}, fmt.Errorf("campaign: %s on %s: still conflicting after %d attempts: %w", req.Name, key, s.retries+1, events.ErrConflict)
}

func (s *Service) envelopes(key events.Key, req Request, pend []pending) ([]events.Envelope, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
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
			ID:        fmt.Sprintf("%s/%s/%d", key, req.ID, i),
			Campaign:  key.Campaign,
			Battle:    key.Battle,
			Type:      p.typ,
			Schema:    info.Schema,
			Time:      now,
			Actor:     req.Actor,
			CommandID: req.ID,
			Audience:  p.audience,
			Payload:   body,
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

func strictJSON(body []byte, v any) error {
	if len(body) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
