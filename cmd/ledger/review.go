package main

import (
	"encoding/json"
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
	out, wd := c.stdout, c.words()
	wd.measurement = firstOf(rv.After.Measurement, "in")
	fmt.Fprintln(out, wd.t("review.title", "key", rv.Key.String(), "v", rv.Version, "type", rv.Event.Type, "what", rv.Event.Description))
	fmt.Fprintln(out, wd.t("review.command", "id", rv.Event.CommandID, "first", rv.First, "end", rv.End, "who", wd.actor(rv.Event.Actor, rv.Event.OnBehalfOf)))
	if len(rv.Rules) > 0 {
		fmt.Fprintln(out, wd.t("review.rules", "rules", strings.Join(rv.Rules, ", ")))
	}
	for _, d := range rv.Dice {
		fmt.Fprintln(out, wd.t("review.dice", "v", d.Version, "what", d.Description))
	}
	g := rv.Geometry
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, wd.t("review.head"))
	if p := g.Path; p != nil {
		fmt.Fprintln(tw, wd.t("review.path", "unit", g.Unit, "length", p.Length, "allowed", p.Allowed, "turn", p.TurnDegrees,
			"short", p.Short, "stopped", p.StoppedShort, "enemy", p.Enemy))
	}
	if a := g.Arc; a != nil {
		fmt.Fprintln(tw, wd.t("review.arc", "unit", g.Unit, "target", g.Target, "in", a.InArc))
		fmt.Fprintln(tw, wd.t("review.sight", "at", map[string]any{"x": json.Number(strconv.FormatFloat(a.Sight.X, 'f', -1, 64)), "y": json.Number(strconv.FormatFloat(a.Sight.Y, 'f', -1, 64))}, "seen", a.Seen))
		fmt.Fprintln(tw, wd.t("review.range", "measured", a.Measured, "reach", a.Reach, "side", string(a.Side)))
	}
	for _, cm := range g.Command {
		fmt.Fprintln(tw, wd.t("review.command_distance", "general", cm.General, "unit", cm.Unit, "distance", cm.Distance, "steps", cm.Steps, "step", cm.Step))
	}
	if ms := g.MarchStop; ms != nil {
		fmt.Fprintln(tw, wd.t("review.march_stop", "unit", g.Unit, "stop", ms.Stop, "enemy", ms.Enemy, "distance", ms.Distance, "ended", ms.Ended))
	}
	for _, n := range g.Nearest {
		fmt.Fprintln(tw, wd.t("review.nearest", "unit", g.Unit, "enemy", n.Enemy, "distance", n.Distance, "within", n.Within, "gap", g.Gap))
	}
	for _, z := range g.FlankEdges {
		fmt.Fprintln(tw, wd.t("review.flank_edge", "edge", string(z.Edge), "march", z.March, "side", z.Side, "distance", z.Distance))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range rv.Disputes {
		fmt.Fprintln(out)
		fmt.Fprintln(out, wd.t("review.dispute", "n", d.Dispute, "who", d.RaisedBy, "v", d.RaisedAt, "reason", d.Reason))
		if d.Ruling != "" {
			fmt.Fprintln(out, wd.t("review.ruled", "status", wd.term("dispute_status", d.Status), "who", d.RuledBy, "v", d.RuledAt, "ruling", d.Ruling))
		} else {
			fmt.Fprintln(out, wd.t("review.open", "status", wd.term("dispute_status", d.Status)))
		}
		for _, e := range d.Corrections {
			fmt.Fprintln(out, wd.t("review.correction", "v", e.Version, "type", e.Type, "what", e.Description))
		}
	}
	if rv.Corrected != nil {
		fmt.Fprintln(out)
		fmt.Fprintln(out, wd.t("review.corrected", "v", rv.CorrectedAt))
		return c.printBoard(*rv.Corrected, "")
	}
	return nil
}

// printRescores says, under the standings' battles, each battle scored
// again after a correction and what that changed in the campaign.
func (c *cli) printRescores(battles []campaign.BattleResult) {
	wd := c.words()
	for _, b := range battles {
		for _, r := range b.Rescores {
			var parts []string
			for i, a := range r.After {
				if i < len(r.Before) {
					bf := r.Before[i]
					parts = append(parts, wd.t("review.rescored_side", "side", a.Side, "before", bf.Points, "before_result", wd.term("result_of_battle", bf.Result),
						"after", a.Points, "after_result", wd.term("result_of_battle", a.Result)))
				}
			}
			fmt.Fprintln(c.stdout, wd.t("review.rescored", "battle", b.Battle, "dispute", r.Dispute, "event", r.EventVersion, "v", r.Version, "parts", strings.Join(parts, ", ")))
			var units []string
			for _, u := range r.Rosters {
				units = append(units, wd.t("review.roster_change", "unit", u.Unit, "before", wd.term("roster_place", u.Before), "after", wd.term("roster_place", u.After)))
			}
			if len(units) > 0 {
				fmt.Fprintln(c.stdout, wd.t("review.rescored_rosters", "units", strings.Join(units, ", ")))
			}
			if len(r.Successors) > 0 {
				fmt.Fprintln(c.stdout, wd.t("review.rescored_successors", "battles", strings.Join(r.Successors, ", ")))
			}
		}
	}
}
