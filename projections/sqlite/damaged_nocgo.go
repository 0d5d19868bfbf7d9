//go:build !cgo

package sqlite

// Built without cgo, mattn/go-sqlite3 is a stub: every open fails with its
// own words ("Binary was compiled with 'CGO_ENABLED=0', go-sqlite3 requires
// cgo to work"), and that error is passed on as it is. Such a build serves
// no projection; it is built only to check that the code compiles on every
// system. The releases are built with cgo.

// unreadable says whether err is SQLite saying the file is damaged: never,
// without SQLite.
func unreadable(error) bool { return false }
