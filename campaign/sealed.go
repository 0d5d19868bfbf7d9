package campaign

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// The service's side of sealed flank marches (docs/rules.md F.1, docs/principles.md
// principle 6; docs/flank-marches.md). A flank.declare arrives with its
// orders in the open; the service checks them, seals them with a fresh
// secret salt in the vault under the hex SHA-256 of the sealed text (the
// commitment), and hands the rules the commitment only. When the rules say
// a command needs a march's orders (rules.FlankReveals: its arrival, a
// mutual flank fight, the end of the battle), the service reads them from
// the vault and stamps them on the command. Nothing sealed is ever written
// to the log before the rules reveal it.

// flankSaltBytes is the size of a flank march's secret salt.
const flankSaltBytes = 32

// flankName is where a march's sealed orders are kept: by commitment, so a
// retried or refused declaration never collides with another.
func flankName(key events.Key, commitment string) string {
	return fmt.Sprintf("flank.%s.%s.%s", key.Campaign, key.Battle, commitment)
}

// prepareSealed stamps on a battle command what only the service may
// supply besides the dice (prepare): campaign roster checks, the sealing of
// a flank march's orders and the reveals the rules ask for. It is called
// on every attempt of a command; a command already sealed is left so.
func (s *Service) prepareSealed(ctx context.Context, key events.Key, st *rules.State, cmd rules.Command, dryRun bool) (rules.Command, error) {
	if err := s.checkRoster(ctx, key, cmd); err != nil {
		return nil, err
	}
	if o := rules.FlankOrdersToSeal(cmd); o != nil {
		if r := rules.CheckFlankOrders(st, o); r != nil {
			return nil, r
		}
		var salt [flankSaltBytes]byte
		if !dryRun {
			// A dry run seals nothing: its commitment stands for nothing.
			if _, err := io.ReadFull(s.entropy, salt[:]); err != nil {
				return nil, fmt.Errorf("campaign: flank march salt: %w", err)
			}
		}
		sealed, commitment, err := rules.SealFlankOrders(*o, hex.EncodeToString(salt[:]))
		if err != nil {
			return nil, err
		}
		if !dryRun {
			if err := s.vault.Put(ctx, flankName(key, commitment), []byte(sealed)); err != nil {
				return nil, fmt.Errorf("campaign: seal flank march orders: %w", err)
			}
		}
		cmd = rules.WithFlankCommitment(cmd, commitment)
	}
	for _, c := range rules.FlankReveals(st, cmd) {
		raw, err := s.vault.Get(ctx, flankName(key, c))
		if err != nil {
			return nil, fmt.Errorf("campaign: sealed orders of the flank march committed to %.12s… in %s: %w", c, key, err)
		}
		cmd = rules.WithFlankReveal(cmd, c, string(raw))
	}
	return cmd, nil
}
