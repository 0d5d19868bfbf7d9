package keys_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/keys"
)

func TestCreateLoadAndPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", keys.DefaultFile)
	asked := 0
	k, created, err := keys.Open(path, func() (uint64, error) { asked++; return 42, nil })
	if err != nil || !created || asked != 1 {
		t.Fatalf("first start: %v created=%v asked=%d", err, created, asked)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	if k.SignedFrom != 42 || len(k.Vault) != events.VaultKeySize || k.Signer == nil {
		t.Fatalf("%+v", k)
	}
	again, created, err := keys.Open(path, func() (uint64, error) { t.Fatal("asked again"); return 0, nil })
	if err != nil || created || again.Signer.KeyHex() != k.Signer.KeyHex() || string(again.Vault) != string(k.Vault) {
		t.Fatalf("second start: %v", err)
	}
	if _, err := keys.Create(path, 1, nil); err == nil {
		t.Fatal("Create replaced a key file")
	}
	// A file others may read is refused, saying what to do.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Load(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("mode 0640: %v", err)
	}
	if _, err := keys.Load(filepath.Join(t.TempDir(), "none")); !errors.Is(err, keys.ErrNoFile) {
		t.Fatalf("no file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.key")
	os.WriteFile(bad, []byte(`{"format":"ledger-keys-v1","signing":"00","vault":"00"}`), 0o600)
	if _, err := keys.Load(bad); err == nil || !strings.Contains(err.Error(), "signing key") {
		t.Fatalf("bad file: %v", err)
	}
}

func TestRotate(t *testing.T) {
	path := filepath.Join(t.TempDir(), keys.DefaultFile)
	k, err := keys.Create(path, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	old, next, err := k.Rotate(100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if old.KeyHex() != k.Signer.KeyHex() || next.Signer.KeyHex() == k.Signer.KeyHex() || string(next.Vault) != string(k.Vault) {
		t.Fatal("rotation did not replace the signing key alone")
	}
	loaded, err := keys.Load(path)
	if err != nil || loaded.Signer.KeyHex() != next.Signer.KeyHex() || len(loaded.Retired) != 1 || loaded.Retired[0].RetiredAt != 100 {
		t.Fatalf("after rotation: %+v %v", loaded, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode after rotation %v", st.Mode())
	}
	ring := loaded.Keyring()
	got := ring.Keys()
	if len(got) != 2 || got[0].Key != old.KeyHex() || got[0].RetiredAt != 100 || got[1].Key != next.Signer.KeyHex() || ring.SignedFrom() != 1 {
		t.Fatalf("keyring %+v", got)
	}
	var f map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &f); err != nil || f["format"] != keys.Format {
		t.Fatalf("file: %s", b)
	}
}

// TestFirstSequence: a ledger's first start on an existing log signs from
// after its last event, and refuses to make a new key for a log another
// key already signs.
func TestFirstSequence(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := jstest.NewLog(t)
	path := filepath.Join(t.TempDir(), keys.DefaultFile)
	if n, err := keys.FirstSequence(ctx, log, path); err != nil || n != 1 {
		t.Fatalf("empty log: %d %v", n, err)
	}
	key := events.Key{Campaign: "c1", Battle: "b1"}
	batch := func(id string) []events.Envelope {
		return []events.Envelope{{ID: "c1/b1/" + id + "/0", Campaign: "c1", Battle: "b1", Type: "t.happened", Schema: 1,
			Actor: "umpire", CommandID: id, Audience: events.AudienceAll, Payload: json.RawMessage(`{}`)}}
	}
	old := batch("a")
	if err := events.Chain(nil, old); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(ctx, key, 0, old); err != nil {
		t.Fatal(err)
	}
	if n, err := keys.FirstSequence(ctx, log, path); err != nil || n != 2 {
		t.Fatalf("unsigned log: %d %v", n, err)
	}
	k, err := keys.Create(filepath.Join(t.TempDir(), "other.key"), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	signed := batch("b")
	if err := events.ChainSigned(&old[0], signed, k.Signer); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(ctx, key, old[0].Sequence, signed); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.FirstSequence(ctx, log, path); err == nil || !strings.Contains(err.Error(), "signed by key "+k.Signer.Fingerprint()) {
		t.Fatalf("signed log: %v", err)
	}
}

// TestImport: another ledger's key is trusted for the battle imported from
// it, in the file, and in no other battle.
func TestImport(t *testing.T) {
	path := filepath.Join(t.TempDir(), keys.DefaultFile)
	k, err := keys.Create(path, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := keys.Create(filepath.Join(t.TempDir(), "other.key"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := events.Key{Campaign: "c1", Battle: "b1"}
	for range 2 {
		if err := k.Import(other.Signer.KeyHex(), b); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Import("00", b); err == nil {
		t.Fatal("a bad key was imported")
	}
	loaded, err := keys.Load(path)
	if err != nil || len(loaded.Imported) != 1 || loaded.Signer.KeyHex() != k.Signer.KeyHex() || string(loaded.Vault) != string(k.Vault) {
		t.Fatalf("after import: %+v %v", loaded, err)
	}
	t2, ok := loaded.Keyring().Trusts(other.Signer.KeyHex())
	if !ok || len(t2.Streams) != 1 || t2.Streams[0] != b {
		t.Fatalf("trusted as %+v", t2)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
}
