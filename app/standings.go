package app

import (
	"context"
	"errors"

	"github.com/clubledger/ledger/projections"
)

// Standings are a campaign's standings and each side's roster for its next
// battle. Source: the projection (its standings, battle_results, rosters and
// roster_destroyed rows), with its checkpoint read in the same transaction;
// commands wait for the projection (Options.Projected), so whoever ended a
// battle sees it counted. What a correction after a battle's end changed
// (each battle's Rescores) is the log's: folded by the service only when
// the projection holds a counted battle with a dispute upheld with
// corrections. A campaign the projection does not hold yet (its projector
// behind the campaign's creation) is folded from the log, and says so.
// Who may read them is unchanged: the campaign exists in the log, and the
// caller is the operator or one of its people.
func (s *Session) Standings(ctx context.Context, id string) (Standings, error) {
	if _, err := s.principal(ctx, id); err != nil {
		return Standings{}, s.fail(err, noVars)
	}
	if c, err := s.l.opts.Service.Campaign(ctx, id); err != nil || !c.Exists() {
		return Standings{}, s.fail(errors.Join(err, notFound("no campaign %s", id)), noVars)
	}
	v, err := s.l.opts.Read.CampaignStandings(ctx, id)
	if errors.Is(err, projections.ErrNotFound) {
		seq, err := s.l.opts.Log.LastSequence(ctx)
		if err != nil {
			return Standings{}, s.fail(err, noVars)
		}
		st, err := s.l.opts.Service.Standings(ctx, id)
		return Standings{Standings: st, Source: StandingsLog, Sequence: seq}, s.fail(err, noVars)
	}
	if err != nil {
		return Standings{}, s.fail(err, noVars)
	}
	if len(v.Corrected) > 0 {
		folded, err := s.l.opts.Service.Standings(ctx, id)
		if err != nil {
			return Standings{}, s.fail(err, noVars)
		}
		for i := range v.Battles {
			for _, b := range folded.Battles {
				if b.Battle == v.Battles[i].Battle {
					v.Battles[i].Rescores = b.Rescores
				}
			}
		}
	}
	return Standings{Standings: v.Standings, Source: StandingsProjection, Sequence: v.Sequence}, nil
}
