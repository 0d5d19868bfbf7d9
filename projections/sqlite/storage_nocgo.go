//go:build !cgo

package sqlite

// diskTrouble: without cgo there is no SQLite driver and so no error of it.
func diskTrouble(error) bool { return false }
