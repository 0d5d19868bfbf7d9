package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Tables lists the projection's tables, in the order they are compared.
var Tables = []string{
	"checkpoint", "campaigns", "campaign_sides", "campaign_battles",
	"battles", "battle_state", "battle_sides", "brigades", "units", "generals",
	"unit_turns", "general_turns", "orders", "rolls", "unit_actions", "dice_periods", "dice_seeds",
	"players", "flank_marches", "objectives", "victory_points", "victory_excluded", "disputes", "retractions",
	"standings", "battle_results", "rosters", "roster_destroyed",
	"stream_heads", "stopped_streams",
}

// TableDigest is one table's row count and a hash of its rows in primary
// key order.
type TableDigest struct {
	Table string `json:"table"`
	Rows  int    `json:"rows"`
	Hash  string `json:"hash"`
}

// Digest summarises every table so that two databases can be compared
// table by table without holding them in memory.
func (d *DB) Digest(ctx context.Context) ([]TableDigest, error) {
	// A damaged page of a table the digest reads is an error of SQLite's
	// there; one of an index, or one the connection has in its cache, is
	// not: the quick check, on the file as it is, finds every one.
	if err := d.Check(ctx); err != nil {
		return nil, err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]TableDigest, 0, len(Tables))
	for _, t := range Tables {
		td, err := d.digestTable(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, td)
	}
	return out, nil
}

func (d *DB) digestTable(ctx context.Context, table string) (TableDigest, error) {
	cols, err := d.columns(ctx, table)
	if err != nil {
		return TableDigest{}, err
	}
	// Every column, in declaration order, ordered by all of them: a total
	// order that does not depend on rowids or insertion order.
	q := fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", strings.Join(cols, ", "), table, strings.Join(cols, ", "))
	rows, err := d.db.QueryContext(ctx, q)
	if unreadable(err) {
		return TableDigest{}, &DamagedError{Path: d.path, Reason: fmt.Sprintf("table %s: %v", table, err)}
	}
	if err != nil {
		return TableDigest{}, fmt.Errorf("sqlite: digest %s: %w", table, err)
	}
	defer rows.Close()
	h := sha256.New()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	td := TableDigest{Table: table}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return td, err
		}
		for _, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			fmt.Fprintf(h, "%T:%v\x1f", v, v)
		}
		h.Write([]byte{0x1e})
		td.Rows++
	}
	if err := rows.Err(); unreadable(err) {
		return td, &DamagedError{Path: d.path, Reason: fmt.Sprintf("table %s: %v", table, err)}
	} else if err != nil {
		return td, err
	}
	td.Hash = hex.EncodeToString(h.Sum(nil))
	return td, nil
}

func (d *DB) columns(ctx context.Context, table string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("sqlite: no table %s", table)
	}
	return cols, rows.Err()
}

// Difference is one table that differs between two databases.
type Difference struct {
	Table      string `json:"table"`
	Rows, Want int    `json:"-"`
	Detail     string `json:"detail"`
}

// Compare returns the tables whose content differs between d and want.
func (d *DB) Compare(ctx context.Context, want *DB) ([]Difference, error) {
	got, err := d.Digest(ctx)
	if err != nil {
		return nil, err
	}
	exp, err := want.Digest(ctx)
	if err != nil {
		return nil, err
	}
	var diffs []Difference
	for i := range got {
		g, w := got[i], exp[i]
		if g.Hash != w.Hash {
			diffs = append(diffs, Difference{Table: g.Table, Rows: g.Rows, Want: w.Rows,
				Detail: fmt.Sprintf("%s: %d rows (hash %.12s) where the rebuild has %d rows (hash %.12s)", g.Table, g.Rows, g.Hash, w.Rows, w.Hash)})
		}
	}
	return diffs, nil
}
