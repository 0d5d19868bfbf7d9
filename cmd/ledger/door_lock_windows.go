//go:build windows

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// On Windows the folder's locks are LockFileEx locks, which Windows gives
// up when the process dies, as flock(2) on Linux. A LockFileEx lock is a
// mandatory lock on a range of bytes: the range locked is one byte far
// beyond the end of the file, so that the file's text (its holder) stays
// readable by the processes that are refused the lock.

// errLockHeld is another process holding a lock tryLock wanted.
var errLockHeld = errors.New("held by another process")

// lockedRange is where the one locked byte lies: 2^63 - 2^32.
func lockedRange() *windows.Overlapped {
	return &windows.Overlapped{Offset: 0, OffsetHigh: 0x7fffffff}
}

// tryLock takes f's lock without waiting, exclusive or shared; a lock held
// by another process is errLockHeld.
func tryLock(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, lockedRange())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLockHeld
	}
	return err
}

// unlock gives f's lock up.
func unlock(f *os.File) {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockedRange())
}
