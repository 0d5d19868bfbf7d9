package main

import (
	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.replayCommand() })
}

func (c *cli) replayCommand() *cobra.Command {
	var at int64
	cmd := &cobra.Command{
		Use:   "replay CAMPAIGN/BATTLE",
		Short: "Show a battle as it stood just after one of its events (--at VERSION)",
		Long: `Replay reads the battle's events from the log and folds them through the
rules engine (the same rules.Apply as the live ledger, never rolling a die)
up to the event whose version is --at: the state just after it, as you may
see it, and that event in words. --at 0 is the empty state before the first
event; without --at, the last event.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := battleArg(args[0])
			if err != nil {
				return err
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			v := app.Latest
			if cmd.Flags().Changed("at") {
				if at < 0 {
					return usagef("%s", c.words().t("usage_at", "at", at))
				}
				v = uint64(at)
			}
			b, err := api.Replay(c.ctx, key, v)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, b)
			}
			event := ""
			if e := b.Event; e != nil {
				w := c.words()
				event = w.t("replay.event", "version", e.Version, "seq", e.Seq, "type", e.Type, "actor", w.actor(e.Actor, e.OnBehalfOf),
					"time", e.Time.UTC().Format("2006-01-02 15:04:05"), "what", e.Description)
			}
			return c.printBoard(b, event)
		},
	}
	cmd.Flags().Int64Var(&at, "at", 0, "the event version to stop after (default: the last)")
	return cmd
}
