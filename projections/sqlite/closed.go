package sqlite

import (
	"fmt"
	"os"
)

// A clean close leaves a mark beside the file: its size and modification
// time then. The next open takes the mark away before it writes anything,
// and skips SQLite's quick check when the file is as the close left it
// (no write-ahead log, the same size and time): the check reads the whole
// file, about 0.1 s per 100,000 events (BenchmarkQuickCheck), which put a
// start of ledger serve on 1,000,000 events at 0.6-2.2 s against its 2 s
// target. A file that was not closed cleanly (a crash, a kill, a power
// cut), or was changed since, is checked. Damage at rest that leaves the
// size and time alone is found by `ledger projections verify` (DB.Check).

// closedMark is the mark's path.
func closedMark(path string) string { return path + ".closed" }

// markClosed records that path was closed cleanly, as it is now.
func markClosed(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(closedMark(path), []byte(fmt.Sprintf("%d %d\n", st.Size(), st.ModTime().UnixNano())), 0o600)
}

// closedUnchanged says whether path was closed cleanly and is unchanged
// since, and takes the mark away (whatever happens next is no clean close).
func closedUnchanged(path string) bool {
	mark, err := os.ReadFile(closedMark(path))
	if err != nil {
		return false
	}
	if err := os.Remove(closedMark(path)); err != nil {
		return false
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return false
	}
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	return string(mark) == fmt.Sprintf("%d %d\n", st.Size(), st.ModTime().UnixNano())
}
