package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/events"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.oddsCommand() })
}

func (c *cli) oddsCommand() *cobra.Command {
	var general, action, special string
	var units []string
	cmd := &cobra.Command{
		Use:   "odds CAMPAIGN/BATTLE --general G --units U1,U2 [--action move] [--special follow_me|steady]",
		Short: "The exact chance of each outcome of a proposed order, before rolling (C.3, C.5, C.7, C.13, C.14)",
		Long: `Odds works out, for an order a general could give now, the modifiers to his
rating and the exact probability of each outcome: failure, blunder, and each
number of actions (or success for "Follow me!" and "Steady!"), by reading
every one of the 36 faces of 2D6 with the same code that decides the order.
Nothing is rolled or appended.`,
		Example: `  ledger odds demo-1809/eggmuhl --general friant --units 48-ligne`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
			}
			q := app.OddsQuery{General: general, Units: units, Special: special}
			if special == "" {
				q.Action = action
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			res, err := api.Odds(c.ctx, events.Key{Campaign: camp, Battle: battle}, q)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, res)
			}
			w := c.words()
			var mods []string
			for i, m := range res.Modifiers {
				reason := m.Reason
				if i < len(res.ReasonsSaid) {
					reason = res.ReasonsSaid[i] // said by the door in the language
				}
				mods = append(mods, fmt.Sprintf("%s %+d (%s)", m.Rule, m.Value, reason))
			}
			if len(mods) == 0 {
				mods = []string{w.t("odds.no_modifiers")}
			}
			fmt.Fprintf(c.stdout, "%s\n\n", w.t("odds.title", "general", res.General, "units", strings.Join(res.Units, ", "), "dice", res.Dice,
				"rating", res.BaseRating, "modifiers", strings.Join(mods, "; "), "effective", res.Effective))
			tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, w.t("odds.head"))
			for _, o := range res.Outcomes {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%5s%%\t\n", w.term("outcome", o.Outcome), o.Actions, o.Fraction, w.fixed(100*o.Probability, 1))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&general, "general", "", "the general who would give the order")
	cmd.Flags().StringSliceVar(&units, "units", nil, "the units he would order")
	cmd.Flags().StringVar(&action, "action", "move", "move, formation or charge")
	cmd.Flags().StringVar(&special, "special", "", `"follow_me" (C.13) or "steady" (C.14) instead of an ordinary order`)
	_ = cmd.MarkFlagRequired("general")
	_ = cmd.MarkFlagRequired("units")
	return cmd
}
