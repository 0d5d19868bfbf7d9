package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/keys"
)

// TestKeysRotate is issue 25, item 8: the refusal of a widened key file
// said "rotate the signing key" and no command did it. `ledger keys rotate`
// on a ledger with a battle under way: the key file holds a new key and
// lists the old one as retired; a ledger.key_changed signed by the old key
// is on the campaign's stream; the battle's events before are signed by the
// old key and those after by the new one; `ledger audit` and `ledger log`
// of that battle pass; its export audits with --key OLD and with --key NEW.
// The widened key file's refusal names the command.
func TestKeysRotate(t *testing.T) {
	c := newCLI(t)
	ctx := context.Background()
	g := loadgen.NewBattle("rot", "b", 1)
	play := func(n int) {
		t.Helper()
		a, err := OpenApp(ctx, c.cfg, AppOptions{Entropy: c.entropy})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if n < 0 {
			if _, err := a.Service.Execute(ctx, loadgen.CreateCampaign("rot")); err != nil {
				t.Fatal(err)
			}
			n = -n
		}
		for i := 0; i < n && !g.Ended(); i++ {
			req := g.Next()
			if _, err := a.Service.Execute(ctx, req); err != nil {
				t.Fatalf("%s: %v", req.ID, err)
			}
		}
		if err := a.CatchUp(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	play(-6)
	key := events.Key{Campaign: "rot", Battle: "b"}
	before := len(battleEvents(t, c, key))
	old, err := keys.Load(c.cfg.KeyPath())
	if err != nil {
		t.Fatal(err)
	}
	oldFP := old.Signer.Fingerprint()

	out := c.ok("keys", "rotate")
	now, err := keys.Load(c.cfg.KeyPath())
	if err != nil {
		t.Fatal(err)
	}
	newFP := now.Signer.Fingerprint()
	if newFP == oldFP || len(now.Retired) != 1 || now.Retired[0].Key != old.Signer.KeyHex() || !bytesEqual(now.Vault, old.Vault) {
		t.Fatalf("the key file after the rotation: signing %s (was %s), retired %+v", newFP, oldFP, now.Retired)
	}
	for _, want := range []string{"signing key: " + newFP, "retired: " + oldFP, "key change recorded on 1 campaign streams"} {
		if !strings.Contains(out, want) {
			t.Errorf("keys rotate says no %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(old.NextPath()); !os.IsNotExist(err) {
		t.Errorf("the new key's seed is left in %s: %v", old.NextPath(), err)
	}
	camp := battleEvents(t, c, events.Key{Campaign: "rot"})
	var changes int
	for _, e := range camp {
		if e.Type == events.KeyChangedType {
			changes++
			if e.Signer != old.Signer.KeyHex() || !strings.Contains(string(e.Payload), now.Signer.KeyHex()) {
				t.Errorf("the key change: signed by %s, payload %s", events.Fingerprint(e.Signer), e.Payload)
			}
		}
	}
	if changes != 1 {
		t.Fatalf("%d key changes on the campaign stream, want 1", changes)
	}

	// An export made now holds only events signed by the old key: trusting
	// the new key alone proves nothing of them (no event signed by it binds
	// them), trusting the old one does.
	exp0 := filepath.Join(t.TempDir(), "rot0.export")
	c.ok("export", "rot/b", "--umpire", "-f", exp0)
	c.ok("audit", "--file", exp0, "--key", oldFP)
	if code, out, errs := c.run("audit", "--file", exp0, "--key", newFP); code != exitCheck || !strings.Contains(errs+out, "not signed by the ledger") {
		t.Errorf("audit --key NEW of an export signed by the old key only: exit %d\n%s\n%s", code, out, errs)
	}

	play(6)
	evs := battleEvents(t, c, key)
	if len(evs) <= before {
		t.Fatalf("no event after the rotation: %d, %d before", len(evs), before)
	}
	for i, e := range evs {
		want := old.Signer.KeyHex()
		if i >= before {
			want = now.Signer.KeyHex()
		}
		if e.Signer != want {
			t.Fatalf("event v%d signed by %s, want %s", e.Version, events.Fingerprint(e.Signer), events.Fingerprint(want))
		}
	}
	c.ok("audit", "rot/b")
	if out := c.ok("log", "rot/b"); !strings.Contains(out, "signatures: every event signed by the ledger") || !strings.Contains(out, oldFP) || !strings.Contains(out, newFP) {
		t.Errorf("ledger log after the rotation:\n%s", out)
	}
	exp := filepath.Join(t.TempDir(), "rot.export")
	c.ok("export", "rot/b", "--umpire", "-f", exp)
	for _, fp := range []string{oldFP, newFP} {
		out := c.ok("audit", "--file", exp, "--key", fp)
		if fp == newFP && !strings.Contains(out, "bound by a later event signed by the key you trust") {
			t.Errorf("audit --key NEW does not say how it took the old key's events:\n%s", out)
		}
	}

	// The refusal of a widened key file names the command.
	if err := os.Chmod(c.cfg.KeyPath(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := c.run("log", "rot/b"); code == 0 || !strings.Contains(errs, "ledger keys rotate") {
		t.Errorf("a widened key file: exit %d\n%s", code, errs)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
