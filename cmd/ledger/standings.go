package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/projections/sqlite"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.standingsCommand() })
}

// standingsOutput is what `ledger standings -o json` prints.
type standingsOutput struct {
	sqlite.StandingsView
	Rosters []sqlite.RosterView `json:"rosters"`
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

Read from the projection, brought up to the log's end first
(docs/projections.md).`,
		Example: `  ledger standings f-campaign
  ledger standings f-campaign -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			app, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			if err := app.CatchUp(c.ctx, nil); err != nil {
				return err
			}
			st, err := app.DB.Standings(c.ctx, args[0])
			if err != nil {
				return err
			}
			out := standingsOutput{StandingsView: st, Rosters: []sqlite.RosterView{}}
			for _, s := range st.Sides {
				r, err := app.DB.Roster(c.ctx, st.Campaign, s.Side)
				if err != nil {
					return err
				}
				out.Rosters = append(out.Rosters, r)
			}
			if c.output == "json" {
				return writeJSON(c.stdout, out)
			}
			return c.printStandings(out)
		},
	}
}

func (c *cli) printStandings(out standingsOutput) error {
	w := c.stdout
	fmt.Fprintf(w, "%s %q: %d %s counted\n\n", out.Campaign, out.Name, len(out.Battles), pluralize(len(out.Battles), "battle", "battles"))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "SIDE\tNAME\tPLAYED\tWON\tDRAWN\tLOST\tPOINTS")
	for _, s := range out.Sides {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", s.Side, orDash(s.Name), s.Played, s.Won, s.Drawn, s.Lost, s.Points)
	}
	tw.Flush()
	if len(out.Battles) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		head := []string{"#", "BATTLE", "NAME"}
		for _, s := range out.Sides {
			head = append(head, strings.ToUpper(s.Side))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, b := range out.Battles {
			row := []string{fmt.Sprint(b.Number), b.Battle, orDash(b.Name)}
			for _, s := range b.Sides {
				row = append(row, fmt.Sprintf("%d (%s)", s.Points, s.Result))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	for _, r := range out.Rosters {
		after := "before any battle"
		if r.After != "" {
			after = "after " + r.After
		}
		fmt.Fprintf(w, "\nroster of %s %s: %d %s\n", r.Side, after, len(r.Units), pluralize(len(r.Units), "unit", "units"))
		if len(r.Units) > 0 {
			tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "UNIT\tNAME\tTYPE\tMARKERS\tBATTLES\tLAST")
			for _, u := range r.Units {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s (%s)\n", u.Unit, orDash(u.Name), u.Type, u.Markers, u.Battles, u.Last, u.LastWas)
			}
			tw.Flush()
		}
		if len(r.Destroyed) > 0 {
			fmt.Fprintf(w, "destroyed, gone for good: %s\n", strings.Join(r.Destroyed, ", "))
		}
	}
	return nil
}
