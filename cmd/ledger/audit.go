package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
)

func init() {
	extraCommands = append(extraCommands,
		func(c *cli) *cobra.Command { return c.auditCommand() },
		func(c *cli) *cobra.Command { return c.exportCommand() },
	)
}

func (c *cli) auditCommand() *cobra.Command {
	var file, head, trust string
	cmd := &cobra.Command{
		Use:   "audit CAMPAIGN/BATTLE | audit --file EXPORT",
		Short: "Audit a battle: hash chain, dice reveals, every digital roll recomputed, counters, orders; whose dice ran hot",
		Long: `Audit checks a battle from its events alone (docs/audit.md):

  chain        versions 1..n, each prev_hash the SHA-256 of the event before
  signatures   every event signed by the ledger's key (a key change by the key before)
  heads        the head hash you kept (--head) is an event of this chain
  decode       every event of a known type and schema
  reveals      every revealed dice seed matches its commitment
  rolls        every digital roll recomputes from the revealed seed (docs/dice.md)
  counters     roll counters 1..n, no gap, no repeat
  orders       every order reads its cited roll against its rating as the ruleset says
  seed_timing  no player seed after its period's first digital roll

then prints each player's dice (faces, chi-square against a fair die) and
order outcomes against their exact expected numbers.

With CAMPAIGN/BATTLE it reads the live log; with --file it reads an export
(ledger export) and needs no ledger at all ("-" reads standard input): the
export's header names the ledger's keys; --key checks that they are the
ledger you trust (its fingerprint: ledger audit and ledger log show it on the
ledger itself).
Digital rolls of a period not yet revealed are "pending" while the battle is
in progress, and a failure once it has ended. Exit code 4 if any check fails.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rep *audit.Report
			switch {
			case file != "" && len(args) == 1:
				return usagef("give CAMPAIGN/BATTLE or --file, not both")
			case file != "":
				x, err := c.readExport(file)
				if err != nil {
					var fe *audit.FormatError
					if errors.As(err, &fe) {
						return &checkError{msg: fmt.Sprintf("%s: %v", file, err)}
					}
					return err
				}
				opt := audit.Options{Trust: trust}
				if head != "" {
					opt.Heads = []string{head}
				}
				rep = x.VerifyWith(opt)
			case len(args) == 1:
				key, err := battleArg(args[0])
				if err != nil {
					return err
				}
				api, release, err := c.api()
				if err != nil {
					return err
				}
				defer release()
				if trust != "" {
					return usagef("--key is for an export (--file): the live audit checks the ledger's own keys")
				}
				if rep, err = api.Audit(c.ctx, key, app.AuditOptions{Head: head}); err != nil {
					return err
				}
			default:
				return usagef("audit what? give CAMPAIGN/BATTLE or --file EXPORT")
			}
			if c.output == "json" {
				if err := writeJSON(c.stdout, rep); err != nil {
					return err
				}
			} else if err := writeReport(c.stdout, rep); err != nil {
				return err
			}
			if err := rep.Err(); err != nil {
				return &checkError{msg: err.Error()}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "audit an export file instead of the live log (- for standard input)")
	cmd.Flags().StringVar(&head, "head", "", "a head hash you kept (at least 16 hex digits): check it is an event of this chain")
	cmd.Flags().StringVar(&trust, "key", "", "with --file: the fingerprint of the ledger key you trust (ledger audit or ledger log shows it)")
	return cmd
}

func (c *cli) exportCommand() *cobra.Command {
	var file string
	var umpire bool
	cmd := &cobra.Command{
		Use:   "export CAMPAIGN/BATTLE",
		Short: "Write a battle as one self-contained file (ledger-export-v2) that `ledger audit --file` verifies",
		Long: `Export writes every event of a battle, each with its stored bytes verbatim, as
JSON Lines: a header line, then one line per event (docs/audit.md). The file
verifies on its own: every hash can be recomputed from it, and every
signature checked against the ledger's keys its header carries.

Events hidden from the players (audience other than "all") are exported as
their hash only, so the chain still verifies without showing them; --umpire
exports them in full. The secret dice seed is never in the log before its
reveal, so an export made during a battle shows its digital rolls as
unverifiable until then.`,
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
			opt := app.ExportOptions{Umpire: umpire}
			if file == "" || file == "-" {
				_, err := api.Export(c.ctx, key, opt, c.stdout)
				return err
			}
			var sum app.ExportSummary
			if err := writeFileAtomic(file, func(w io.Writer) error {
				var err error
				sum, err = api.Export(c.ctx, key, opt, w)
				return err
			}); err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, map[string]any{"file": file, "events": sum.Events, "head": sum.Head})
			}
			fmt.Fprintf(c.stdout, "exported %s: %d events to %s (head %.16s)\n", key, sum.Events, file, sum.Head)
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "write to this file (default: standard output)")
	cmd.Flags().BoolVar(&umpire, "umpire", false, "include events hidden from the players in full")
	return cmd
}

func (c *cli) readExport(path string) (*audit.Export, error) {
	if path == "-" {
		return audit.ReadExport(c.stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return audit.ReadExport(f)
}

// writeFileAtomic writes path through a temporary file in the same folder,
// so that a failed export leaves no half-written file behind.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// writeReport prints an audit as tables: the checks, the findings, the dice
// periods, the players' dice and their order outcomes.
func writeReport(w io.Writer, r *audit.Report) error {
	state := "in progress"
	if r.Ended {
		state = fmt.Sprintf("ended at v%d", r.EndedAt)
	}
	fmt.Fprintf(w, "audit of %s/%s: %d events, head %.16s, battle %s\n", r.Campaign, r.Battle, r.Events, r.Head, state)
	for _, s := range r.Signers {
		fmt.Fprintf(w, "signed by ledger key %s: %d %s (trusted from: %s)\n", s.Fingerprint, s.Events, pluralize(s.Events, "event", "events"), s.Trust)
	}
	if r.Unsigned > 0 {
		fmt.Fprintf(w, "%d %s stored before the ledger signed: their author is not proven\n", r.Unsigned, pluralize(r.Unsigned, "event", "events"))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tRESULT\tSUMMARY\tWHAT IT CHECKS")
	for _, ch := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ch.ID, ch.Status, ch.Summary, ch.Title)
	}
	tw.Flush()

	var found []audit.Finding
	for _, ch := range r.Checks {
		found = append(found, ch.Findings...)
	}
	if len(found) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "RESULT\tCHECK\tEVENT\tFINDING")
		for _, f := range found {
			msg := f.Message
			if f.Expected != nil || f.Recorded != nil {
				msg += fmt.Sprintf(": expected %s, recorded %s", audit.Ints(f.Expected), audit.Ints(f.Recorded))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Status, f.Check, f.EventRef, msg)
		}
		tw.Flush()
	}
	if len(r.Withheld) > 0 {
		fmt.Fprintf(w, "\n%d %s withheld from this export (hidden from the players): chained by hash, content not audited\n",
			len(r.Withheld), pluralize(len(r.Withheld), "event", "events"))
	}

	if len(r.Periods) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "PERIOD\tCOMMITTED\tCOMMITMENT\tPLAYER SEEDS\tREVEALED\tSEED\tDIGITAL ROLLS\tRECOMPUTED")
		for _, p := range r.Periods {
			var seeds []string
			for _, s := range p.Seeds {
				seeds = append(seeds, s.Player)
			}
			rev, seed := "-", "-"
			if p.RevealedAt > 0 {
				rev = "v" + strconv.FormatUint(p.RevealedAt, 10)
				seed = fmt.Sprintf("%.16s…", p.Seed)
				if !p.Verified {
					seed += " (no match)"
				}
			}
			fmt.Fprintf(tw, "%s\tv%d\t%.16s…\t%s\t%s\t%s\t%d\t%d\n", p.Period, p.CommittedAt, p.Commitment, orDash(strings.Join(seeds, ", ")), rev, seed, p.DigitalRolls, p.Recomputed)
		}
		tw.Flush()
	}

	players := append(append([]audit.PlayerStats(nil), r.Players...), r.All)
	if r.All.Rolls > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "PLAYER\tDICE\tSOURCE\tDIE\tFACES 1..N\tCHI2\tCRIT 99.9%\tNOTE")
		for _, p := range players {
			for _, f := range p.Faces {
				if f.Source != audit.SourceAll && (p.DigitalDice == 0 || p.PhysicalDice == 0) {
					continue // one kind of dice only: the "all" row says it
				}
				src := f.Source
				if f.Source == audit.SourceAll && (p.DigitalDice == 0 || p.PhysicalDice == 0) {
					src = map[bool]string{true: "digital", false: "physical"}[p.PhysicalDice == 0]
				}
				note := ""
				switch {
				case f.Exceeds:
					note = "ran hot (above the 99.9% value)"
				case f.SmallSample:
					note = "few dice: weak test"
				}
				counts := make([]string, len(f.Counts))
				for i, n := range f.Counts {
					counts[i] = strconv.Itoa(n)
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\tD%d\t%s\t%.2f\t%.2f\t%s\n", p.Player, f.Dice, src, f.Sides, strings.Join(counts, " "), f.ChiSquare, f.Critical999, note)
			}
		}
		tw.Flush()
	}
	if r.All.Orders > 0 {
		// One column per outcome, in the order the report gives them
		// (failed, blunder, success, actions 1, 2, ...): observed (expected).
		cols := r.All.Outcomes
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprint(tw, "PLAYER\tORDERS")
		for _, o := range cols {
			fmt.Fprintf(tw, "\t%s", strings.ToUpper(outcomeLabel(o)))
		}
		fmt.Fprintln(tw)
		for _, p := range players {
			if p.Orders == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d", p.Player, p.Orders)
			for _, col := range cols {
				cell := "0 (0.00)"
				for _, o := range p.Outcomes {
					if o.Outcome == col.Outcome && o.Actions == col.Actions {
						cell = fmt.Sprintf("%d (%.2f)", o.Observed, o.Expected)
					}
				}
				fmt.Fprintf(tw, "\t%s", cell)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintln(w, "(observed, and in brackets expected from each order's effective rating)")
	}
	pending := 0
	for _, ch := range r.Checks {
		for _, f := range ch.Findings {
			if f.Status == audit.Pending {
				pending++
			}
		}
	}
	switch {
	case r.Failed():
		fmt.Fprintf(w, "\naudit FAILED: %d %s\n", len(r.Failures()), pluralize(len(r.Failures()), "failure", "failures"))
	case pending > 0:
		fmt.Fprintf(w, "\naudit passed so far: %d %s until the reveal\n", pending, pluralize(pending, "item pending", "items pending"))
	default:
		fmt.Fprintln(w, "\naudit passed")
	}
	return nil
}

// outcomeLabel names an order outcome column: "failed", "2 actions".
func outcomeLabel(o audit.OutcomeStats) string {
	if o.Outcome == "actions" {
		return fmt.Sprintf("%d %s", o.Actions, pluralize(o.Actions, "action", "actions"))
	}
	if o.Actions > 0 {
		return fmt.Sprintf("%s (%d)", o.Outcome, o.Actions)
	}
	return o.Outcome
}

func pluralize(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
