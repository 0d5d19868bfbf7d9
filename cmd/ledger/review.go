package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.reviewCommand() })
}

// countChanged counts the flags of names given on the command line.
func countChanged(cmd *cobra.Command, names ...string) int {
	n := 0
	for _, name := range names {
		if cmd.Flags().Changed(name) {
			n++
		}
	}
	return n
}

// reviewPicture writes the review picture of event version (ledger
// picture --review).
func (c *cli) reviewPicture(key events.Key, version int64, scale float64, file string) error {
	if version < 1 {
		return usagef("--review %d: events are numbered from 1", version)
	}
	api, release, err := c.api()
	if err != nil {
		return err
	}
	defer release()
	out, err := api.ReviewPicture(c.ctx, key, app.ReviewQuery{Version: uint64(version), Scale: scale})
	if err != nil {
		return err
	}
	if file == "" || file == "-" {
		_, err = c.stdout.Write(out)
		return err
	}
	return os.WriteFile(file, out, 0o644)
}

func (c *cli) reviewCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "review CAMPAIGN/BATTLE VERSION",
		Short: "Review a decision: the rules it cites, its dice, the geometry that decided it, its disputes and corrections",
		Long: `Review shows one event of a battle as the umpire rules on it
(docs/disputes.md): the command that recorded it and the dice it used, the
rules it cites, the numbers of the geometry that decided it (distances to
the nearest enemies and the 1" zone, K.2; a charge's front arc, sight line
and range, K.4; its path and one turn, K.5; the general's command distance
in steps, C.7; a march's stop distance, M.13; the edges flank marches keep
clear, F.8), the disputes raised on it and the corrections that followed.
ledger picture --review VERSION draws the same. -o json prints the review
as the API gives it (GET .../review?version=N).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := battleArg(args[0])
			if err != nil {
				return err
			}
			v, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil || v < 1 {
				return usagef("VERSION %q: events are numbered from 1", args[1])
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			rv, err := api.Review(c.ctx, key, v)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, rv)
			}
			return c.printReview(rv)
		},
	}
}

func (c *cli) printReview(rv app.Review) error {
	w := c.stdout
	unit := `"`
	if rv.After.Measurement == "cm" {
		unit = " cm"
	}
	l := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + unit }
	fmt.Fprintf(w, "%s event %d (%s): %s\n", rv.Key, rv.Version, rv.Event.Type, rv.Event.Description)
	fmt.Fprintf(w, "command %s, events %d to %d, by %s\n", rv.Event.CommandID, rv.First, rv.End, actorOf(rv.Event))
	if len(rv.Rules) > 0 {
		fmt.Fprintf(w, "rules: %s\n", strings.Join(rv.Rules, ", "))
	}
	for _, d := range rv.Dice {
		fmt.Fprintf(w, "dice v%d: %s\n", d.Version, d.Description)
	}
	g := rv.Geometry
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "GEOMETRY\tWHAT\tNUMBERS")
	if p := g.Path; p != nil {
		what := fmt.Sprintf("path of %s", g.Unit)
		nums := l(p.Length)
		if p.Allowed > 0 {
			nums += " of " + l(p.Allowed)
		}
		if p.TurnDegrees != 0 {
			nums += fmt.Sprintf(", one turn of %.0f° (K.5)", p.TurnDegrees)
		}
		if p.StoppedShort {
			nums += fmt.Sprintf(", stopped %s short of %s (C.9)", l(p.Short), p.Enemy)
		}
		fmt.Fprintf(tw, "path\t%s\t%s\n", what, nums)
	}
	if a := g.Arc; a != nil {
		fmt.Fprintf(tw, "front arc (K.4)\t%s in %s's front arc\t%v\n", g.Target, g.Unit, a.InArc)
		fmt.Fprintf(tw, "sight (K.10)\tleader point to (%.1f,%.1f)\tseen %v\n", a.Sight.X, a.Sight.Y, a.Seen)
		fmt.Fprintf(tw, "range (K.4)\tleader point to the target\t%s of %s, side hit %s\n", l(a.Measured), l(a.Reach), orDash(string(a.Side)))
	}
	for _, cm := range g.Command {
		fmt.Fprintf(tw, "command (C.7)\t%s to %s\t%s: %d full steps of %s\n", cm.General, cm.Unit, l(cm.Distance), cm.Steps, l(cm.Step))
	}
	if ms := g.MarchStop; ms != nil {
		nums := fmt.Sprintf("stop within %s", l(ms.Stop))
		if ms.Enemy != "" {
			nums += fmt.Sprintf("; %s at %s", ms.Enemy, l(ms.Distance))
		}
		fmt.Fprintf(tw, "march stop (M.13)\t%s\t%s, ended %v\n", g.Unit, nums, ms.Ended)
	}
	for _, n := range g.Nearest {
		within := ""
		if n.Within {
			within = fmt.Sprintf(", within %s (K.2)", l(g.Gap))
		}
		fmt.Fprintf(tw, "nearest enemy\t%s to %s\t%s%s\n", g.Unit, n.Enemy, l(n.Distance), within)
	}
	for _, z := range g.FlankEdges {
		fmt.Fprintf(tw, "flank edge (F.8)\t%s edge, march %d of %s\tenemies keep %s away\n", z.Edge, z.March, z.Side, l(z.Distance))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range rv.Disputes {
		fmt.Fprintf(w, "\ndispute %d raised by %s (v%d): %s\n", d.Dispute, d.RaisedBy, d.RaisedAt, d.Reason)
		if d.Ruling != "" {
			fmt.Fprintf(w, "  %s by %s (v%d): %s\n", d.Status, d.RuledBy, d.RuledAt, d.Ruling)
		} else {
			fmt.Fprintf(w, "  %s\n", d.Status)
		}
		for _, e := range d.Corrections {
			fmt.Fprintf(w, "  v%d %s: %s\n", e.Version, e.Type, e.Description)
		}
	}
	if rv.Corrected != nil {
		fmt.Fprintf(w, "\nas corrected (after event %d):\n", rv.CorrectedAt)
		return c.printBoard(*rv.Corrected, "")
	}
	return nil
}

func actorOf(e app.EventView) string {
	if e.OnBehalfOf != "" {
		return e.Actor + " for " + e.OnBehalfOf
	}
	return e.Actor
}

// printRescores says, under the standings' battles, each battle scored
// again after a correction and what that changed in the campaign.
func (c *cli) printRescores(battles []campaign.BattleResult) {
	for _, b := range battles {
		for _, r := range b.Rescores {
			var parts []string
			for i, a := range r.After {
				if i < len(r.Before) {
					bf := r.Before[i]
					parts = append(parts, fmt.Sprintf("%s %d (%s) -> %d (%s)", a.Side, bf.Points, bf.Result, a.Points, a.Result))
				}
			}
			fmt.Fprintf(c.stdout, "%s scored again (dispute %d on event %d, v%d): %s\n", b.Battle, r.Dispute, r.EventVersion, r.Version, strings.Join(parts, ", "))
			var units []string
			for _, u := range r.Rosters {
				units = append(units, fmt.Sprintf("%s %s -> %s", u.Unit, u.Before, u.After))
			}
			if len(units) > 0 {
				fmt.Fprintf(c.stdout, "  rosters: %s\n", strings.Join(units, ", "))
			}
			if len(r.Successors) > 0 {
				fmt.Fprintf(c.stdout, "  %s had already started: it stands as played\n", strings.Join(r.Successors, ", "))
			}
		}
	}
}
