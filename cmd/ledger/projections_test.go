package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/projections/sqlite"
)

// helperArgs is the environment variable that turns this test binary into
// the ledger CLI (TestHelperProcess). It has no LEDGER_ prefix, which the
// configuration reads.
const helperArgs = "HELPER_LEDGER_ARGS"

// TestHelperProcess is not a test: run as a child process with helperArgs
// set, it is the ledger program with those arguments.
func TestHelperProcess(t *testing.T) {
	raw := os.Getenv(helperArgs)
	if raw == "" {
		t.Skip("the ledger CLI as a child process of other tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitUsage)
	}
	os.Exit(Main(context.Background(), args, strings.NewReader(""), os.Stdout, os.Stderr))
}

// ledgerProcess returns the ledger CLI with args as a child process.
func ledgerProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperArgs+"="+string(raw))
	return cmd
}

// TestRebuildSurvivesSIGKILL kills `ledger projections rebuild`, a real
// process, at random moments of a 50,000-event rebuild, restarts it each
// time (it resumes its file from the checkpoint), lets it finish, and checks
// that the result equals a clean rebuild: `ledger projections verify`
// passes and the tables equal those of a rebuild made in one go.
// LEDGER_KILL_SEED repeats a run's random delays.
func TestRebuildSurvivesSIGKILL(t *testing.T) {
	ctx := context.Background()
	// The log lives in this process; the projector processes reach it
	// over loopback.
	emb, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: t.TempDir(), Listen: "127.0.0.1:0", NoSyncAlways: true, NetworkUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Shutdown)
	nc, err := emb.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	log := jstest.OpenLog(t, nc, jetstream.Config{})
	start := time.Now()
	st, err := projtest.Fill(ctx, log, projtest.FillOptions{Events: 50_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("filled the log with %d events (%d battles) in %s", st.Events, st.Battles, time.Since(start).Round(time.Millisecond))

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LEDGER_KILL_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("LEDGER_KILL_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	data := t.TempDir()
	// Small batches: many checkpoints, and a build that lasts long enough
	// (seconds, however fast the machine) for the kills to land inside it.
	args := []string{"--data", data, "--nats-url", emb.ClientURL(), "projections", "rebuild", "--batch", "50"}
	// The ledger's NATS user and password (the server lets nobody in
	// without them).
	t.Setenv("LEDGER_NATS_USER", jetstream.UserLedger)
	t.Setenv("LEDGER_NATS_PASSWORD", emb.Credentials().Password(jetstream.UserLedger))
	aside := sqlite.AsidePath(filepath.Join(data, "ledger.db"))
	kills, midway := 0, 0
	for range 5 {
		cmd := ledgerProcess(t, args...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Once the rebuild file exists the build has begun: kill it at
		// a random moment of it.
		finished, err := waitForFile(aside, done)
		if finished {
			if err != nil {
				t.Fatalf("rebuild failed: %v\n%s", err, out.String())
			}
			break
		}
		delay := time.Duration(rng.Int64N(int64(600 * time.Millisecond)))
		timer := time.NewTimer(delay)
		select {
		case err := <-done:
			timer.Stop()
			if err != nil {
				t.Fatalf("rebuild failed: %v\n%s", err, out.String())
			}
			t.Logf("the rebuild finished before the kill planned after %s", delay)
		case <-timer.C:
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			err := <-done
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				// It exited by itself just before the signal.
				t.Logf("the rebuild ended (%v) before the kill after %s", err, delay)
				continue
			}
			kills++
			cp := asideCheckpoint(t, aside)
			if cp > 0 && cp < st.Last {
				midway++
			}
			t.Logf("SIGKILL %d after %s in the build: its file is at log sequence %d of %d", kills, delay.Round(time.Millisecond), cp, st.Last)
		}
		if _, err := os.Stat(aside); errors.Is(err, os.ErrNotExist) && kills > 0 {
			// Killed after the swap: nothing left to resume.
			break
		}
	}
	// The last run goes to the end and swaps the rebuilt file in.
	cmd := ledgerProcess(t, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("final rebuild: %v\n%s", err, out)
	}
	t.Logf("final run: %s", strings.TrimSpace(string(out)))
	if midway < 3 {
		t.Fatalf("only %d of %d kills fell in the middle of the build", midway, kills)
	}
	if _, err := os.Stat(aside); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the rebuild file is still there after the swap: %v", err)
	}

	// `ledger projections verify` passes (run here, against the same log).
	cfg := config.Default()
	cfg.DataDir = data
	cfg.NATS.URL = emb.ClientURL()
	cfg.NATS.User, cfg.NATS.Password = jetstream.UserLedger, emb.Credentials().Password(jetstream.UserLedger)
	c := &testCLI{t: t, cfg: cfg}
	if code, vout, verr := c.run("projections", "verify"); code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, vout, verr)
	}
	// And the tables equal a rebuild made in one go.
	clean := filepath.Join(t.TempDir(), "clean.db")
	if err := sqlite.Build(ctx, log, clean, sqlite.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	cleanDB, err := sqlite.Open(clean)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanDB.Close()
	live, err := sqlite.Open(filepath.Join(data, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	diffs, err := live.Compare(ctx, cleanDB)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d.Detail)
	}
	if cp, _ := live.Checkpoint(ctx); cp != st.Last {
		t.Fatalf("live checkpoint %d, log at %d", cp, st.Last)
	}
}

// waitForFile polls until path exists (false) or the process is done
// (true, with its error).
func waitForFile(path string, done <-chan error) (bool, error) {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return false, nil
		}
		select {
		case err := <-done:
			return true, err
		case <-tick.C:
		}
	}
}

// asideCheckpoint reads the checkpoint of an interrupted build's file, as
// the next run will find it (0 if there is none).
func asideCheckpoint(t *testing.T, path string) uint64 {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	cp, err := sqlite.FileCheckpoint(context.Background(), path)
	if err != nil {
		t.Fatalf("the killed build's file: %v", err)
	}
	return cp
}

// TestProjectionsVerifyRebuildReplay plays the example battle, then: verify
// passes; a row changed behind the projector's back makes verify fail with
// exit 4 naming the table; rebuild repairs it; replay shows the battle at
// an event, as a table and as the rules engine's state.
func TestProjectionsVerifyRebuildReplay(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/first-battle.yaml")
	if out := c.ok("projections", "verify"); !strings.Contains(out, "equals a rebuild") || !strings.Contains(out, "unit_actions") {
		t.Fatalf("verify:\n%s", out)
	}
	db, err := sqlite.Open(c.cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`UPDATE units SET y = y + 1 WHERE unit = '33-ligne'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errs := c.run("projections", "verify")
	if code != exitCheck || !strings.Contains(errs, "1 table(s): units") || !strings.Contains(out, "DIFFERS") {
		t.Fatalf("verify of a changed projection: exit %d\n%s\n%s", code, out, errs)
	}
	if out := c.ok("projections", "rebuild"); !strings.Contains(out, "rebuilt ") {
		t.Fatalf("rebuild:\n%s", out)
	}
	c.ok("projections", "verify")
	if out := c.ok("projections", "status"); !strings.Contains(out, "(0 behind)") {
		t.Fatalf("status:\n%s", out)
	}

	// Event 12 of eggmuhl is the 33e's second move, to y=22.
	out = c.ok("replay", "demo-1809/eggmuhl", "--at", "12")
	for _, want := range []string{"at event 12 of", "unit.moved", "33-ligne moved 6.0", "33-ligne", "22.0", "friant"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay --at 12 lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
	y := func(at string) float64 {
		t.Helper()
		var s struct {
			Units []struct {
				Unit string  `json:"unit"`
				Y    float64 `json:"y"`
			} `json:"units"`
		}
		if err := json.Unmarshal([]byte(c.ok("replay", "demo-1809/eggmuhl", "--at", at, "-o", "json")), &s); err != nil {
			t.Fatal(err)
		}
		for _, u := range s.Units {
			if u.Unit == "33-ligne" {
				return u.Y
			}
		}
		t.Fatalf("no 33-ligne after event %s", at)
		return 0
	}
	if y11, y12 := y("11"), y("12"); y11 != 16 || y12 != 22 {
		t.Fatalf("33-ligne at y=%v after event 11 and y=%v after event 12", y11, y12)
	}
	if code, _, errs := c.run("replay", "demo-1809/eggmuhl", "--at", "999"); code != exitError || !strings.Contains(errs, "events 1 to") {
		t.Fatalf("--at past the end: exit %d %s", code, errs)
	}
}
