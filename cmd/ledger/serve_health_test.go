package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/config"
	ledgerjs "github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/internal/dicetest"
)

// TestServeReadinessFollowsTheCluster: `ledger serve` on a three-node
// cluster answers /readyz 200 while a quorum answers, 503 (in words, with
// Retry-After) within seconds of losing it, and 200 again once it is back;
// /healthz stays 200 throughout (the process lives); /metrics, the
// operator's, counts the commands the door answered.
func TestServeReadinessFollowsTheCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test")
	}
	c, cfg, s := serveOnCluster(t)
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	waitFor := func(what string, within time.Duration, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > within {
				t.Fatalf("%s: not within %s", what, within)
			}
			time.Sleep(100 * time.Millisecond)
		}
		return time.Since(start)
	}
	waitFor("ready on a whole cluster", 20*time.Second, func() bool { code, _ := get("/readyz", ""); return code == 200 })

	ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, tokens: map[string]string{}}
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"command": map[string]any{
		"name": "League", "sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}}}), 201)
	if code, body := get("/metrics", testAdminToken); code != 200 || !strings.Contains(body, `ledger_commands_total{command="campaign.create",outcome="accepted"} 1`) ||
		!strings.Contains(body, "ledger_projection_lag") || !strings.Contains(body, "ledger_append_seconds") {
		t.Fatalf("/metrics: %d\n%.2000s", code, body)
	}
	if code, _ := get("/metrics", ""); code != 401 {
		t.Errorf("/metrics without a token: %d", code)
	}

	// Two of three nodes down: no quorum.
	c.Shutdown(1)
	c.Shutdown(2)
	// A stream leader that lost its quorum steps down within seconds (nats-server
	// checks every few seconds); until then it still answers reads.
	took := waitFor("not ready without a quorum", 40*time.Second, func() bool { code, _ := get("/readyz", ""); return code == 503 })
	code, body := get("/readyz", "")
	var rd struct {
		Ready  bool              `json:"ready"`
		Checks map[string]string `json:"checks"`
	}
	if err := json.Unmarshal([]byte(body), &rd); err != nil || rd.Ready || !strings.Contains(rd.Checks["log"], "does not answer") {
		t.Fatalf("/readyz without a quorum: %d %s", code, body)
	}
	t.Logf("not ready %s after losing the quorum: %s", took.Round(time.Millisecond), rd.Checks["log"])
	if code, _ := get("/healthz", ""); code != 200 {
		t.Errorf("/healthz without a quorum: %d (the process is alive)", code)
	}

	c.Restart(1)
	c.Restart(2)
	took = waitFor("ready again with the quorum back", 30*time.Second, func() bool { code, _ := get("/readyz", ""); return code == 200 })
	t.Logf("ready %s after the quorum came back", took.Round(time.Millisecond))
}

// TestServeFaultsInWords: on a three-node cluster that loses its quorum, a
// command answers 503 unavailable with Retry-After, within a bound, saying
// the outcome is unknown and to retry with the same id; a CLI started then
// answers in words within seconds (exit 5), not after 30; once the quorum
// is back the same id succeeds, and the command is in the log once.
func TestServeFaultsInWords(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test")
	}
	c, cfg, s := serveOnCluster(t)
	ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, tokens: map[string]string{}}
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"command": map[string]any{
		"name": "League", "sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}}}), 201)

	c.Shutdown(1)
	c.Shutdown(2)
	add := map[string]any{"id": "add-during-the-fault", "command": map[string]any{"player": "p1", "role": "reader"}}
	var r response
	var took time.Duration
	// The first moments after the loss a leader may still think it leads;
	// within seconds every command is answered 503.
	deadline := time.Now().Add(30 * time.Second)
	for {
		start := time.Now()
		r = ts.command("admin", "", "player.add", add)
		took = time.Since(start)
		if r.status == 503 || time.Now().After(deadline) {
			break
		}
		if r.status != 201 && r.status != 200 {
			t.Fatalf("during the fault: %d %s", r.status, r.raw)
		}
		add = map[string]any{"id": fmt.Sprintf("add-during-the-fault-%d", time.Now().UnixNano()), "command": map[string]any{"player": fmt.Sprintf("p%d", time.Now().UnixNano()%100000), "role": "reader"}}
	}
	msg, _ := r.errorField("message").(string)
	if r.status != 503 || r.errorField("code") != "unavailable" || !strings.Contains(msg, "the same id") {
		t.Fatalf("a command without a quorum: %d %s", r.status, r.raw)
	}
	if took > 5*time.Second {
		t.Errorf("a command without a quorum took %s to answer", took)
	}
	t.Logf("a command without a quorum answered 503 in %s: %s", took.Round(time.Millisecond), msg)

	// A fresh CLI on the cluster answers in words within seconds.
	cli := &testCLI{t: t, cfg: cfg, entropy: dicetest.Entropy(t)}
	cli.cfg.DataDir = t.TempDir()
	start := time.Now()
	code, _, errs := cli.run("campaign", "show", "demo")
	if code != exitUnavailable || time.Since(start) > 10*time.Second || !strings.Contains(errs, "unavailable") {
		t.Errorf("a CLI without a quorum: exit %d after %s: %s", code, time.Since(start), errs)
	}
	t.Logf("a CLI without a quorum: exit %d after %s", code, time.Since(start).Round(time.Millisecond))

	c.Restart(1)
	c.Restart(2)
	// The same id again, once the quorum is back: applied once.
	deadline = time.Now().Add(60 * time.Second)
	for {
		r = ts.command("admin", "", "player.add", add)
		if r.status == 201 || r.status == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r.status != 201 && r.status != 200 {
		t.Fatalf("the same id after the quorum came back: %d %s", r.status, r.raw)
	}
	evs := ts.do("GET", "/api/campaigns/demo/events", testAdminToken, nil)
	if n := strings.Count(string(evs.raw), `"command_id": "`+add["id"].(string)+`"`); n != 1 {
		t.Fatalf("the command retried with its id is in the log %d times", n)
	}
}

// serveOnCluster runs `ledger serve` on a three-node cluster of its own,
// the stream on three replicas, until the test ends.
func serveOnCluster(t *testing.T) (*jstest.Cluster, config.Config, *Served) {
	t.Helper()
	c := jstest.RunCluster(t, 3)
	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.NATS.URL = strings.Join([]string{c.URL(0), c.URL(1), c.URL(2)}, ",")
	cfg.NATS.Replicas = 3
	cfg.NATS.User, cfg.NATS.Password = ledgerjs.UserLedger, c.Credentials().Password(ledgerjs.UserLedger)
	return c, cfg, serveUntilEnd(t, cfg)
}
