package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/keys"
)

// TestSignedLedgerCLI: the ledger makes its key file at first start
// (owner-only, in the data folder) and signs every event; `ledger log`
// shows who signed each; `ledger audit` checks a head kept (live and
// --file) and, for an export, the key trusted. An event appended with
// write access to the log but not the key, chained correctly, is named by
// `log`, `audit` (live and --file), and stops the battle's projection,
// which `projections status` shows.
func TestSignedLedgerCLI(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/first-battle.yaml")
	st, err := os.Stat(c.cfg.KeyPath())
	if err != nil || st.Mode().Perm() != 0o600 || filepath.Dir(c.cfg.KeyPath()) != c.cfg.DataDir {
		t.Fatalf("key file: %v %v", st, err)
	}
	k, err := keys.Load(c.cfg.KeyPath())
	if err != nil {
		t.Fatal(err)
	}
	fp := k.Signer.Fingerprint()
	out := c.ok("log", "demo-1809/eggmuhl")
	if !strings.Contains(out, "SIGNED") || !strings.Contains(out, fp) || !strings.Contains(out, "signatures: every event signed by the ledger") {
		t.Errorf("log:\n%s", out)
	}

	// Heads kept, live and in an export; the key trusted.
	var page struct {
		Events []struct {
			Version uint64 `json:"version"`
			Hash    string `json:"hash"`
			Signed  string `json:"signed"`
			// The same in parts (issue 29).
			Signature *app.Signature `json:"signature"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(c.ok("log", "demo-1809/eggmuhl", "-o", "json")), &page.Events); err != nil {
		t.Fatal(err)
	}
	mid := page.Events[10].Hash
	if page.Events[10].Signed != "signed "+fp {
		t.Errorf("log -o json: signed %q", page.Events[10].Signed)
	}
	if sig := page.Events[10].Signature; sig == nil || *sig != (app.Signature{State: app.SignatureSigned, Key: k.Signer.KeyHex(), Fingerprint: fp}) {
		t.Errorf("log -o json: signature %+v", sig)
	}
	if out := c.ok("audit", "demo-1809/eggmuhl", "--head", mid[:16]); !strings.Contains(out, "1 of 1 kept head in the chain (v11 of") || !strings.Contains(out, "signed by ledger key "+fp) {
		t.Errorf("audit --head:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "b.jsonl")
	c.ok("export", "demo-1809/eggmuhl", "-f", file)
	c.ok("audit", "--file", file, "--head", mid, "--key", fp)
	if code, _, errs := c.run("audit", "--file", file, "--key", "0000000000000000"); code != exitCheck || !strings.Contains(errs, "you trust key 0000000000000000") {
		t.Errorf("audit --key of another ledger: exit %d %s", code, errs)
	}
	beyond := strings.Repeat("ab", 32)
	if code, _, errs := c.run("audit", "--file", file, "--head", beyond); code != exitCheck || !strings.Contains(errs, "is the hash of no event of this chain") {
		t.Errorf("audit --head beyond: exit %d %s", code, errs)
	}

	// A forgery: chained correctly after the battle's last event, unsigned.
	app, err := OpenApp(context.Background(), c.cfg, AppOptions{Entropy: c.entropy})
	if err != nil {
		t.Fatal(err)
	}
	key := events.Key{Campaign: "demo-1809", Battle: "eggmuhl"}
	evs, err := app.Log.Read(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	forged := []events.Envelope{{ID: "demo-1809/eggmuhl/forged/0", Campaign: "demo-1809", Battle: "eggmuhl", Type: "battle.scored", Schema: 1,
		Time: last.Time, Actor: "umpire", CommandID: "forged", Audience: events.AudienceAll, Payload: json.RawMessage(`{"turn":2,"sides":[{"side":"french","points":100}]}`)}}
	if err := events.Chain(&last, forged); err != nil {
		t.Fatal(err)
	}
	if err := app.Log.Append(context.Background(), key, last.Sequence, forged); err != nil {
		t.Fatal(err)
	}
	app.Close()
	v := "v" + itoa(forged[0].Version)
	if code, out, errs := c.run("log", "demo-1809/eggmuhl"); code != exitCheck || !strings.Contains(out, "NOT THE LEDGER'S") || !strings.Contains(errs, "event "+v+" (demo-1809/eggmuhl/forged/0") {
		t.Errorf("log of a forgery: exit %d\n%s\n%s", code, out, errs)
	}
	_, out, _ = c.run("log", "demo-1809/eggmuhl", "-o", "json")
	page.Events = nil
	if err := json.Unmarshal([]byte(out), &page.Events); err != nil || len(page.Events) == 0 {
		t.Fatalf("log -o json of a forgery: %v\n%s", err, out)
	}
	if sig := page.Events[len(page.Events)-1].Signature; sig == nil || sig.State != "not_signed" || sig.Key != "" || !strings.Contains(sig.Why, "carries no signature") {
		t.Errorf("log -o json: the forgery's signature %+v", sig)
	}
	if code, _, errs := c.run("audit", "demo-1809/eggmuhl"); code != exitCheck || !strings.Contains(errs, "signatures: "+v) || !strings.Contains(errs, "not signed by the ledger") {
		t.Errorf("audit of a forgery: exit %d %s", code, errs)
	}
	c.ok("export", "demo-1809/eggmuhl", "-f", file)
	if code, _, errs := c.run("audit", "--file", file); code != exitCheck || !strings.Contains(errs, "signatures: "+v) {
		t.Errorf("audit --file of a forgery: exit %d %s", code, errs)
	}
	out = c.ok("projections", "status")
	if !strings.Contains(out, "STOPPED: the projection of battle demo-1809/eggmuhl stopped at "+v) || !strings.Contains(out, "not signed by the ledger") {
		t.Errorf("projections status:\n%s", out)
	}
}

// TestDamagedProjectionHeals: a ledger.db that is not a database is moved
// aside, saying where, and rebuilt from the log.
func TestDamagedProjectionHeals(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../examples/first-battle.yaml")
	want := c.ok("state", "demo-1809/eggmuhl")
	if err := os.WriteFile(c.cfg.DBPath(), []byte(strings.Repeat("not a database\n", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := c.run("state", "demo-1809/eggmuhl")
	if code != 0 || out != want || !strings.Contains(errs, "could not be read (not a SQLite database") || !strings.Contains(errs, "moved it to "+c.cfg.DBPath()+".damaged-") {
		t.Fatalf("state on a damaged projection: exit %d\n%s\n%s", code, out, errs)
	}
	c.ok("projections", "verify")
}

func itoa(v uint64) string { b, _ := json.Marshal(v); return string(b) }
