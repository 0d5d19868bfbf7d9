package sqlite

import (
	"context"
	"database/sql"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

// The projector applies a batch in two stages (projections.Preparer): what
// depends on the events alone is prepared first, on a goroutine of its own
// while the batch before is being applied; what depends on the projection's
// state (each stream's head, the battles' folded states, the stopped
// streams) and the writes are applied after, in one transaction. Preparing
// is about a third of the projector's work: decoding each payload, hashing
// each stored event, checking the batch's signatures, and making the rows
// each event adds to the history tables (docs/performance.md).

var _ projections.Preparer = (*DB)(nil)

// prepared is a batch PrepareBatch made.
type prepared struct {
	evs []events.Envelope
	// verified are the signatures' checks (verifyHeads), nil without keys.
	verified []events.Verified
	// items are the events prepared, one for each of evs.
	items []preparedEvent
}

func (p *prepared) Events() []events.Envelope { return p.evs }

// preparedEvent is one event of a batch, prepared.
type preparedEvent struct {
	// hash is the hash of the stored event, the stream's head once applied.
	hash string
	// ev is a battle event decoded (after upcasting), or err why it could
	// not be: reported only if the event is to be applied, so that an
	// event of a stopped stream is skipped as before.
	ev  rules.Event
	err error
	// rows are the writes the event adds to the history tables
	// (insertEventRows, insertDisputeRows), made in this order when it is
	// applied.
	rows []row
}

// row is one statement with its arguments, made when applied.
type row struct {
	query string
	args  []any
}

// execer runs a statement: a batch's transaction (txw), or recorded, which
// keeps it to be run later.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// recorded keeps statements to be run when the event is applied.
type recorded []row

func (r *recorded) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	*r = append(*r, row{query: query, args: args})
	return nil, nil
}

// PrepareBatch prepares evs (projections.Preparer): it reads nothing of the
// projection, so it runs while an earlier batch is applied.
func (d *DB) PrepareBatch(evs []events.Envelope) projections.Prepared {
	p := &prepared{evs: evs, items: make([]preparedEvent, len(evs))}
	if d.keys != nil {
		p.verified = verifyHeads(evs)
	}
	for i := range evs {
		e := &evs[i]
		it := &p.items[i]
		it.hash = events.Hash(e.Raw)
		if e.Battle == "" {
			continue // campaign events are few, and decoded when applied
		}
		payload, err := d.reg.Upcast(e)
		if err != nil {
			it.err = err
			continue
		}
		if it.ev, it.err = rules.DecodeEvent(e.Type, payload); it.err != nil {
			continue
		}
		var rs recorded
		if rules.IsDisputeEvent(e.Type) {
			it.err = insertDisputeRows(context.Background(), &rs, e, it.ev)
		} else {
			it.err = insertEventRows(context.Background(), &rs, e, it.ev)
		}
		it.rows = rs
	}
	return p
}
