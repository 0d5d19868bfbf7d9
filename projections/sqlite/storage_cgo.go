//go:build cgo

package sqlite

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// diskTrouble says whether err is SQLite failing to write to its disk: the
// disk is full (SQLITE_FULL) or a read or write failed (SQLITE_IOERR).
func diskTrouble(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrFull || se.Code == sqlite3.ErrIoErr
	}
	return false
}
