package app

import (
	"context"
	"io"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/projections"
)

// operatorOnly refuses what only the operator may do: unauthenticated
// without a token or with one nobody holds, forbidden with a person's.
func (s *Session) operatorOnly(ctx context.Context, what string) error {
	switch {
	case s.c.Operator != "":
		return nil
	case s.c.Token == "" || !s.knownToken(ctx):
		return s.fail(&campaign.Unauthenticated{}, noVars)
	}
	return s.fail(forbidden("%s is the operator's (the ledger's owner or the server's admin token)", what), noVars)
}

// knownToken says whether the caller's token is a person's of some
// campaign: one whose state the service holds (no read), else one of the
// campaigns the projection lists (each folded from the log, as the list
// of campaigns does). A token of a campaign the projection does not list
// yet and the service no longer holds counts as unknown: unauthenticated
// rather than forbidden, refused either way.
func (s *Session) knownToken(ctx context.Context) bool {
	if s.l.opts.Service.KnowsToken(s.c.Token) {
		return true
	}
	all, err := s.l.opts.Read.Campaigns(ctx)
	if err != nil {
		return false
	}
	for _, c := range all {
		if _, err := s.l.opts.Service.Authenticate(ctx, c.ID, s.c.Token); err == nil {
			return true
		}
	}
	return false
}

// Status is the ledger's health (the operator's).
func (s *Session) Status(ctx context.Context) (Status, error) {
	if err := s.operatorOnly(ctx, "the ledger's status"); err != nil {
		return Status{}, err
	}
	if s.l.opts.Admin == nil {
		return Status{}, s.fail(notFound("this ledger has no projection to report on"), noVars)
	}
	st, err := s.l.opts.Admin.Status(ctx)
	if st.ProjectorState != nil {
		// The sentence kept for older clients.
		st.Projector = st.ProjectorState.String()
	}
	return st, s.fail(err, noVars)
}

// RebuildProjection rebuilds the projection (the operator's).
func (s *Session) RebuildProjection(ctx context.Context, opt RebuildOptions) (Rebuilt, error) {
	if err := s.operatorOnly(ctx, "rebuilding the projection"); err != nil {
		return Rebuilt{}, err
	}
	if s.l.opts.Admin == nil {
		return Rebuilt{}, s.fail(notFound("this ledger cannot rebuild its projection"), noVars)
	}
	if opt.Batch < 0 || opt.Batch > projections.MaxBatchSize {
		return Rebuilt{}, s.fail(invalid("%s %d: want 1 to %d events a transaction (0 or none: the default)", "batch", opt.Batch, projections.MaxBatchSize), noVars)
	}
	r, err := s.l.opts.Admin.Rebuild(ctx, opt)
	return r, s.fail(err, noVars)
}

// VerifyProjection compares the projection with a fresh build (the
// operator's).
func (s *Session) VerifyProjection(ctx context.Context, opt VerifyOptions) (Verified, error) {
	if err := s.operatorOnly(ctx, "verifying the projection"); err != nil {
		return Verified{}, err
	}
	if s.l.opts.Admin == nil {
		return Verified{}, s.fail(notFound("this ledger has no projection to verify"), noVars)
	}
	v, err := s.l.opts.Admin.Verify(ctx, opt)
	return v, s.fail(err, noVars)
}

// MayBackup says whether the caller may have a backup written (the
// operator's, on a ledger that can write one), before anything is sent:
// the refusal names the backup.
func (s *Session) MayBackup(ctx context.Context) error {
	if err := s.operatorOnly(ctx, "a backup"); err != nil {
		return err
	}
	if s.l.opts.Admin == nil {
		return s.fail(notFound("this ledger cannot write a backup"), noVars)
	}
	return nil
}

// Backup writes the log and the vault to w (the operator's).
func (s *Session) Backup(ctx context.Context, w io.Writer) (BackedUp, error) {
	if err := s.MayBackup(ctx); err != nil {
		return BackedUp{}, err
	}
	b, err := s.l.opts.Admin.Backup(ctx, w)
	return b, s.fail(err, noVars)
}
