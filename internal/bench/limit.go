package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
)

// The limit beside the league's figures: the log's own appends with
// nothing around them (no decoding, no state, no decision, no door, no
// projection wait), measured on the same log in the same run. An append
// is what every accepted command ends in, so no command path can go
// faster than these.

// Rate is how often something was done and how long each took.
type Rate struct {
	N       int     `json:"n"`
	PerSec  float64 `json:"per_second"`
	Latency Latency `json:"latency"`
}

// LimitResult is the log's raw append rate.
type LimitResult struct {
	// Single: one event per append (a plain publish with its expected
	// sequence and message id), one append after the other: a single
	// synced publish.
	Single Rate `json:"single"`
	// Batch: two events per append (an atomic batch), one after the
	// other: what an order or a phase end costs the log.
	Batch Rate `json:"batch_of_2"`
	// Parallel: one event per append, Writers streams appending at once:
	// how far the server groups concurrent writes.
	Parallel Rate `json:"parallel"`
	Writers  int  `json:"writers"`
}

// limitWriter appends events of one campaign stream directly to the log,
// chained and signed as the service chains and signs them (the signing is
// done before the clock starts). The projection folds them like any
// other: a campaign whose people are added one by one.
type limitWriter struct {
	log  events.Log
	sign *events.Signer
	key  events.Key
	last *events.Envelope
	cmds int // appends made
	n    int // people added
}

func newLimitWriter(ctx context.Context, log events.Log, sign *events.Signer, id string) (*limitWriter, error) {
	w := &limitWriter{log: log, sign: sign, key: events.Key{Campaign: id}}
	created := campaign.Created{Campaign: id, Name: "Append limit " + id, Era: "napoleonic", Sides: loadgen.Sides}
	if err := w.append(ctx, campaign.EvCreated, created); err != nil {
		return nil, err
	}
	return w, nil
}

// append appends one event per payload, all in one append.
func (w *limitWriter) append(ctx context.Context, typ string, payloads ...any) error {
	batch, expected, err := w.prepare(typ, payloads...)
	if err != nil {
		return err
	}
	return w.store(ctx, batch, expected)
}

// prepare makes the events of one append, chained and signed, and the
// sequence the append expects.
func (w *limitWriter) prepare(typ string, payloads ...any) ([]events.Envelope, uint64, error) {
	info, ok := campaign.Registry().Lookup(typ)
	if !ok {
		return nil, 0, fmt.Errorf("bench: event type %s is not registered", typ)
	}
	w.cmds++
	cmd := fmt.Sprintf("limit-%06d", w.cmds)
	batch := make([]events.Envelope, len(payloads))
	for i, p := range payloads {
		body, err := json.Marshal(p)
		if err != nil {
			return nil, 0, err
		}
		batch[i] = events.Envelope{ID: fmt.Sprintf("%s/%s/%d", w.key, cmd, i), Campaign: w.key.Campaign, Type: typ, Schema: info.Schema,
			Time: time.Now().UTC().Truncate(time.Millisecond), Actor: loadgen.Actor.Player, CommandID: cmd,
			Audience: events.AudienceAll, Payload: body}
	}
	if err := events.ChainSigned(w.last, batch, w.sign); err != nil {
		return nil, 0, err
	}
	var expected uint64
	if w.last != nil {
		expected = w.last.Sequence
	}
	return batch, expected, nil
}

// store appends a prepared batch: what the clock measures.
func (w *limitWriter) store(ctx context.Context, batch []events.Envelope, expected uint64) error {
	if err := w.log.Append(ctx, w.key, expected, batch); err != nil {
		return fmt.Errorf("bench: append limit: %w", err)
	}
	w.last = &batch[len(batch)-1]
	return nil
}

// reader is the payload of the n-th person a limit writer adds.
func (w *limitWriter) reader() campaign.PlayerAdded {
	w.n++
	sum := sha256.Sum256(fmt.Appendf(nil, "%s %d", w.key, w.n))
	return campaign.PlayerAdded{Player: fmt.Sprintf("r%06d", w.n), Role: campaign.RoleReader, TokenHash: hex.EncodeToString(sum[:])}
}

// appendFor appends events per append to w for d and returns each
// append's duration.
func (w *limitWriter) appendFor(ctx context.Context, d time.Duration, per int) ([]time.Duration, error) {
	var ds []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		ps := make([]any, per)
		for i := range ps {
			ps[i] = w.reader()
		}
		batch, expected, err := w.prepare(campaign.EvPlayerAdded, ps...)
		if err != nil {
			return ds, err
		}
		t := time.Now()
		if err := w.store(ctx, batch, expected); err != nil {
			return ds, err
		}
		ds = append(ds, time.Since(t))
	}
	return ds, nil
}

func rateOf(ds []time.Duration, elapsed time.Duration) Rate {
	return Rate{N: len(ds), PerSec: float64(len(ds)) / elapsed.Seconds(), Latency: summarise(ds)}
}

// measureLimit measures the log's raw appends for d each: one after the
// other with one event and with two, then writers streams at once. The
// campaigns it writes are named prefix-s, prefix-b and prefix-pNN.
func measureLimit(ctx context.Context, log events.Log, sign *events.Signer, prefix string, d time.Duration, writers int) (LimitResult, error) {
	var res LimitResult
	for _, m := range []struct {
		suffix string
		per    int
		into   *Rate
	}{{"s", 1, &res.Single}, {"b", 2, &res.Batch}} {
		w, err := newLimitWriter(ctx, log, sign, prefix+"-"+m.suffix)
		if err != nil {
			return res, err
		}
		ds, err := w.appendFor(ctx, d, m.per)
		if err != nil {
			return res, err
		}
		var sum time.Duration
		for _, x := range ds {
			sum += x
		}
		*m.into = rateOf(ds, sum)
	}
	res.Writers = max(1, writers)
	ws := make([]*limitWriter, res.Writers)
	for i := range ws {
		var err error
		if ws[i], err = newLimitWriter(ctx, log, sign, fmt.Sprintf("%s-p%02d", prefix, i)); err != nil {
			return res, err
		}
	}
	var mu sync.Mutex
	var all []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	t := time.Now()
	for _, w := range ws {
		wg.Go(func() {
			ds, err := w.appendFor(ctx, d, 1)
			mu.Lock()
			defer mu.Unlock()
			all = append(all, ds...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	res.Parallel = rateOf(all, time.Since(t))
	return res, firstErr
}

// best keeps, of two measurements of the limit, the faster of each.
func (l LimitResult) best(o LimitResult) LimitResult {
	pick := func(a, b Rate) Rate {
		if b.PerSec > a.PerSec {
			return b
		}
		return a
	}
	return LimitResult{Single: pick(l.Single, o.Single), Batch: pick(l.Batch, o.Batch), Parallel: pick(l.Parallel, o.Parallel), Writers: max(l.Writers, o.Writers)}
}
