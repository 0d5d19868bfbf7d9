// Package sqlite is the ledger's read model in a SQLite file: campaigns,
// battles with their sides, brigades, units and generals, the turn's
// bookkeeping, orders, dice rolls, unit actions, dice commitments, and the
// campaign view: people, flank marches, objectives, victory points,
// disputes and retractions, standings and rosters (it keeps no copy of the
// events: migrations 0003 and 0005 dropped their index). It is fed by
// projections.Run, each batch committed with its checkpoint, and can be
// deleted and rebuilt from the log at any time: Build makes a new file
// aside, Swap puts it in place of the live one, Compare checks two files
// table by table (docs/projections.md; every column in
// docs/projection-schema.md).
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver (cgo)

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Name is this projection's row in the checkpoint table.
const Name = "ledger"

// DB is the SQLite read model. Its methods are safe for concurrent use; one
// projector at a time calls ApplyBatch.
type DB struct {
	// mu guards db: queries and batches hold it for reading, Swap for
	// writing while it replaces the file under them.
	mu   sync.RWMutex
	db   *sql.DB
	path string
	reg  *events.Registry
	// apply serialises ApplyBatch, which owns battles.
	apply sync.Mutex
	// battles caches the folded state of the battles this process has
	// projected, so a batch need not load it from battle_state each time.
	// Ended battles leave it, and past maxBattles the least recently
	// applied ones do (after a commit, their state is in battle_state):
	// memory holds at most maxBattles open battles, not every open battle
	// of the league. used counts the applications, for the eviction.
	battles    map[events.Key]*battleState
	maxBattles int
	used       uint64
	// operating is held by Rebuild and Verify: one at a time on a file
	// (projections.ErrBusy for another meanwhile).
	operating sync.Mutex
	// kept are the projector's statements, prepared once on the file's
	// connection and reused by every batch (txw); owned by apply.
	kept map[string]*sql.Stmt
	// keys, when set, are the ledger's: only events signed by them, and
	// following their stream's last event, are applied (verify.go).
	keys *events.Keyring
	// damaged is what OpenWith did with an unreadable file, if anything.
	damaged *Damaged
	// hurt is set once the open file was found damaged (Check, or a
	// query SQLite could not read): its close leaves no clean mark, so
	// the next open checks it (closed.go).
	hurt atomic.Bool
}

var _ projections.Projection = (*DB)(nil)

// Options tune Open.
type Options struct {
	// Registry decodes and upcasts the events (default campaign.Registry()).
	// Tests inject their own to project types or schema versions the
	// program does not (yet) have.
	Registry *events.Registry
	// Keys are the ledger's keys (its key file): with them the projector
	// applies only events the ledger signed (or stored before it signed),
	// each following its stream's last one, and stops a stream at any
	// other (Stopped). Nil applies every event, as before signing.
	Keys *events.Keyring
	// MoveDamaged: a file that cannot be read (cut short, a damaged
	// header, not a database, a damaged page that SQLite's quick check
	// finds) is moved aside and an empty one made in its
	// place, to be rebuilt from the log; DB.Damaged says what happened.
	// Without it such a file fails with a *DamagedError.
	MoveDamaged bool
	// CachedBattles bounds the open battles whose folded state the
	// projector keeps in memory (default DefaultCachedBattles); one past
	// it is read again from battle_state when its next event comes.
	CachedBattles int
}

// DefaultCachedBattles is Options.CachedBattles' default: about 20 KiB each
// for a battle of a few dozen events (a heap profile of ledger bench
// --league --parts memory: 12.8 MB for 600 open battles).
const DefaultCachedBattles = 256

// Open opens (creating if needed) the SQLite file at path, in WAL mode with
// foreign keys on, and applies the migrations it has not yet recorded.
func Open(path string) (*DB, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, opts Options) (*DB, error) {
	if opts.Registry == nil {
		opts.Registry = campaign.Registry()
	}
	db, damaged, err := openChecked(path, opts.MoveDamaged)
	if err != nil {
		return nil, err
	}
	if opts.CachedBattles <= 0 {
		opts.CachedBattles = DefaultCachedBattles
	}
	return &DB{db: db, path: path, reg: opts.Registry, keys: opts.Keys, damaged: damaged, battles: map[events.Key]*battleState{}, maxBattles: opts.CachedBattles, kept: map[string]*sql.Stmt{}}, nil
}

// Damaged says what OpenWith did with a file it could not read (moved it
// aside: Options.MoveDamaged), or nil when the file was sound.
func (d *DB) Damaged() *Damaged { return d.damaged }

// OpenSQL opens the SQLite file at path (creating it if needed) with the
// projection's settings and nothing else: WAL mode, synchronous=NORMAL,
// foreign keys on, a busy timeout of 10 s, transactions that take the
// write lock at BEGIN, and one connection. No schema: the projection's
// own opening (Open) adds it; ledger bench's raw write (internal/bench)
// opens its file with this, so that it measures SQLite as the projection
// has it, by the one definition.
func OpenSQL(path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_journal_mode=WAL&_foreign_keys=on&_synchronous=NORMAL&_busy_timeout=10000&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One writer: SQLite serialises writes anyway, and one connection keeps
	// the batch transaction and its reads consistent.
	db.SetMaxOpenConns(1)
	return db, nil
}

// openFile opens the file (OpenSQL), checks it with SQLite's quick check
// when check is set (a damaged page is a *DamagedError, before anything is
// written to it) and brings its schema up to date.
func openFile(path string, check bool) (*sql.DB, error) {
	db, err := OpenSQL(path)
	if err != nil {
		return nil, err
	}
	if check {
		reason, err := quickCheck(context.Background(), db)
		if err == nil && reason != "" {
			err = &DamagedError{Path: path, Reason: reason}
		}
		if err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := migrate(context.Background(), db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Path returns the file's path.
func (d *DB) Path() string { return d.path }

// CachedBattles returns how many battles' folded states the projector holds
// in memory: the battles it has applied events of that have not ended. It
// is what the projector's memory grows with, not the length of the log.
func (d *DB) CachedBattles() int {
	d.apply.Lock()
	defer d.apply.Unlock()
	return len(d.battles)
}

// Registry returns the registry the projection decodes events with.
func (d *DB) Registry() *events.Registry { return d.reg }

// Close closes the file.
func (d *DB) Close() error {
	d.apply.Lock()
	defer d.apply.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropKept()
	if err := d.db.Close(); err != nil {
		return err
	}
	// Closed cleanly: the next open may skip the quick check (closed.go),
	// unless the file was found damaged meanwhile.
	if !d.hurt.Load() {
		_ = markClosed(d.path)
	}
	return nil
}

// SQL exposes the database for read-only queries of other packages' tests
// and tools. The handle it returns is closed by Swap: ask again after one.
func (d *DB) SQL() *sql.DB {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.db
}

func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("sqlite: migrations table: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("sqlite: migration %s: name must start with its number", base)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
			return fmt.Errorf("sqlite: migrations: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		// Foreign keys are checked when the migration commits, not at
		// each statement: a migration that empties the projection may
		// then delete a campaign before its sides (0002 does).
		if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite: migration %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite: migration %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, v, base); err != nil {
			tx.Rollback()
			return fmt.Errorf("sqlite: migration %s: %w", base, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("sqlite: migration %s: %w", base, err)
		}
	}
	return nil
}

// Checkpoint returns the last log sequence applied.
func (d *DB) Checkpoint(ctx context.Context) (uint64, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	cp, err := d.checkpoint(ctx)
	return cp, d.unreadableErr(err)
}

func (d *DB) checkpoint(ctx context.Context) (uint64, error) {
	var seq uint64
	err := d.db.QueryRowContext(ctx, `SELECT sequence FROM checkpoint WHERE projection = ?`, Name).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: checkpoint: %w", err)
	}
	return seq, nil
}

// ApplyBatch applies evs and moves the checkpoint, in one transaction. An
// event at or below the checkpoint is skipped, so a batch delivered twice
// counts once.
func (d *DB) ApplyBatch(ctx context.Context, evs []events.Envelope) error {
	return d.ApplyPrepared(ctx, d.PrepareBatch(evs))
}

// ApplyPrepared is ApplyBatch of a batch PrepareBatch made
// (projections.Preparer).
func (d *DB) ApplyPrepared(ctx context.Context, pb projections.Prepared) (err error) {
	p := pb.(*prepared)
	evs := p.evs
	if len(evs) == 0 {
		return nil
	}
	defer func() {
		if err = d.unreadableErr(err); diskTrouble(err) {
			err = fmt.Errorf("%w: %w", projections.ErrStorage, err)
		}
	}()
	d.apply.Lock()
	defer d.apply.Unlock()
	d.mu.RLock()
	defer d.mu.RUnlock()
	cp, err := d.checkpoint(ctx)
	if err != nil {
		return err
	}
	sqlTx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	tx := &txw{Tx: sqlTx, d: d, stmts: map[string]*sql.Stmt{}, quiet: context.WithoutCancel(ctx)}
	bt := &batch{touched: map[events.Key]*battleState{}, standings: map[string]int{},
		heads: map[events.Key]*streamHead{}, moved: map[events.Key]bool{}, stopped: map[events.Key]int{}}
	touched := bt.touched
	defer func() {
		if err != nil {
			tx.Rollback()
			// The in-memory states may hold events that were not
			// committed: forget them, they reload from battle_state.
			for k := range touched {
				delete(d.battles, k)
			}
		}
	}()
	if err := d.loadStopped(ctx, tx, bt); err != nil {
		return fmt.Errorf("sqlite: stopped streams: %w", err)
	}
	verified := p.verified
	last := cp
	for i := range evs {
		e := &evs[i]
		if e.Sequence <= last {
			continue
		}
		last = e.Sequence
		key := e.Key()
		if n, ok := bt.stopped[key]; ok {
			bt.stopped[key] = n + 1
			continue
		}
		h, err := d.head(ctx, tx, key, bt)
		if err != nil {
			return fmt.Errorf("sqlite: stream head of %s: %w", key, err)
		}
		var v events.Verified
		if verified != nil {
			v = verified[i]
		}
		if why := d.admit(e, v, h); why != "" {
			if err := d.stop(ctx, tx, e, why, bt); err != nil {
				return fmt.Errorf("sqlite: stop %s: %w", key, err)
			}
			continue
		}
		if err := d.applyEvent(ctx, tx, e, &p.items[i], bt); err != nil {
			return fmt.Errorf("sqlite: event %d (%s %s): %w", e.Sequence, e.Type, e.ID, err)
		}
		h.version, h.hash = e.Version, p.items[i].hash
		bt.moved[key] = true
	}
	if err := writeHeads(ctx, tx, bt); err != nil {
		return fmt.Errorf("sqlite: stream heads: %w", err)
	}
	keys := make([]events.Key, 0, len(touched))
	for k := range touched {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		if err := writeBattle(ctx, tx, k, touched[k]); err != nil {
			return fmt.Errorf("sqlite: battle %s: %w", k, err)
		}
	}
	// Standings and rosters change only when a battle of the campaign
	// has ended (or changes after its end), or a battle joins it.
	if err := markEndedBattles(ctx, tx, bt, keys); err != nil {
		return fmt.Errorf("sqlite: standings: %w", err)
	}
	for _, c := range sortedKeys(bt.standings) {
		if err := d.refreshStandings(ctx, tx, c, bt.standings[c], touched); err != nil {
			return fmt.Errorf("sqlite: standings of %s: %w", c, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoint (projection, sequence) VALUES (?, ?)
		ON CONFLICT (projection) DO UPDATE SET sequence = excluded.sequence`, Name, last); err != nil {
		return fmt.Errorf("sqlite: checkpoint: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	d.keep(ctx, tx.fresh)
	// Keep state in memory for open battles only: an ended battle's state
	// is in battle_state should an event ever follow.
	for _, k := range keys {
		if touched[k].state.Status == rules.StatusEnded {
			delete(d.battles, k)
		}
	}
	d.evictBattles()
	return nil
}

// evictBattles lets the least recently applied battles go past
// maxBattles, down to nine tenths of it (so that a league with more open
// battles than the bound does not sort the cache at every batch). Called
// after a commit: every state it lets go is in battle_state, and is read
// from there again when its battle's next event comes.
func (d *DB) evictBattles() {
	if d.maxBattles <= 0 || len(d.battles) <= d.maxBattles {
		return
	}
	type aged struct {
		key  events.Key
		used uint64
	}
	all := make([]aged, 0, len(d.battles))
	for k, b := range d.battles {
		all = append(all, aged{k, b.used})
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.used, b.used) })
	for _, a := range all[:len(all)-d.maxBattles*9/10] {
		delete(d.battles, a.key)
	}
}

// batch is what one ApplyBatch gathers while applying its events.
type batch struct {
	// touched holds the battles the batch applied events to.
	touched map[events.Key]*battleState
	// standings maps a campaign to the number of its first battle whose
	// standings and rosters must be folded again.
	standings map[string]int
	// heads are the streams' last applied events (moved: changed by the
	// batch); stopped the stopped streams, with how many of their events
	// the batch skipped.
	heads   map[events.Key]*streamHead
	moved   map[events.Key]bool
	stopped map[events.Key]int
}

func (d *DB) applyEvent(ctx context.Context, tx *txw, e *events.Envelope, it *preparedEvent, bt *batch) error {
	if e.Battle == "" {
		return d.applyCampaignEvent(ctx, tx, e, bt)
	}
	return d.applyBattleEvent(ctx, tx, e, it, bt.touched)
}

// txw is a batch's transaction that prepares each statement once: a batch
// runs the same few statements hundreds of times, and preparing them was a
// third of the projector's time. A statement a batch prepared is kept
// prepared on the connection for the batches after it (DB.kept).
type txw struct {
	*sql.Tx
	d     *DB
	stmts map[string]*sql.Stmt
	// fresh are the statements this transaction had to prepare itself.
	fresh []string
	// quiet is the batch's context without its cancellation, which the
	// statements run on (see ExecContext).
	quiet context.Context
}

// ExecContext runs query with args on the transaction's prepared statement
// for query. The statements close with the transaction; the kept ones stay
// prepared on the connection.
func (t *txw) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, ok := t.stmts[query]
	if !ok {
		if kept := t.d.kept[query]; kept != nil {
			st = t.Tx.StmtContext(ctx, kept)
		} else {
			var err error
			if st, err = t.Tx.PrepareContext(ctx, query); err != nil {
				return nil, err
			}
			t.fresh = append(t.fresh, query)
		}
		t.stmts[query] = st
	}
	// A statement run on a context that can be cancelled costs the
	// driver (mattn/go-sqlite3) a goroutine and a channel to watch it:
	// about a tenth of a rebuild's CPU, for statements that take a few
	// microseconds each. The transaction itself was begun on ctx, so a
	// cancellation still rolls it back and the next statement fails; that
	// failure is reported as the cancellation.
	res, err := st.ExecContext(t.quiet, args...)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, err
}

// maxKept bounds the statements kept prepared: the projector's are a few
// dozen fixed texts.
const maxKept = 200

// keep prepares, on the file's one connection and outside any transaction,
// the statements the last batch had to prepare itself, so that the next
// batches reuse them. Called with apply held, after a commit. A statement
// that cannot be kept is prepared again by the next batch.
func (d *DB) keep(ctx context.Context, queries []string) {
	for _, q := range queries {
		if len(d.kept) >= maxKept {
			return
		}
		if st, err := d.db.PrepareContext(ctx, q); err == nil {
			d.kept[q] = st
		}
	}
}

// dropKept closes the kept statements: before the file is closed, leaves
// WAL mode or is swapped. Called with apply held, or d.mu for writing.
func (d *DB) dropKept() {
	for q, st := range d.kept {
		st.Close()
		delete(d.kept, q)
	}
}

// verifyHeads verifies one signature per stream of the batch: its last
// event's. Each event's prev_hash covers the stored bytes of the one
// before it, signature included, and the projection checks that chain
// event by event (admit); the ledger never signs over an event it has not
// verified (campaign.Options.Keys). So a last event whose signature holds
// vouches for the stream's earlier events of the batch, which are taken as
// signed by the key they name. A stream whose last event does not hold has
// every event verified one by one, so a forgery is still named exactly.
// The verified rebuild runs at about four times the speed of verifying
// every event (docs/performance.md).
func verifyHeads(evs []events.Envelope) []events.Verified {
	out := make([]events.Verified, len(evs))
	last := map[events.Key]int{}
	for i := range evs {
		last[evs[i].Key()] = i
	}
	heads := make([]events.Envelope, 0, len(last))
	idx := make([]int, 0, len(last))
	for _, i := range last {
		heads = append(heads, evs[i])
		idx = append(idx, i)
	}
	good := map[events.Key]bool{}
	for j, v := range events.VerifySignatures(heads) {
		out[idx[j]] = v
		good[evs[idx[j]].Key()] = v.Err == nil
	}
	var redo []int
	for i := range evs {
		k := evs[i].Key()
		switch {
		case last[k] == i:
		case good[k] && evs[i].Signer != "" && evs[i].Sig != "":
			out[i] = events.Verified{Key: evs[i].Signer}
		default:
			redo = append(redo, i)
		}
	}
	if len(redo) > 0 {
		sub := make([]events.Envelope, len(redo))
		for j, i := range redo {
			sub[j] = evs[i]
		}
		for j, v := range events.VerifySignatures(sub) {
			out[redo[j]] = v
		}
	}
	return out
}
