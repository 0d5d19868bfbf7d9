//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/internal/dicetest"
)

// smallDisk mounts a tmpfs of size bytes on a fresh folder and returns it,
// or skips the test where mounting is not allowed (not root, or a container
// without the capability).
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("a small disk needs a tmpfs mount (root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file into dir until the disk is full and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	// And the last bytes, a page at a time.
	for _, err := f.Write(buf[:512]); err == nil; _, err = f.Write(buf[:512]) {
	}
	return path
}

// TestServeDiskFullRecovers: the data folder's disk fills up under a
// serving ledger. Commands are refused with 503 disk_full naming the disk
// and what to do, /readyz is 503 with the store's check saying so, and the
// serve log says it once; once space is freed, commands are accepted again
// without a restart (the store watch restarts JetStream in process), the
// projection catches up and /readyz is 200. Every command answered 201 is
// in the log exactly once, and none answered otherwise is.
func TestServeDiskFullRecovers(t *testing.T) {
	disk := smallDisk(t, 64<<20)
	logged := &lockedBuilder{}
	cfg := config.Default()
	cfg.DataDir = filepath.Join(disk, "data")
	cfg.HTTP.Addr = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Serve(ctx, cfg, ServeOptions{AdminToken: testAdminToken, Entropy: dicetest.Entropy(t),
		Logger: slog.New(slog.NewTextHandler(multiWriter{logWriter{t}, logged}, nil))})
	if err != nil {
		cancel()
		t.Fatalf("serve: %v", err)
	}
	ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, cancel: cancel, tokens: map[string]string{}}
	t.Cleanup(func() {
		cancel()
		if err := s.Wait(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"id": "create", "command": map[string]any{
		"name": "Danube 1809", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}},
	}}), 201)
	acked := map[string]bool{"create": true}
	add := func(id string) response {
		r := ts.command("admin", "", "player.add", map[string]any{"id": id, "command": map[string]string{"player": "p-" + id, "role": "reader"}})
		if r.status == 201 {
			acked[id] = true
		}
		return r
	}
	ts.must(add("before"), 201)

	filler := fill(t, disk)
	// What the store had in hand before the disk filled may still be
	// accepted; within a few commands the refusal comes, in words.
	var full response
	for i := 0; i < 20; i++ {
		if full = add(fmt.Sprintf("full-%d", i)); full.status == 503 && full.errorField("code") == "disk_full" {
			break
		}
	}
	if full.status != 503 || full.errorField("code") != "disk_full" {
		t.Fatalf("while the disk is full: %d %s", full.status, full.raw)
	}
	msg, _ := full.errorField("message").(string)
	for _, want := range []string{"No space left on the data folder's disk", "Free space on that disk", "no restart needed", "same id", "free of 64.0 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q: %s", want, msg)
		}
	}
	// Once the watch has seen it, a command is refused before it reaches
	// the store: "nothing appended".
	refused := add("refused")
	if refused.status != 503 || !strings.Contains(fmt.Sprint(refused.errorField("message")), "nothing appended") {
		t.Errorf("a command while the disk is full: %d %s", refused.status, refused.raw)
	}
	ready := ts.do("GET", "/readyz", "", nil)
	checks, _ := ready.body["checks"].(map[string]any)
	if ready.status != 503 || !strings.Contains(fmt.Sprint(checks["store"]), "no space left on the data folder's disk") {
		t.Errorf("/readyz while the disk is full: %d %s", ready.status, ready.raw)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	var r response
	for i := 0; time.Since(freed) < 30*time.Second; i++ {
		if r = add(fmt.Sprintf("after-%d", i)); r.status == 201 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r.status != 201 {
		t.Fatalf("30 s after freeing space: %d %s", r.status, r.raw)
	}
	t.Logf("commands accepted %s after the space was freed", time.Since(freed).Round(time.Millisecond))
	for time.Since(freed) < 30*time.Second {
		if ready = ts.do("GET", "/readyz", "", nil); ready.status == 200 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ready.status != 200 {
		t.Errorf("/readyz after freeing space: %d %s", ready.status, ready.raw)
	}

	// Every acknowledged command once, nothing else.
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/events", testAdminToken, nil), 200)
	seen := map[string]int{}
	for _, e := range evs.body["events"].([]any) {
		seen[e.(map[string]any)["command_id"].(string)]++
	}
	for id := range acked {
		if seen[id] != 1 {
			t.Errorf("acknowledged command %s is in the log %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if !acked[id] {
			t.Errorf("command %s, never acknowledged, is in the log %d times", id, n)
		}
	}
	if n := strings.Count(logged.String(), "the data folder's store cannot write: no space left"); n != 1 {
		t.Errorf("the serve log says the disk is full %d times, want once:\n%s", n, logged.String())
	}
	if !strings.Contains(logged.String(), "the data folder's store writes again") {
		t.Errorf("the serve log does not say the store writes again:\n%s", logged.String())
	}
}

// lockedBuilder collects a server's log lines from its goroutines.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
