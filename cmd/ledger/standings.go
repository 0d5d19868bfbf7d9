package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/campaign"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.standingsCommand() })
}

func (c *cli) standingsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "standings CAMPAIGN",
		Short: "Show a campaign's standings and each side's roster for its next battle",
		Long: `Standings sums each side's victory points over the campaign's ended battles
(V.4): a side won a battle with strictly the most points, drew when the most
points are shared, and lost otherwise. Each side's roster is what it has for
its next battle (V.3): units keep their casualty markers, destroyed units are
gone, flank marchers that took no part are back with no losses.

Folded from the log by the service, with the same fold step the projection
uses (docs/projections.md).`,
		Example: `  ledger standings f-campaign
  ledger standings f-campaign -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			st, err := api.Standings(c.ctx, args[0])
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, st)
			}
			return c.printStandings(st)
		},
	}
}

func (c *cli) printStandings(st campaign.Standings) error {
	w := c.stdout
	var counted []campaign.BattleResult
	for _, b := range st.Battles {
		if len(b.Points) > 0 {
			counted = append(counted, b)
		}
	}
	fmt.Fprintf(w, "%s %q: %d %s counted\n\n", st.Campaign, st.Name, len(counted), pluralize(len(counted), "battle", "battles"))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "SIDE\tNAME\tPLAYED\tWON\tDRAWN\tLOST\tPOINTS")
	for _, s := range st.Sides {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", s.Side, orDash(s.Name), s.Played, s.Won, s.Drawn, s.Lost, s.Points)
	}
	tw.Flush()
	if len(counted) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		head := []string{"#", "BATTLE", "NAME"}
		for _, s := range st.Sides {
			head = append(head, strings.ToUpper(s.Side))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, b := range counted {
			row := []string{fmt.Sprint(b.Number), b.Battle, orDash(b.Name)}
			for _, s := range b.Points {
				row = append(row, fmt.Sprintf("%d (%s)", s.Points, s.Result))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	after := "before any battle"
	if n := len(counted); n > 0 {
		after = "after " + counted[n-1].Battle
	}
	for _, r := range st.Rosters {
		fmt.Fprintf(w, "\nroster of %s %s: %d %s\n", r.Side, after, len(r.Units), pluralize(len(r.Units), "unit", "units"))
		if len(r.Units) > 0 {
			tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "UNIT\tNAME\tTYPE\tMARKERS\tBATTLES\tLAST")
			for _, u := range r.Units {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s (%s)\n", u.ID, orDash(u.Name), u.Type, u.Markers, u.Battles, orDash(u.Last), u.LastWas)
			}
			tw.Flush()
		}
		if len(r.Destroyed) > 0 {
			fmt.Fprintf(w, "destroyed, gone for good: %s\n", strings.Join(r.Destroyed, ", "))
		}
	}
	return nil
}
