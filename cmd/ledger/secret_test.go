package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/viper"
)

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDiceSeedSecretUntilRevealed: while a battle is played, nobody reads
// the secret dice seed: not a player, not the umpire, not a reader, through
// no endpoint of the API, nor the CLI's log, export or audit. Once the
// battle ends, it is in the log for everyone.
func TestDiceSeedSecretUntilRevealed(t *testing.T) {
	ts := seed(t)
	app := ts.served.App
	raw, err := app.Vault.Get(context.Background(), "dice.demo.b1.battle")
	if err != nil {
		t.Fatalf("the sealed seed: %v", err)
	}
	secret := strings.TrimSpace(string(raw))
	if len(secret) != 64 {
		t.Fatalf("sealed seed %q", secret)
	}
	// A digital roll, so that something was derived from it.
	ts.must(ts.command("marie", "b1", "order.give", map[string]any{"id": "digital-1",
		"command": map[string]any{"general": "montbrun", "units": []string{"7-chasseurs"}, "content": map[string]any{"action": "move"}}}), 201)
	last := ts.lastVersion()

	paths := []string{
		"/api/campaigns/demo",
		"/api/campaigns/demo/events",
		"/api/campaigns/demo/standings",
		"/api/campaigns/demo/battles/b1/state",
		"/api/campaigns/demo/battles/b1/events",
		"/api/campaigns/demo/battles/b1/dice",
		"/api/campaigns/demo/battles/b1/disputes",
		"/api/campaigns/demo/battles/b1/audit",
		"/api/campaigns/demo/battles/b1/odds?general=friant&units=48-ligne",
	}
	for v := 0; v <= last; v++ {
		paths = append(paths, fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d", v))
	}
	for _, who := range []string{"uma", "marie", "karl", "rita", "admin"} {
		for _, p := range paths {
			r := ts.do("GET", p, ts.token(who), nil)
			if bytes.Contains(bytes.ToLower(r.raw), []byte(secret)) {
				t.Fatalf("%s read the secret seed at %s", who, p)
			}
		}
	}
	// The CLI on the same ledger: the log, an export and the audit.
	c := &cli{ctx: context.Background(), v: viper.New(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, output: "json", cfgSet: &ts.cfg, shared: app}
	var out bytes.Buffer
	c.stdout = &out
	if err := c.logCommand().RunE(nil, []string{"demo/b1"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), secret) {
		t.Fatal("ledger log shows the secret seed")
	}
	export := filepath.Join(t.TempDir(), "b1.ledger")
	code, stdout, stderr := (&testCLI{t: t, cfg: ts.cfg}).runShared(app, "export", "demo/b1", "-f", export)
	if code != 0 {
		t.Fatalf("export: %d %s %s", code, stdout, stderr)
	}
	if b := mustRead(t, export); strings.Contains(b, secret) {
		t.Fatal("the export holds the secret seed")
	}

	// The end reveals it, to everyone.
	ts.must(ts.command("uma", "b1", "battle.end", map[string]any{"command": map[string]any{"reason": "agreed"}}), 201)
	r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", ts.tokens["rita"], nil), 200)
	if !bytes.Contains(r.raw, []byte(secret)) {
		t.Fatal("after the battle the revealed seed is not in the log a reader sees")
	}
}

// runShared runs a subcommand on an App already open (as the demo does).
func (c *testCLI) runShared(app *App, args ...string) (int, string, string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	cl := &cli{ctx: context.Background(), v: viper.New(), stdout: &out, stderr: &errb, output: "table", cfgSet: &c.cfg, shared: app}
	root := cl.rootCommand()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	if err := root.Execute(); err != nil {
		return 1, out.String(), errb.String() + err.Error()
	}
	return 0, out.String(), errb.String()
}
