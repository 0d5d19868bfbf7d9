package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
)

// Live events on a served ledger: many real SSE connections (HTTP, the
// stream every page and tablet follows) on a few battles while their
// tables play, and how long each event takes to reach each of them.

// LiveResult is what following battles live cost.
type LiveResult struct {
	// Subscribers in all: Hot on one battle, PerOther on each of Others.
	Subscribers int `json:"subscribers"`
	Hot         int `json:"hot"`
	Others      int `json:"others"`
	PerOther    int `json:"per_other"`
	// Commands played (through the served ledger's door) and the events
	// they appended; PaceMS is each table's pause between commands.
	Commands int     `json:"commands"`
	Events   int     `json:"events"`
	PaceMS   float64 `json:"pace_ms"`
	Seconds  float64 `json:"seconds"`
	// Deliveries expected (every event to every subscriber of its
	// battle) and received; Missing were not received within 30 s of the
	// last command; Reconnects counts streams that ended and resumed
	// (Last-Event-ID), as a page does when it is dropped for lagging.
	Expected   int `json:"expected"`
	Delivered  int `json:"delivered"`
	Missing    int `json:"missing"`
	Reconnects int `json:"reconnects"`
	// FromLog: from the moment the event could first be read from the log
	// in this process (an ordered consumer like the server's own) to its
	// arrival at the subscriber; FromSent: from the moment its command was
	// sent (decision, synced append and the projection's wait included).
	FromLog  Latency `json:"from_log"`
	FromSent Latency `json:"from_sent"`
	// HotFromLog and OthersFromLog split FromLog by battle.
	HotFromLog    Latency `json:"hot_from_log"`
	OthersFromLog Latency `json:"others_from_log"`
	TargetMS      float64 `json:"target_p99_ms"`
}

// subscriber is one SSE connection's record of what arrived when.
type subscriber struct {
	battle string
	token  string
	mu     sync.Mutex
	got    map[uint64]time.Time // log sequence -> arrival
	last   string               // the last SSE id (event version)
	resume int
}

// follow reads the battle's stream until ctx ends, resuming after its
// last event when the server ends it; ready is called once the first
// connection is subscribed.
func (s *subscriber) follow(ctx context.Context, hc *http.Client, url string, ready func()) error {
	once := sync.OnceFunc(ready)
	defer once()
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		req.Header.Set("Accept", "text/event-stream")
		if s.last != "" {
			req.Header.Set("Last-Event-ID", s.last)
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return fmt.Errorf("bench: stream of %s: %s: %s", s.battle, resp.Status, bytes.TrimSpace(b))
		}
		err = s.read(resp.Body, once)
		resp.Body.Close()
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		s.mu.Lock()
		s.resume++
		s.mu.Unlock()
	}
	return nil
}

// read parses server-sent events until the stream ends.
func (s *subscriber) read(body io.Reader, subscribed func()) error {
	r := bufio.NewReaderSize(body, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		now := time.Now()
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case bytes.HasPrefix(line, []byte("retry:")):
			subscribed() // the handler subscribes before it answers
		case bytes.HasPrefix(line, []byte("id: ")):
			s.last = string(line[4:])
		case bytes.HasPrefix(line, []byte("data: ")):
			var v struct {
				Seq uint64 `json:"seq"`
			}
			if err := json.Unmarshal(line[6:], &v); err != nil {
				return fmt.Errorf("bench: stream of %s: %w", s.battle, err)
			}
			s.mu.Lock()
			if _, dup := s.got[v.Seq]; !dup {
				s.got[v.Seq] = now
			}
			s.mu.Unlock()
		}
	}
}

func (s *subscriber) has(seqs []uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range seqs {
		if _, ok := s.got[q]; !ok {
			return false
		}
	}
	return true
}

// runLive follows o.Hot subscribers on one battle and o.PerOther on each
// of o.Others more, on the served ledger s, while each battle's table
// plays o.LiveCommands commands.
func runLive(ctx context.Context, s *Served, o LeagueOptions, tag string, progress io.Writer) (*LiveResult, error) {
	res := &LiveResult{Hot: o.Hot, Others: o.Others, PerOther: o.PerOther, Subscribers: o.Hot + o.Others*o.PerOther,
		PaceMS: float64(o.LivePace.Microseconds()) / 1000, TargetMS: 100}
	l := s.Ledger.Door
	camp := tag + "-live"
	fmt.Fprintf(progress, "bench: live: a campaign with %d readers and %d battles\n", res.Subscribers, 1+o.Others)
	p, err := setUpCampaign(ctx, l, camp, func(acked) {})
	if err != nil {
		return nil, err
	}
	op := l.As(app.Caller{Operator: "bench"})
	var readers []string
	for i := range res.Subscribers {
		body, _ := json.Marshal(map[string]string{"player": fmt.Sprintf("reader-%04d", i+1), "role": campaign.RoleReader})
		r, err := op.Execute(ctx, app.Command{ID: fmt.Sprintf("reader-%04d", i+1), Campaign: camp, Name: campaign.CmdPlayerAdd, Body: body})
		if err != nil {
			return nil, fmt.Errorf("bench: add a reader: %w", err)
		}
		readers = append(readers, r.Token)
	}
	// The battles, set up before anyone follows them.
	battles := []string{"hot"}
	for i := range o.Others {
		battles = append(battles, fmt.Sprintf("f%03d", i+1))
	}
	gens := map[string]*loadgen.Battle{}
	for i, b := range battles {
		gen := loadgen.NewLeagueBattle(camp, b, uint64(1000+i))
		for gen.Commands() < loadgen.Setup+len(loadgen.Sides) {
			req := gen.Next()
			if _, err := p.session(gen.Side()).Execute(ctx, asCommand(req)); err != nil {
				return nil, fmt.Errorf("bench: set up %s: %w", b, err)
			}
		}
		gens[b] = gen
	}

	// The subscribers.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: res.Subscribers, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	sctx, stopSubs := context.WithCancel(ctx)
	defer stopSubs()
	var subs []*subscriber
	for i, tok := range readers {
		b := battles[0]
		if i >= o.Hot {
			b = battles[1+(i-o.Hot)/o.PerOther]
		}
		subs = append(subs, &subscriber{battle: b, token: tok, got: map[uint64]time.Time{}})
	}
	var ready, done sync.WaitGroup
	errs := make(chan error, len(subs))
	for _, sub := range subs {
		ready.Add(1)
		done.Go(func() {
			url := fmt.Sprintf("%s/api/campaigns/%s/battles/%s/events/stream", s.URL, camp, sub.battle)
			if err := sub.follow(sctx, hc, url, ready.Done); err != nil {
				errs <- err
			}
		})
	}
	ready.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}

	// What this process reads from the log, and when.
	first, err := s.Ledger.Log.LastSequence(ctx)
	if err != nil {
		return nil, err
	}
	var seenMu sync.Mutex
	seen := map[uint64]time.Time{}
	fctx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	go s.Ledger.Log.Follow(fctx, first, func(e events.Envelope) error {
		now := time.Now()
		seenMu.Lock()
		seen[e.Sequence] = now
		seenMu.Unlock()
		return nil
	}, nil)

	// The tables.
	fmt.Fprintf(progress, "bench: live: %d subscribers connected; %d tables play %d commands each\n", len(subs), len(battles), o.LiveCommands)
	var mu sync.Mutex
	sent := map[uint64]time.Time{}
	expect := map[string][]uint64{} // battle -> sequences every reader sees
	var tableErr error
	var tables sync.WaitGroup
	t0 := time.Now()
	for _, b := range battles {
		gen := gens[b]
		tables.Go(func() {
			n := 0
			for n < o.LiveCommands && !gen.Ended() && ctx.Err() == nil {
				req := gen.Next()
				t := time.Now()
				r, err := p.session(gen.Side()).Execute(ctx, asCommand(req))
				if err == nil {
					for _, e := range r.Events {
						err = errors.Join(err, gen.Observe(e.Type, e.Payload))
					}
				}
				mu.Lock()
				if err != nil && tableErr == nil {
					tableErr = fmt.Errorf("bench: live %s %s: %w", req.ID, req.Name, err)
				}
				for _, e := range r.Events {
					sent[e.Seq] = t
					if e.Audience == events.AudienceAll {
						expect[b] = append(expect[b], e.Seq)
					}
				}
				res.Commands++
				res.Events += len(r.Events)
				mu.Unlock()
				if err != nil {
					return
				}
				n++
				if o.LivePace > 0 {
					time.Sleep(o.LivePace)
				}
			}
		})
	}
	tables.Wait()
	res.Seconds = time.Since(t0).Seconds()
	if tableErr != nil {
		return nil, tableErr
	}
	// Every event to every subscriber, or 30 s.
	deadline := time.Now().Add(30 * time.Second)
	for _, sub := range subs {
		for !sub.has(expect[sub.battle]) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	stopSubs()
	stopFollow()
	done.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}

	var fromLog, fromSent, hot, others []time.Duration
	seenMu.Lock()
	defer seenMu.Unlock()
	for _, sub := range subs {
		sub.mu.Lock()
		res.Reconnects += sub.resume
		for _, q := range expect[sub.battle] {
			res.Expected++
			at, ok := sub.got[q]
			if !ok {
				res.Missing++
				continue
			}
			res.Delivered++
			fromSent = append(fromSent, at.Sub(sent[q]))
			if s, ok := seen[q]; ok {
				d := max(0, at.Sub(s))
				fromLog = append(fromLog, d)
				if sub.battle == battles[0] {
					hot = append(hot, d)
				} else {
					others = append(others, d)
				}
			}
		}
		sub.mu.Unlock()
	}
	res.FromLog, res.FromSent = summarise(fromLog), summarise(fromSent)
	res.HotFromLog, res.OthersFromLog = summarise(hot), summarise(others)
	return res, nil
}
