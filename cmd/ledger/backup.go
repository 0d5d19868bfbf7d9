package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/backup"
	"github.com/clubledger/ledger/events"
)

func init() {
	extraCommands = append(extraCommands,
		func(c *cli) *cobra.Command { return c.backupCommand() },
		func(c *cli) *cobra.Command { return c.restoreCommand() },
		func(c *cli) *cobra.Command { return c.importCommand() },
	)
}

// backupVault returns app's vault as stored, as backup.Vault: sealed values
// travel in ciphertext, and only the key file opens them (docs/backup.md);
// the JetStream vault lists its names from its stream's info, which the
// ledger's NATS user may read (no consumer needed).
func backupVault(_ context.Context, app *App) (backup.Vault, error) {
	v, ok := app.StoredVault.(backup.Vault)
	if !ok {
		return nil, fmt.Errorf("the vault %T cannot list its names", app.StoredVault)
	}
	return v, nil
}

func (c *cli) backupCommand() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "backup -f FILE",
		Short: "Copy the whole log and the sealed vault to one file (ledger-backup-v1), while the ledger serves",
		Long: `Backup writes every event of the log, with its stored bytes and log sequence,
and every sealed value of the vault (the dice seeds not yet revealed) to one
file (docs/backup.md). It reads up to the log's last sequence when it starts,
so the copy is a consistent cut even while commands keep arriving; then it
copies the vault, which by then holds every seed those events commit to.

The file is written beside FILE and renamed into place when complete, and
ends with a digest of its content: ledger restore refuses a damaged file.
The projection needs no backup: it is rebuilt from the log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usagef("backup: give the file to write with -f")
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			var sum app.BackedUp
			err = atomicWrite(file, func(w io.Writer) error {
				var err error
				sum, err = api.Backup(c.ctx, w)
				return err
			})
			if err != nil {
				return err
			}
			res := struct {
				File string `json:"file"`
				app.BackedUp
			}{file, sum}
			if c.output == "json" {
				return writeJSON(c.stdout, res)
			}
			fmt.Fprintf(c.stdout, "backup %s: %d events of %d streams up to log sequence %d, %d sealed values, %d bytes in %.1fs\n",
				file, res.Events, res.Streams, res.LastSequence, res.Sealed, res.Bytes, res.Seconds)
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "the backup file to write")
	return cmd
}

func (c *cli) restoreCommand() *cobra.Command {
	var file string
	var check bool
	cmd := &cobra.Command{
		Use:   "restore -f FILE",
		Short: "Load a backup into an empty ledger; then audit every battle and build the projection",
		Long: `Restore checks the whole file first (format, digest, every stream's hash
chain), then writes the sealed values and re-appends every event in the
original log order with its exact stored bytes: the chains verify as they
did, and the events get their original log sequences back (docs/backup.md).

The ledger must be empty (no event, no sealed value): restore into a new data
folder, or an empty cluster. Afterwards every battle is audited (ledger
audit) and the projection is brought up to date. --check only verifies the
file. Exit code 4 if the file or an audit fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usagef("restore: give the backup file with -f")
			}
			f, err := os.Open(file)
			if err != nil {
				return err
			}
			defer f.Close()
			if check {
				sum, err := backup.Check(f)
				if err != nil {
					return backupCheckError(file, err)
				}
				if c.output == "json" {
					return writeJSON(c.stdout, sum)
				}
				fmt.Fprintf(c.stdout, "backup %s is intact: %d events of %d streams up to log sequence %d, %d sealed values, taken %s\n",
					file, sum.Events, sum.Streams, sum.Header.LastSequence, sum.Sealed, sum.Header.CreatedAt.Format(time.RFC3339))
				return nil
			}
			app, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			vault, err := backupVault(c.ctx, app)
			if err != nil {
				return err
			}
			bar := newCountBar(c.stderr, "restore")
			sum, err := backup.Restore(c.ctx, f, app.Log, vault, backup.RestoreOptions{OnEvent: bar.set})
			bar.done()
			if err != nil {
				return backupCheckError(file, err)
			}
			audited, failed := 0, []string{}
			for _, key := range sum.Keys {
				if key.Battle == "" {
					continue
				}
				evs, err := app.Log.Read(c.ctx, key, 0)
				if err != nil {
					return err
				}
				audited++
				if rep := audit.Verify(evs, audit.Options{Key: key, Keys: app.Ring}); rep.Failed() {
					failed = append(failed, fmt.Sprintf("%s: %v", key, rep.Err()))
				}
			}
			if err := app.CatchUp(c.ctx, nil); err != nil {
				return err
			}
			res := struct {
				backup.Summary
				Audited int      `json:"battles_audited"`
				Failed  []string `json:"audit_failures,omitempty"`
			}{sum, audited, failed}
			res.Keys = nil
			if c.output == "json" {
				if err := writeJSON(c.stdout, res); err != nil {
					return err
				}
			} else {
				kept := "with their original log sequences"
				if !sum.SequencesKept {
					kept = "at new log sequences (the projection's sequence columns will differ from the original's)"
				}
				fmt.Fprintf(c.stdout, "restored %s: %d events of %d streams %s, %d sealed values; %d battles audited, %d failed; projection up to date\n",
					file, sum.Events, sum.Streams, kept, sum.Sealed, audited, len(failed))
			}
			if len(failed) > 0 {
				return &checkError{msg: "audit after restore: " + strings.Join(failed, "; ") +
					fmt.Sprintf(" (a restore needs the key file of the ledger that made the backup: copy it to %s, into a new data folder, before restoring)", app.Config.KeyPath())}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "the backup file to read")
	cmd.Flags().BoolVar(&check, "check", false, "only verify the file; touch no ledger")
	return cmd
}

// backupCheckError makes a damaged backup a failed check (exit 4).
func backupCheckError(file string, err error) error {
	var fe *backup.FormatError
	if errors.As(err, &fe) {
		return &checkError{msg: fmt.Sprintf("%s: %v", file, err)}
	}
	return err
}

func (c *cli) importCommand() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "import -f EXPORT",
		Short: "Import a battle exported from another ledger (ledger export --umpire), for review, after auditing it",
		Long: `Import reads a ledger-export-v1 file (ledger export), audits it as ledger audit
--file does (hash chain, dice reveals, every digital roll recomputed,
counters, orders), and only if every check passes appends its events, with
their exact stored bytes, to the same battle's stream in this ledger, which
must not have that battle yet. The chain therefore verifies here as it did
there; the events get this ledger's log sequences.

The export must hold every event in full (ledger export --umpire): an
event exported as its hash only cannot be imported. The battle's campaign
is not imported: a battle of a campaign this ledger does not have is
shown for review (state, log, replay, audit) but is not in any standings.
Exit code 4 if the audit fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usagef("import: give the export file with -f")
			}
			var x *audit.Export
			var err error
			if file == "-" {
				x, err = audit.ReadExport(c.stdin)
			} else {
				f, oerr := os.Open(file)
				if oerr != nil {
					return oerr
				}
				x, err = audit.ReadExport(f)
				f.Close()
			}
			if err != nil {
				var fe *audit.FormatError
				if errors.As(err, &fe) {
					return &checkError{msg: fmt.Sprintf("%s: %v", file, err)}
				}
				return err
			}
			key := events.Key{Campaign: x.Meta.Campaign, Battle: x.Meta.Battle}
			if err := key.Validate(); err != nil || key.Battle == "" {
				return &checkError{msg: fmt.Sprintf("%s: the export names %q/%q, not a battle", file, x.Meta.Campaign, x.Meta.Battle)}
			}
			if x.Meta.Withheld > 0 {
				return &checkError{msg: fmt.Sprintf("%s: %d events are withheld (exported as their hash only); import needs an export made with --umpire", file, x.Meta.Withheld)}
			}
			rep := x.Verify()
			if rep.Failed() {
				return &checkError{msg: fmt.Sprintf("%s: the audit fails, nothing imported: %v", file, rep.Err())}
			}
			app, release, err := c.open()
			if err != nil {
				return err
			}
			defer release()
			// The battle is signed by the ledger it comes from: its keys,
			// which the audit verified, are trusted for this battle only.
			for _, s := range rep.Signers {
				if t, ok := app.Ring.Trusts(s.Key); ok && len(t.Streams) == 0 {
					continue // one of this ledger's own keys
				}
				if err := app.Keys.Import(s.Key, key); err != nil {
					return err
				}
				app.Ring.Add(events.TrustedKey{Key: s.Key, Streams: []events.Key{key}})
			}
			have, err := app.Log.Read(c.ctx, key, 0)
			if err != nil {
				return err
			}
			if len(have) > 0 {
				return fmt.Errorf("import %s: this ledger already has battle %s (%d events); nothing imported", file, key, len(have))
			}
			var expected uint64
			for i := range x.Events {
				e := x.Events[i]
				e.Sequence = 0
				batch := []events.Envelope{e}
				if err := app.Log.Append(c.ctx, key, expected, batch); err != nil {
					return fmt.Errorf("import %s: event %s (version %d): %w", file, e.ID, e.Version, err)
				}
				expected = batch[0].Sequence
			}
			// Read back and audit what this ledger now holds.
			got, err := app.Log.Read(c.ctx, key, 0)
			if err != nil {
				return err
			}
			if rep := audit.Verify(got, audit.Options{Key: key, Head: x.Meta.Head, Keys: app.Ring}); rep.Failed() {
				return &checkError{msg: fmt.Sprintf("import %s: the imported battle fails its audit: %v", file, rep.Err())}
			}
			if err := app.CatchUp(c.ctx, nil); err != nil {
				return err
			}
			camp, err := app.Service.Campaign(c.ctx, key.Campaign)
			if err != nil {
				return err
			}
			res := struct {
				Battle   string `json:"battle"`
				Events   int    `json:"events"`
				Head     string `json:"head"`
				Campaign bool   `json:"campaign_present"`
			}{key.String(), len(got), x.Meta.Head, camp.Exists()}
			if c.output == "json" {
				return writeJSON(c.stdout, res)
			}
			fmt.Fprintf(c.stdout, "imported %s: %d events, chain and dice verified (head %.16s)\n", key, len(got), x.Meta.Head)
			if !res.Campaign {
				fmt.Fprintf(c.stdout, "campaign %s is not in this ledger: the battle is here for review only\n", key.Campaign)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "the export file to import (- for standard input)")
	return cmd
}

// atomicWrite writes path through a temporary file in the same folder,
// synced and renamed into place, so that a failed or interrupted backup
// never leaves a half-written file under the name.
func atomicWrite(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// countBar shows a progress bar on a terminal and nothing elsewhere.
type countBar struct {
	w     io.Writer
	label string
	tty   bool
	bar   *progressbar.ProgressBar
}

func newCountBar(w io.Writer, label string) *countBar {
	b := &countBar{w: w, label: label}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.tty = true
	}
	return b
}

func (b *countBar) set(done, total int) {
	if !b.tty {
		return
	}
	if b.bar == nil {
		b.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(b.label),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("events"),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionFullWidth())
	}
	_ = b.bar.Set(done)
}

func (b *countBar) done() {
	if b.bar != nil {
		_ = b.bar.Finish()
		fmt.Fprintln(b.w)
	}
}
