package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/rules"
)

// One owner per ledger (docs/architecture.md, "The one door"). A process
// that opens a data folder's ledger (the embedded NATS server's files, the
// projection) first takes an exclusive lock on the folder's lock file,
// which the kernel releases if the process dies. `ledger serve` keeps it
// for as long as it runs and listens on the folder's Unix socket, the local
// door: every other CLI command on that folder goes through it. A CLI
// command on a folder nobody owns takes the lock itself for the length of
// the command.
//
// A starting `ledger serve` first takes a second lock, the folder's intent
// (ledger.intent), and keeps it for as long as it lives; then it waits for
// the folder's lock. A CLI command tests the intent before it takes the
// folder's lock: when a server holds it, the command waits for the
// server's door and goes through it, so that CLI commands coming one after
// another cannot keep a restarted server from its folder.

const (
	lockName   = "ledger.lock"
	intentName = "ledger.intent"
	socketName = "ledger.sock"
)

// serveWait is how long a CLI command waits for a starting server's door;
// serveLockWait how long a starting server waits for the CLI command that
// holds its folder to finish.
const (
	serveWait     = 60 * time.Second
	serveLockWait = 30 * time.Second
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

func (e *HeldError) Error() string { return e.Words().String() }

// Words are the error's words, said in the user's language by cli.exit.
func (e *HeldError) Words() rules.Words {
	return rules.Words{Format: "the data folder %s is in use by another ledger process (%s)", Args: []any{e.Dir, e.Holder}}
}

// BusyError says the data folder stayed busy (another CLI command, or a
// server that is starting) for as long as the command waited: nothing was
// sent, and the same command may be run again (exit 5), with the same --id
// when it is a command that has one (SameID).
type BusyError struct {
	Dir    string
	Holder string
	Waited time.Duration
	// SameID: the command has an --id, to be given again.
	SameID bool
}

func (e *BusyError) Error() string { return e.Words().String() }

// Words are the error's words, said in the user's language by cli.exit.
func (e *BusyError) Words() rules.Words {
	waited := int(e.Waited.Round(time.Second) / time.Second)
	if e.SameID {
		return rules.Words{Format: "the data folder %s stayed busy for %d s (%s): nothing was sent; run the same command again with the same --id", Args: []any{e.Dir, waited, e.Holder}}
	}
	return rules.Words{Format: "the data folder %s stayed busy for %d s (%s): nothing was sent; run the same command again", Args: []any{e.Dir, waited, e.Holder}}
}

// intentLock is a server's held intent on a data folder.
type intentLock struct{ f *os.File }

// takeIntent takes the folder's intent lock for a server, writing its pid
// into the file. A CLI command tests the lock with a momentary shared lock,
// so a refusal is tried again for a second before the holder is named; a
// file left by a process that died holds nothing.
func takeIntent(dir, what string) (*intentLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	path := filepath.Join(dir, intentName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data folder intent: %w", err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		err = tryLock(f, true)
		if err == nil {
			break
		}
		if !errors.Is(err, errLockHeld) {
			f.Close()
			return nil, fmt.Errorf("data folder intent %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			holder, _ := os.ReadFile(path)
			f.Close()
			h := strings.TrimSpace(string(holder))
			if h == "" {
				h = "a server that is starting"
			}
			return nil, &HeldError{Dir: dir, Holder: h}
		}
		time.Sleep(20 * time.Millisecond)
	}
	writeHolder(f, what)
	return &intentLock{f: f}, nil
}

// release gives the intent up.
func (l *intentLock) release() {
	if l != nil {
		unlockFile(&l.f)
	}
}

// serveWanting reports whether a server holds the folder's intent (it
// serves, or is starting and wants the folder), and what it wrote there.
func serveWanting(dir string) (bool, string) {
	path := filepath.Join(dir, intentName)
	f, err := os.Open(path)
	if err != nil {
		return false, ""
	}
	defer f.Close()
	if err := tryLock(f, false); err != nil {
		if !errors.Is(err, errLockHeld) {
			return false, ""
		}
		holder, _ := os.ReadFile(path)
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "a server that is starting"
		}
		return true, h
	}
	unlock(f)
	return false, ""
}

// waitFolder takes the folder's lock for a starting server, waiting (every
// 50 ms, up to wait) for the CLI command that holds it to finish; what
// holds it is logged once.
func waitFolder(ctx context.Context, dir, what string, wait time.Duration, logf func(holder string)) (*folderLock, error) {
	deadline := time.Now().Add(wait)
	logged := false
	for {
		l, err := lockFolder(dir, what)
		var held *HeldError
		if !errors.As(err, &held) {
			return l, err
		}
		if !logged && logf != nil {
			logf(held.Holder)
			logged = true
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
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
	if err := tryLock(f, true); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, errLockHeld) {
			h := strings.TrimSpace(string(holder))
			if h == "" {
				h = "a process that is starting"
			}
			return nil, &HeldError{Dir: dir, Holder: h}
		}
		return nil, fmt.Errorf("data folder lock %s: %w", path, err)
	}
	writeHolder(f, what)
	return &folderLock{f: f}, nil
}

// release gives the folder up.
func (l *folderLock) release() {
	if l != nil {
		unlockFile(&l.f)
	}
}

// waitLock takes the folder's lock, waiting up to wait while another CLI
// command holds it (they are short); it gives up at once when a server
// owns the folder (its door answers: door is true). When a server holds
// the folder's intent (it is starting), the command does not take the
// folder: it waits up to serveWait for the server's door, and a lock it
// took before it saw the server is given back before anything is done.
// A wait that ends without the folder or a door is a *BusyError.
func waitLock(ctx context.Context, cfg config.Config, what string, wait time.Duration, door func() bool) (*folderLock, error) {
	start := time.Now()
	deadline := start.Add(wait)
	for {
		wanting, holder := serveWanting(cfg.DataDir)
		if wanting {
			if door != nil && door() {
				return nil, errServed
			}
			if d := start.Add(serveWait); d.After(deadline) {
				deadline = d
			}
		} else {
			l, err := lockFolder(cfg.DataDir, what)
			var held *HeldError
			if !errors.As(err, &held) {
				if err != nil {
					return nil, err
				}
				if again, _ := serveWanting(cfg.DataDir); !again {
					return l, nil
				}
				// A server started meanwhile: it has the folder first.
				l.release()
				continue
			}
			holder = held.Holder
			if door != nil && door() {
				return nil, errServed
			}
		}
		if time.Now().After(deadline) {
			return nil, &BusyError{Dir: cfg.DataDir, Holder: holder, Waited: time.Since(start)}
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
// connection's peer checked to be the same user, or root, where the system
// says who the peer is: peerIsOwner). The caller holds the folder's lock,
// so a socket file left by a process that died is removed first.
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
	if doorNote != "" {
		fmt.Fprintf(os.Stderr, "ledger: local door %s: %s\n", path, doorNote)
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
		if !ok || !peerIsOwner(uc, l.uid) {
			c.Close()
			continue
		}
		return c, nil
	}
}

// writeHolder writes into a lock file it holds what holds it: this
// process, doing what, since when.
func writeHolder(f *os.File, what string) {
	note := fmt.Sprintf("pid %d: ledger %s since %s\n", os.Getpid(), what, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(note), 0)
	}
}

// unlockFile empties a held lock file, unlocks and closes it; *f is nil
// after.
func unlockFile(f **os.File) {
	if *f == nil {
		return
	}
	_ = (*f).Truncate(0)
	unlock(*f)
	(*f).Close()
	*f = nil
}
