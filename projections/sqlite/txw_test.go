package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// openTxw begins a transaction on ctx on a fresh file with one table, as
// ApplyPrepared does.
func openTxw(t *testing.T, ctx context.Context) (*DB, *txw) {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "txw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.db.Exec(`CREATE TABLE t (a INTEGER, b TEXT, c REAL)`); err != nil {
		t.Fatal(err)
	}
	sqlTx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlTx.Rollback() })
	return d, &txw{Tx: sqlTx, d: d, stmts: map[string]*sql.Stmt{}, quiet: context.WithoutCancel(ctx)}
}

const txwInsert = `INSERT INTO t (a, b, c) VALUES (?, ?, ?)`

// A batch's statements run on its context without the cancellation: the
// driver (mattn/go-sqlite3) starts a goroutine and a channel to watch a
// context that can be cancelled, for every statement. A statement through
// txw on a transaction begun on a cancellable context allocates no more
// than the same statement on a context that cannot be cancelled (before:
// four allocations more, the watcher's).
func TestBatchStatementsWatchNoContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, tx := openTxw(t, ctx)
	if _, err := tx.ExecContext(ctx, txwInsert, 1, "x", 1.5); err != nil {
		t.Fatal(err)
	}
	st := tx.stmts[txwInsert]
	plain := testing.AllocsPerRun(200, func() {
		if _, err := st.ExecContext(context.Background(), 1, "x", 1.5); err != nil {
			t.Fatal(err)
		}
	})
	watched := testing.AllocsPerRun(200, func() {
		if _, err := st.ExecContext(ctx, 1, "x", 1.5); err != nil {
			t.Fatal(err)
		}
	})
	through := testing.AllocsPerRun(200, func() {
		if _, err := tx.ExecContext(ctx, txwInsert, 1, "x", 1.5); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations per statement: %.0f on a plain context, %.0f on a cancellable one, %.0f through txw", plain, watched, through)
	if through > plain {
		t.Errorf("a statement through txw allocates %.0f times, on a context that cannot be cancelled %.0f: the driver watches the batch's context", through, plain)
	}
}

// The cancellation still stops a batch: the transaction was begun on the
// batch's context, database/sql rolls it back when that is cancelled, and
// the next statement fails with the cancellation, not "transaction done".
func TestBatchStatementsStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, tx := openTxw(t, ctx)
	if _, err := tx.ExecContext(ctx, txwInsert, 1, "x", 1.5); err != nil {
		t.Fatal(err)
	}
	cancel()
	// database/sql rolls the transaction back on its own goroutine: a
	// statement may still run until it has.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := tx.ExecContext(ctx, txwInsert, 2, "y", 2.5)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("after the cancellation: %v, want context.Canceled", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("statements still run 10 s after the batch's context was cancelled")
		}
		time.Sleep(time.Millisecond)
	}
}
