//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The folder's locks are flock(2) locks on the whole file: the kernel
// gives them up when the process dies, and a lock file's text (its holder)
// stays readable by anyone while it is held.

// errLockHeld is another process holding a lock tryLock wanted.
var errLockHeld = errors.New("held by another process")

// tryLock takes f's lock without waiting, exclusive or shared; a lock held
// by another process is errLockHeld.
func tryLock(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLockHeld
	}
	return err
}

// unlock gives f's lock up.
func unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
