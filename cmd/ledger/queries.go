package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/events"
)

func (c *cli) stateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "state CAMPAIGN/BATTLE",
		Short: "Show a battle's current state: turn, phase, units (with actions left), generals, head",
		Long: `State shows the battle now, as you may see it (a flank march's sealed orders
only to its own side and the umpire): turn and phase, every unit with its
position, formation, markers and actions left this turn, every general, and
the head: the hash of the battle's last event, which you may note down and
check later with ledger audit --head.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := battleArg(args[0])
			if err != nil {
				return err
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			b, err := api.State(c.ctx, key)
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, b)
			}
			return c.printBoard(b, "")
		},
	}
}

// printBoard prints a battle at one moment: the state's and replay's table.
func (c *cli) printBoard(b app.Board, event string) error {
	unit := "\""
	if b.Measurement == "cm" {
		unit = " cm"
	}
	status := b.Status
	if status == "" {
		status = "not created"
	}
	fmt.Fprintf(c.stdout, "%s/%s %q at event %d of %d: %s, turn %d, %s phase of %s (table %g x %g%s)\n",
		b.Campaign, b.Battle, b.Name, b.Version, b.Last, status, b.Turn, orDash(b.Phase), orDash(b.PhasingSide), b.TableWidth, b.TableDepth, unit)
	if event != "" {
		fmt.Fprintln(c.stdout, event)
	}
	if b.Head != "" {
		fmt.Fprintf(c.stdout, "head %s\n", b.Head)
	}
	fmt.Fprintln(c.stdout)
	tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "UNIT\tSIDE\tBRIGADE\tTYPE\tFORMATION\tX\tY\tFACING\tMARKERS\tSTATUS\tACTIONS LEFT")
	for _, u := range b.Units {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.0f\t%d\t%s\t%d\n", u.Unit, u.Side, u.Brigade, u.Type, u.Formation, u.X, u.Y, u.Facing, u.Markers, u.Status, u.ActionsLeft)
	}
	tw.Flush()
	fmt.Fprintln(c.stdout)
	tw = tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "GENERAL\tSIDE\tBRIGADE\tRATING\tX\tY")
	for _, g := range b.Generals {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%.1f\n", g.General, g.Side, orDash(g.Brigade), g.Rating, g.X, g.Y)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range b.FlankMarches {
		what := "declared, sealed"
		switch {
		case m.Entry == "lost":
			what = "lost (F.2)"
		case m.RevealedAt != "" && len(m.Waiting) > 0:
			what = fmt.Sprintf("arriving: %s still to enter", strings.Join(m.Waiting, ", "))
		case m.RevealedAt != "":
			what = "revealed"
		case m.Orders != nil:
			what = fmt.Sprintf("sealed (you may see it: %d brigade(s), entry %.1f,%.1f)", len(m.Orders.Brigades), m.Orders.Entry.X, m.Orders.Entry.Y)
		}
		fmt.Fprintf(c.stdout, "\nflank march %d of %s: %s edge, %s\n", m.N, m.Side, m.Edge, what)
	}
	return nil
}

func (c *cli) logCommand() *cobra.Command {
	var verify bool
	cmd := &cobra.Command{
		Use:   "log CAMPAIGN[/BATTLE]",
		Short: "Show a stream's events as stored in the log, and check its hash chain and signatures",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], false)
			if err != nil {
				return err
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			key := events.Key{Campaign: camp, Battle: battle}
			page, err := api.Events(c.ctx, key, 0)
			if err != nil {
				return err
			}
			if c.output == "json" {
				if err := writeJSON(c.stdout, page.Events); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, "V\tSEQ\tTIME\tACTOR\tTYPE\tSIGNED\tWHAT")
				for _, e := range page.Events {
					actor := e.Actor
					if e.OnBehalfOf != "" {
						actor = e.Actor + " for " + e.OnBehalfOf
					}
					fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", e.Version, e.Seq, e.Time.Format("15:04:05"), actor, e.Type, orDash(signedShort(e.Signed)), e.Description)
				}
				tw.Flush()
				if page.Chain == app.ChainIntact {
					fmt.Fprintf(c.stdout, "\nhash chain: %d events, intact; head %s\n", page.Last, page.Head)
				}
				switch {
				case page.Signatures == app.SignaturesHold && page.Unsigned == 0:
					fmt.Fprintf(c.stdout, "signatures: %s\n", page.Signatures)
				case page.Signatures == app.SignaturesHold && page.Unsigned == int(page.Last):
					fmt.Fprintf(c.stdout, "signatures: none: every event was stored before the ledger signed (their author is not proven)\n")
				case page.Signatures == app.SignaturesHold:
					fmt.Fprintf(c.stdout, "signatures: every event signed by the ledger but %d stored before it signed (their author is not proven)\n", page.Unsigned)
				}
			}
			if page.Chain != app.ChainIntact && verify {
				return &checkError{msg: "hash chain: " + page.Chain}
			}
			if page.Chain != app.ChainIntact {
				fmt.Fprintf(c.stderr, "hash chain: %s\n", page.Chain)
			}
			if page.Signatures != "" && page.Signatures != app.SignaturesHold {
				if verify {
					return &checkError{msg: "signatures: " + page.Signatures}
				}
				fmt.Fprintf(c.stderr, "signatures: %s\n", page.Signatures)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", true, "fail (exit 4) if the hash chain is broken or an event is not signed by the ledger")
	return cmd
}

// signedShort is the SIGNED column: the key's fingerprint, "unsigned" for
// an event from before signing, "NOT THE LEDGER'S" for a forgery (the
// reason follows under the table).
func signedShort(s string) string {
	switch {
	case strings.HasPrefix(s, "signed "):
		return strings.TrimPrefix(s, "signed ")
	case strings.HasPrefix(s, "unsigned"):
		return "unsigned"
	case s != "":
		return "NOT THE LEDGER'S"
	}
	return s
}

func (c *cli) campaignShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show CAMPAIGN",
		Short: "Show a campaign: its sides, battles and people",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			v, err := api.Campaign(c.ctx, args[0])
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
			tw.Flush()
			if len(v.People) > 0 {
				fmt.Fprintln(c.stdout)
				tw = tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, "PERSON\tNAME\tROLE\tSIDE")
				for _, p := range v.People {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Player, orDash(p.Name), p.Role, orDash(p.Side))
				}
				tw.Flush()
			}
			return nil
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
			out := cfg.Printable()
			// Whether an admin token is set, never the token.
			out["http"].(map[string]any)["admin_token_set"] = cfg.HTTP.AdminToken != ""
			return writeJSON(c.stdout, out)
		},
	}
}

// battleArg parses CAMPAIGN/BATTLE.
func battleArg(s string) (events.Key, error) {
	camp, battle, err := splitKey(s, true)
	return events.Key{Campaign: camp, Battle: battle}, err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
