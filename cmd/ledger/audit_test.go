package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditAndExport plays the example battle, audits it live, exports it,
// audits the file, and audits a file with one byte changed (exit 4, the
// event named).
func TestAuditAndExport(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/first-battle.yaml")

	out := c.ok("audit", "demo-1809/eggmuhl")
	// The audit's figure is the log's count of rolls, whatever the digital
	// dice showed (a 6+6 rolls the blunder table once more).
	digital, physical := rollsBySource(t, c.ok("log", "demo-1809/eggmuhl", "-o", "json"))
	recomputed := fmt.Sprintf("%d of %d digital recomputed, %d physical", digital, digital, physical)
	for _, want := range []string{"audit of demo-1809/eggmuhl: ", "chain", recomputed,
		"marie, karl", "CHI2", "audit passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("live audit lacks %q:\n%s", want, out)
		}
	}

	file := filepath.Join(t.TempDir(), "eggmuhl.jsonl")
	exportOut := c.ok("export", "demo-1809/eggmuhl", "-f", file)
	exported, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(exported, []byte("\n")) - 1 // events: every line but the header
	if !strings.Contains(exportOut, fmt.Sprintf("exported demo-1809/eggmuhl: %d events", n)) || !strings.Contains(out, fmt.Sprintf("%d events, head", n)) {
		t.Errorf("export of %d events: %s", n, exportOut)
	}
	if stdout := c.ok("export", "demo-1809/eggmuhl"); stdout != string(exported) && (strings.Count(stdout, "\n") != n+1 || !strings.HasPrefix(stdout, `{"format":"ledger-export-v2"`)) {
		t.Errorf("export to standard output: %d lines", strings.Count(stdout, "\n"))
	}

	var rep struct {
		Ended  bool `json:"ended"`
		Checks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"checks"`
		Players []struct {
			Player string `json:"player"`
		} `json:"players"`
		Authorship struct {
			Proven bool   `json:"proven"`
			Key    string `json:"key"`
		} `json:"authorship"`
	}
	if err := json.Unmarshal([]byte(c.ok("audit", "--file", file, "-o", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	// The scenario's operator entered a digital roll for each player with
	// no device nonce: those rolls are charged to the operator, who chose
	// when to spend them (ledger-dice-v3, docs/dice.md), so the report
	// has three people in it and says for whom the operator entered them.
	players := []string{}
	for _, p := range rep.Players {
		players = append(players, p.Player)
	}
	if !rep.Ended || len(rep.Checks) != 11 || strings.Join(players, ",") != "karl,marie,operator" {
		t.Errorf("json report: %+v", rep)
	}
	for _, want := range []string{"operator for karl ", "operator for marie "} {
		if !strings.Contains(out, want) {
			t.Errorf("live audit does not say %q:\n%s", want, out)
		}
	}
	for _, ch := range rep.Checks {
		if ch.Status != "pass" {
			t.Errorf("check %s: %s", ch.ID, ch.Status)
		}
	}

	// An export names its own key: without --key the audit passes but
	// says the author is not proven, and how to prove it; with the
	// ledger's fingerprint it is proven, and a bare "audit passed".
	if out := c.ok("audit", "--file", file); rep.Authorship.Proven || rep.Authorship.Key == "" ||
		!strings.Contains(out, "who wrote these events is not proven") || !strings.Contains(out, "--key FINGERPRINT") || strings.HasSuffix(out, "\naudit passed\n") {
		t.Errorf("audit --file without a key: %+v\n%s", rep.Authorship, out)
	}
	if out := c.ok("audit", "--file", file, "--key", rep.Authorship.Key); !strings.HasSuffix(out, "\naudit passed\n") {
		t.Errorf("audit --file --key %s:\n%s", rep.Authorship.Key, out)
	}

	// One byte of event 12 changed in the file: exit 4, event 12 named.
	lines := bytes.SplitAfter(bytes.Clone(exported), []byte("\n"))
	at := bytes.Index(lines[12], []byte(`\"actor\":\"`)) + len(`\"actor\":\"`)
	lines[12][at] ^= 0x01
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := c.run("audit", "--file", bad)
	if code != exitCheck || !strings.Contains(errs, "chain: v12 (") || !strings.Contains(out, "audit FAILED") {
		t.Errorf("tampered file: exit %d\n%s\n%s", code, out, errs)
	}

	// A truncated file is not an export: exit 4 too, the line named.
	if err := os.WriteFile(bad, bytes.Join(lines[:20], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := c.run("audit", "-f", bad); code != exitCheck || !strings.Contains(errs, fmt.Sprintf("declares %d events", n)) {
		t.Errorf("truncated: exit %d %s", code, errs)
	}

	// Standard input.
	var o, e bytes.Buffer
	if code := run(t.Context(), []string{"audit", "--file", "-"}, bytes.NewReader(exported), &o, &e, &c.cfg, c.entropy); code != 0 {
		t.Errorf("audit from standard input: exit %d %s", code, e.String())
	}

	for _, args := range [][]string{{"audit"}, {"audit", "demo-1809/eggmuhl", "--file", file}, {"audit", "demo-1809"}, {"export", "demo-1809"}} {
		if code, _, _ := c.run(args...); code != exitUsage {
			t.Errorf("ledger %s: exit %d, want %d", strings.Join(args, " "), code, exitUsage)
		}
	}
	if code, _, errs := c.run("audit", "demo-1809/nowhere"); code != exitError || !strings.Contains(errs, "no battle demo-1809/nowhere") {
		t.Errorf("unknown battle: exit %d %s", code, errs)
	}
}

// rollsBySource counts the dice.rolled events of `ledger log -o json` by
// source.
func rollsBySource(t *testing.T, logJSON string) (digital, physical int) {
	t.Helper()
	var rows []struct {
		Type    string `json:"type"`
		Payload struct {
			Source string `json:"source"`
		} `json:"payload"`
	}
	if err := json.Unmarshal([]byte(logJSON), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Type != "dice.rolled" {
			continue
		}
		switch r.Payload.Source {
		case "digital":
			digital++
		case "physical":
			physical++
		}
	}
	if digital == 0 || physical == 0 {
		t.Fatalf("the example battle rolled %d digital and %d physical dice; it rolls both", digital, physical)
	}
	return digital, physical
}
