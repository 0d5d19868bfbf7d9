package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The ledger binary, built once per test run for the tests that need real
// processes (a server and CLI commands beside it).
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// ledgerBinary builds cmd/ledger into a temporary folder, once.
func ledgerBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ledger-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ledger")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// servedProcess is `ledger serve`, a real process.
type servedProcess struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	data string
	out  *bytes.Buffer
}

// startServe starts `ledger serve` on data with the admin token set, and
// waits for it to say where it serves.
func startServe(t *testing.T, data string) *servedProcess {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs Linux or macOS: the test stops `ledger serve` with an interrupt, which Windows cannot send to a process")
	}
	cmd := exec.Command(ledgerBinary(t), "--data", data, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "LEDGER_HTTP_ADMIN_TOKEN="+testAdminToken)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sp := &servedProcess{t: t, cmd: cmd, data: data, out: &logs}
	t.Cleanup(sp.stop)
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`serving (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	select {
	case sp.url = <-urls:
	case <-time.After(60 * time.Second):
		t.Fatalf("ledger serve did not start:\n%s", logs.String())
	}
	return sp
}

func (sp *servedProcess) stop() {
	if sp.cmd.ProcessState != nil {
		return
	}
	_ = sp.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- sp.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = sp.cmd.Process.Kill()
		<-done
		sp.t.Errorf("ledger serve did not stop on an interrupt:\n%s", sp.out.String())
	}
}

// cliRun runs the built ledger with args in data, returning its exit code
// and outputs.
func cliRun(t *testing.T, data string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(ledgerBinary(t), append([]string{"--data", data}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// httpCommand posts a command as the admin.
func httpCommand(t *testing.T, url, path string, body any) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m
}

// TestClubNightOneDoor is the club's set-up: `ledger serve` runs for the
// tablets and the organiser types commands at the CLI beside it, on the
// same data folder. 100 CLI writes (through the folder's door) interleave
// with 100 HTTP writes: every acknowledged command is in the log, once, in
// the order it was acknowledged; the CLI's reads see the server's writes at
// once; a second `ledger serve` on the folder is refused with the holder
// named; and after the server stops, the CLI opens the folder itself.
func TestClubNightOneDoor(t *testing.T) {
	data := t.TempDir()
	sp := startServe(t, data)
	ok := func(args ...string) string {
		t.Helper()
		code, out, errs := cliRun(t, data, args...)
		if code != 0 {
			t.Fatalf("ledger %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errs)
		}
		return out
	}
	ok("campaign", "create", "club", "--name", "Club night", "--side", "french:France", "--side", "austrians:Austria")

	// A second server on the folder is refused, naming the holder.
	code, _, errs := cliRun(t, data, "serve", "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errs, fmt.Sprintf("pid %d: ledger serve", sp.cmd.Process.Pid)) || !strings.Contains(errs, "in use by another ledger process") {
		t.Fatalf("a second serve: exit %d\n%s", code, errs)
	}

	var order []string // people in the order their adding was acknowledged
	tokens := 0
	for i := range 100 {
		cliName := fmt.Sprintf("cli-%03d", i)
		out := ok("player", "add", "club", cliName, "--role", "reader")
		if !strings.Contains(out, "token of "+cliName) {
			t.Fatalf("player add printed no token:\n%s", out)
		}
		tokens++
		order = append(order, cliName)
		httpName := fmt.Sprintf("http-%03d", i)
		status, body := httpCommand(t, sp.url, "/api/campaigns/club/commands/player.add",
			map[string]any{"id": "add-" + httpName, "command": map[string]any{"player": httpName, "role": "reader"}})
		if status != http.StatusCreated || body["token"] == "" {
			t.Fatalf("HTTP player.add %s: %d %v", httpName, status, body)
		}
		order = append(order, httpName)
		if i%25 == 0 {
			// The CLI reads what the server just wrote, at once.
			if show := ok("campaign", "show", "club"); !strings.Contains(show, httpName) {
				t.Fatalf("campaign show does not list %s, just added over HTTP:\n%s", httpName, show)
			}
		}
	}
	var evs []struct {
		Version uint64 `json:"version"`
		Type    string `json:"type"`
		Payload struct {
			Player string `json:"player"`
		} `json:"payload"`
	}
	if err := json.Unmarshal([]byte(ok("log", "club", "-o", "json")), &evs); err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, e := range evs {
		if e.Type == "campaign.player_added" {
			logged = append(logged, e.Payload.Player)
		}
	}
	if strings.Join(logged, ",") != strings.Join(order, ",") {
		t.Fatalf("the log holds %d people, %d acknowledged; first difference at %d", len(logged), len(order), firstDiff(logged, order))
	}
	if out := ok("log", "club"); !strings.Contains(out, "intact") {
		t.Fatalf("log:\n%s", out)
	}

	// Stopped, the server gives the folder up: the CLI opens it itself
	// and finds everything.
	sp.stop()
	if out := ok("campaign", "show", "club"); !strings.Contains(out, "http-099") || !strings.Contains(out, "cli-099") {
		t.Fatalf("after the server stopped:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(data, socketName)); !os.IsNotExist(err) {
		t.Errorf("the door's socket is left behind after the server stopped: %v", err)
	}
	_ = context.Background
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
