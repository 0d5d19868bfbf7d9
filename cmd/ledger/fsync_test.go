package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failFsync makes every fsync and fdatasync of process pid fail with EIO
// (strace's fault injection) until the returned function is called; it
// skips the test where strace is missing or may not attach (not root, no
// ptrace in a container).
func failFsync(t *testing.T, pid int) func() {
	t.Helper()
	path, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("needs strace to make fsync fail: apt-get install strace")
	}
	cmd := exec.Command(path, "-f", "-qq", "-o", os.DevNull, "-p", strconv.Itoa(pid),
		"-e", "trace=fsync,fdatasync", "-e", "inject=fsync,fdatasync:error=EIO")
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Skipf("strace: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// strace says nothing once attached (-qq): wait until the process's
	// threads show a tracer, or strace has given up.
	deadline := time.Now().Add(10 * time.Second)
	for !traced(pid) {
		select {
		case err := <-exited:
			t.Skipf("strace could not attach: %v %s", err, errs.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("strace did not attach within 10 s: %s", errs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		// strace detaches from every thread on an interrupt.
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("strace did not detach within 10 s")
		}
	}
	t.Cleanup(stop)
	return stop
}

// traced tells whether process pid has a tracer attached.
func traced(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return false
}

// TestServeFailedFsyncRecovers: with every fsync of a serving ledger
// failing (a disk returning EIO), a command's outcome is unknown or it is
// refused as a failed disk, never a false "conflict"; once fsync works
// again, commands are accepted without a restart, the same-id retry of a
// command whose outcome was unknown is recorded once, and every command
// answered 201 is in the log exactly once, also after the process is then
// killed and started again.
func TestServeFailedFsyncRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ledger serve as a process and traces it")
	}
	data := t.TempDir()
	sp := startServe(t, data)
	post := func(id string) (int, map[string]any) {
		return httpCommand(t, sp.url, "/api/campaigns/club/commands/player.add",
			map[string]any{"id": id, "command": map[string]string{"player": "p-" + id, "role": "reader"}})
	}
	if code, body := httpCommand(t, sp.url, "/api/campaigns/club/commands/campaign.create", map[string]any{"id": "create",
		"command": map[string]any{"name": "Club night", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}}}}); code != 201 {
		t.Fatalf("campaign.create: %d %v", code, body)
	}
	acked := map[string]bool{"create": true}
	var unknown []string // answered 503: to send again with the same id
	send := func(id string) (int, map[string]any) {
		code, body := post(id)
		switch code {
		case 201:
			acked[id] = true
		case 503:
			unknown = append(unknown, id)
		}
		return code, body
	}
	for i := range 3 {
		if code, body := send(fmt.Sprintf("before-%d", i)); code != 201 {
			t.Fatalf("before the fault: %d %v", code, body)
		}
	}

	stop := failFsync(t, sp.cmd.Process.Pid)
	codes := map[int]int{}
	var lastBody map[string]any
	for i := range 8 {
		code, body := send(fmt.Sprintf("eio-%d", i))
		codes[code]++
		lastBody = body
		t.Logf("fsync failing: %d %v", code, body["error"])
	}
	if codes[409] > 0 {
		t.Errorf("a failed fsync answered 409 conflict %d times (nobody else writes): %v", codes[409], codes)
	}
	if codes[503] == 0 {
		t.Errorf("no command was refused while every fsync failed: %v", codes)
	}
	errField, _ := lastBody["error"].(map[string]any)
	if code := fmt.Sprint(errField["code"]); code != "disk_failed" && code != "unavailable" {
		t.Errorf("the last refusal's code is %s: %v", code, lastBody)
	}
	stop()

	// fsync works again: commands are accepted without a restart.
	freed := time.Now()
	var code int
	var body map[string]any
	for i := 0; time.Since(freed) < 30*time.Second; i++ {
		if code, body = send(fmt.Sprintf("after-%d", i)); code == 201 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code != 201 {
		t.Fatalf("30 s after fsync works again: %d %v", code, body)
	}
	t.Logf("commands accepted %s after fsync works again", time.Since(freed).Round(time.Millisecond))
	// Every command whose outcome was unknown, sent again with its id:
	// recorded once, or answered as the duplicate it is.
	for _, id := range unknown {
		if acked[id] {
			continue
		}
		code, body := post(id)
		if code != 201 && code != 200 {
			t.Errorf("%s sent again: %d %v", id, code, body)
			continue
		}
		acked[id] = true
	}

	checkOnce := func(url string) {
		t.Helper()
		req, _ := http.NewRequest("GET", url+"/api/campaigns/club/events", nil)
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var evs struct {
			Events []struct {
				CommandID string `json:"command_id"`
			} `json:"events"`
		}
		if err := json.NewDecoder(res.Body).Decode(&evs); err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, e := range evs.Events {
			seen[e.CommandID]++
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
	}
	checkOnce(sp.url)

	// Then the machine dies (kill -9: nothing flushed at exit) and the
	// ledger starts again on the same folder: every acknowledged command
	// is there once, and it takes commands.
	if err := sp.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = sp.cmd.Wait()
	sp2 := startServe(t, data)
	checkOnce(sp2.url)
	if code, body := httpCommand(t, sp2.url, "/api/campaigns/club/commands/player.add",
		map[string]any{"id": "restarted", "command": map[string]string{"player": "p-restarted", "role": "reader"}}); code != 201 {
		t.Errorf("after the restart: %d %v", code, body)
	}
}
