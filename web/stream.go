package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
)

// hub is the one follower of the log per server: it hands every new event
// to the live streams of its battle. A stream that does not keep up is
// dropped (its connection ends) and the client resumes with Last-Event-ID.
// It counts the streams each caller holds, against Limits.
type hub struct {
	limits Limits

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	per    map[string]int // open streams by caller
	closed bool
}

type subscriber struct {
	key    events.Key
	caller string
	ch     chan events.Envelope
	// still says whether the caller's token still opens the campaign: a
	// stream whose token was reissued ends at once.
	still func() bool
}

// subscriberBuffer is how many events a slow stream may lag behind.
const subscriberBuffer = 256

func newHub(l Limits) *hub {
	return &hub{limits: l, subs: map[*subscriber]struct{}{}, per: map[string]int{}}
}

// run follows the log after sequence after until ctx ends, starting again
// from the last event seen if the follow fails.
func (h *hub) run(ctx context.Context, log events.Log, after uint64, logger *slog.Logger) {
	defer h.closeAll()
	for ctx.Err() == nil {
		err := log.Follow(ctx, after, func(e events.Envelope) error {
			after = e.Sequence
			h.publish(e)
			return nil
		}, nil)
		if ctx.Err() != nil {
			return
		}
		logger.Error("live stream: following the log failed; following again", "after", after, "err", err)
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (h *hub) publish(e events.Envelope) {
	if e.Battle == "" {
		if e.Type == campaign.EvTokenReissued {
			go h.recheck(e.Campaign)
		}
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.key != e.Key() {
			continue
		}
		select {
		case s.ch <- e:
		default:
			h.drop(s)
		}
	}
}

// recheck ends the streams of campaign whose token no longer opens it (a
// token reissued: the old one is refused at once, on every open page).
func (h *hub) recheck(camp string) {
	h.mu.Lock()
	var subs []*subscriber
	for s := range h.subs {
		if s.key.Campaign == camp && s.still != nil {
			subs = append(subs, s)
		}
	}
	h.mu.Unlock()
	for _, s := range subs {
		if !s.still() {
			h.unsubscribe(s)
		}
	}
}

// Errors of subscribe.
var (
	errTooManyStreams = app.Errorf(app.KindTooMany, "too_many_streams", "this caller has as many live streams open as it may; close one")
	errServerStreams  = &app.Error{Kind: app.KindUnavailable, Code: "too_many_streams", RetryAfter: 30}
)

// subscribe returns a subscriber to key's new events for caller, or an
// error once the hub has closed or a limit is reached.
func (h *hub) subscribe(key events.Key, caller string, still func() bool) (*subscriber, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, errDraining
	case h.per[caller] >= h.limits.StreamsPerCaller:
		return nil, errTooManyStreams
	case len(h.subs) >= h.limits.Streams:
		return nil, errServerStreams
	}
	s := &subscriber{key: key, caller: caller, ch: make(chan events.Envelope, subscriberBuffer), still: still}
	h.subs[s] = struct{}{}
	h.per[caller]++
	return s, nil
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(s)
}

// drop ends a stream (h.mu held).
func (h *hub) drop(s *subscriber) {
	if _, ok := h.subs[s]; !ok {
		return
	}
	delete(h.subs, s)
	if h.per[s.caller]--; h.per[s.caller] <= 0 {
		delete(h.per, s.caller)
	}
	close(s.ch)
}

// closeAll ends every stream and refuses new ones.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		h.drop(s)
	}
}

// keepAlive is how often an idle stream sends a comment, so that proxies
// keep the connection open.
const keepAlive = 20 * time.Second

// callerKey is what the stream limit counts by: the token, or the operator.
func callerKey(c app.Caller) string {
	if c.Operator != "" {
		return "operator:" + c.Operator
	}
	return "token:" + c.Token
}

// handleStream streams a battle's events as server-sent events: first the
// stored ones after the Last-Event-ID header's version (or ?after=VERSION;
// with neither, none), then each new one as it is appended. The SSE id is
// the event's version; only events the caller may read are sent (the
// door's Watcher decides).
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	key := battleKey(r)
	c := s.caller(r)
	sess := s.opts.Ledger.As(c)
	watch, err := sess.Watch(r.Context(), key)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	after, replay, err := streamStart(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		s.writeError(w, r, fmt.Errorf("web: the response writer cannot flush"))
		return
	}
	still := func() bool {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
		defer cancel()
		_, err := sess.Principal(ctx, key.Campaign)
		return err == nil
	}
	sub, err := s.hub.subscribe(key, callerKey(c), still)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer s.hub.unsubscribe(sub)
	// Subscribed first, read the log second: nothing appended in between
	// is missed, and what arrives twice is skipped by version.
	backlog, err := s.opts.Log.Read(r.Context(), key, 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !replay && len(backlog) > 0 {
		after = backlog[len(backlog)-1].Version
	}
	// A live stream outlives the server's write timeout.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	sent := after
	send := func(e events.Envelope) error {
		if e.Version <= sent {
			return nil
		}
		sent = e.Version
		v, ok := watch.View(e)
		if !ok {
			return nil
		}
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "id: %d\ndata: %s\n\n", e.Version, data)
		return err
	}
	for _, e := range backlog {
		if err := send(e); err != nil {
			return
		}
	}
	flusher.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-sub.ch:
			if !ok {
				return
			}
			if err := send(e); err != nil {
				return
			}
			flusher.Flush()
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

// streamStart reads where a stream starts: after the Last-Event-ID
// header's version, or ?after=VERSION; replay is false when neither is
// given (only new events are sent).
func streamStart(r *http.Request) (after uint64, replay bool, err error) {
	v := strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	name := "Last-Event-ID"
	if v == "" {
		v, name = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, false, nil
	}
	n, perr := strconv.ParseUint(v, 10, 64)
	if perr != nil {
		return 0, false, app.Errorf(app.KindInvalid, "bad_request", "%s: want an event version", name)
	}
	return n, true, nil
}
