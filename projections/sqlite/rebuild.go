package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
)

// AsidePath is where a rebuild of the projection at live is built before
// it is swapped in: a file beside it, on the same file system, so that the
// swap is a rename.
func AsidePath(live string) string { return live + ".rebuild" }

// ErrInUse is returned by Swap when another process has the live file open:
// replacing a SQLite file under an open connection would corrupt what that
// connection sees. Stop that process (or let it do the swap) and try again.
var ErrInUse = errors.New("sqlite: the projection is open in another process")

// BuildOptions tune Build.
type BuildOptions struct {
	// Registry decodes the events (default campaign.Registry()).
	Registry *events.Registry
	// Keys are the ledger's keys (Options.Keys): give the live file's.
	Keys *events.Keyring
	// Fresh discards whatever is at the path first. Without it Build
	// resumes from the checkpoint of a file left there by an interrupted
	// build: batches and checkpoint commit together, so the resumed file
	// equals one built in one go.
	Fresh bool
	// BatchSize is the most events applied in one transaction (default
	// DefaultBuildBatch). BatchSize, Until and OnProgress are passed to
	// projections.Run.
	BatchSize  int
	Until      uint64
	OnProgress func(projections.Progress)
}

// DefaultBuildBatch is BuildOptions.BatchSize's default: a rebuild rewrites
// each battle's current-state rows and folded state once per batch, and
// commits once per batch, so fewer, larger batches cost less per event.
// Measured with ledger bench on 200,000 events: 83,324 events/s with 1,000,
// 101,578 with 4,000, 97,491 with 8,000 (peak heap growth 45, 52 and 64
// MiB). A live projector applies what arrives, in batches of up to
// projections.RunOptions' default.
const DefaultBuildBatch = 4000

// BuildCacheKiB is the page cache of a build's connection, in KiB (SQLite's
// own memory, beside the Go heap). Measured on 1,000,000 events (a 113 MB
// file), two rounds each, in one run: 32,000-37,000 events/s with SQLite's
// default of 2 MiB, 41,000-48,000 with 64 MiB (the machine under load; a
// larger write-ahead log between checkpoints added nothing).
const BuildCacheKiB = 64 << 10

// Build projects log from its first event into a new SQLite file at path
// (AsidePath of the live file, for a rebuild), up to the log's last event at
// the start (or opts.Until), and closes it as one self-contained file (no
// -wal or -shm beside it), ready for Swap.
func Build(ctx context.Context, log events.Log, path string, opts BuildOptions) error {
	if opts.Fresh {
		if err := removeFile(path); err != nil {
			return err
		}
	}
	db, err := OpenWith(path, Options{Registry: opts.Registry, Keys: opts.Keys})
	if err != nil {
		return err
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBuildBatch
	}
	// The build's one connection keeps more of the file's pages in memory
	// than a live projection needs (SQLite's default is 2 MiB): a rebuild
	// inserts into every index of a file that grows to hundreds of MB.
	if _, err := db.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, BuildCacheKiB)); err != nil {
		db.Close()
		return fmt.Errorf("sqlite: build %s: page cache: %w", path, err)
	}
	runErr := projections.Run(ctx, log, db, projections.RunOptions{BatchSize: opts.BatchSize, Until: opts.Until, OnProgress: opts.OnProgress})
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	if runErr != nil {
		db.Close()
		return fmt.Errorf("sqlite: build %s: %w", path, runErr)
	}
	// Leave WAL mode: the last connection checkpoints the log into the
	// file and deletes it, so one rename moves the whole projection.
	if err := db.journalDelete(ctx); err != nil {
		db.Close()
		return fmt.Errorf("sqlite: build %s: %w", path, err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("sqlite: build %s: close: %w", path, err)
	}
	return nil
}

// journalDelete switches the file from WAL to a rollback journal, which
// SQLite allows only to the file's sole connection.
func (d *DB) journalDelete(ctx context.Context) error {
	d.dropKept()
	var mode string
	if err := d.db.QueryRowContext(ctx, `PRAGMA journal_mode=DELETE`).Scan(&mode); err != nil {
		return fmt.Errorf("leave WAL mode: %w", err)
	}
	if mode != "delete" {
		return fmt.Errorf("leave WAL mode: still %q", mode)
	}
	return nil
}

// Swap replaces d's file with the one Build made at built, and reopens d
// on it. Readers of d wait for the moment of the swap (a rename) and then
// see the new projection; no reader ever sees a half-built one.
//
// The projector must not run during the swap: stop projections.Run on d,
// Swap, and start it again; it resumes from the new file's checkpoint, so
// events appended while the rebuild was running are applied then.
//
// Swap refuses with ErrInUse, changing nothing, when another process has
// d's file open: that process must reopen on the new file, which it can
// only do if it makes the swap itself (see docs/projections.md).
func (d *DB) Swap(ctx context.Context, built string) error {
	d.apply.Lock()
	defer d.apply.Unlock()
	return d.swapLocked(ctx, built)
}

// SwapWhileProjecting swaps in the file Build made at built while a
// projector keeps running on d in this process (`ledger serve`): holding
// the projector's lock, it first brings the built file up to d's own
// checkpoint from log, so that no event d has applied is missing from the
// new file, then swaps. The projector then goes on where it was; events
// the new file already holds are skipped by its checkpoint.
func (d *DB) SwapWhileProjecting(ctx context.Context, built string, log events.Log) error {
	d.apply.Lock()
	defer d.apply.Unlock()
	cp, err := d.Checkpoint(ctx)
	if err != nil {
		return err
	}
	b, err := OpenWith(built, Options{Registry: d.Registry(), Keys: d.keys})
	if err != nil {
		return err
	}
	if err := projections.Run(ctx, log, b, projections.RunOptions{Until: cp}); err != nil {
		b.Close()
		return fmt.Errorf("sqlite: catch the rebuilt file up to %d: %w", cp, err)
	}
	if err := b.journalDelete(ctx); err != nil {
		b.Close()
		return fmt.Errorf("sqlite: close the rebuilt file: %w", err)
	}
	if err := b.Close(); err != nil {
		return err
	}
	return d.swapLocked(ctx, built)
}

// swapLocked is Swap with the projector's lock held.
func (d *DB) swapLocked(ctx context.Context, built string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := os.Stat(built); err != nil {
		return fmt.Errorf("sqlite: swap: %w", err)
	}
	if _, err := os.Stat(built + "-wal"); err == nil {
		return fmt.Errorf("sqlite: swap: %s has a write-ahead log beside it: it was not finished by Build", built)
	}
	// Only the file's sole connection may leave WAL mode: this both
	// detects other processes and folds the live WAL into the file, so no
	// stale -wal can be replayed onto the new one.
	if err := d.journalDelete(ctx); err != nil {
		return fmt.Errorf("%w (%s): %v", ErrInUse, d.path, err)
	}
	// Hold the file's exclusive lock across the rename, so that a process
	// opening it meanwhile waits and then reads a complete file.
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: swap: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		// Someone opened the file since: leave it as it was.
		conn.ExecContext(context.Background(), `PRAGMA journal_mode=WAL`)
		conn.Close()
		return fmt.Errorf("%w (%s): %v", ErrInUse, d.path, err)
	}
	renameErr := os.Rename(built, d.path)
	if renameErr == nil {
		// The built file's clean-close mark (closed.go) names a file that
		// is no longer there.
		_ = os.Remove(closedMark(built))
		for _, sfx := range []string{"-wal", "-shm", "-journal"} {
			if err := os.Remove(d.path + sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
				renameErr = err
			}
		}
	}
	conn.ExecContext(context.Background(), `ROLLBACK`)
	conn.Close()
	d.db.Close()
	d.battles = map[events.Key]*battleState{}
	// Reopen whatever is now at the path: the new file, or the old one if
	// the rename failed.
	db, err := openFile(d.path, true)
	if err != nil {
		return fmt.Errorf("sqlite: swap: reopen %s: %w", d.path, errors.Join(renameErr, err))
	}
	d.db = db
	if renameErr != nil {
		return fmt.Errorf("sqlite: swap %s: %w", d.path, renameErr)
	}
	return nil
}

// removeFile removes a SQLite file and its -wal, -shm and -journal.
func removeFile(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("sqlite: remove %s: %w", p, err)
		}
	}
	return nil
}
