package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/events"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.keysCommand() })
}

func (c *cli) keysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "The ledger's signing key",
	}
	cmd.AddCommand(c.keysRotateCommand())
	return cmd
}

func (c *cli) keysRotateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rotate",
		Short: "Replace the signing key: a new key, endorsed in the log by the old one",
		Long: `Replace the ledger's signing key, after its key file was widened or copied
(docs/audit.md, "A key change"):

  1. a new signing key is made (kept in KEYFILE.next, owner-only, until step 3);
  2. a ledger.key_changed event naming it, signed by the old key, is appended
     to every campaign's own stream, so that whoever trusts the old key
     learns the new one (every export of the campaign's battles carries it);
  3. the key file holds the new key, and lists the old one as retired at the
     log's last sequence before the change: its signatures on earlier events
     still verify, and it signs nothing more.

New events are signed by the new key. Exports audit with --key OLD or --key
NEW (the header endorses the new key by the change the old one signed).
The vault key is not changed.

It works on the log itself: stop ledger serve first (and every ledger on the
same NATS stream). Interrupted after step 2, run it again: it records the
same new key, once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			k := a.Keys
			next, err := k.Next(nil)
			if err != nil {
				return err
			}
			listed, err := a.DB.Campaigns(c.ctx)
			if err != nil {
				return err
			}
			ids := make([]string, 0, len(listed))
			for _, l := range listed {
				// A battle imported from another ledger may come without
				// its campaign's own stream: nothing of this ledger's to
				// endorse the new key there.
				head, err := a.Log.Head(c.ctx, events.Key{Campaign: l.ID})
				if err != nil {
					return err
				}
				if head > 0 {
					ids = append(ids, l.ID)
				}
			}
			last, err := a.Log.LastSequence(c.ctx)
			if err != nil {
				return err
			}
			if err := a.Service.ChangeKey(c.ctx, ids, next); err != nil {
				return fmt.Errorf("keys rotate: %w; the key file is unchanged (still key %s): run ledger keys rotate again, it records the same new key %s (kept in %s)",
					err, k.Signer.Fingerprint(), next.Fingerprint(), k.NextPath())
			}
			nk, err := k.RotateTo(last, next)
			if err != nil {
				return fmt.Errorf("keys rotate: the key change to %s is recorded in the log, but the key file could not be written: %w; run ledger keys rotate again (the new key is kept in %s)", next.Fingerprint(), err, k.NextPath())
			}
			fmt.Fprintf(c.stdout, "signing key: %s (new; it signs every event from now on)\n", nk.Signer.Fingerprint())
			fmt.Fprintf(c.stdout, "retired: %s, at log sequence %d (kept in %s to verify the events it signed)\n", events.Fingerprint(k.Signer.KeyHex()), last, nk.Path)
			fmt.Fprintf(c.stdout, "key change recorded on %d campaign streams (ledger.key_changed, signed by %s)\n", len(ids), k.Signer.Fingerprint())
			fmt.Fprintf(c.stdout, "Keep a copy of the new key file apart from the data folder, and publish %s where the club published %s.\n", nk.Signer.Fingerprint(), k.Signer.Fingerprint())
			return nil
		},
	}
}
