package jetstream

import (
	"fmt"
	"testing"
)

// TestAckedBounded: the last acknowledged sequences a Log keeps to notice a
// lagging replica (Read) stay within two generations however many subjects
// it writes, and a forgotten subject still answers a sequence at or after
// its own, so Read never takes a lagging replica's short answer as whole.
func TestAckedBounded(t *testing.T) {
	var a ackedSeqs
	const subjects = 5*ackedKeep + 17
	seqOf := func(i int) uint64 { return uint64(3*i + 1) } // sequences grow across subjects
	for i := range subjects {
		a.note(fmt.Sprintf("ledger.c.b%d", i), seqOf(i))
		if n := a.len(); n > 2*ackedKeep {
			t.Fatalf("after %d subjects: %d remembered, the bound is %d", i+1, n, 2*ackedKeep)
		}
	}
	exact := 0
	for i := range subjects {
		got := a.get(fmt.Sprintf("ledger.c.b%d", i))
		if got < seqOf(i) {
			t.Fatalf("subject %d: answers %d, below its acknowledged %d: a lagging replica's answer would pass as whole", i, got, seqOf(i))
		}
		if got == seqOf(i) {
			exact++
		}
	}
	// The last ackedKeep written are remembered exactly.
	for i := subjects - ackedKeep; i < subjects; i++ {
		if got := a.get(fmt.Sprintf("ledger.c.b%d", i)); got != seqOf(i) {
			t.Fatalf("recent subject %d: %d, want %d", i, got, seqOf(i))
		}
	}
	if exact < ackedKeep {
		t.Fatalf("only %d subjects answered exactly", exact)
	}
	// A subject written again moves up, never down.
	s := fmt.Sprintf("ledger.c.b%d", subjects-1)
	a.note(s, 2)
	if got := a.get(s); got != seqOf(subjects-1) {
		t.Fatalf("a lower sequence noted later moved the subject to %d", got)
	}
	a.note(s, seqOf(subjects))
	if got := a.get(s); got != seqOf(subjects) {
		t.Fatalf("a later acknowledgement: %d, want %d", got, seqOf(subjects))
	}
	// Never written, nothing forgotten yet: nothing to wait for.
	var fresh ackedSeqs
	if got := fresh.get("ledger.c.none"); got != 0 {
		t.Fatalf("an empty record answers %d", got)
	}
}
