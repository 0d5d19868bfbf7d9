package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.pictureCommand() })
}

func (c *cli) pictureCommand() *cobra.Command {
	var at, charge, review int64
	var file string
	var scale float64
	var noLabels bool
	cmd := &cobra.Command{
		Use:   "picture CAMPAIGN/BATTLE",
		Short: "Draw the battlefield as SVG (--at VERSION), a charge (--charge VERSION), or a decision's review (--review VERSION)",
		Long: `Picture folds the battle's events through the rules engine, as replay does,
and draws the table, terrain, units and generals as SVG: after the event
--at VERSION (default: the last). With --charge VERSION, the event of that
version must be a charge.declared: the picture shows the battle just after the
charge (and the pushes back it caused), the charger before (dashed) and after,
its leader point's path with its turn, and the side of the target it hit.
With --review VERSION, the review of that event (docs/disputes.md): the
battle before and after its command, as corrected beside it when a ruling
corrected it, the geometry that decided it with its numbers, the rules and
the dice under it (ledger review prints the same in words).
-f writes to a file instead of standard output.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := battleArg(args[0])
			if err != nil {
				return err
			}
			if n := countChanged(cmd, "at", "charge", "review"); n > 1 {
				return usagef("--at, --charge and --review: give one")
			}
			if cmd.Flags().Changed("review") {
				return c.reviewPicture(key, review, scale, file)
			}
			q := app.PictureQuery{Version: app.Latest, Scale: scale, NoLabels: noLabels}
			switch {
			case cmd.Flags().Changed("at"):
				if at < 0 {
					return usagef("--at %d: events are numbered from 1 (0: before the first)", at)
				}
				q.Version = uint64(at)
			case cmd.Flags().Changed("charge"):
				if charge < 1 {
					return usagef("--charge %d: events are numbered from 1", charge)
				}
				q.Charge = uint64(charge)
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			out, err := api.Picture(c.ctx, key, q)
			if err != nil {
				return err
			}
			if file == "" || file == "-" {
				_, err = c.stdout.Write(out)
				return err
			}
			return os.WriteFile(file, out, 0o644)
		},
	}
	cmd.Flags().Int64Var(&at, "at", 0, "the event version to draw the battle after (default: the last)")
	cmd.Flags().Int64Var(&charge, "charge", 0, "the version of a charge.declared event to draw")
	cmd.Flags().Int64Var(&review, "review", 0, "the version of an event to review: before and after, as corrected, the geometry that decided it")
	cmd.Flags().StringVarP(&file, "file", "f", "", "write the SVG to this file (default: standard output)")
	cmd.Flags().Float64Var(&scale, "scale", 12, "pixels per inch (or cm) of the table")
	cmd.Flags().BoolVar(&noLabels, "no-labels", false, "leave out names")
	return cmd
}
