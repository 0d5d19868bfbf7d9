package keys_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/keys"
)

// TestNextSurvivesAnInterruption: the key a rotation moves to is kept
// owner-only in NextPath until RotateTo writes the key file, so a rotation
// interrupted after recording the change in the log records the same key
// when run again; RotateTo keeps the old key as retired and the vault key,
// and removes NextPath. A NextPath others may read is refused.
func TestNextSurvivesAnInterruption(t *testing.T) {
	path := filepath.Join(t.TempDir(), keys.DefaultFile)
	k, err := keys.Create(path, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := k.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(k.NextPath()); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v, want mode 0600", k.NextPath(), st, err)
	}
	b, err := k.Next(nil)
	if err != nil || b.KeyHex() != a.KeyHex() || a.KeyHex() == k.Signer.KeyHex() {
		t.Fatalf("the second Next: %v, %s and %s", err, b.Fingerprint(), a.Fingerprint())
	}
	nk, err := k.RotateTo(7, b)
	if err != nil {
		t.Fatal(err)
	}
	if nk.Signer.KeyHex() != a.KeyHex() || len(nk.Retired) != 1 || nk.Retired[0].Key != k.Signer.KeyHex() || nk.Retired[0].RetiredAt != 7 || string(nk.Vault) != string(k.Vault) {
		t.Fatalf("after RotateTo: %+v", nk)
	}
	if _, err := os.Stat(k.NextPath()); !os.IsNotExist(err) {
		t.Fatalf("%s left: %v", k.NextPath(), err)
	}
	if _, err := nk.RotateTo(8, nk.Signer); err == nil {
		t.Fatal("a rotation to the current key")
	}
	if _, err := nk.Next(nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(nk.NextPath(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := nk.Next(nil); err == nil || !strings.Contains(err.Error(), "ledger keys rotate") {
		t.Fatalf("a widened %s: %v", nk.NextPath(), err)
	}
}
