package campaign

import (
	"context"
	"errors"
	"fmt"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// The service's side of retractions and disputes (docs/disputes.md). The
// rules decide a command.retract_request and a dispute.raise on facts only
// the log holds: who gave a command, its events and versions, what came
// after it, the state just before it, the type of a disputed event. The
// service reads them from the log and stamps them on the command
// (rules.WithRetractFacts, rules.WithDisputeFacts) as it stamps dice seeds.

// disputeFacts stamps on cmd what the log says, read up to st's position
// (the state the command is decided on). Other commands are unchanged.
func (s *Service) disputeFacts(ctx context.Context, st *stream, req call, cmd rules.Command) (rules.Command, error) {
	switch c := cmd.(type) {
	case *rules.RequestRetract, *rules.RaiseDispute, *rules.AgreeRetract, *rules.DeclineRetract, *rules.UpholdDispute:
	default:
		return c, nil
	}
	evs, err := s.readUpTo(ctx, st)
	if err != nil {
		return nil, err
	}
	switch c := cmd.(type) {
	case *rules.AgreeRetract:
		return c, s.authorizeRetraction(ctx, req.as, req.Name, c.Request, evs, req.Campaign)
	case *rules.DeclineRetract:
		return c, s.authorizeRetraction(ctx, req.as, req.Name, c.Request, evs, req.Campaign)
	case *rules.RequestRetract:
		f, err := retractFacts(evs, c.CommandID, req.as.Player)
		if err != nil {
			return nil, err
		}
		return rules.WithRetractFacts(c, f), nil
	case *rules.UpholdDispute:
		return s.upholdFacts(ctx, st, c, evs) // review_facts.go
	case *rules.RaiseDispute:
		f := &rules.DisputeFacts{}
		if n := len(evs); n > 0 {
			f.Last = evs[n-1].Version
		}
		for _, e := range evs {
			if e.Version == c.EventVersion {
				f.EventType = e.Type
			}
		}
		return rules.WithDisputeFacts(c, f), nil
	}
	return cmd, nil
}

// readUpTo reads the stream's events up to the cached state's position.
func (s *Service) readUpTo(ctx context.Context, st *stream) ([]events.Envelope, error) {
	if st.last == nil {
		return nil, nil
	}
	evs, err := s.log.Read(ctx, st.key, 0)
	if err != nil {
		return nil, fmt.Errorf("campaign: read %s: %w", st.key, err)
	}
	for i, e := range evs {
		if e.Sequence > st.last.Sequence {
			return evs[:i], nil
		}
	}
	return evs, nil
}

// retractFacts reads, from a battle's events in order, what the rules need
// to judge requester's request to take back command id.
func retractFacts(evs []events.Envelope, id, requester string) (*rules.RetractFacts, error) {
	f := &rules.RetractFacts{Requester: requester}
	first, last := -1, -1
	for i, e := range evs {
		if e.CommandID == id {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return f, nil
	}
	f.Before = rules.NewState()
	for i := 0; i < first; i++ {
		ev, err := decodeBattle(evs[i])
		if err != nil {
			return nil, err
		}
		rules.Apply(f.Before, ev)
	}
	f.Actor = evs[first].Author()
	for i := first; i <= last; i++ {
		ev, err := decodeBattle(evs[i])
		if err != nil {
			return nil, err
		}
		f.Versions = append(f.Versions, evs[i].Version)
		f.Events = append(f.Events, ev)
	}
	if last+1 < len(evs) {
		f.Next = evs[last+1].Version
	}
	// A later command of the same actor, unless it only asked for
	// retractions or raised disputes.
	changed := map[string]bool{}
	var order []string
	for _, e := range evs[last+1:] {
		if e.Type == rules.EvDiceRolled {
			f.RolledSince = append(f.RolledSince, e.Version)
		}
		if e.Author() != f.Actor || e.CommandID == id {
			continue
		}
		if _, seen := changed[e.CommandID]; !seen {
			order = append(order, e.CommandID)
			changed[e.CommandID] = false
		}
		if !rules.IsDisputeEvent(e.Type) {
			changed[e.CommandID] = true
		}
	}
	for _, c := range order {
		if changed[c] {
			f.Later = c
			break
		}
	}
	return f, nil
}

func decodeBattle(e events.Envelope) (rules.Event, error) {
	payload, err := Registry().Upcast(&e)
	if err != nil {
		return nil, fmt.Errorf("campaign: %s: %w", e.ID, err)
	}
	ev, err := rules.DecodeEvent(e.Type, payload)
	if err != nil {
		return nil, fmt.Errorf("campaign: event %s: %w", e.ID, err)
	}
	return ev, nil
}

// SealedOrders returns the sealed orders of st's unrevealed flank marches
// that p may see (their own side's; the umpire every one), by commitment,
// for rules.State.WithSealedOrders. Use it for a state at any version of
// the battle: a march's commitment never changes.
func (s *Service) SealedOrders(ctx context.Context, key events.Key, st *rules.State, p Principal) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range st.Flank.Marches {
		if m.RevealedAt != "" || !(p.Umpires() || (p.Role == RolePlayer && p.Side == m.Side)) {
			continue
		}
		raw, err := s.vault.Get(ctx, flankName(key, m.Commitment))
		if errors.Is(err, events.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("campaign: sealed orders of flank march %d: %w", m.N, err)
		}
		out[m.Commitment] = string(raw)
	}
	return out, nil
}

// View returns st, a state of key's battle at any version, as p may see it
// (docs/principles.md principle 6): the sealed orders of p's own side's unrevealed
// flank marches attached (all of them for an umpire), everything else not
// yet revealed left out (rules.State.ViewFor). Every state a query shows
// goes through it.
func (s *Service) View(ctx context.Context, key events.Key, st *rules.State, p Principal) (*rules.State, error) {
	sealed, err := s.SealedOrders(ctx, key, st, p)
	if err != nil {
		return nil, err
	}
	side, umpire := ViewSide(p)
	return st.WithSealedOrders(sealed).ViewFor(side, umpire), nil
}
