package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/projections/sqlite/sqlitetest"
)

// lockedBuffer is a log the server writes from its goroutines and the test
// reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveDamaged runs Serve on cfg with its log kept in logged; stop shuts
// it down and fails the test if that goes wrong.
func serveDamaged(t *testing.T, cfg config.Config, logged *lockedBuffer) (*testServer, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Serve(ctx, cfg, ServeOptions{AdminToken: testAdminToken, Entropy: dicetest.Entropy(t),
		Logger: slog.New(slog.NewTextHandler(multiWriter{logWriter{t}, logged}, nil))})
	if err != nil {
		cancel()
		t.Fatalf("serve: %v", err)
	}
	ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, cancel: cancel, tokens: map[string]string{}}
	var once sync.Once
	return ts, func() {
		once.Do(func() {
			cancel()
			if err := s.Wait(); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		})
	}
}

// TestServeMovesADamagedPageAside (issue 24, item 7): ledger.db with one
// page in its middle damaged while the server was stopped, its header
// intact. The next start names it in its log (what happened, what to do),
// moves the file aside where it says, rebuilds the projection from the log,
// and serves the same answers as before the damage.
func TestServeMovesADamagedPageAside(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.HTTP.Addr = "127.0.0.1:0"
	logged := &lockedBuffer{}
	ts, stop := serveDamaged(t, cfg, logged)
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"id": "create", "command": map[string]any{
		"name": "Danube 1809", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}},
	}}), 201)
	for i := range 40 {
		ts.must(ts.command("admin", "", "player.add", map[string]any{"id": fmt.Sprintf("add-%d", i),
			"command": map[string]string{"player": fmt.Sprintf("p%d", i), "role": "reader"}}), 201)
	}
	before := ts.must(ts.do("GET", "/api/campaigns/demo/events", testAdminToken, nil), 200)
	checkpoint := ts.must(ts.do("GET", "/api/admin/status", testAdminToken, nil), 200).body["checkpoint"].(float64)
	stop()

	path := cfg.DBPath()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad, page := sqlitetest.DamagePage(t, good)
	t.Logf("damaging page %d of %s (%d bytes)", page, path, len(good))
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}

	ts, stop = serveDamaged(t, cfg, logged)
	defer stop()
	moved, _ := filepath.Glob(path + ".damaged-*")
	log := logged.String()
	if len(moved) != 1 || !strings.Contains(log, "could not be read (a damaged page") || !strings.Contains(log, "moved it to "+moved[0]) ||
		!strings.Contains(log, "rebuilt from the log") || !strings.Contains(log, "nothing needs doing") {
		t.Fatalf("the start did not name the damaged page (moved: %v); its log:\n%s", moved, log)
	}
	if kept, err := os.ReadFile(moved[0]); err != nil || !bytes.Equal(kept, bad) {
		t.Errorf("the damaged file is not kept at %s: %v", moved[0], err)
	}
	if d := ts.served.App.DB.Damaged(); d == nil || d.MovedTo != moved[0] {
		t.Errorf("DB.Damaged(): %+v", d)
	}
	// The projector rebuilds it from the log: wait for that, not a time.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := ts.must(ts.do("GET", "/api/admin/status", testAdminToken, nil), 200)
		if st.body["checkpoint"].(float64) >= checkpoint {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the projection was not rebuilt to checkpoint %v in 30 s: %s", checkpoint, st.raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	after := ts.must(ts.do("GET", "/api/campaigns/demo/events", testAdminToken, nil), 200)
	if !bytes.Equal(after.raw, before.raw) {
		t.Errorf("the rebuilt projection answers otherwise:\nbefore %s\nafter  %s", before.raw, after.raw)
	}
	if rd := ts.do("GET", "/readyz", "", nil); rd.status != 200 {
		t.Errorf("/readyz after the rebuild: %d %s", rd.status, rd.raw)
	}
	ts.must(ts.command("admin", "", "player.add", map[string]any{"id": "after", "command": map[string]string{"player": "late", "role": "reader"}}), 201)
}

// TestProjectionsVerifyNamesADamagedPage (issue 24, item 7): `ledger
// projections verify` on a ledger.db with a damaged page exits 4 and says
// so in words: on its own (the open finds it, moves it aside and rebuilds
// it: verify says what it found), and beside a running server through the
// door (the page damaged under the server: the door names the damage, not
// "Something went wrong on the server"). A rebuild through the door mends
// it.
func TestProjectionsVerifyNamesADamagedPage(t *testing.T) {
	c := newCLI(t)
	c.cfg.HTTP.Addr = "127.0.0.1:0"
	c.ok("play", "../../examples/first-battle.yaml")
	path := c.cfg.DBPath()
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad, page := sqlitetest.DamagePage(t, good)
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("damaged page %d of %s", page, path)
	code, out, errs := c.run("projections", "verify")
	if code != exitCheck || !strings.Contains(errs, "a damaged page") || !strings.Contains(errs, "moved it to "+path+".damaged-") ||
		!strings.Contains(errs, "rebuilt") {
		t.Fatalf("verify of a damaged page: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("verify, alone:\n%s", errs)
	c.ok("projections", "verify")

	// Beside a running server: the page is damaged under it.
	logged := &lockedBuffer{}
	ts, stop := serveDamaged(t, c.cfg, logged)
	defer stop()
	ts.must(ts.do("GET", "/readyz", "", nil), 200)
	sqlitetest.Checkpoint(t, path)
	good, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad, page = sqlitetest.DamagePage(t, good)
	sqlitetest.WritePage(t, path, bad, page)
	code, out, errs = c.run("projections", "verify")
	if code != exitCheck || !strings.Contains(errs, "a damaged page") || !strings.Contains(errs, "ledger projections rebuild") ||
		strings.Contains(errs, "Something went wrong") {
		t.Fatalf("verify beside the server of a damaged page: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("verify, beside the server:\n%s", errs)
	if !strings.Contains(logged.String(), "a damaged page") {
		t.Errorf("the server's log does not name the damaged page:\n%s", logged.String())
	}
	c.ok("projections", "rebuild")
	c.ok("projections", "verify")
}
