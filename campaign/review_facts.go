package campaign

import (
	"context"
	"fmt"
	"slices"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// The facts a dispute.uphold is decided on (docs/disputes.md): the rules
// correct the disputed command itself (an order resolved again, moves
// undone, a flank march) from the battle's log, which only the service
// reads, and a rescore names the campaign's later battles that have
// started, which it does not rewrite. The service stamps them on the
// command (rules.WithDisputeFacts), as it stamps dice seeds.

// upholdFacts stamps on c the battle's log up to st's position (envs),
// the versions of the disputed event's command and, for an ended battle,
// the later battles of the campaign that have started.
func (s *Service) upholdFacts(ctx context.Context, st *stream, c *rules.UpholdDispute, envs []events.Envelope) (rules.Command, error) {
	f := &rules.DisputeFacts{Log: make([]rules.Event, 0, len(envs))}
	for i, e := range envs {
		if e.Version != uint64(i+1) {
			return nil, fmt.Errorf("campaign: %s: event %d has version %d: the log is out of order", st.key, i+1, e.Version)
		}
		ev, err := decodeBattle(e)
		if err != nil {
			return nil, err
		}
		f.Log = append(f.Log, ev)
	}
	if n := len(envs); n > 0 {
		f.Last = envs[n-1].Version
	}
	var disputed uint64
	for _, d := range st.battle.Disputes.Disputes {
		if d.N == c.Dispute {
			disputed = d.EventVersion
		}
	}
	if disputed >= 1 && int(disputed) <= len(envs) {
		id := envs[disputed-1].CommandID
		f.First, f.End = disputed, disputed
		for f.First > 1 && envs[f.First-2].CommandID == id {
			f.First--
		}
		for int(f.End) < len(envs) && envs[f.End].CommandID == id {
			f.End++
		}
	}
	if st.battle.Status == rules.StatusEnded {
		later, err := s.startedAfter(ctx, st.key)
		if err != nil {
			return nil, err
		}
		f.Successors = later
	}
	return rules.WithDisputeFacts(c, f), nil
}

// startedAfter lists the battles of key's campaign after key's battle that
// have started (or ended), read without the cache: a command holds its own
// battle's lock.
func (s *Service) startedAfter(ctx context.Context, key events.Key) ([]string, error) {
	c, err := s.Campaign(ctx, key.Campaign)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(c.Battles, func(b BattleAdded) bool { return b.Battle == key.Battle })
	if i < 0 {
		return nil, nil
	}
	var out []string
	for _, b := range c.Battles[i+1:] {
		evs, err := s.battleEvents(ctx, events.Key{Campaign: key.Campaign, Battle: b.Battle})
		if err != nil {
			return nil, err
		}
		st := rules.NewState()
		for _, e := range evs {
			rules.Apply(st, e)
		}
		if st.Status == rules.StatusInProgress || st.Status == rules.StatusEnded {
			out = append(out, b.Battle)
		}
	}
	return out, nil
}
