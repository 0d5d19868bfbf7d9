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
	"github.com/clubledger/ledger/rules"
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
  nonces       v2 rolls name their command, a player's nonce only on their own;
               how many rolls carried a player's nonce and how many did not, by player
  corrections  every correction points at an upheld dispute and its event; orders
               resolved again and rescores agree with the rules (docs/disputes.md)

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
				return usagef("%s", c.words().t("audit.usage_both"))
			case file != "":
				x, err := c.readExport(file)
				if err != nil {
					var fe *audit.FormatError
					if errors.As(err, &fe) {
						// Said in the reader's language from its format
						// and values (phrase.audit.export_line), an exact
						// lookup; English as it printed.
						w := c.words()
						return &checkError{msg: file + ": " + w.cat.Detail(w.lang, "phrase.audit.export_line", fe.Said(), err.Error())}
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
					return usagef("%s", c.words().t("audit.usage_key"))
				}
				if rep, err = api.Audit(c.ctx, key, app.AuditOptions{Head: head}); err != nil {
					return err
				}
			default:
				return usagef("%s", c.words().t("audit.usage_what"))
			}
			if c.output == "json" {
				if err := writeJSON(c.stdout, rep); err != nil {
					return err
				}
			} else if err := writeReport(c.stdout, rep, c.words()); err != nil {
				return err
			}
			if rep.Err() != nil {
				return &checkError{msg: auditFailure(rep, c.words())}
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

// writeReport prints an audit as tables, in wd's language: the checks, the
// findings, the dice periods, the players' dice and their order outcomes.
func writeReport(w io.Writer, r *audit.Report, wd words) error {
	state := wd.t("audit.in_progress")
	if r.Ended {
		state = wd.t("audit.ended_at", "v", r.EndedAt)
	}
	fmt.Fprintln(w, wd.t("audit.title", "campaign", r.Campaign, "battle", r.Battle, "events", r.Events, "head", fmt.Sprintf("%.16s", r.Head), "state", state))
	for _, s := range r.Signers {
		fmt.Fprintln(w, wd.t("audit.signed_by", "key", s.Fingerprint, "n", s.Events, "trust", wd.term("trust", s.Trust)))
	}
	if r.Unsigned > 0 {
		fmt.Fprintln(w, wd.t("audit.unsigned", "n", r.Unsigned))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, wd.t("audit.checks_head"))
	for _, ch := range r.Checks {
		title := ch.Title
		if wd.lang != "en" {
			title = wd.term("check_title", ch.ID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", wd.term("check", ch.ID), wd.term("check_status", string(ch.Status)), wd.audit(r, "summary", ch.SummaryWords, ch.Summary), title)
	}
	tw.Flush()

	var found []audit.Finding
	for _, ch := range r.Checks {
		found = append(found, ch.Findings...)
	}
	if len(found) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, wd.t("audit.findings_head"))
		for _, f := range found {
			msg := wd.audit(r, "finding", f.Words, f.Message)
			if f.Expected != nil || f.Recorded != nil {
				msg += wd.t("audit.expected_recorded", "expected", audit.Ints(f.Expected), "recorded", audit.Ints(f.Recorded))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", wd.term("finding_status", string(f.Status)), wd.term("check", f.Check), f.EventRef, msg)
		}
		tw.Flush()
	}
	if len(r.Withheld) > 0 {
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.withheld", "n", len(r.Withheld)))
	}

	if len(r.Periods) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, wd.t("audit.periods_head"))
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
					seed += wd.t("audit.no_match")
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
		fmt.Fprintln(tw, wd.t("audit.dice_head"))
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
					note = wd.t("audit.ran_hot")
				case f.SmallSample:
					note = wd.t("audit.few_dice")
				}
				counts := make([]string, len(f.Counts))
				for i, n := range f.Counts {
					counts[i] = strconv.Itoa(n)
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\tD%d\t%s\t%s\t%s\t%s\n", wd.player(p.Player), f.Dice, wd.term("dice_source", src), f.Sides, strings.Join(counts, " "),
					wd.fixed(f.ChiSquare, 2), wd.fixed(f.Critical999, 2), note)
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
		fmt.Fprint(tw, wd.t("audit.orders_head"))
		for _, o := range cols {
			fmt.Fprintf(tw, "\t%s", strings.ToUpper(outcomeLabel(o, wd)))
		}
		fmt.Fprintln(tw)
		for _, p := range players {
			if p.Orders == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d", wd.player(p.Player), p.Orders)
			for _, col := range cols {
				cell := fmt.Sprintf("0 (%s)", wd.fixed(0, 2))
				for _, o := range p.Outcomes {
					if o.Outcome == col.Outcome && o.Actions == col.Actions {
						cell = fmt.Sprintf("%d (%s)", o.Observed, wd.fixed(o.Expected, 2))
					}
				}
				fmt.Fprintf(tw, "\t%s", cell)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintln(w, wd.t("audit.observed_expected"))
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
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.failed", "n", len(r.Failures())))
	case pending > 0:
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.passed_so_far", "n", pending))
	case r.Authorship.Proven:
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.passed"))
	case r.Authorship.Anchor == audit.AnchorKeyFile:
		// The live ledger: events stored before it signed.
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.passed_legacy", "n", r.Unsigned))
	case r.Authorship.Key == "":
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.passed_unsigned", "n", r.Unsigned))
	default:
		fmt.Fprintf(w, "\n%s\n", wd.t("audit.passed_unanchored", "key", r.Authorship.Key))
	}
	return nil
}

// auditFailure says a failed audit in one line: its first failure, and
// how many more (audit.Error's words, in wd's language).
func auditFailure(r *audit.Report, wd words) string {
	f := r.Failures()
	first := f[0]
	return wd.t("audit.error", "campaign", r.Campaign, "battle", r.Battle, "check", wd.term("check", first.Check), "ref", first.EventRef.String(),
		"message", wd.audit(r, "finding", first.Words, first.Message), "values", first.Expected != nil || first.Recorded != nil,
		"expected", audit.Ints(first.Expected), "recorded", audit.Ints(first.Recorded), "more", len(f)-1)
}

// audit says a summary or a finding of r (phrase.audit.<kind>) in wd's
// language from the format and values it was printed from (w): a report
// the door already said in a language (r.Lang: the ledger's, a server's)
// as it is.
func (w words) audit(r *audit.Report, kind string, said rules.Words, text string) string {
	if r.Lang != "" {
		return text
	}
	if out, ok := w.cat.Said(w.lang, "phrase.audit."+kind, said, text); ok {
		return out
	}
	return text
}

// outcomeLabel names an order outcome column: "failed", "2 actions".
func outcomeLabel(o audit.OutcomeStats, wd words) string {
	if o.Outcome == "actions" {
		return wd.t("audit.n_actions", "n", o.Actions)
	}
	if o.Actions > 0 {
		return fmt.Sprintf("%s (%d)", wd.term("outcome", o.Outcome), o.Actions)
	}
	return wd.term("outcome", o.Outcome)
}
