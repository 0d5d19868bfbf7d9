package main

import (
	"fmt"
	"slices"
	"strconv"
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
	w := c.words()
	status := w.term("battle_status", b.Status)
	if b.Status == "" {
		status = w.t("board.not_created")
	}
	fmt.Fprintln(c.stdout, w.t("board.title", "campaign", b.Campaign, "battle", b.Battle, "name", b.Name, "qname", strconv.Quote(b.Name),
		"version", b.Version, "last", b.Last, "status", status, "turn", b.Turn,
		"phase", orDash(b.Phase), "side", orDash(sideName(b, b.PhasingSide)), "has_phase", b.Phase != "",
		"width", b.TableWidth, "depth", b.TableDepth, "measurement", firstOf(b.Measurement, "in")))
	if event != "" {
		fmt.Fprintln(c.stdout, event)
	}
	if b.Head != "" {
		fmt.Fprintln(c.stdout, w.t("board.head", "head", b.Head))
	}
	fmt.Fprintln(c.stdout)
	tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, w.t("board.units_head"))
	for _, u := range b.Units {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\n", u.Unit, u.Side, u.Brigade, w.term("type", u.Type), w.term("formation", u.Formation),
			w.fixed(u.X, 1), w.fixed(u.Y, 1), w.fixed(u.Facing, 0), u.Markers, w.term("status", u.Status), u.ActionsLeft)
	}
	tw.Flush()
	fmt.Fprintln(c.stdout)
	tw = tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, w.t("board.generals_head"))
	for _, g := range b.Generals {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", g.General, g.Side, orDash(g.Brigade), g.Rating, w.fixed(g.X, 1), w.fixed(g.Y, 1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range b.FlankMarches {
		what := w.t("board.flank_sealed")
		switch {
		case m.Entry == "lost":
			what = w.t("board.flank_lost")
		case m.RevealedAt != "" && len(m.Waiting) > 0:
			what = w.t("board.flank_arriving", "waiting", strings.Join(m.Waiting, ", "))
		case m.RevealedAt != "":
			what = w.t("board.flank_revealed")
		case m.Orders != nil:
			what = w.t("board.flank_yours", "brigades", len(m.Orders.Brigades), "x", m.Orders.Entry.X, "y", m.Orders.Entry.Y)
		}
		fmt.Fprintf(c.stdout, "\n%s\n", w.t("board.flank", "n", m.N, "side", m.Side, "edge", string(m.Edge), "what", what))
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
			w := c.words()
			if c.output == "json" {
				if err := writeJSON(c.stdout, page.Events); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, w.t("log.head"))
				for _, e := range page.Events {
					fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", e.Version, e.Seq, e.Time.Format("15:04:05"), w.actor(e.Actor, e.OnBehalfOf), e.Type, orDash(signedShort(e.Signature, w)), e.Description)
				}
				tw.Flush()
				if page.Chain == app.ChainIntact {
					fmt.Fprintf(c.stdout, "\n%s\n", w.t("log.intact", "n", page.Last, "head", page.Head))
				}
				own, imported, keys := importedSigners(page.Events)
				switch {
				case page.Signatures == app.SignaturesImported:
					// Not "signed by the ledger": a battle imported from
					// another ledger is signed by that ledger's key.
					fmt.Fprintln(c.stdout, w.t("log.signatures_imported", "n", imported, "keys", strings.Join(keys, ", "), "own", own))
				case page.Signatures == app.SignaturesHold && page.Unsigned == 0:
					fmt.Fprintln(c.stdout, w.t("log.signatures_hold"))
				case page.Signatures == app.SignaturesHold && page.Unsigned == int(page.Last):
					fmt.Fprintln(c.stdout, w.t("log.signatures_none"))
				case page.Signatures == app.SignaturesHold:
					fmt.Fprintln(c.stdout, w.t("log.signatures_but", "n", page.Unsigned))
				}
			}
			if page.Chain != app.ChainIntact {
				broken := w.t("log.broken", "why", orText(page.ChainSaid, page.Chain))
				if verify {
					return &checkError{msg: broken}
				}
				fmt.Fprintln(c.stderr, broken)
			}
			if page.Signatures != "" && page.Signatures != app.SignaturesHold && page.Signatures != app.SignaturesImported {
				bad := w.t("log.signatures_bad", "why", orText(page.SignaturesSaid, page.Signatures))
				if verify {
					return &checkError{msg: bad}
				}
				fmt.Fprintln(c.stderr, bad)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verify, "verify", true, "fail (exit 4) if the hash chain is broken or an event is not signed by the ledger")
	return cmd
}

// importedSigners counts the events signed by this ledger's keys (own) and
// by another ledger's (imported: a battle imported from it), with the
// fingerprints of the latter in order of first use.
func importedSigners(evs []app.EventView) (own, imported int, keys []string) {
	for _, e := range evs {
		switch sig := e.Signature; {
		case sig == nil:
		case sig.State == app.SignatureSigned:
			own++
		case sig.State == app.SignatureImported:
			imported++
			if !slices.Contains(keys, sig.Fingerprint) {
				keys = append(keys, sig.Fingerprint)
			}
		}
	}
	return own, imported, keys
}

// signedShort is the SIGNED column: the key's fingerprint, followed by
// "(imported)" for another ledger's key (an imported battle), "unsigned"
// for an event from before signing, "NOT THE LEDGER'S" for a forgery (the
// reason follows under the table), "" where not checked.
func signedShort(sig *app.Signature, w words) string {
	if sig == nil {
		return ""
	}
	switch sig.State {
	case app.SignatureImported:
		return sig.Fingerprint + " " + w.t("log.imported_key")
	case app.SignatureSigned:
		return sig.Fingerprint
	case app.SignatureUnsigned:
		return w.t("log.unsigned")
	}
	return w.t("log.not_ledgers")
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
			w := c.words()
			var sides []string
			for _, s := range v.Sides {
				sides = append(sides, fmt.Sprintf("%s (%s)", s.Name, s.Side))
			}
			fmt.Fprintf(c.stdout, "%s\n\n", w.t("campaign.title", "id", v.ID, "name", v.Name, "qname", strconv.Quote(v.Name),
				"era", w.term("era", v.Era), "sides", strings.Join(sides, w.t("campaign.versus"))))
			tw := tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, w.t("campaign.battles_head"))
			for _, b := range v.Battles {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\n", b.Number, b.Battle, b.Name, orDash(w.term("battle_status", b.Status)), b.Turn)
			}
			tw.Flush()
			if len(v.People) > 0 {
				fmt.Fprintln(c.stdout)
				tw = tabwriter.NewWriter(c.stdout, 0, 2, 2, ' ', 0)
				fmt.Fprintln(tw, w.t("campaign.people_head"))
				for _, p := range v.People {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Player, orDash(p.Name), w.term("role", p.Role), orDash(p.Side))
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

// sideName is a side's name in the battle (France), its id when it has
// none: what a person reads, as the events and the page say it.
func sideName(b app.Board, side string) string {
	for _, s := range b.Sides {
		if s.Side == side && s.Name != "" {
			return s.Name
		}
	}
	return side
}

// orText is said, what the door said in the caller's language, or text,
// its English.
func orText(said, text string) string {
	if said != "" {
		return said
	}
	return text
}
