package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clubledger/ledger/config"
)

// One owner per ledger (docs/architecture.md, "The one door"). A process
// that opens a data folder's ledger (the embedded NATS server's files, the
// projection) first takes an exclusive lock on the folder's lock file,
// which the kernel releases if the process dies. `ledger serve` keeps it
// for as long as it runs and listens on the folder's Unix socket, the local
// door: every other CLI command on that folder goes through it. A CLI
// command on a folder nobody owns takes the lock itself for the length of
// the command.

const (
	lockName   = "ledger.lock"
	socketName = "ledger.sock"
)

// socketPath is the local door of a data folder.
func socketPath(cfg config.Config) string { return filepath.Join(cfg.DataDir, socketName) }

// folderLock is a held lock on a data folder.
type folderLock struct {
	f *os.File
}

// HeldError says another process owns the data folder.
type HeldError struct {
	Dir string
	// Holder is what the owner wrote in the lock file: its pid and what
	// it is ("pid 4242: ledger serve since ...").
	Holder string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("the data folder %s is in use by another ledger process (%s)", e.Dir, e.Holder)
}

// lockFolder takes the data folder's lock without waiting, writing what
// holds it (this process, doing what) into the lock file. The folder is
// made owner-only: it holds the log, the keys and the local door.
func lockFolder(dir, what string) (*folderLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data folder lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			h := strings.TrimSpace(string(holder))
			if h == "" {
				h = "a process that is starting"
			}
			return nil, &HeldError{Dir: dir, Holder: h}
		}
		return nil, fmt.Errorf("data folder lock %s: %w", path, err)
	}
	note := fmt.Sprintf("pid %d: ledger %s since %s\n", os.Getpid(), what, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(note), 0)
	}
	return &folderLock{f: f}, nil
}

// release gives the folder up.
func (l *folderLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// waitLock takes the folder's lock, waiting up to wait while another CLI
// command holds it (they are short); it gives up at once when a server
// owns the folder (its door answers: door is true).
func waitLock(ctx context.Context, cfg config.Config, what string, wait time.Duration, door func() bool) (*folderLock, error) {
	deadline := time.Now().Add(wait)
	for {
		l, err := lockFolder(cfg.DataDir, what)
		var held *HeldError
		if !errors.As(err, &held) {
			return l, err
		}
		if door != nil && door() {
			return nil, errServed
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// errServed says a server owns the folder and answers at its door.
var errServed = errors.New("a ledger server owns the data folder")

// listenDoor opens the local door: a Unix socket in the data folder that
// only its owner may connect to (mode 0600 in a 0700 folder, and each
// connection's peer checked to be the same user, or root). The caller
// holds the folder's lock, so a socket file left by a process that died is
// removed first.
func listenDoor(cfg config.Config) (net.Listener, error) {
	path := socketPath(cfg)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("local door %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("local door %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("local door %s: %w", path, err)
	}
	return &ownerOnly{Listener: ln, uid: os.Getuid()}, nil
}

// ownerOnly accepts connections from the socket's owner (or root) only.
type ownerOnly struct {
	net.Listener
	uid int
}

func (l *ownerOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uc, ok := c.(*net.UnixConn)
		if !ok {
			c.Close()
			continue
		}
		raw, err := uc.SyscallConn()
		if err != nil {
			c.Close()
			continue
		}
		var cred *unix.Ucred
		var cerr error
		_ = raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
		if cerr != nil || cred == nil || (int(cred.Uid) != l.uid && cred.Uid != 0) {
			c.Close()
			continue
		}
		return c, nil
	}
}

// holderPID reads the pid a lock file names, or 0.
func holderPID(holder string) int {
	var pid int
	if _, err := fmt.Sscanf(holder, "pid %d", &pid); err != nil {
		return 0
	}
	return pid
}

var _ = strconv.Itoa
