package main

import (
	"encoding/json"
	"strings"
	"testing"
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
	var res benchResult
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
