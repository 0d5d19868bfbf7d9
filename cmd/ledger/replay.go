package main

import (
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
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
up to the event whose version is --at: the state just after it, and that
event in words. --at 0 is the empty state before the first event; without
--at, the last event. -o json prints the rules engine's state.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], true)
			if err != nil {
				return err
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
			v := tl.Len()
			if cmd.Flags().Changed("at") {
				if at < 0 || uint64(at) > tl.Len() {
					return usagef("--at %d: battle %s has events 1 to %d (0: before the first)", at, key, tl.Len())
				}
				v = uint64(at)
			}
			s, err := tl.At(v)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, s)
			}
			return c.printReplay(app, key, tl, v, s)
		},
	}
	cmd.Flags().Int64Var(&at, "at", 0, "the event version to stop after (default: the last)")
	return cmd
}

func (c *cli) printReplay(app *App, key events.Key, tl *projections.Timeline, v uint64, s *rules.State) error {
	unit := "\""
	if s.Measurement == "cm" {
		unit = " cm"
	}
	status := s.Status
	if status == "" {
		status = "not created"
	}
	fmt.Fprintf(c.stdout, "%s %q at event %d of %d: %s, turn %d, %s phase of %s (table %g x %g%s)\n",
		key, s.Name, v, tl.Len(), status, s.Turn, orDash(s.Phase), orDash(s.Phasing), s.Table.Width, s.Table.Depth, unit)
	if v > 0 {
		e, _, err := tl.Event(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "event %d (log sequence %d) %s by %s at %s: %s\n",
			v, e.Sequence, e.Type, e.Actor, e.Time.UTC().Format("2006-01-02 15:04:05"), c.eventWords(app).describe(e))
	}
	fmt.Fprintln(c.stdout)
	units := make([]*rules.Unit, 0, len(s.Units))
	for _, u := range s.Units {
		if u != nil {
			units = append(units, u)
		}
	}
	sort.Slice(units, func(i, j int) bool {
		a, b := units[i], units[j]
		if a.Side != b.Side {
			return a.Side < b.Side
		}
		if a.Brigade != b.Brigade {
			return a.Brigade < b.Brigade
		}
		return a.ID < b.ID
	})
	tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "UNIT\tSIDE\tBRIGADE\tTYPE\tFORMATION\tX\tY\tFACING\tMARKERS\tSTATUS\tACTIONS LEFT")
	for _, u := range units {
		left := "-"
		if ut := s.TurnBook.Units[u.ID]; ut != nil {
			left = fmt.Sprint(ut.ActionsLeft)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.0f\t%d\t%s\t%s\n", u.ID, u.Side, u.Brigade, u.Type, u.Formation,
			u.Base.Center.X, u.Base.Center.Y, u.Base.Facing, u.Markers, u.Status, left)
	}
	tw.Flush()
	fmt.Fprintln(c.stdout)
	type gen struct {
		id, side, brigade string
		rating            int
		x, y              float64
	}
	var gens []gen
	for _, sd := range s.Sides {
		if ci := sd.CInC; ci != nil {
			gens = append(gens, gen{ci.ID, sd.ID, "", ci.Rating, ci.Position.X, ci.Position.Y})
		}
		for _, br := range sd.Brigades {
			g := br.General
			gens = append(gens, gen{g.ID, sd.ID, br.ID, g.Rating, g.Position.X, g.Position.Y})
		}
	}
	sort.SliceStable(gens, func(i, j int) bool {
		if gens[i].side != gens[j].side {
			return gens[i].side < gens[j].side
		}
		return gens[i].brigade < gens[j].brigade
	})
	tw = tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "GENERAL\tSIDE\tBRIGADE\tRATING\tX\tY")
	for _, g := range gens {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%.1f\n", g.id, g.side, orDash(g.brigade), g.rating, g.x, g.y)
	}
	return tw.Flush()
}
