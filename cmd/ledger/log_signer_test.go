package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
)

// TestLogNamesImportedKey is issue 25, item 8: after an import, `ledger
// log` said "every event signed by the ledger" of a battle signed by
// another ledger's key. A battle exported from one ledger and imported into
// another: its log names the foreign key on every event, in the table and
// in the JSON `signed` field, and says it is not this ledger's key but the
// one of the ledger the battle was imported from; a battle of the importing
// ledger's own still reads "every event signed by the ledger", with its own
// key.
func TestLogNamesImportedKey(t *testing.T) {
	src := newCLI(t)
	fillLedger(t, src)
	exp := filepath.Join(t.TempDir(), "ended.export")
	src.ok("export", "bk/ended", "--umpire", "-f", exp)
	raw, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	x, err := audit.ReadExport(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	foreign := events.Fingerprint(x.Meta.Keys[0].Key)

	dst := newCLI(t)
	ctx := context.Background()
	a, err := OpenApp(ctx, dst.cfg, AppOptions{Entropy: dst.entropy})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Service.Execute(ctx, loadgen.CreateCampaign("own")); err != nil {
		t.Fatal(err)
	}
	g := loadgen.NewBattle("own", "b", 1)
	for i := 0; i < 5; i++ {
		if _, err := a.Service.Execute(ctx, g.Next()); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.CatchUp(ctx, nil); err != nil {
		t.Fatal(err)
	}
	a.Close()
	dst.ok("import", "-f", exp, "--key", foreign)

	// The imported battle.
	out := dst.ok("log", "bk/ended")
	if strings.Contains(out, "every event signed by the ledger") {
		t.Errorf("ledger log of an imported battle says it is the ledger's:\n%s", out)
	}
	for _, want := range []string{
		foreign + " (imported)",
		"signatures: every event signed by a key this ledger trusts for it: " + itoa(uint64(len(x.Events))) + " events by key " + foreign + ", not this ledger's but the ledger's this battle was imported from",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger log bk/ended lacks %q:\n%s", want, out)
		}
	}
	var evs []app.EventView
	if err := json.Unmarshal([]byte(dst.ok("log", "bk/ended", "-o", "json")), &evs); err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(x.Events) {
		t.Fatalf("ledger log -o json bk/ended: %d events, the export has %d", len(evs), len(x.Events))
	}
	for _, e := range evs {
		if want := "signed " + foreign + " (another ledger's key: an imported battle)"; e.Signed != want {
			t.Fatalf("event v%d: signed %q, want %q", e.Version, e.Signed, want)
		}
		if sig := e.Signature; sig == nil || *sig != (app.Signature{State: app.SignatureImported, Key: x.Meta.Keys[0].Key, Fingerprint: foreign}) {
			t.Fatalf("event v%d: signature %+v, want imported, by %s", e.Version, sig, foreign)
		}
	}

	// The door's answer (GET .../events, what the page and ledger log read)
	// says it too, in its own fields: not "every event signed by the
	// ledger" of a battle another ledger signed (issue 25's leftover).
	a, err = OpenApp(ctx, dst.cfg, AppOptions{Entropy: dst.entropy})
	if err != nil {
		t.Fatal(err)
	}
	op := a.Ledger.As(app.Caller{Operator: "test"})
	page, err := op.Events(ctx, events.Key{Campaign: "bk", Battle: "ended"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if page.Signatures != app.SignaturesImported || page.Imported != len(x.Events) {
		t.Errorf("the imported battle's page: signatures %q, imported %d of %d", page.Signatures, page.Imported, len(x.Events))
	}
	own, err := op.Events(ctx, events.Key{Campaign: "own", Battle: "b"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if own.Signatures != app.SignaturesHold || own.Imported != 0 {
		t.Errorf("the ledger's own battle's page: signatures %q, imported %d", own.Signatures, own.Imported)
	}
	a.Close()

	// The importing ledger's own battle: its own key, "signed by the ledger".
	out = dst.ok("log", "own/b")
	if !strings.Contains(out, "signatures: every event signed by the ledger") || strings.Contains(out, "(imported)") {
		t.Errorf("ledger log of the ledger's own battle:\n%s", out)
	}
	evs = nil
	if err := json.Unmarshal([]byte(dst.ok("log", "own/b", "-o", "json")), &evs); err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		fp, ok := strings.CutPrefix(e.Signed, "signed ")
		if !ok || fp == foreign || strings.Contains(fp, " ") {
			t.Fatalf("own/b event v%d: signed %q, want this ledger's own key", e.Version, e.Signed)
		}
		if sig := e.Signature; sig == nil || sig.State != app.SignatureSigned || sig.Fingerprint != fp || events.Fingerprint(sig.Key) != fp {
			t.Fatalf("own/b event v%d: signature %+v, want signed by %s", e.Version, sig, fp)
		}
	}
}
