package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
)

// The league's load: many battles played at once by simulated tables,
// each command through the one door (an app.Session of the opened Ledger,
// with the projector a server runs), so that every figure includes
// authorisation, decision, append and projection.

// LoadResult is what the league's load measured.
type LoadResult struct {
	Campaigns int `json:"campaigns"`
	Battles   int `json:"battles"`
	// Turns is the side turns each battle plays before its umpire ends it
	// (fewer when a digital order blunders: loadgen.Mix).
	Turns int `json:"turns"`
	// Pace is each table's pause between its commands (0: none), give or
	// take half; with a pace the tables also sit down over one pace.
	PaceMS float64 `json:"pace_ms"`

	// Commands acknowledged, and the events they appended, while the
	// tables played (set-up of campaigns and people excluded).
	Commands int     `json:"commands"`
	Events   int     `json:"events"`
	Seconds  float64 `json:"seconds"`
	// CommandsPerSec and EventsPerSec are the aggregate rates.
	CommandsPerSec float64 `json:"commands_per_second"`
	EventsPerSec   float64 `json:"events_per_second"`
	// All and ByKind are each command's time through the door: decode,
	// authorise, decide, append with the server's ack, and the wait for
	// the projection to hold its events (as `ledger serve` answers).
	All    Latency            `json:"all"`
	ByKind map[string]Latency `json:"by_kind"`
	// Retried counts commands sent again, with the same id, after a fault
	// (the ledger's warnings say which); Failed counts tables stopped by a
	// command that was refused or still failed after 5 repeats; Errors
	// says the first few.
	Retried int      `json:"retried"`
	Failed  int      `json:"failed"`
	Errors  []string `json:"errors,omitempty"`
	// Unprojected counts commands that answered before the projection held
	// them (the door waits 5 s at most).
	Unprojected int `json:"unprojected"`
	// CatchUpSeconds is how long after the last command the projection
	// held the whole log.
	CatchUpSeconds float64 `json:"catch_up_seconds"`

	// Limit is the log's raw append rate, measured before and after the
	// load in the same run (the faster of the two kept).
	Limit LimitResult `json:"limit"`
	// RatioSingle is CommandsPerSec over one synced append after the
	// other; RatioParallel over Limit.Writers appending at once.
	RatioSingle   float64 `json:"commands_over_single_append"`
	RatioParallel float64 `json:"commands_over_parallel_appends"`
	EventsRatio   float64 `json:"events_over_single_append"`
	// MixLimit is the commands/s the log itself could take of this mix of
	// commands, its appends one after the other at the measured rates
	// (a command of one event: a single append; of several: an atomic
	// batch); Multi is the share of commands of several events.
	Multi    float64 `json:"multi_event_share"`
	MixLimit float64 `json:"mix_limit_commands_per_second"`
	RatioMix float64 `json:"commands_over_mix_limit"`

	// Once is the check that every acknowledged command is in the log,
	// once.
	Once OnceCheck `json:"once"`
}

// OnceCheck compares the acknowledged commands with the log.
type OnceCheck struct {
	// Acknowledged commands (set-up included), and those whose events are
	// all in the log exactly once at the acknowledged sequences.
	Acknowledged int `json:"acknowledged"`
	InLogOnce    int `json:"in_log_once"`
	// Missing: an acknowledged event not in the log; Duplicated: an event
	// id in the log more than once; Moved: at another sequence than
	// acknowledged; Unacknowledged: events of the bench's campaigns that no
	// acknowledged command appended.
	Missing        int `json:"missing"`
	Duplicated     int `json:"duplicated"`
	Moved          int `json:"moved"`
	Unacknowledged int `json:"unacknowledged"`
	// Companions are events an acknowledged command appended on another
	// stream than its own, which its answer does not list: the campaign's
	// battle.added of a battle.create.
	Companions int `json:"companions"`
}

// acked is one acknowledged command: its campaign and id, its events'
// ids and sequences.
type acked struct {
	campaign, command string
	ids               []string
	seqs              []uint64
}

// people are a campaign's people (loadgen.People): their sessions and
// their tokens, the umpire's under "".
type people struct {
	umpire  *app.Session
	players map[string]*app.Session
	tokens  map[string]string
}

// session is the person who gives the script's last command.
func (p people) session(side string) *app.Session {
	if side == "" {
		return p.umpire
	}
	return p.players[side]
}

// asCommand is a loadgen request as the door takes it.
func asCommand(req campaign.Request) app.Command {
	return app.Command{ID: req.ID, Campaign: req.Campaign, Battle: req.Battle, Name: req.Name, Body: req.Body, Dice: req.Dice.Values}
}

func ackOf(res app.Result) acked {
	a := acked{campaign: res.Key.Campaign, command: res.CommandID}
	for _, e := range res.Events {
		a.ids = append(a.ids, e.ID)
		a.seqs = append(a.seqs, e.Seq)
	}
	return a
}

// setUpCampaign creates campaign id and its people through the door as
// the operator, and returns their sessions.
func setUpCampaign(ctx context.Context, l *app.Ledger, id string, note func(acked)) (people, error) {
	op := l.As(app.Caller{Operator: "bench"})
	p := people{players: map[string]*app.Session{}, tokens: map[string]string{}}
	// A fault (a slow append on a busy machine) is met as a person would:
	// the same command again, with its id.
	var retried int
	res, err := execute(ctx, op, asCommand(loadgen.CreateCampaign(id)), &retried)
	if err != nil {
		return p, fmt.Errorf("bench: create campaign %s: %w", id, err)
	}
	note(ackOf(res))
	for i, req := range loadgen.People(id) {
		res, err := execute(ctx, op, asCommand(req), &retried)
		if err != nil {
			return p, fmt.Errorf("bench: %s: %w", req.ID, err)
		}
		note(ackOf(res))
		s := l.As(app.Caller{Token: res.Token})
		if i == 0 {
			p.umpire, p.tokens[""] = s, res.Token
		} else {
			side := loadgen.Sides[i-1].ID
			p.players[side], p.tokens[side] = s, res.Token
		}
	}
	return p, nil
}

// retries is how often a table sends a command again, with the same id,
// after an error that leaves its outcome unknown (what the ledger tells
// a person to do), before it gives up.
const retries = 5

// retryable says whether a table sends the command again: a fault, not a
// decision.
func retryable(err error) bool {
	var ae *app.Error
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.Kind {
	case app.KindInternal, app.KindUnavailable, app.KindConflict, app.KindTooMany, app.KindDraining:
		return true
	}
	return false
}

// execute sends cmd through s, again with the same id after a fault (at
// most retries times, after 50 ms, 100 ms, ...), counting the repeats in
// retried.
func execute(ctx context.Context, s app.API, cmd app.Command, retried *int) (app.Result, error) {
	for attempt := 0; ; attempt++ {
		res, err := s.Execute(ctx, cmd)
		if err == nil || attempt == retries || !retryable(err) {
			return res, err
		}
		*retried++
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After((50 * time.Millisecond) << attempt):
		}
	}
}

// jitter is a table's pause: pace give or take half, so that tables do
// not keep step.
func jitter(pace time.Duration) time.Duration {
	return pace/2 + time.Duration(rand.Int64N(int64(pace)+1))
}

// playScript plays gen to its end through the people's sessions, pausing
// about pace between commands (jitter), and hands each acknowledged command to note;
// commands sent again after a fault are counted in retried.
func playScript(ctx context.Context, gen *loadgen.Battle, p people, pace time.Duration, retried *int, note func(name string, d time.Duration, res app.Result)) error {
	for !gen.Ended() {
		req := gen.Next()
		t := time.Now()
		res, err := execute(ctx, p.session(gen.Side()), asCommand(req), retried)
		d := time.Since(t)
		if err != nil {
			return fmt.Errorf("%s/%s %s %s: %w", req.Campaign, req.Battle, req.ID, req.Name, err)
		}
		note(req.Name, d, res)
		for _, e := range res.Events {
			if err := gen.Observe(e.Type, e.Payload); err != nil {
				return err
			}
		}
		if pace > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(jitter(pace)):
			}
		}
	}
	return nil
}

// runLoad plays o.Battles battles at once on a (whose projector, projector,
// runs), o.PerCampaign to a campaign, and measures the limit before and
// after.
func runLoad(ctx context.Context, a *Ledger, projector *app.Projector, o LeagueOptions, tag string, warnings *benchLog, progress io.Writer) (*LoadResult, error) {
	res := &LoadResult{Battles: o.Battles, Turns: o.Turns, PaceMS: float64(o.Pace.Microseconds()) / 1000, ByKind: map[string]Latency{}}
	writers := min(o.Battles, 64)
	fmt.Fprintf(progress, "bench: the log's raw appends (the limit), %s each\n", o.LimitFor)
	before, err := measureLimit(ctx, a.Log, a.Signer, tag+"-limit1", o.LimitFor, writers)
	if err != nil {
		return nil, err
	}

	var mu sync.Mutex
	all := map[string]acked{} // by "campaign/battle/command id"
	campaigns := map[string]bool{}
	noteSetup := func(k events.Key, id string) func(acked) {
		return func(x acked) {
			mu.Lock()
			all[k.String()+"/"+id] = x
			mu.Unlock()
		}
	}
	res.Campaigns = (o.Battles + o.PerCampaign - 1) / o.PerCampaign
	fmt.Fprintf(progress, "bench: setting up %d campaigns and their people\n", res.Campaigns)
	camps := make([]people, res.Campaigns)
	ids := make([]string, res.Campaigns)
	var setupErr error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range camps {
		ids[i] = fmt.Sprintf("%s-c%03d", tag, i+1)
		campaigns[ids[i]] = true
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			n := 0
			p, err := setUpCampaign(ctx, a.Door, ids[i], func(x acked) {
				n++
				noteSetup(events.Key{Campaign: ids[i]}, fmt.Sprint(n))(x)
			})
			mu.Lock()
			defer mu.Unlock()
			camps[i] = p
			if err != nil && setupErr == nil {
				setupErr = err
			}
		})
	}
	wg.Wait()
	if setupErr != nil {
		return nil, setupErr
	}

	fmt.Fprintf(progress, "bench: %d tables playing %d battles at once, %d side turns each\n", o.Battles, o.Battles, o.Turns)
	warnings.reset()
	byKind := map[string][]time.Duration{}
	var every []time.Duration
	nMulti := 0
	t0 := time.Now()
	for i := range o.Battles {
		c := i / o.PerCampaign
		gen := loadgen.NewLeagueBattle(ids[c], fmt.Sprintf("b%04d", i+1), uint64(i+1))
		gen.TurnLimit = o.Turns
		wg.Go(func() {
			if o.Pace > 0 {
				// Tables sit down over one pace, not all at once.
				time.Sleep(time.Duration(rand.Int64N(int64(o.Pace))))
			}
			kinds := map[string][]time.Duration{}
			mine := map[string]acked{}
			cmds, evs, retried, multi := 0, 0, 0, 0
			err := playScript(ctx, gen, camps[c], o.Pace, &retried, func(name string, d time.Duration, r app.Result) {
				kinds[name] = append(kinds[name], d)
				mine[r.Key.String()+"/"+r.CommandID] = ackOf(r)
				cmds++
				evs += len(r.Events)
				if len(r.Events) > 1 {
					multi++
				}
			})
			mu.Lock()
			defer mu.Unlock()
			for k, ds := range kinds {
				byKind[k] = append(byKind[k], ds...)
				every = append(every, ds...)
			}
			for k, x := range mine {
				all[k] = x
			}
			res.Commands += cmds
			res.Events += evs
			res.Retried += retried
			nMulti += multi
			if err != nil {
				res.Failed++
				if len(res.Errors) < 5 {
					res.Errors = append(res.Errors, err.Error())
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0)
	res.Seconds = elapsed.Seconds()
	res.CommandsPerSec = float64(res.Commands) / elapsed.Seconds()
	res.EventsPerSec = float64(res.Events) / elapsed.Seconds()
	res.All = summarise(every)
	for k, ds := range byKind {
		res.ByKind[k] = summarise(ds)
	}
	res.Unprojected = warnings.count(unprojectedWarning)

	last, err := a.Log.LastSequence(ctx)
	if err != nil {
		return nil, err
	}
	t := time.Now()
	if err := projector.Wait(ctx, last); err != nil {
		return nil, fmt.Errorf("bench: the projection did not catch up: %w", err)
	}
	res.CatchUpSeconds = time.Since(t).Seconds()

	fmt.Fprintf(progress, "bench: checking that every acknowledged command is in the log once\n")
	if res.Once, err = checkOnce(ctx, a.Log, last, all, campaigns); err != nil {
		return nil, err
	}

	fmt.Fprintf(progress, "bench: the log's raw appends again\n")
	after, err := measureLimit(ctx, a.Log, a.Signer, tag+"-limit2", o.LimitFor, writers)
	if err != nil {
		return nil, err
	}
	res.Limit = before.best(after)
	res.RatioSingle = res.CommandsPerSec / res.Limit.Single.PerSec
	res.RatioParallel = res.CommandsPerSec / res.Limit.Parallel.PerSec
	res.EventsRatio = res.EventsPerSec / res.Limit.Single.PerSec
	if res.Commands > 0 {
		res.Multi = float64(nMulti) / float64(res.Commands)
		res.MixLimit = 1 / ((1-res.Multi)/res.Limit.Single.PerSec + res.Multi/res.Limit.Batch.PerSec)
		res.RatioMix = res.CommandsPerSec / res.MixLimit
	}
	return res, nil
}

// checkOnce reads the log up to last and compares it with the acknowledged
// commands of campaigns.
func checkOnce(ctx context.Context, log events.Log, last uint64, all map[string]acked, campaigns map[string]bool) (OnceCheck, error) {
	type seen struct {
		seq uint64
		n   int
	}
	inLog := map[string]*seen{}
	var unacked []string
	ackedIDs := map[string]bool{}
	commands := map[string]bool{} // campaign + " " + command id
	for _, x := range all {
		commands[x.campaign+" "+x.command] = true
		for _, id := range x.ids {
			ackedIDs[id] = true
		}
	}
	companions := 0
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := log.Follow(fctx, 0, func(e events.Envelope) error {
		if campaigns[e.Campaign] {
			if s := inLog[e.ID]; s != nil {
				s.n++
			} else {
				inLog[e.ID] = &seen{seq: e.Sequence, n: 1}
			}
			switch {
			case ackedIDs[e.ID]:
			case commands[e.Campaign+" "+e.CommandID]:
				companions++
			default:
				unacked = append(unacked, e.ID)
			}
		}
		if e.Sequence >= last {
			cancel()
		}
		return nil
	}, nil)
	if ctx.Err() != nil {
		return OnceCheck{}, ctx.Err()
	}
	if last > 0 && !errors.Is(err, context.Canceled) {
		return OnceCheck{}, fmt.Errorf("bench: read the log: %w", err)
	}
	c := OnceCheck{Acknowledged: len(all), Unacknowledged: len(unacked), Companions: companions}
	for _, x := range all {
		ok := len(x.ids) > 0
		for i, id := range x.ids {
			s := inLog[id]
			switch {
			case s == nil:
				c.Missing++
				ok = false
			case s.n > 1:
				c.Duplicated++
				ok = false
			case s.seq != x.seqs[i]:
				c.Moved++
				ok = false
			}
		}
		if ok {
			c.InLogOnce++
		}
	}
	return c, nil
}
