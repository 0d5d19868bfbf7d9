package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/rules"
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
	copyKey(t, src, dst)
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

	b, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	x, err := audit.ReadExport(bytes.NewReader(b))
	if err != nil || len(x.Meta.Keys) == 0 {
		t.Fatalf("export: %v, keys %v", err, x)
	}
	fp := events.Fingerprint(x.Meta.Keys[0].Key)

	dst := newCLI(t)
	out := dst.ok("import", "-f", exp, "--key", fp)
	if !strings.Contains(out, "imported bk/ended") || !strings.Contains(out, "review only") {
		t.Fatalf("import: %s", out)
	}
	dst.ok("audit", "bk/ended")
	if code, _, errs := dst.run("import", "-f", exp, "--key", fp); code != exitError || !strings.Contains(errs, "already has battle") {
		t.Fatalf("second import: exit %d: %s", code, errs)
	}
	// A tampered export is refused before anything is appended.
	bad := filepath.Join(t.TempDir(), "bad.export")
	if err := os.WriteFile(bad, bytes.Replace(b, []byte(`\"rating\":8`), []byte(`\"rating\":9`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	other := newCLI(t)
	if code, _, errs := other.run("import", "-f", bad, "--key", fp); code != exitCheck {
		t.Fatalf("tampered export: exit %d: %s", code, errs)
	}
}

// forgeRescore is the forgery of issue 25 made from a genuine export: the
// battle's score changed to 100-0, every signature stripped, the chain
// stamped again, and the real key kept in the header with signed_from set
// so high that every event reads as stored before the ledger signed.
func forgeRescore(t *testing.T, genuine []byte) []byte {
	t.Helper()
	x, err := audit.ReadExport(bytes.NewReader(genuine))
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]events.Envelope, len(x.Events))
	copy(evs, x.Events)
	scored := -1
	for i := range evs {
		evs[i].Raw = nil
		if evs[i].Type == rules.EvBattleScored {
			scored = i
		}
	}
	if scored < 0 {
		t.Fatal("the exported battle has no battle.scored event")
	}
	var s rules.BattleScored
	if err := json.Unmarshal(evs[scored].Payload, &s); err != nil {
		t.Fatal(err)
	}
	for j := range s.Sides {
		s.Sides[j].Points = 0
	}
	s.Sides[0].Points = 100
	if evs[scored].Payload, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := events.ChainSigned(nil, evs, nil); err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if len(evs[i].Sig) > 0 || evs[i].Signer != "" {
			t.Fatalf("event %d still signed", i)
		}
		evs[i].Sequence = x.Events[i].Sequence
	}
	var buf bytes.Buffer
	if err := audit.WriteExport(&buf, audit.Meta{ExportedAt: x.Meta.ExportedAt, Umpire: true}, evs); err != nil {
		t.Fatal(err)
	}
	header, rest, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
	var m map[string]any
	if err := json.Unmarshal(header, &m); err != nil {
		t.Fatal(err)
	}
	m["keys"] = x.Meta.Keys
	m["signed_from"] = 1000000000
	h, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return append(append(h, '\n'), rest...)
}

// battleEvents reads key's stream from the log of c's ledger.
func battleEvents(t *testing.T, c *testCLI, key events.Key) []events.Envelope {
	t.Helper()
	ctx := context.Background()
	app, err := OpenApp(ctx, c.cfg, AppOptions{Entropy: c.entropy})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	evs, err := app.Log.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestImportRefusedAppendsNothing (issue 25, item 3): the unsigned
// rescore, with the real key in its header and signed_from past its
// events, is refused by import (exit 4, the event named) before anything
// is appended, with or without --key; an export of another ledger is
// refused unless its key is named; the genuine export then imports, in
// one batch, and its audit passes.
func TestImportRefusedAppendsNothing(t *testing.T) {
	src := newCLI(t)
	fillLedger(t, src)
	dir := t.TempDir()
	exp := filepath.Join(dir, "ended.export")
	src.ok("export", "bk/ended", "--umpire", "-f", exp)
	genuine, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	gx, err := audit.ReadExport(bytes.NewReader(genuine))
	if err != nil {
		t.Fatal(err)
	}
	if len(gx.Meta.Keys) == 0 {
		t.Fatal("the genuine export names no key")
	}
	fp := events.Fingerprint(gx.Meta.Keys[0].Key)
	forged := filepath.Join(dir, "forged.export")
	if err := os.WriteFile(forged, forgeRescore(t, genuine), 0o644); err != nil {
		t.Fatal(err)
	}
	key := events.Key{Campaign: "bk", Battle: "ended"}

	dst := newCLI(t)
	for _, args := range [][]string{
		{"import", "-f", forged},
		{"import", "-f", forged, "--key", fp},
		{"import", "-f", exp}, // another ledger's key, not named
	} {
		code, out, errs := dst.run(args...)
		if code != exitCheck || !strings.Contains(errs, "nothing imported") {
			t.Errorf("ledger %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errs)
		}
		if args[2] == forged && !strings.Contains(errs, "v1 (bk/ended/") {
			t.Errorf("ledger %s: the refusal names no event: %s", strings.Join(args, " "), errs)
		}
		if n := len(battleEvents(t, dst, key)); n != 0 {
			t.Fatalf("ledger %s: %d events of %s appended by a refused import", strings.Join(args, " "), n, key)
		}
	}

	// An import goes through the door, which decides who may: the
	// operator only. A person's token (even an unknown one) is forbidden,
	// no token unauthenticated, and the genuine file appends nothing then.
	ctx := context.Background()
	a, err := OpenApp(ctx, dst.cfg, AppOptions{Entropy: dst.entropy})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []app.Caller{{Token: "someone"}, {}} {
		_, err := a.Ledger.As(who).ImportExport(ctx, gx, app.ImportOptions{Trust: []string{fp}})
		var ae *app.Error
		if !errors.As(err, &ae) || (ae.Kind != app.KindForbidden && ae.Kind != app.KindUnauthenticated) {
			t.Errorf("an import by %+v: %v", who, err)
		}
	}
	a.Close()
	if n := len(battleEvents(t, dst, key)); n != 0 {
		t.Fatalf("%d events of %s appended by an import nobody may make", n, key)
	}

	out := dst.ok("import", "-f", exp, "--key", fp)
	if !strings.Contains(out, "imported bk/ended") {
		t.Fatalf("genuine import: %s", out)
	}
	got := battleEvents(t, dst, key)
	if len(got) != len(gx.Events) {
		t.Fatalf("genuine import: %d events, the export has %d", len(got), len(gx.Events))
	}
	for i := range got {
		if !bytes.Equal(got[i].Raw, gx.Events[i].Raw) || got[i].Sequence != got[0].Sequence+uint64(i) {
			t.Fatalf("event %d: stored as %d, %q", i, got[i].Sequence, got[i].Raw)
		}
	}
	dst.ok("audit", "bk/ended")
}

// copyKey gives dst's data folder src's key file, as an organiser restoring
// a backup elsewhere does.
func copyKey(t *testing.T, src, dst *testCLI) {
	t.Helper()
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
}
