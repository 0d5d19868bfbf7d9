package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/projections/sqlite"
)

// fillLedger plays a campaign of two battles through the service of a
// ledger on c's data folder (one ended, one with its dice seed still
// sealed) and brings its projection up to date.
func fillLedger(t *testing.T, c *testCLI) {
	t.Helper()
	ctx := context.Background()
	app, err := OpenApp(ctx, c.cfg, AppOptions{Entropy: c.entropy})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if _, err := app.Service.Execute(ctx, loadgen.CreateCampaign("bk")); err != nil {
		t.Fatal(err)
	}
	ended := loadgen.NewBattle("bk", "ended", 1)
	ended.TurnLimit = 3
	for _, g := range []*loadgen.Battle{ended, loadgen.NewBattle("bk", "open", 2)} {
		for i := 0; i < 40 && !g.Ended(); i++ {
			req := g.Next()
			if _, err := app.Service.Execute(ctx, req); err != nil {
				t.Fatalf("%s: %v", req.ID, err)
			}
		}
	}
	if err := app.CatchUp(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

func compareDBs(t *testing.T, a, b *testCLI) {
	t.Helper()
	da, err := sqlite.Open(a.cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer da.Close()
	db, err := sqlite.Open(b.cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	diffs, err := da.Compare(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("projection differs: %s", d.Detail)
	}
}

func TestBackupRestoreCLI(t *testing.T) {
	src := newCLI(t)
	fillLedger(t, src)
	file := filepath.Join(t.TempDir(), "ledger.backup")
	out := src.ok("backup", "-f", file)
	if !strings.Contains(out, "2 sealed values") || !strings.Contains(out, "3 streams") {
		t.Fatalf("backup: %s", out)
	}
	if out := src.ok("restore", "--check", "-f", file); !strings.Contains(out, "is intact") {
		t.Fatalf("restore --check: %s", out)
	}

	// The backup carries the sealed values in ciphertext: the restored
	// ledger needs the key file of the one that made it.
	dst := newCLI(t)
	key, err := os.ReadFile(src.cfg.KeyPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst.cfg.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst.cfg.KeyPath(), key, 0o600); err != nil {
		t.Fatal(err)
	}
	out = dst.ok("restore", "-f", file)
	if !strings.Contains(out, "with their original log sequences") || !strings.Contains(out, "2 battles audited, 0 failed") {
		t.Fatalf("restore: %s", out)
	}
	compareDBs(t, src, dst)
	// The restored ledger plays on: the sealed seed came along.
	dst.ok("battle", "end", "bk/open", "--reason", "restored")
	dst.ok("audit", "bk/open")

	// Not into a ledger that holds anything.
	if code, _, errs := dst.run("restore", "-f", file); code != exitError || !strings.Contains(errs, "not empty") {
		t.Fatalf("restore into a non-empty ledger: exit %d: %s", code, errs)
	}
	// A damaged file is a failed check, and nothing is written.
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.backup")
	if err := os.WriteFile(bad, bytes.Replace(b, []byte(`\"rating\":8`), []byte(`\"rating\":9`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := newCLI(t)
	if code, _, errs := empty.run("restore", "-f", bad); code != exitCheck {
		t.Fatalf("damaged backup: exit %d: %s", code, errs)
	}
	if code, out, errs := empty.run("log", "bk"); code == exitOK || !strings.Contains(errs, "no events") {
		t.Fatalf("a damaged backup wrote events: exit %d\n%s%s", code, out, errs)
	}
}

func TestImportExportedBattle(t *testing.T) {
	src := newCLI(t)
	fillLedger(t, src)
	exp := filepath.Join(t.TempDir(), "ended.export")
	src.ok("export", "bk/ended", "--umpire", "-f", exp)

	dst := newCLI(t)
	out := dst.ok("import", "-f", exp)
	if !strings.Contains(out, "imported bk/ended") || !strings.Contains(out, "review only") {
		t.Fatalf("import: %s", out)
	}
	dst.ok("audit", "bk/ended")
	if code, _, errs := dst.run("import", "-f", exp); code != exitError || !strings.Contains(errs, "already has battle") {
		t.Fatalf("second import: exit %d: %s", code, errs)
	}
	// A tampered export is refused before anything is appended.
	b, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.export")
	if err := os.WriteFile(bad, bytes.Replace(b, []byte(`\"rating\":8`), []byte(`\"rating\":9`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	other := newCLI(t)
	if code, _, errs := other.run("import", "-f", bad); code != exitCheck {
		t.Fatalf("tampered export: exit %d: %s", code, errs)
	}
}
