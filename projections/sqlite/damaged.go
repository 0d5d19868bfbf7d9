package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/clubledger/ledger/projections"
)

// The projection file is disposable (docs/principles.md principle 1): when it
// cannot be read (cut short, a damaged header, not a database at all, or a
// damaged page anywhere in it, which SQLite's quick check finds at open),
// OpenWith with Options.MoveDamaged moves it aside, says where, and starts
// an empty one, which the projector fills again from the log.

// DamagedError is a projection file that cannot be read.
type DamagedError struct {
	Path   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("sqlite: cannot read the projection file %s: %s. It is only a projection of the log: run `ledger projections rebuild --fresh` (beside a running `ledger serve` too), or restart `ledger serve`, which moves the file aside and builds it again from the log", e.Path, e.Reason)
}

// Is makes a *DamagedError projections.ErrDamaged, which the door names in
// words (app.Classify) without knowing this package.
func (e *DamagedError) Is(target error) bool { return target == projections.ErrDamaged }

// quickCheckErrors is how many problems the quick check reports at most:
// the first says the file is damaged; the rest only lengthen the message.
const quickCheckErrors = 3

// quickCheck runs SQLite's quick check (PRAGMA quick_check) on db and says
// what it found wrong ("" when nothing). It reads every page of the file
// once, checking each b-tree page and the free list, without the index
// cross-checks of integrity_check: 92 ms for a projection of 100,000 events
// (11.6 MB, BenchmarkQuickCheck), growing with the file's size
// (docs/projections.md).
func quickCheck(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`PRAGMA quick_check(%d)`, quickCheckErrors))
	if err != nil {
		if unreadable(err) {
			return "a damaged page: SQLite's quick check cannot read it (" + err.Error() + ")", nil
		}
		return "", fmt.Errorf("sqlite: quick check: %w", err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", fmt.Errorf("sqlite: quick check: %w", err)
		}
		if s != "ok" {
			found = append(found, strings.Join(strings.Fields(s), " "))
		}
	}
	if err := rows.Err(); err != nil {
		if unreadable(err) {
			return "a damaged page: SQLite's quick check cannot read it (" + err.Error() + ")", nil
		}
		return "", fmt.Errorf("sqlite: quick check: %w", err)
	}
	if len(found) == 0 {
		return "", nil
	}
	return "a damaged page: SQLite's quick check says " + strings.Join(found, "; "), nil
}

// Check runs SQLite's quick check on the file as it is on the disk, from a
// connection of its own (the projection's connection may hold the damaged
// page in its cache and never read it again), and returns a *DamagedError
// naming what it found, nil when nothing.
func (d *DB) Check(ctx context.Context) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	db, err := sql.Open("sqlite3", "file:"+d.path+"?_busy_timeout=10000")
	if err != nil {
		return fmt.Errorf("sqlite: check %s: %w", d.path, err)
	}
	defer db.Close()
	reason, err := quickCheck(ctx, db)
	if err != nil {
		return fmt.Errorf("sqlite: check %s: %w", d.path, err)
	}
	if reason != "" {
		d.hurt.Store(true)
		return &DamagedError{Path: d.path, Reason: reason}
	}
	return nil
}

// Damaged is what OpenWith did with a projection file it could not read.
type Damaged struct {
	// Path is the file; MovedTo where it went, with its -wal and -shm.
	Path    string `json:"path"`
	MovedTo string `json:"moved_to"`
	// Reason says why it could not be read.
	Reason string `json:"reason"`
}

// String says it in one sentence, for the operator.
func (d Damaged) String() string {
	return fmt.Sprintf("the projection file %s could not be read (%s): moved it to %s; it is only a projection, and is rebuilt from the log: nothing is lost and nothing needs doing. Delete the moved file once you no longer want to look at it; a file damaged again soon points at a failing disk (check it: dmesg, smartctl)", d.Path, d.Reason, d.MovedTo)
}

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkFile reads a database file's header and size and says what is
// wrong with them ("" when nothing, or when there is no file yet: SQLite
// makes one).
func checkFile(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("sqlite: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return "", nil
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Sprintf("cut short: %d bytes, less than a SQLite header", size), nil
	}
	if string(h[:16]) != sqliteMagic {
		return fmt.Sprintf("not a SQLite database: it begins with %q", printable(h[:16])), nil
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return fmt.Sprintf("a damaged header: page size %d", pageSize), nil
	}
	if size%pageSize != 0 {
		return fmt.Sprintf("cut short: %d bytes is not a whole number of %d-byte pages", size, pageSize), nil
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	changes, validFor := binary.BigEndian.Uint32(h[24:28]), binary.BigEndian.Uint32(h[92:96])
	// A process killed in the middle of a checkpoint leaves the file
	// shorter than its header says (the checkpoint writes page 1 first,
	// then the others in order) while the write-ahead log beside it still
	// holds every page: SQLite reads them from there at the next open.
	// That file is whole; only one with no such log to complete it (a WAL
	// header of this page size, and a frame) is cut short
	// (TestKilledMidCheckpointIsWhole: CI once moved such a rebuild file
	// aside, TestRebuildSurvivesSIGKILL).
	if walCompletes(path+"-wal", pageSize) {
		return "", nil
	}
	if pages > 0 && changes == validFor && size < pages*pageSize {
		return fmt.Sprintf("cut short: the header says %d pages of %d bytes (%d bytes), the file holds %d", pages, pageSize, pages*pageSize, size), nil
	}
	return "", nil
}

// walCompletes says whether the file at path is a write-ahead log SQLite
// can complete a database of pageSize-byte pages from: its header's magic
// number and page size, and at least one frame.
func walCompletes(path string, pageSize int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false
	}
	var h [32]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	magic := binary.BigEndian.Uint32(h[0:4])
	return (magic == 0x377f0682 || magic == 0x377f0683) && int64(binary.BigEndian.Uint32(h[8:12])) == pageSize &&
		st.Size() >= 32+24+pageSize
}

func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}

// moveAside renames path and its -wal, -shm and -journal to a name beside
// it that says when and why.
func moveAside(path string) (string, error) {
	base := path + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
	to := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s-%d", base, n)
	}
	for _, sfx := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Rename(path+sfx, to+sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("sqlite: move the damaged projection %s aside: %w", path+sfx, err)
		}
	}
	return to, nil
}

// openChecked opens path, and when it cannot be read either moves it aside
// and opens a new one (move) or fails with a *DamagedError.
func openChecked(path string, move bool) (*sql.DB, *Damaged, error) {
	check := !closedUnchanged(path)
	reason, err := checkFile(path)
	if err != nil {
		return nil, nil, err
	}
	var db *sql.DB
	if reason == "" {
		db, err = openFile(path, check)
		if err == nil {
			return db, nil, nil
		}
		var de *DamagedError
		switch {
		case errors.As(err, &de):
			reason = de.Reason
		case unreadable(err):
			reason = err.Error()
		default:
			return nil, nil, err
		}
	}
	if !move {
		return nil, nil, &DamagedError{Path: path, Reason: reason}
	}
	to, err := moveAside(path)
	if err != nil {
		return nil, nil, err
	}
	d := &Damaged{Path: path, MovedTo: to, Reason: reason}
	db, err = openFile(path, false)
	if err != nil {
		return nil, d, err
	}
	return db, d, nil
}

// unreadableErr turns SQLite saying the file is damaged into a
// *DamagedError, which says what to do; other errors pass as they are.
func (d *DB) unreadableErr(err error) error {
	var de *DamagedError
	if err == nil || errors.As(err, &de) || !unreadable(err) {
		return err
	}
	d.hurt.Store(true)
	return &DamagedError{Path: d.path, Reason: err.Error()}
}
