package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
)

// TestImportBesideTheServer: ledger import beside a running server goes
// through its door (it used to stop at "cannot run while a ledger server
// owns the folder: stop it first"), as POST /api/admin/import does: a
// forged export is refused (exit 4) and appends nothing, the genuine one
// is imported and audits, a second import says the battle is there
// (exit 1); a reader's token may not import.
func TestImportBesideTheServer(t *testing.T) {
	src := newCLI(t)
	fillLedger(t, src)
	dir := t.TempDir()
	exp := filepath.Join(dir, "ended.export")
	src.ok("export", "bk/ended", "--umpire", "-f", exp)
	genuine, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	x, err := audit.ReadExport(bytes.NewReader(genuine))
	if err != nil || len(x.Meta.Keys) == 0 {
		t.Fatalf("export: %v", err)
	}
	fp := events.Fingerprint(x.Meta.Keys[0].Key)
	forged := filepath.Join(dir, "forged.export")
	if err := os.WriteFile(forged, forgeRescore(t, genuine), 0o644); err != nil {
		t.Fatal(err)
	}

	ts := peopleServer(t)
	stored := func() int {
		r := ts.do("GET", "/api/campaigns/bk/battles/ended/events", testAdminToken, nil)
		if r.status == 404 {
			return 0
		}
		return len(ts.must(r, 200).body["events"].([]any))
	}
	r := ts.do("POST", "/api/admin/import?key="+fp, ts.tokens["rita"], nil)
	if r.status != 403 {
		t.Errorf("a reader's import: HTTP %d %s", r.status, r.raw)
	}

	op := &testCLI{t: t, cfg: ts.cfg}
	// A key written too short is named as such (a reviewer read "no key
	// named with --key ... proves it", as if the file had failed).
	if code, _, errs := op.run("import", "-f", exp, "--key", fp[:4]); code != exitCheck || !strings.Contains(errs, "is not a key's fingerprint") || strings.Contains(errs, "proves it") {
		t.Errorf("a 4-digit --key: exit %d: %s", code, errs)
	}
	if code, _, errs := op.run("import", "-f", forged, "--key", fp); code != exitCheck || !strings.Contains(errs, "nothing") {
		t.Fatalf("the forged export beside the server: exit %d: %s", code, errs)
	}
	if n := stored(); n != 0 {
		t.Fatalf("the refused import appended %d events", n)
	}
	out := op.ok("import", "-f", exp, "--key", fp)
	if !strings.Contains(out, "imported bk/ended") {
		t.Fatalf("import beside the server: %s", out)
	}
	if n := stored(); n != len(x.Events) {
		t.Errorf("the server's log holds %d events of bk/ended, the export %d", n, len(x.Events))
	}
	op.ok("audit", "bk/ended")
	if code, _, errs := op.run("import", "-f", exp, "--key", fp); code != exitError || !strings.Contains(errs, "already has battle") {
		t.Fatalf("second import: exit %d: %s", code, errs)
	}
}
