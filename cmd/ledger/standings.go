package main

import (
	"fmt"
	"strconv"
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

Read from the projection, with the log sequence it holds (in -o json:
source and sequence); the projection folds them with the service's own fold
step (docs/projections.md).`,
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
			return c.printStandings(st.Standings)
		},
	}
}

func (c *cli) printStandings(st campaign.Standings) error {
	out, wd := c.stdout, c.words()
	var counted []campaign.BattleResult
	for _, b := range st.Battles {
		if len(b.Points) > 0 {
			counted = append(counted, b)
		}
	}
	fmt.Fprintf(out, "%s\n\n", wd.t("standings.title", "campaign", st.Campaign, "name", st.Name, "qname", strconv.Quote(st.Name), "n", len(counted)))
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, wd.t("standings.sides_head"))
	for _, s := range st.Sides {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", s.Side, orDash(s.Name), s.Played, s.Won, s.Drawn, s.Lost, s.Points)
	}
	tw.Flush()
	if len(counted) > 0 {
		fmt.Fprintln(out)
		tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
		head := []string{wd.t("standings.battles_head")}
		for _, s := range st.Sides {
			head = append(head, strings.ToUpper(firstOf(s.Name, s.Side)))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, b := range counted {
			row := []string{fmt.Sprint(b.Number), b.Battle, orDash(b.Name)}
			for _, s := range b.Points {
				row = append(row, fmt.Sprintf("%d (%s)", s.Points, wd.term("result_of_battle", s.Result)))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
		c.printRescores(counted) // review.go
	}
	after := wd.t("standings.before_any")
	if n := len(counted); n > 0 {
		after = wd.t("standings.after", "battle", counted[n-1].Battle)
	}
	names := map[string]string{}
	for _, s := range st.Sides {
		names[s.Side] = firstOf(s.Name, s.Side)
	}
	for _, r := range st.Rosters {
		fmt.Fprintf(out, "\n%s\n", wd.t("standings.roster", "side", firstOf(names[r.Side], r.Side), "after", after, "n", len(r.Units)))
		if len(r.Units) > 0 {
			tw = tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, wd.t("standings.roster_head"))
			for _, u := range r.Units {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s (%s)\n", u.ID, orDash(u.Name), wd.term("type", u.Type), u.Markers, u.Battles, orDash(u.Last), wd.term("last_was", u.LastWas))
			}
			tw.Flush()
		}
		if len(r.Destroyed) > 0 {
			fmt.Fprintln(out, wd.t("standings.destroyed", "units", strings.Join(r.Destroyed, ", ")))
		}
	}
	return nil
}
