package main

import (
	"strings"
	"testing"
	"time"
)

// TestHealthCommand: `ledger health` (the container's healthcheck) exits 0
// against a ready server, printing its /readyz answer, and 1 against an
// address nothing answers on.
func TestHealthCommand(t *testing.T) {
	ts := startServer(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, out, errs := runConfigured(t, "health", "--url", ts.url)
		if code == 0 {
			if !strings.Contains(out, `"ready": true`) {
				t.Errorf("ready, but printed %q", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a running server not ready after 30 s: exit %d\n%s\n%s", code, out, errs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, _, errs := runConfigured(t, "health", "--url", "http://127.0.0.1:9", "--timeout", "2s")
	if code != 1 || !strings.Contains(errs, "not ready") {
		t.Errorf("nothing listening: exit %d, want 1 saying not ready\n%s", code, errs)
	}
	if got := readyURL("0.0.0.0:8080", false); got != "http://127.0.0.1:8080" {
		t.Errorf("readyURL(0.0.0.0:8080) = %s", got)
	}
}
