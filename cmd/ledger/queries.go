package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/events"
)

func (c *cli) stateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "state CAMPAIGN/BATTLE",
		Short: "Show a battle's current state: turn, phase, units, generals",
		Args:  cobra.ExactArgs(1),
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
			if err := app.CatchUp(c.ctx, nil); err != nil {
				return err
			}
			v, err := app.DB.Battle(c.ctx, events.Key{Campaign: camp, Battle: battle})
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, v)
			}
			unit := "\""
			if v.Measurement == "cm" {
				unit = " cm"
			}
			fmt.Fprintf(c.stdout, "%s/%s %q: %s, turn %d, %s phase of %s (table %g x %g%s, event %d)\n\n",
				v.Campaign, v.Battle, v.Name, v.Status, v.Turn, orDash(v.Phase), orDash(v.PhasingSide), v.TableWidth, v.TableDepth, unit, v.Version)
			tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "UNIT\tSIDE\tBRIGADE\tTYPE\tFORMATION\tX\tY\tFACING\tMARKERS\tSTATUS")
			for _, u := range v.Units {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.0f\t%d\t%s\n", u.Unit, u.Side, u.Brigade, u.Type, u.Formation, u.X, u.Y, u.Facing, u.Markers, u.Status)
			}
			tw.Flush()
			fmt.Fprintln(c.stdout)
			tw = tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "GENERAL\tSIDE\tBRIGADE\tRATING\tX\tY")
			for _, g := range v.Generals {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%.1f\n", g.General, g.Side, orDash(g.Brigade), g.Rating, g.X, g.Y)
			}
			return tw.Flush()
		},
	}
}

func (c *cli) logCommand() *cobra.Command {
	var verify bool
	cmd := &cobra.Command{
		Use:   "log CAMPAIGN[/BATTLE]",
		Short: "Show a stream's events as stored in the log, and check its hash chain",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], false)
			if err != nil {
				return err
			}
			app, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			key := events.Key{Campaign: camp, Battle: battle}
			evs, err := app.Log.Read(c.ctx, key, 0)
			if err != nil {
				return err
			}
			if len(evs) == 0 {
				return fmt.Errorf("%s: no events", key)
			}
			chainErr := events.VerifyChain(evs)
			if c.output == "json" {
				type row struct {
					Seq uint64 `json:"seq"`
					events.Envelope
					Hash string `json:"hash"`
				}
				out := make([]row, len(evs))
				for i, e := range evs {
					out[i] = row{Seq: e.Sequence, Envelope: e, Hash: events.Hash(e.Raw)}
				}
				if err := writeJSON(c.stdout, out); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, "V\tSEQ\tTIME\tACTOR\tTYPE\tWHAT")
				words := c.eventWords(app)
				for _, e := range evs {
					fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\n", e.Version, e.Sequence, e.Time.Format("15:04:05"), e.Actor, e.Type, words.describe(e))
				}
				tw.Flush()
				if chainErr == nil {
					fmt.Fprintf(c.stdout, "\nhash chain: %d events, intact; head %s\n", len(evs), events.Hash(evs[len(evs)-1].Raw))
				}
			}
			if chainErr != nil && verify {
				return &checkError{msg: chainErr.Error()}
			}
			if chainErr != nil {
				fmt.Fprintf(c.stderr, "hash chain: %v\n", chainErr)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", true, "fail (exit 4) if the hash chain is broken")
	return cmd
}

func (c *cli) campaignShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show CAMPAIGN",
		Short: "Show a campaign: its sides and battles",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			app, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			if err := app.CatchUp(c.ctx, nil); err != nil {
				return err
			}
			v, err := app.DB.Campaign(c.ctx, args[0])
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, v)
			}
			var sides []string
			for _, s := range v.Sides {
				sides = append(sides, fmt.Sprintf("%s (%s)", s.Name, s.Side))
			}
			fmt.Fprintf(c.stdout, "%s %q, era %s: %s\n\n", v.ID, v.Name, v.Era, strings.Join(sides, " vs "))
			tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "#\tBATTLE\tNAME\tSTATUS\tTURN")
			for _, b := range v.Battles {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\n", b.Number, b.Battle, b.Name, orDash(b.Status), b.Turn)
			}
			return tw.Flush()
		},
	}
}

func (c *cli) configCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the configuration in force (file, LEDGER_* variables and flags applied)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := c.config()
			if err != nil {
				return err
			}
			return writeJSON(c.stdout, cfg)
		},
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
