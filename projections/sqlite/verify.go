package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
)

// The projector applies an event only if the ledger wrote it: signed by
// one of its keys (Options.Keys, from the key file) and following its
// stream's last applied event (stream_heads). Otherwise the stream stops
// there (stopped_streams, projections.Stopped): that event and the
// stream's later ones are not applied, and the rest of the log goes on.

// streamHead is a stream's last applied event.
type streamHead struct {
	version uint64
	hash    string
}

// head returns key's last applied event, from the batch or the table.
func (d *DB) head(ctx context.Context, tx *txw, key events.Key, bt *batch) (*streamHead, error) {
	if h, ok := bt.heads[key]; ok {
		return h, nil
	}
	h := &streamHead{}
	err := tx.QueryRowContext(ctx, `SELECT version, hash FROM stream_heads WHERE campaign = ? AND battle = ?`, key.Campaign, key.Battle).
		Scan(&h.version, &h.hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	bt.heads[key] = h
	return h, nil
}

// loadStopped reads the stopped streams into bt (once per batch: they are few).
func (d *DB) loadStopped(ctx context.Context, tx *txw, bt *batch) error {
	rows, err := tx.QueryContext(ctx, `SELECT campaign, battle FROM stopped_streams`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k events.Key
		if err := rows.Scan(&k.Campaign, &k.Battle); err != nil {
			return err
		}
		bt.stopped[k] = 0
	}
	return rows.Err()
}

// admit says why e may not be applied ("" when it may): not signed by the
// ledger (only with Options.Keys), or not following its stream's head.
func (d *DB) admit(e *events.Envelope, v events.Verified, h *streamHead) string {
	if d.keys != nil {
		if _, err := d.keys.Admit(e, v); err != nil {
			var ns *events.NotSignedError
			if errors.As(err, &ns) {
				return "not signed by the ledger: " + ns.Reason
			}
			return err.Error()
		}
		if e.Version != h.version+1 || e.PrevHash != h.hash {
			return fmt.Sprintf("it does not follow the stream's last event (v%d): version %d, prev_hash %.12s…, where %d and %.12s… were expected (replayed, or chained by someone else)",
				h.version, e.Version, e.PrevHash, h.version+1, h.hash)
		}
	}
	return ""
}

// stop records that key's stream stopped at e.
func (d *DB) stop(ctx context.Context, tx *txw, e *events.Envelope, reason string, bt *batch) error {
	key := e.Key()
	bt.stopped[key] = 0
	_, err := tx.ExecContext(ctx, `INSERT INTO stopped_streams (campaign, battle, sequence, version, event_id, event_type, reason, skipped)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0)`, key.Campaign, key.Battle, e.Sequence, e.Version, e.ID, e.Type, reason)
	return err
}

// writeHeads stores the heads the batch moved, and counts the events it
// skipped on stopped streams.
func writeHeads(ctx context.Context, tx *txw, bt *batch) error {
	keys := make([]events.Key, 0, len(bt.moved))
	for k := range bt.moved {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		h := bt.heads[k]
		if _, err := tx.ExecContext(ctx, `INSERT INTO stream_heads (campaign, battle, version, hash) VALUES (?, ?, ?, ?)
			ON CONFLICT (campaign, battle) DO UPDATE SET version = excluded.version, hash = excluded.hash`,
			k.Campaign, k.Battle, h.version, h.hash); err != nil {
			return err
		}
	}
	for k, n := range bt.stopped {
		if n == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE stopped_streams SET skipped = skipped + ? WHERE campaign = ? AND battle = ?`, n, k.Campaign, k.Battle); err != nil {
			return err
		}
	}
	return nil
}

// Stopped returns every stream the projector stopped, battles first by
// key, then campaigns (projections.Stopped says why and what to do).
func (d *DB) Stopped(ctx context.Context) ([]projections.Stopped, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	rows, err := d.db.QueryContext(ctx, `SELECT campaign, battle, sequence, version, event_id, event_type, reason, skipped
		FROM stopped_streams ORDER BY battle = '', campaign, battle`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: stopped streams: %w", err)
	}
	defer rows.Close()
	out := []projections.Stopped{}
	for rows.Next() {
		var s projections.Stopped
		if err := rows.Scan(&s.Campaign, &s.Battle, &s.Sequence, &s.Version, &s.EventID, &s.Type, &s.Reason, &s.Skipped); err != nil {
			return nil, fmt.Errorf("sqlite: stopped streams: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// StoppedAt returns why key's stream stopped, or nil when it did not.
func (d *DB) StoppedAt(ctx context.Context, key events.Key) (*projections.Stopped, error) {
	all, err := d.Stopped(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.Campaign == key.Campaign && s.Battle == key.Battle {
			return &s, nil
		}
	}
	return nil, nil
}

// Keys returns the ledger's keys the projection verifies with (nil: none):
// a rebuild of it (Build) takes the same.
func (d *DB) Keys() *events.Keyring { return d.keys }
