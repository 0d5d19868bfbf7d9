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
			w := c.words()
			fmt.Fprintln(c.stdout, w.t("backup.written", "file", file, "events", res.Events, "streams", res.Streams, "last", res.LastSequence,
				"sealed", res.Sealed, "bytes", res.Bytes, "seconds", w.fixed(res.Seconds, 1)))
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
				fmt.Fprintln(c.stdout, c.words().t("backup.intact", "file", file, "events", sum.Events, "streams", sum.Streams, "last", sum.Header.LastSequence,
					"sealed", sum.Sealed, "taken", sum.Header.CreatedAt.Format(time.RFC3339)))
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
				w := c.words()
				kept := w.t("backup.sequences_kept")
				if !sum.SequencesKept {
					kept = w.t("backup.sequences_new")
				}
				fmt.Fprintln(c.stdout, w.t("backup.restored", "file", file, "events", sum.Events, "streams", sum.Streams, "kept", kept,
					"sealed", sum.Sealed, "audited", audited, "failed", len(failed)))
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
	var trusted []string
	cmd := &cobra.Command{
		Use:   "import -f EXPORT [--key FINGERPRINT]...",
		Short: "Import a battle exported from another ledger (ledger export --umpire), for review, after auditing it",
		Long: `Import reads a ledger-export-v2 file (ledger export; a ledger-export-v1 file
is read too, but its events carry no signatures, so nothing proves who wrote
them and it is refused), audits the whole file as ledger audit --file --key
does (hash chain, dice reveals, every digital roll recomputed, counters,
orders, signatures) before appending anything, and only if every check
passes appends its events, with their exact stored bytes, to the same
battle's stream in this ledger, which must not have that battle yet: in one
atomic batch (batches of 1000 events for a longer battle, sent only after
the whole audit passed). The chain therefore verifies here as it did there;
the events get this ledger's log sequences.

The audit's trust anchor is this ledger's own keys (its key file) and each
--key FINGERPRINT given: every event must be signed by one of those keys
(or a successor it signed), or be bound by the hash chain to a later event
that is. The export header's keys and signed_from are signed by no one and
excuse nothing: an export from another ledger needs that ledger's key
fingerprint, as its club publishes it (ledger audit there, or its page).

The export must hold every event in full (ledger export --umpire): an
event exported as its hash only cannot be imported. The battle's campaign
is not imported: a battle of a campaign this ledger does not have is
shown for review (state, log, replay, audit) but is not in any standings.
Exit code 4 if the audit fails; then nothing is appended.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return usagef("import: give the export file with -f")
			}
			in := c.stdin
			if file != "-" {
				f, err := os.Open(file)
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			// Through the door: the running server's when there is one
			// (its socket), else this folder's. The door reads the file,
			// audits all of it before it appends anything, and appends all
			// of it or nothing (app.Session.Import).
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			res, err := api.Import(c.ctx, in, app.ImportOptions{Trust: trusted})
			var failed *app.ImportFailed
			if errors.As(err, &failed) {
				// Its reason in the reader's language, from its format
				// and values (the door's detail.import_*); a server's
				// answer as the server said it.
				w, family := c.words(), "detail.import_exists"
				if failed.Audit {
					family = "detail.import_refused"
				}
				reason := w.cat.Detail(w.lang, family, failed.Words, failed.Reason)
				if failed.Audit {
					return &checkError{msg: fmt.Sprintf("%s: %s", file, reason)}
				}
				return fmt.Errorf("import %s: %s", file, reason)
			}
			if err != nil {
				return err
			}
			if c.output == "json" {
				return writeJSON(c.stdout, res)
			}
			fmt.Fprintf(c.stdout, "imported %s: %d events, chain and dice verified (head %.16s)\n", res.Battle, res.Events, res.Head)
			if !res.Campaign {
				camp, _, _ := strings.Cut(res.Battle, "/")
				fmt.Fprintf(c.stdout, "campaign %s is not in this ledger: the battle is here for review only\n", camp)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "the export file to import (- for standard input)")
	cmd.Flags().StringArrayVar(&trusted, "key", nil, "the fingerprint (at least 16 hex digits) of the exporting ledger's key, as its club publishes it; repeatable")
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
