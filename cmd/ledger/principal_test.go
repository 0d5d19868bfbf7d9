package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrincipalsThroughEveryEdge: who may do what is decided in the
// service, so every edge gets the same answers: HTTP with a player's
// token, the CLI with that token (through the folder's door of a running
// server), the CLI as the folder's owner entering a command for a player
// (recorded as entered by the operator on behalf of the player), and a
// scenario file's actor. Refusals append nothing.
func TestPrincipalsThroughEveryEdge(t *testing.T) {
	ts := seed(t)
	before := ts.lastVersion()

	// The CLI beside the server, on the same data folder: it goes through
	// the server's door.
	c := &testCLI{t: t, cfg: ts.cfg}
	c.cfg.Token = ts.tokens["marie"]
	enemyMove := []string{"move", "demo/b1", "ir-4", "--to", "26,36"}
	if code, _, errs := c.run(enemyMove...); code != exitForbidden || !strings.Contains(errs, "commands side french only") {
		t.Errorf("marie's token moving an Austrian unit at the CLI: exit %d %s", code, errs)
	}
	if code, _, errs := c.run("do", "demo/b1", "dice.add_seed", "--json", `{"player":"karl","seed":"x"}`); code != exitForbidden || !strings.Contains(errs, "only as themselves") {
		t.Errorf("marie's token adding karl's seed at the CLI: exit %d %s", code, errs)
	}
	if v := ts.lastVersion(); v != before {
		t.Fatalf("refused commands appended: %d -> %d", before, v)
	}
	// Her own move goes through, recorded as hers.
	c.ok("move", "demo/b1", "33-ligne", "--to", "24,20", "--id", "marie-own")
	last := lastEvent(t, c)
	if last.Actor != "marie" || last.OnBehalfOf != "" || last.Type != "unit.moved" {
		t.Errorf("marie's own move is recorded as %+v", last)
	}

	// The organiser (the folder's owner) enters commands for the players.
	op := &testCLI{t: t, cfg: ts.cfg}
	op.cfg.Actor = "karl"
	if code, _, errs := op.run("move", "demo/b1", "33-ligne", "--to", "24,21"); code != exitForbidden || !strings.Contains(errs, "player karl commands side austrians only") {
		t.Errorf("the operator moving a French unit for karl: exit %d %s", code, errs)
	}
	op.cfg.Actor = "somebody"
	if code, _, errs := op.run("phase", "end", "demo/b1", "--side", "french"); code != exitRefused || !strings.Contains(errs, `no person "somebody"`) {
		t.Errorf("a made-up --actor: exit %d %s", code, errs)
	}
	op.cfg.Actor = "marie"
	op.ok("do", "demo/b1", "dice.add_seed", "--json", `{"player":"marie","seed":"said at the table"}`, "--id", "op-seed")
	last = lastEvent(t, op)
	if last.Actor != "operator" || last.OnBehalfOf != "marie" || last.Type != "dice.seed_added" {
		t.Errorf("the operator's entry for marie is recorded as %+v", last)
	}
	if out := op.ok("log", "demo/b1"); !strings.Contains(out, "operator for marie") {
		t.Errorf("ledger log does not show who entered it for whom:\n%s", out)
	}

	// A scenario file's actor: recorded the same honest way.
	file := filepath.Join(t.TempDir(), "step.yaml")
	if err := os.WriteFile(file, []byte(`id: one-step
campaign: demo
battle: b1
steps:
  - do: unit.move
    actor: karl
    with: {unit: 33-ligne, to: {x: 24, y: 22}}
    expect: accepted
`), 0o644); err != nil {
		t.Fatal(err)
	}
	op.cfg.Actor = ""
	if code, out, errs := op.run("play", file); code != exitForbidden || !strings.Contains(out, "commands side austrians only") {
		t.Errorf("a scenario moving a French unit as karl: exit %d\n%s\n%s", code, out, errs)
	}
	if err := os.WriteFile(file, []byte(`id: karl-seed
campaign: demo
battle: b1
steps:
  - do: dice.add_seed
    actor: karl
    with: {player: karl, seed: "Aspern bleibt"}
    expect: accepted
`), 0o644); err != nil {
		t.Fatal(err)
	}
	op.ok("play", file)
	last = lastEvent(t, op)
	if last.Actor != "operator" || last.OnBehalfOf != "karl" || last.Type != "dice.seed_added" {
		t.Errorf("the scenario's step for karl is recorded as %+v", last)
	}
}

// TestIdempotencyKeyBoundToItsCommand: an id names one command. The same
// id with the same command answers its recorded outcome; with another
// command (another body, or another principal), a conflict naming the
// earlier one, and nothing is carried out.
func TestIdempotencyKeyBoundToItsCommand(t *testing.T) {
	ts := seed(t)
	move := map[string]any{"id": "m-o2", "command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 20}}}
	ts.must(ts.command("marie", "b1", "unit.move", move), 201)
	if r := ts.must(ts.command("marie", "b1", "unit.move", move), 200); r.body["duplicate"] != true {
		t.Fatalf("the same command again: %s", r.raw)
	}
	before := ts.lastVersion()
	// Karl's order with marie's id is not "already applied": a conflict.
	r := ts.command("karl", "b1", "phase.end", map[string]any{"id": "m-o2", "command": map[string]any{"side": "austrians"}})
	if r.status != 409 || r.errorField("code") != "idempotency_conflict" || !strings.Contains(r.errorField("message").(string), "unit.moved") {
		t.Fatalf("another principal's command with a used id: %d %s", r.status, r.raw)
	}
	// Marie's own other move with the same id: a conflict too.
	other := map[string]any{"id": "m-o2", "command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 21}}}
	if r := ts.command("marie", "b1", "unit.move", other); r.status != 409 || r.errorField("code") != "idempotency_conflict" {
		t.Fatalf("another body with a used id: %d %s", r.status, r.raw)
	}
	if v := ts.lastVersion(); v != before {
		t.Fatalf("a conflicting id appended: %d -> %d", before, v)
	}
	// The CLI: its own exit code.
	c := &testCLI{t: t, cfg: ts.cfg}
	c.cfg.Token = ts.tokens["marie"]
	if code, _, errs := c.run("move", "demo/b1", "33-ligne", "--to", "24,21", "--id", "m-o2"); code != exitIDConflict || !strings.Contains(errs, `already used`) || !strings.Contains(errs, `command id "m-o2": unit.moved`) {
		t.Fatalf("the CLI with a used id: exit %d %s", code, errs)
	}
}

type loggedEvent struct {
	Type       string `json:"type"`
	Actor      string `json:"actor"`
	OnBehalfOf string `json:"on_behalf_of"`
}

// lastEvent is the battle's last event as `ledger log -o json` shows it.
func lastEvent(t *testing.T, c *testCLI) loggedEvent {
	t.Helper()
	var evs []loggedEvent
	if err := json.Unmarshal([]byte(c.ok("log", "demo/b1", "-o", "json")), &evs); err != nil {
		t.Fatal(err)
	}
	return evs[len(evs)-1]
}
