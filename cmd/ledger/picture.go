package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/web"
	"github.com/clubledger/ledger/picture"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.pictureCommand() })
}

func (c *cli) pictureCommand() *cobra.Command {
	var at, charge int64
	var file string
	var scale float64
	var noLabels bool
	cmd := &cobra.Command{
		Use:   "picture CAMPAIGN/BATTLE",
		Short: "Draw the battlefield as SVG (--at VERSION), or a charge (--charge VERSION)",
		Long: `Picture folds the battle's events through the rules engine, as replay does,
and draws the table, terrain, units and generals as SVG: after the event
--at VERSION (default: the last). With --charge VERSION, the event of that
version must be a charge.declared: the picture shows the battle just after the
charge (and the pushes back it caused), the charger before (dashed) and after,
its leader point's path with its turn, and the side of the target it hit.
-f writes to a file instead of standard output.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("at") && cmd.Flags().Changed("charge") {
				return usagef("--at and --charge: give one")
			}
			app, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			key := events.Key{Campaign: camp, Battle: battle}
			tl, err := projections.LoadTimeline(c.ctx, app.Log, key, app.DB.Registry(), projections.TimelineOptions{})
			if err != nil {
				return err
			}
			if tl.Len() == 0 {
				return fmt.Errorf("battle %s: no events", key)
			}
			opt := picture.Options{Scale: scale, NoLabels: noLabels}
			v := tl.Len()
			switch {
			case cmd.Flags().Changed("at"):
				if at < 0 || uint64(at) > tl.Len() {
					return usagef("--at %d: battle %s has events 1 to %d (0: before the first)", at, key, tl.Len())
				}
				v = uint64(at)
			case cmd.Flags().Changed("charge"):
				if charge < 1 || uint64(charge) > tl.Len() {
					return usagef("--charge %d: battle %s has events 1 to %d", charge, key, tl.Len())
				}
				opt.Charge, v, err = web.ChargeOverlay(tl, uint64(charge))
				if errors.Is(err, web.ErrNotCharge) {
					return usagef("--charge %d: %v", charge, err)
				}
				if err != nil {
					return err
				}
			}
			s, err := tl.At(v)
			if err != nil {
				return err
			}
			if opt.Charge != nil {
				opt.Title = fmt.Sprintf("%s: %s charges %s (event %d)", s.Name, opt.Charge.Unit, opt.Charge.Target, charge)
			} else {
				opt.Title = fmt.Sprintf("%s: turn %d, after event %d", s.Name, s.Turn, v)
			}
			out := picture.Render(s, opt)
			if file == "" || file == "-" {
				_, err = c.stdout.Write(out)
				return err
			}
			return os.WriteFile(file, out, 0o644)
		},
	}
	cmd.Flags().Int64Var(&at, "at", 0, "the event version to draw the battle after (default: the last)")
	cmd.Flags().Int64Var(&charge, "charge", 0, "the version of a charge.declared event to draw")
	cmd.Flags().StringVarP(&file, "file", "f", "", "write the SVG to this file (default: standard output)")
	cmd.Flags().Float64Var(&scale, "scale", 12, "pixels per inch (or cm) of the table")
	cmd.Flags().BoolVar(&noLabels, "no-labels", false, "leave out names")
	return cmd
}
