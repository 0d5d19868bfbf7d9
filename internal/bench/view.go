package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
)

// The timeline and the audit of one long battle, through the door as a
// player of the battle asks for them (server side: no HTTP).

// TimelineResult is what showing any event of a long battle costs.
type TimelineResult struct {
	Events   uint64 `json:"events"`
	Commands int    `json:"commands"`
	// Cold is the first event shown: the battle's timeline is read from
	// the log and folded (after a server's start, the first look at a
	// battle).
	ColdMS float64 `json:"cold_ms"`
	// Replay, Picture and Shown (both, one after the other) over Samples
	// events chosen at random.
	Samples int     `json:"samples"`
	Replay  Latency `json:"replay"`
	Picture Latency `json:"picture"`
	Shown   Latency `json:"shown"`
	// TargetMS is the target for Shown's p99.
	TargetMS float64 `json:"target_p99_ms"`
}

// AuditResult compares the audit of a battle with the raw read of its
// stream.
type AuditResult struct {
	Events        int     `json:"events"`
	Rounds        int     `json:"rounds"`
	AuditPerSec   float64 `json:"audit_events_per_second"`
	RawReadPerSec float64 `json:"raw_read_events_per_second"`
	Ratio         float64 `json:"audit_over_raw_read"`
}

// longBattle plays one battle of the league's script (its digital orders
// left out, so that no blunder ends it early) through the door until it
// holds at least n events.
func longBattle(ctx context.Context, l *app.Ledger, camp string, n uint64, progress io.Writer) (events.Key, people, int, error) {
	fmt.Fprintf(progress, "bench: playing a battle of %d events\n", n)
	p, err := setUpCampaign(ctx, l, camp, func(acked) {})
	if err != nil {
		return events.Key{}, p, 0, err
	}
	gen := loadgen.NewBattle(camp, "long", 7)
	gen.Mix = loadgen.Mix{Seeds: true, Combat: true}
	key := events.Key{Campaign: camp, Battle: gen.ID}
	var version uint64
	cmds := 0
	for version < n {
		req := gen.Next()
		res, err := p.session(gen.Side()).Execute(ctx, asCommand(req))
		if err != nil {
			return key, p, cmds, fmt.Errorf("bench: %s %s: %w", req.ID, req.Name, err)
		}
		cmds++
		version = res.Events[len(res.Events)-1].Version
	}
	return key, p, cmds, nil
}

// runTimeline shows samples events of key, chosen at random, as its
// viewer sees them: the board (Replay) and the picture (Picture).
func runTimeline(ctx context.Context, viewer *app.Session, key events.Key, samples int, cmds int) (*TimelineResult, error) {
	b, err := viewer.State(ctx, key)
	if err != nil {
		return nil, err
	}
	res := &TimelineResult{Events: b.Last, Commands: cmds, Samples: samples, TargetMS: 20}
	rng := rand.New(rand.NewPCG(uint64(b.Last), 17))
	show := func(v uint64) (time.Duration, time.Duration, error) {
		t := time.Now()
		board, err := viewer.Replay(ctx, key, v)
		if err != nil {
			return 0, 0, fmt.Errorf("bench: replay %s at %d: %w", key, v, err)
		}
		r := time.Since(t)
		t = time.Now()
		svg, err := viewer.Picture(ctx, key, app.PictureQuery{Version: v})
		if err != nil {
			return 0, 0, fmt.Errorf("bench: picture %s at %d: %w", key, v, err)
		}
		p := time.Since(t)
		if board.Version != v || len(svg) == 0 {
			return 0, 0, fmt.Errorf("bench: event %d of %s shown as %d, picture of %d bytes", v, key, board.Version, len(svg))
		}
		return r, p, nil
	}
	r, p, err := show(b.Last / 2)
	if err != nil {
		return nil, err
	}
	res.ColdMS = float64((r + p).Microseconds()) / 1000
	var rs, ps, ss []time.Duration
	for range samples {
		r, p, err := show(1 + rng.Uint64N(b.Last))
		if err != nil {
			return nil, err
		}
		rs, ps, ss = append(rs, r), append(ps, p), append(ss, r+p)
	}
	res.Replay, res.Picture, res.Shown = summarise(rs), summarise(ps), summarise(ss)
	return res, nil
}

// runAudit audits key through the door and reads its stream raw, rounds
// times in turn, and keeps the best of each.
func runAudit(ctx context.Context, viewer *app.Session, log events.Log, key events.Key, rounds int) (*AuditResult, error) {
	res := &AuditResult{Rounds: rounds}
	for range rounds {
		t := time.Now()
		evs, err := log.Read(ctx, key, 0)
		if err != nil {
			return nil, err
		}
		raw := time.Since(t)
		t = time.Now()
		rep, err := viewer.Audit(ctx, key, app.AuditOptions{})
		if err != nil {
			return nil, err
		}
		au := time.Since(t)
		if rep.Events != len(evs) {
			return nil, fmt.Errorf("bench: the audit of %s saw %d events, the log holds %d", key, rep.Events, len(evs))
		}
		res.Events = len(evs)
		res.RawReadPerSec = max(res.RawReadPerSec, float64(len(evs))/raw.Seconds())
		res.AuditPerSec = max(res.AuditPerSec, float64(len(evs))/au.Seconds())
	}
	res.Ratio = res.AuditPerSec / res.RawReadPerSec
	return res, nil
}

// unprojectedWarning is what the door logs when it answers a command
// before the projection holds it.
const unprojectedWarning = "app: the projection has not caught up with an accepted command"

// benchLog is the bench's logger: it counts what the ledger warns of, so
// that the figures can say it, and keeps the first few messages.
type benchLog struct {
	mu    sync.Mutex
	n     map[string]int
	first []string
}

func (h *benchLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *benchLog) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	h.n[r.Message]++
	if len(h.first) < 5 {
		msg := r.Message
		r.Attrs(func(a slog.Attr) bool {
			msg += " " + a.String()
			return true
		})
		h.first = append(h.first, msg)
	}
	return nil
}

func (h *benchLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *benchLog) WithGroup(string) slog.Handler      { return h }

func (h *benchLog) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[msg]
}

// summary is how often each warning came, then the first few in full.
func (h *benchLog) summary() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, m := range sortedNames(h.n) {
		out = append(out, fmt.Sprintf("%d x %s", h.n[m], m))
	}
	for _, m := range h.first {
		out = append(out, "e.g. "+m)
	}
	return out
}

func (h *benchLog) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n, h.first = nil, nil
}
