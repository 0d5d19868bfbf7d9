package sqlite

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// The projection file is disposable (docs/principles.md principle 1): when it
// cannot be read (cut short, a damaged header, not a database at all),
// OpenWith with Options.MoveDamaged moves it aside, says where, and starts
// an empty one, which the projector fills again from the log.

// DamagedError is a projection file that cannot be read.
type DamagedError struct {
	Path   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("sqlite: cannot read the projection file %s: %s. It is only a projection of the log: move it away (or run `ledger projections rebuild --fresh`) and it is built again", e.Path, e.Reason)
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
	return fmt.Sprintf("the projection file %s could not be read (%s): moved it to %s; it is only a projection, and is rebuilt from the log", d.Path, d.Reason, d.MovedTo)
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
	if pages > 0 && changes == validFor && size < pages*pageSize {
		return fmt.Sprintf("cut short: the header says %d pages of %d bytes (%d bytes), the file holds %d", pages, pageSize, pages*pageSize, size), nil
	}
	return "", nil
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
	reason, err := checkFile(path)
	if err != nil {
		return nil, nil, err
	}
	var db *sql.DB
	if reason == "" {
		db, err = openFile(path)
		if err == nil {
			return db, nil, nil
		}
		if !unreadable(err) {
			return nil, nil, err
		}
		reason = err.Error()
	}
	if !move {
		return nil, nil, &DamagedError{Path: path, Reason: reason}
	}
	to, err := moveAside(path)
	if err != nil {
		return nil, nil, err
	}
	d := &Damaged{Path: path, MovedTo: to, Reason: reason}
	db, err = openFile(path)
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
	return &DamagedError{Path: d.path, Reason: err.Error()}
}
