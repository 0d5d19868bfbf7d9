package events

import (
	"context"
	"errors"
	"fmt"
)

// ErrGateRefused is what a gated log's refused append wraps, beside the
// reason the gate refused it for.
var ErrGateRefused = errors.New("refused, nothing appended")

// Gate returns log with its appends refused while refuse says why (nothing
// is appended, and the refusal wraps that reason); reads pass. An append
// the store could not answer (ErrUnavailable) is explained by explain, when
// it is set and can say why (a full or failing disk). A ledger gates its
// service's log so (cmd/ledger): refused while the log has lost events its
// projection holds (projections.LostWatch) or its store cannot write.
func Gate(log Log, refuse, explain func() error) Log {
	return gated{Log: log, refuse: refuse, explain: explain}
}

type gated struct {
	Log
	refuse  func() error
	explain func() error
}

func (g gated) Append(ctx context.Context, key Key, expected uint64, batch []Envelope) error {
	if g.refuse != nil {
		if err := g.refuse(); err != nil {
			return fmt.Errorf("%w: %w", ErrGateRefused, err)
		}
	}
	err := g.Log.Append(ctx, key, expected, batch)
	if errors.Is(err, ErrUnavailable) && g.explain != nil {
		if why := g.explain(); why != nil {
			return fmt.Errorf("%w; the cause: %w", err, why)
		}
	}
	return err
}
