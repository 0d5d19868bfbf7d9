package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFolderLockOnThisSystem takes a data folder's lock and its intent with
// this system's locks (flock on Linux and macOS, LockFileEx on Windows): a
// second taker is refused, naming the holder the lock file says; after the
// release the folder is free again and the lock file empty.
func TestFolderLockOnThisSystem(t *testing.T) {
	dir := t.TempDir()
	l, err := lockFolder(dir, "test one")
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockFolder(dir, "test two")
	var held *HeldError
	if !errors.As(err, &held) || !strings.Contains(held.Holder, "ledger test one") {
		t.Fatalf("a second lock: %v, want HeldError naming \"ledger test one\"", err)
	}
	l.release()
	if raw, _ := os.ReadFile(filepath.Join(dir, lockName)); len(raw) != 0 {
		t.Errorf("the lock file after release holds %q", raw)
	}
	l, err = lockFolder(dir, "test three")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l.release()

	if wanting, _ := serveWanting(dir); wanting {
		t.Fatal("a folder nobody serves is wanted")
	}
	in, err := takeIntent(dir, "serve")
	if err != nil {
		t.Fatal(err)
	}
	if wanting, holder := serveWanting(dir); !wanting || !strings.Contains(holder, "ledger serve") {
		t.Errorf("with the intent held: wanting %v, holder %q", wanting, holder)
	}
	in.release()
	if wanting, _ := serveWanting(dir); wanting {
		t.Error("the intent released is still wanted")
	}
}
