package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/loadgen"
	ledgerjs "github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/internal/bench"
)

// TestBenchSmall runs `ledger bench` with small sizes: every figure is
// measured and printed, and the temporary ledger leaves the data folder
// alone.
func TestBenchSmall(t *testing.T) {
	c := newCLI(t)
	out := c.ok("bench", "--commands", "40", "--events", "3000", "--rounds", "1", "--dir", t.TempDir())
	for _, want := range []string{
		"command (decode, decide, append+ack)", "command + projected", "order.give", "unit.move", "phase.end",
		"append of 1 event (plain publish)", "append of 2 events (atomic batch)", "rebuild/raw read", "rebuild/raw write", "peak heap growth",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	var res bench.Result
	if err := json.Unmarshal([]byte(c.ok("bench", "--commands", "20", "--events", "2000", "--rounds", "2", "--dir", t.TempDir(), "-o", "json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Command.N != 20-4 || res.Projected.P50 < res.Command.P50 || res.RebuildEvents < 2000 ||
		res.RebuildPerSec <= 0 || res.RawReadPerSec <= 0 || res.RawWritePerSec <= 0 {
		// (The peak heap growth may be 0: the live heap is measured at
		// garbage collections, and a short rebuild may see none.)
		t.Fatalf("bench result %+v", res)
	}
	if code, _, _ := c.run("bench", "--commands", "1"); code != exitUsage {
		t.Fatalf("--commands 1: exit %d", code)
	}
}

// leagueSmall are sizes of `ledger bench --league` that run in seconds.
var leagueSmall = []string{"bench", "--league", "--battles", "8", "--per-campaign", "3", "--turns", "3",
	"--limit-for", "100ms", "--timeline-events", "150", "--samples", "40",
	"--hot", "6", "--others", "3", "--per-other", "2", "--live-commands", "8", "--live-pace", "0",
	"--memory-events", "300", "--memory-battles", "5",
	"--events", "3000", "--starts", "2", "--rounds", "1"}

// TestBenchLeagueSmall runs every part of `ledger bench --league` with
// small sizes: every figure is measured and printed beside its target and
// limit, every command was acknowledged and is in the log once, every live
// event reached every subscriber, and nothing failed on the way.
func TestBenchLeagueSmall(t *testing.T) {
	c := newCLI(t)
	var res bench.LeagueResult
	if err := json.Unmarshal([]byte(c.ok(append(leagueSmall, "--dir", t.TempDir(), "-o", "json")...)), &res); err != nil {
		t.Fatal(err)
	}
	l := res.Load
	if l == nil || res.Timeline == nil || res.Audit == nil || res.Memory == nil || res.Startup == nil || res.Live == nil || res.Rebuild == nil {
		t.Fatalf("a part is missing: %+v", res)
	}
	// The load: every table played to its end, every command is in the
	// log once, and each figure and its limit were measured.
	if l.Failed != 0 || l.Once.Acknowledged == 0 || l.Once.InLogOnce != l.Once.Acknowledged || l.Once.Missing+l.Once.Duplicated+l.Once.Moved+l.Once.Unacknowledged != 0 ||
		l.Once.Companions != l.Battles {
		t.Fatalf("load: failed %d, errors %v, once %+v", l.Failed, l.Errors, l.Once)
	}
	if l.Commands < l.Battles*(loadgen.Setup+1) || l.CommandsPerSec <= 0 || l.EventsPerSec <= 0 || l.All.N != l.Commands ||
		l.Limit.Single.PerSec <= 0 || l.Limit.Batch.PerSec <= 0 || l.Limit.Parallel.PerSec <= 0 || l.RatioSingle <= 0 || l.RatioMix <= 0 {
		t.Fatalf("load figures %+v", l)
	}
	for _, kind := range []string{"battle.create", "army.deploy", "battle.start", "dice.add_seed", "order.give", "unit.move",
		"unit.fire", "combat.record", "phase.end", "battle.end"} {
		if k := l.ByKind[kind]; k.N == 0 || k.P50 <= 0 || k.P99 < k.P50 {
			t.Errorf("load: %s: %+v", kind, k)
		}
	}
	if tl := res.Timeline; tl.Events < 150 || tl.Shown.N != 40 || tl.Shown.P99 <= 0 || tl.ColdMS <= 0 || tl.TargetMS != 20 {
		t.Errorf("timeline %+v", tl)
	}
	if a := res.Audit; a.Events < 150 || a.AuditPerSec <= 0 || a.RawReadPerSec <= 0 || a.Ratio <= 0 {
		t.Errorf("audit %+v", a)
	}
	// The memory: the long battle measured every tenth of the way to its
	// size, then every battle touched once, each beside the 200 MiB limit.
	if m := res.Memory; len(m.Long) < 10 || m.Long[len(m.Long)-1].At < 300 || len(m.Touched) == 0 || m.Touched[len(m.Touched)-1].At != 5 ||
		m.TargetMiB != 200 || m.StreamsBound <= 0 || m.CachedStreams > m.StreamsBound {
		t.Errorf("memory %+v", m)
	} else {
		for _, p := range append(m.Long, m.Touched...) {
			if p.HeapMiB <= 0 || (bench.RSSMiB() > 0 && p.RSSMiB <= 0) {
				t.Errorf("memory point %+v", p)
			}
		}
	}
	if s := res.Startup; s.Events < 3000 || len(s.Starts) != 2 || s.WorstMS <= 0 || s.TargetMS != 2000 || s.WindowS != 120 {
		t.Errorf("start-up %+v", s)
	} else {
		for _, st := range s.Starts {
			// A current projection is not caught up again, nor an ended
			// battle replayed, at start.
			if st.Lag != 0 || st.CachedBattles != 0 || st.AnswerMS < st.ServeMS || st.SinceAppendS <= 0 {
				t.Errorf("start-up %+v", st)
			}
		}
	}
	if lv := res.Live; lv.Subscribers != 12 || lv.Expected == 0 || lv.Delivered != lv.Expected || lv.Missing != 0 ||
		lv.FromLog.N != lv.Expected || lv.FromLog.P99 <= 0 || lv.HotFromLog.N == 0 || lv.OthersFromLog.N == 0 || lv.FromSent.P50 < lv.FromLog.P50 {
		t.Errorf("live %+v", lv)
	}
	if rb := res.Rebuild; rb.RebuildEvents < 3000 || rb.RebuildPerSec <= 0 || rb.RawReadPerSec <= 0 || rb.RebuildRead <= 0 || rb.Target != 0.7 {
		t.Errorf("rebuild %+v", rb)
	}
	if len(res.Stopped) > 0 {
		t.Errorf("the projection stopped streams: %v", res.Stopped)
	}
	if res.Machine == "" || res.Server == "" {
		t.Errorf("machine %q, server %q", res.Machine, res.Server)
	}

	// The printed figures: one run of the load and the timeline, each
	// figure beside its limit or target.
	out := c.ok("bench", "--league", "--parts", "load,timeline", "--battles", "3", "--turns", "1", "--limit-for", "100ms",
		"--timeline-events", "40", "--samples", "5", "--dir", t.TempDir())
	for _, want := range []string{
		"load: 3 battles played at once", "commands/s", "limit: one synced append after the other", "commands/s / limit",
		"limit: one atomic batch of 2 events", "appends at once", "this mix's appends", "every command in the log once",
		"order.give", "phase.end", "unit.move", "p50 / one synced append",
		"timeline: any event of a battle", "target p99 < 20 ms",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bench --league output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "audit:") || strings.Contains(out, "start-up:") {
		t.Errorf("--parts load,timeline ran more:\n%s", out)
	}
	if code, _, errs := c.run("bench", "--league", "--parts", "load,nope"); code != exitUsage || !strings.Contains(errs, "nope") {
		t.Fatalf("--parts nope: exit %d: %s", code, errs)
	}
}

// TestBenchLeagueCluster runs the league's load against a three-node
// cluster (--nats-url, three replicas): every command is in the log once.
func TestBenchLeagueCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test")
	}
	cl := jstest.RunCluster(t, 3)
	c := newCLI(t)
	c.cfg.NATS.URL = cl.URL(0) + "," + cl.URL(1) + "," + cl.URL(2)
	c.cfg.NATS.User, c.cfg.NATS.Password = ledgerjs.UserLedger, cl.Credentials().Password(ledgerjs.UserLedger)
	var res bench.LeagueResult
	out := c.ok("bench", "--league", "--parts", "load", "--replicas", "3", "--battles", "4", "--per-campaign", "2", "--turns", "2",
		"--limit-for", "200ms", "--dir", t.TempDir(), "-o", "json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	l := res.Load
	if !strings.Contains(res.Server, "3 replicas") || l == nil || l.Failed != 0 || l.Once.InLogOnce != l.Once.Acknowledged ||
		l.Once.Missing+l.Once.Duplicated+l.Once.Moved+l.Once.Unacknowledged != 0 || l.Limit.Single.PerSec <= 0 || l.CommandsPerSec <= 0 {
		t.Fatalf("cluster load: server %q, %+v", res.Server, l)
	}
}
