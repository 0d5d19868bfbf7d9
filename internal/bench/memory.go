package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
)

// MemoryResult is what the process holds (the embedded NATS server, the
// service, the door and SQLite, all in this process, as in ledger serve)
// while one battle grows long and then while many battles are touched
// once: issue 24's bound, under 200 MiB for both and flat once the caches
// are full (cache.streams, cache.timeline_events).
type MemoryResult struct {
	// Long is the process after every step of the long battle.
	Long []MemoryPoint `json:"long_battle"`
	// Touched is the process after every step of the battles touched once.
	Touched   []MemoryPoint `json:"battles_touched_once"`
	TargetMiB float64       `json:"target_rss_mib"`
	// CachedStreams is how many folded streams the service holds at the
	// end, against its bound.
	CachedStreams int `json:"cached_streams"`
	StreamsBound  int `json:"cached_streams_bound"`
	// Retried counts commands sent again, with the same id, after a fault
	// (a slow append on a busy machine), as a person would.
	Retried int `json:"commands_sent_again,omitempty"`
}

// MemoryPoint is the process's resident memory and live heap (after a
// collection) at a count of events or battles.
type MemoryPoint struct {
	At      uint64  `json:"at"`
	RSSMiB  float64 `json:"rss_mib"`
	HeapMiB float64 `json:"heap_mib"`
}

// RSSMiB reads the process's resident set from /proc (0 where there is
// none).
func RSSMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func measureMemory(at uint64) MemoryPoint {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return MemoryPoint{At: at, RSSMiB: RSSMiB(), HeapMiB: float64(ms.HeapInuse) / (1 << 20)}
}

// runMemory plays one battle of the league's script through the door to
// o.MemoryEvents events, measuring every tenth of the way, then touches
// o.MemoryBattles new battles once each (set up, and their first orders),
// measuring every tenth of them.
func runMemory(ctx context.Context, a *Ledger, o LeagueOptions, tag string, progress io.Writer) (*MemoryResult, error) {
	res := &MemoryResult{TargetMiB: 200, StreamsBound: a.Config.Cache.Streams}
	res.Long = append(res.Long, measureMemory(0))
	camp := tag + "-mem"
	fmt.Fprintf(progress, "bench: memory while one battle grows to %d events\n", o.MemoryEvents)
	p, err := setUpCampaign(ctx, a.Door, camp, func(acked) {})
	if err != nil {
		return nil, err
	}
	gen := loadgen.NewBattle(camp, "long", 11)
	gen.Mix = loadgen.Mix{Seeds: true, Combat: true}
	step := max(o.MemoryEvents/10, 1)
	next := step
	var version uint64
	for version < o.MemoryEvents {
		req := gen.Next()
		r, err := execute(ctx, p.session(gen.Side()), asCommand(req), &res.Retried)
		if err != nil {
			return nil, fmt.Errorf("bench: memory: %s %s: %w", req.ID, req.Name, err)
		}
		version = r.Events[len(r.Events)-1].Version
		if version >= next {
			m := measureMemory(version)
			res.Long = append(res.Long, m)
			fmt.Fprintf(progress, "bench: memory at %d events: RSS %.0f MiB, heap %.0f MiB\n", m.At, m.RSSMiB, m.HeapMiB)
			next += step
		}
	}

	fmt.Fprintf(progress, "bench: memory while %d battles are touched once\n", o.MemoryBattles)
	res.Touched = append(res.Touched, measureMemory(0))
	bstep := max(o.MemoryBattles/10, 1)
	var camps people
	var c string
	for i := range o.MemoryBattles {
		if i%o.PerCampaign == 0 {
			c = fmt.Sprintf("%s-m%04d", tag, i/o.PerCampaign+1)
			if camps, err = setUpCampaign(ctx, a.Door, c, func(acked) {}); err != nil {
				return nil, err
			}
		}
		g := loadgen.NewLeagueBattle(c, fmt.Sprintf("t%04d", i+1), uint64(i+1))
		key := events.Key{Campaign: c, Battle: g.ID}
		// The battle is added and set up, and its first side moves: what
		// a club does with a battle it opens once.
		for n := 0; n < 12; n++ {
			req := g.Next()
			if _, err := execute(ctx, camps.session(g.Side()), asCommand(req), &res.Retried); err != nil {
				return nil, fmt.Errorf("bench: memory: %s %s %s: %w", key, req.ID, req.Name, err)
			}
		}
		if (i+1)%bstep == 0 {
			m := measureMemory(uint64(i + 1))
			res.Touched = append(res.Touched, m)
			fmt.Fprintf(progress, "bench: memory at %d battles touched: RSS %.0f MiB, heap %.0f MiB\n", m.At, m.RSSMiB, m.HeapMiB)
		}
	}
	res.CachedStreams = a.Service.Cached()
	if o.MemProfile != "" {
		f, err := os.Create(o.MemProfile)
		if err != nil {
			return nil, err
		}
		runtime.GC()
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// printMemory writes the memory part of a league run.
func printMemory(w io.Writer, m *MemoryResult) {
	verdictOf := func(pts []MemoryPoint) (float64, string) {
		worst := 0.0
		for _, p := range pts {
			worst = max(worst, p.RSSMiB)
		}
		return worst, verdict(worst, m.TargetMiB, true)
	}
	fmt.Fprintf(w, "\nmemory: the whole process (embedded NATS, service, door, SQLite), after a garbage collection\n")
	fmt.Fprintf(w, "  one battle growing\tevents\tRSS MiB\theap MiB\t\n")
	for _, p := range m.Long {
		fmt.Fprintf(w, "  \t%d\t%.0f\t%.0f\t\n", p.At, p.RSSMiB, p.HeapMiB)
	}
	worst, v := verdictOf(m.Long)
	fmt.Fprintf(w, "  worst\t\t%.0f\ttarget < %.0f MiB: %s\t\n", worst, m.TargetMiB, v)
	fmt.Fprintf(w, "  battles touched once\tbattles\tRSS MiB\theap MiB\t\n")
	for _, p := range m.Touched {
		fmt.Fprintf(w, "  \t%d\t%.0f\t%.0f\t\n", p.At, p.RSSMiB, p.HeapMiB)
	}
	worst, v = verdictOf(m.Touched)
	fmt.Fprintf(w, "  worst\t\t%.0f\ttarget < %.0f MiB: %s\t\n", worst, m.TargetMiB, v)
	fmt.Fprintf(w, "  folded streams the service holds\t%d\tbound %d (cache.streams)\t\n", m.CachedStreams, m.StreamsBound)
	if m.Retried > 0 {
		fmt.Fprintf(w, "  commands sent again after a fault\t%d\t\t\n", m.Retried)
	}
}
