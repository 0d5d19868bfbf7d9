// Package bounded holds the fuzz targets of what users can reach to a
// budget: nothing a player sends may cost unbounded time or memory
// (docs/architecture.md, "Tests"; issue 24). A target wraps the work of
// one input in Check, which fails the input when the work allocated more
// bytes, or took longer, than the budget the target gives for that
// input's size.
//
// The budgets are generous on purpose (a hundred times what the work
// costs here, and seconds for what takes microseconds), so that a loaded
// machine never fails them; what they catch is the work that grows without
// bound: a loop that never ends, an output quadratic in a name's length.
//
// Only test code imports this package (cmd/ledger's dependency test
// checks it).
package bounded

import (
	"runtime"
	"testing"
	"time"
)

// Budget is what one input's work may cost.
type Budget struct {
	// Bytes is the most the work may allocate, in all (not only what it
	// keeps): runtime.MemStats.TotalAlloc before and after.
	Bytes uint64
	// Time is the longest it may take, by the wall clock.
	Time time.Duration
}

// For gives the budget of an input of n bytes: a base for the work's
// fixed cost, and per byte of input.
func For(n int, base, perByte uint64, d time.Duration) Budget {
	return Budget{Bytes: base + perByte*uint64(n), Time: d}
}

// Check runs work once and fails t, naming what was spent against the
// budget, when it allocated or took more than b allows. A work that has
// not returned when its time is up fails the input at once (it is left
// running: the failing test ends the process soon after), so a runaway
// is named by its input instead of filling the machine's memory.
func Check(t testing.TB, b Budget, what string, work func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	select {
	case <-done:
	case <-time.After(b.Time):
		t.Fatalf("%s did not finish within its budget of %v", what, b.Time)
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if spent := after.TotalAlloc - before.TotalAlloc; spent > b.Bytes {
		t.Fatalf("%s allocated %d bytes, over its budget of %d", what, spent, b.Bytes)
	}
	if took > b.Time {
		t.Fatalf("%s took %v, over its budget of %v", what, took, b.Time)
	}
}
