// Package sqlitetest damages projection files the way a disk does, for the
// tests of what the ledger does with them: one page in the middle of the
// file overwritten, the header left intact.
package sqlitetest

import (
	"database/sql"
	"encoding/binary"
	"os"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver (cgo)
)

// DamagePage returns a copy of the SQLite file good with one page in its
// middle overwritten with 0xa5 bytes, and that page's number (1 is the
// first). The page is one the database uses (not page 1, which holds the
// header, nor a page on the free list, whose damage nothing reads), so
// SQLite's quick check finds it whichever page it is: a b-tree page's type
// or an overflow page's next-page number becomes impossible.
func DamagePage(t testing.TB, good []byte) ([]byte, int) {
	t.Helper()
	if len(good) < 100 || string(good[:16]) != "SQLite format 3\x00" {
		t.Fatalf("sqlitetest: not a SQLite file (%d bytes)", len(good))
	}
	size := int(binary.BigEndian.Uint16(good[16:18]))
	if size == 1 {
		size = 65536
	}
	pages := len(good) / size
	if pages < 3 {
		t.Fatalf("sqlitetest: the file has %d pages: none in the middle", pages)
	}
	free := map[int]bool{}
	u32 := func(off int) int { return int(binary.BigEndian.Uint32(good[off : off+4])) }
	for trunk := u32(32); trunk > 0 && trunk <= pages && !free[trunk]; trunk = u32((trunk - 1) * size) {
		free[trunk] = true
		off := (trunk - 1) * size
		for i := range min(u32(off+4), size/4-2) {
			free[u32(off+8+4*i)] = true
		}
	}
	page := 0
	for d := 0; d < pages && page == 0; d++ {
		for _, p := range []int{pages/2 + 1 + d, pages/2 + 1 - d} {
			if p > 1 && p <= pages && !free[p] {
				page = p
				break
			}
		}
	}
	if page == 0 {
		t.Fatalf("sqlitetest: every page past the first is free")
	}
	bad := append([]byte(nil), good...)
	for i := (page - 1) * size; i < page*size; i++ {
		bad[i] = 0xa5
	}
	return bad, page
}

// WritePage writes page (1 is the first) of bad over the file at path, in
// place, leaving the rest of the file as it is.
func WritePage(t testing.TB, path string, bad []byte, page int) {
	t.Helper()
	size := int(binary.BigEndian.Uint16(bad[16:18]))
	if size == 1 {
		size = 65536
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off := (page - 1) * size
	if _, err := f.WriteAt(bad[off:off+size], int64(off)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// Checkpoint folds the file's write-ahead log into it (and empties the
// log), from a connection of its own, so that what is in the file is what
// a reader reads: a page damaged in the file is not hidden by a newer
// copy in the log.
func Checkpoint(t testing.TB, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var busy, logged, moved int
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved); err != nil {
		t.Fatalf("sqlitetest: checkpoint %s: %v", path, err)
	}
	if busy != 0 || logged != moved {
		t.Fatalf("sqlitetest: checkpoint %s: busy %d, %d of %d frames folded in", path, busy, moved, logged)
	}
}
