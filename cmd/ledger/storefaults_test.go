package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/internal/dicetest"
)

// TestServeNamesALostTail: a data folder whose stream lost the tail of its
// last message block while stopped (bytes cut off the file, as a disk that
// lost its last writes leaves it) is named at start, /readyz is 503 saying
// what happened and what to do, and a command is refused with 503 in words,
// appending nothing; once the operator rebuilds the projection from the log
// as it is, the server is ready and takes commands again.
func TestServeNamesALostTail(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.HTTP.Addr = "127.0.0.1:0"
	var logged strings.Builder
	serve := func() (*testServer, func()) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		lw := logWriter{t}
		s, err := Serve(ctx, cfg, ServeOptions{AdminToken: testAdminToken, Entropy: dicetest.Entropy(t),
			Logger: slog.New(slog.NewTextHandler(multiWriter{lw, &logged}, nil))})
		if err != nil {
			cancel()
			t.Fatalf("serve: %v", err)
		}
		ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, cancel: cancel, tokens: map[string]string{}}
		return ts, func() {
			cancel()
			if err := s.Wait(); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		}
	}

	ts, stop := serve()
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"id": "create", "command": map[string]any{
		"name": "Danube 1809", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}},
	}}), 201)
	for i := range 12 {
		ts.must(ts.command("admin", "", "player.add", map[string]any{"id": fmt.Sprintf("add-%d", i),
			"command": map[string]string{"player": fmt.Sprintf("p%d", i), "role": "reader"}}), 201)
	}
	before := ts.must(ts.do("GET", "/api/admin/status", testAdminToken, nil), 200)
	stop()
	checkpoint := uint64(before.body["checkpoint"].(float64))

	// Cut a third of the last message block off, as a lost tail leaves it,
	// and the stream's state file with it (a server killed or a disk that
	// lost its last writes leaves it stale or gone: the server then counts
	// the messages from the blocks).
	blocks, _ := filepath.Glob(filepath.Join(cfg.DataDir, "nats", "jetstream", "*", "streams", cfg.NATS.Stream, "msgs", "*.blk"))
	if len(blocks) == 0 {
		t.Fatal("no message block found under the store")
	}
	sort.Strings(blocks)
	last := blocks[len(blocks)-1]
	st, err := os.Stat(last)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cutting %s: %d bytes of %d", last, st.Size()/3, st.Size())
	if err := os.Truncate(last, st.Size()*2/3); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(filepath.Dir(last)), "msgs", "index.db")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}

	logged.Reset()
	ts, stop = serve()
	defer stop()
	if !strings.Contains(logged.String(), "the log has lost events") {
		t.Errorf("the start did not name the lost tail; its log:\n%s", logged.String())
	}
	status := ts.must(ts.do("GET", "/api/admin/status", testAdminToken, nil), 200)
	logLast := uint64(status.body["last_sequence"].(float64))
	if logLast >= checkpoint {
		t.Fatalf("the cut lost nothing: log at %d, projection at %d", logLast, checkpoint)
	}
	t.Logf("projection at %d, the log now ends at %d", checkpoint, logLast)
	rd := ts.do("GET", "/readyz", "", nil)
	if rd.status != 503 || !strings.Contains(string(rd.raw), "the log has lost events") || !strings.Contains(string(rd.raw), "ledger projections rebuild") {
		t.Errorf("/readyz with a lost tail: %d %s", rd.status, rd.raw)
	}
	r := ts.command("admin", "", "player.add", map[string]any{"id": "after-cut", "command": map[string]string{"player": "late", "role": "reader"}})
	if r.status != 503 || !strings.Contains(string(r.raw), "the log has lost events") || !strings.Contains(string(r.raw), "backup") {
		t.Errorf("a command on a log that lost events: %d %s", r.status, r.raw)
	}
	status = ts.must(ts.do("GET", "/api/admin/status", testAdminToken, nil), 200)
	if got := uint64(status.body["last_sequence"].(float64)); got != logLast {
		t.Errorf("the refused command appended: the log went from %d to %d", logLast, got)
	}

	// The operator accepts the log as it is: rebuild, then ready again.
	ts.must(ts.do("POST", "/api/admin/projections/rebuild", testAdminToken, nil), 200)
	if rd := ts.do("GET", "/readyz", "", nil); rd.status != 200 {
		t.Errorf("/readyz after the rebuild: %d %s", rd.status, rd.raw)
	}
	ts.must(ts.command("admin", "", "player.add", map[string]any{"id": "after-rebuild", "command": map[string]string{"player": "late", "role": "reader"}}), 201)
}

// multiWriter writes to each writer.
type multiWriter []interface{ Write([]byte) (int, error) }

func (m multiWriter) Write(p []byte) (int, error) {
	for _, w := range m {
		_, _ = w.Write(p)
	}
	return len(p), nil
}
