package campaign

import (
	"context"
	"errors"
	"fmt"

	"github.com/clubledger/ledger/events"
)

// ChangeKey records on each campaign's own stream that the ledger's signing
// key changes to next (events.KeyChangedType): each event is signed by the
// key the service signs with now, the old one, so whoever trusts it can
// trust next, and every export of the campaign's battles carries the
// change (docs/audit.md). Run it with the ledger stopped everywhere but
// here, then start it again with the new key file (keys.Keys.Rotate).
// Running it again appends nothing new: each campaign answers with the
// change it recorded.
func (s *Service) ChangeKey(ctx context.Context, campaigns []string, next *events.Signer) error {
	if s.signer == nil {
		return errors.New("campaign: change key: the service signs with no key")
	}
	if next == nil || next.KeyHex() == s.signer.KeyHex() {
		return errors.New("campaign: change key: the new key is the current one")
	}
	change := events.KeyChanged{From: s.signer.KeyHex(), To: next.KeyHex()}
	for _, c := range campaigns {
		key := events.Key{Campaign: c}
		if err := key.Validate(); err != nil {
			return err
		}
		req := Request{ID: "key-change-" + next.Fingerprint(), Principal: Operator(""), Campaign: c, Name: "ledger.change_key"}
		_, err := s.run(ctx, key, call{Request: req, as: req.Principal, hash: requestHash(req)}, func(st *stream) ([]pending, error) {
			if !st.campaign.Exists() {
				return nil, fmt.Errorf("campaign: change key: no campaign %q", c)
			}
			return []pending{{typ: events.KeyChangedType, audience: events.AudienceAll, payload: change}}, nil
		})
		if err != nil {
			return fmt.Errorf("campaign: change key on %s: %w", c, err)
		}
	}
	return nil
}
