package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/backup"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	ledgerjs "github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/keys"
	"github.com/clubledger/ledger/metrics"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

// App is one running ledger: its connection to the log, the sealed vault,
// the command service, the SQLite projection and the one door over them
// (app.Ledger). The process that opens it owns the data folder (its lock)
// until Close.
type App struct {
	Config  config.Config
	Log     events.Log
	Vault   events.Vault
	Service *campaign.Service
	DB      *sqlite.DB
	// Keys are the ledger's signing key and vault key (its key file);
	// Ring the keys whose signatures are the ledger's, shared by the
	// service and the projection (an import adds to it).
	Keys *keys.Keys
	Ring *events.Keyring
	// StoredVault is the vault's bucket as stored, sealed values in
	// ciphertext: what a backup copies and a restore writes back.
	StoredVault events.Vault
	// Ledger is the door every command and query goes through.
	Ledger *app.Ledger

	lock     *folderLock
	embedded *ledgerjs.Embedded
	nc       *nats.Conn
	// projector, when a server runs one, keeps DB up to date; nil in the
	// CLI, which brings DB up to date itself after a command.
	projector *app.Projector
	// guard checks the stream's and the vault's configuration (the stream
	// guard): findings in words, none when all is as the ledger needs.
	guard func(ctx context.Context) ([]string, error)
	// lost finds a log that lost events the projection holds
	// (projections.LostWatch): appends are refused while it does (events.Gate).
	lost *projections.LostWatch
	// store watches the embedded server's store for a full or failing
	// disk (jetstream.StoreWatch); nil on an external NATS server.
	store *ledgerjs.StoreWatch
}

// AppOptions tune an App beyond its configuration.
type AppOptions struct {
	// Entropy is where the service draws secret dice seeds and sealing
	// salts: the operating system's random source when nil. Tests fix it
	// (internal/dicetest) so that no test depends on luck.
	Entropy io.Reader
	// What says what the process does with the folder, for whoever finds
	// it locked ("cli state", "serve").
	What string
	// Lock is the folder's lock, already taken; nil: OpenApp takes it.
	Lock *folderLock
	// Logger receives what no caller is told of (default: discarded).
	Logger *slog.Logger
	// Metrics, when set, counts the door's commands and times the log's
	// appends (ledger serve).
	Metrics *metrics.Metrics
}

// openTimeout bounds connecting to the log and opening its stream and
// vault: with no quorum a command answers in words within it.
const openTimeout = 8 * time.Second

// OpenApp takes the data folder's lock, connects to the log (starting the
// embedded server when no URL is configured), opens the stream, the vault
// and the projection, and builds the service and the door. Close releases
// all of it.
func OpenApp(ctx context.Context, cfg config.Config, opts AppOptions) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, configInvalid(err)
	}
	a := &App{Config: cfg, lock: opts.Lock}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	if a.lock == nil {
		what := opts.What
		if what == "" {
			what = "cli"
		}
		var err error
		if a.lock, err = lockFolder(cfg.DataDir, what); err != nil {
			return nil, err
		}
	}
	var err error
	openCtx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	streamCfg := ledgerjs.Config{
		Stream:          cfg.NATS.Stream,
		Replicas:        cfg.NATS.Replicas,
		DuplicateWindow: cfg.NATS.DuplicateWindow,
		BatchesInFlight: cfg.NATS.BatchesInFlight,
	}
	vaultCfg := ledgerjs.VaultConfig{Replicas: cfg.NATS.Replicas}
	if cfg.Embedded() {
		a.embedded, err = ledgerjs.StartEmbedded(ledgerjs.EmbeddedOptions{
			DataDir:      cfg.DataDir,
			NoSyncAlways: !cfg.NATS.SyncAlways,
			Listen:       cfg.NATS.Listen,
		})
		if err != nil {
			return nil, err
		}
		// The administrator, connected in-process only, creates the stream
		// and the vault or brings their configuration up to date; the
		// ledger's own user may do neither (docs/deploy.md).
		var changes []string
		changes, err = a.embedded.Provision(openCtx, streamCfg, vaultCfg)
		if err != nil {
			return nil, err
		}
		for _, ch := range changes {
			// A consumer someone else made that lasted (issue 25, item 6).
			if strings.HasPrefix(ch, "removed consumer") && opts.Logger != nil {
				opts.Logger.Warn("jetstream: " + ch)
			}
		}
		a.store = ledgerjs.NewStoreWatch(a.embedded, cfg.DataDir, opts.Logger)
		a.nc, err = a.embedded.Connect()
	} else {
		a.nc, err = ledgerjs.Connect(cfg.NATS.URL, ledgerjs.ConnectOptions{
			Name:      "ledger",
			CredsFile: cfg.NATS.Creds,
			User:      cfg.NATS.User,
			Password:  cfg.NATS.Password,
			CAFile:    cfg.NATS.CA,
			Timeout:   openTimeout / 2,
		})
	}
	if err != nil {
		return nil, err
	}
	js, err := natsjs.New(a.nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	guard := ledgerjs.NewGuard(js, streamCfg, vaultCfg)
	a.guard = func(ctx context.Context) ([]string, error) {
		findings, err := guard.Check(ctx)
		if a.lost != nil {
			if lost := a.lost.Check(ctx); lost != nil {
				findings = append(findings, lost.Error())
			}
		}
		return findings, err
	}
	// Both refuse to run on a stream or vault whose configuration lets
	// events or sealed values be removed (the stream guard).
	log, err := ledgerjs.Open(openCtx, js, streamCfg)
	if err != nil {
		return nil, unavailable("open the log", err)
	}
	a.Log = log
	var observer app.Observer
	if opts.Metrics != nil {
		a.Log = opts.Metrics.Log(log)
		observer = opts.Metrics
	}
	keyPath := cfg.KeyPath()
	k, created, err := keys.Open(keyPath, func() (uint64, error) { return keys.FirstSequence(openCtx, a.Log, keyPath) })
	if err != nil {
		return nil, err
	}
	a.Keys, a.Ring = k, k.Keyring()
	if created && opts.Logger != nil {
		opts.Logger.Info(langWords(cfg.Lang).t("keys.made"), "path", keyPath, "key", k.Signer.Fingerprint())
	}
	vault, err := ledgerjs.OpenVault(openCtx, js, vaultCfg)
	if err != nil {
		return nil, unavailable("open the vault", err)
	}
	a.StoredVault = vault
	if a.Vault, err = k.SealVault(vault); err != nil {
		return nil, err
	}
	if a.DB, err = openProjection(cfg.DBPath(), a.Ring, opts.Logger); err != nil {
		return nil, err
	}
	a.lost = &projections.LostWatch{Projection: a.DB, Log: a.Log}
	if lost := a.lost.Check(openCtx); lost != nil && opts.Logger != nil {
		opts.Logger.Error(lost.Error())
	}
	a.Service = campaign.NewService(events.Gate(a.Log, a.refusal, a.store.Check), a.Vault, campaign.Options{Retries: cfg.Retries, Entropy: opts.Entropy, Signer: k.Signer, Keys: a.Ring,
		CachedStreams: cfg.Cache.Streams,
		// The largest event the servers store: their largest message
		// (max_payload, 1 MiB unless configured) less its headers.
		MaxEventBytes: int(a.nc.MaxPayload()) - campaign.EventHeadroom})
	doorLog := opts.Logger
	if doorLog == nil {
		// Discarded, as AppOptions says: the CLI says an error's cause
		// itself (cli.exit), once.
		doorLog = slog.New(slog.DiscardHandler)
	}
	a.Ledger, err = app.New(app.Options{
		Service: a.Service, Log: a.Log, Read: a.DB, Admin: adminOps{a}, Lang: cfg.Lang, Logger: doorLog, Observer: observer, Keys: a.Ring,
		TrustImported:  a.Keys.Import,
		TimelineEvents: cfg.Cache.TimelineEvents,
		Projected: func(ctx context.Context, seq uint64) error {
			if a.projector != nil {
				return a.projector.WaitFor(5*time.Second)(ctx, seq)
			}
			return a.CatchUp(ctx, nil)
		},
	})
	if err != nil {
		return nil, err
	}
	ok = true
	return a, nil
}

// refusal says why every append is refused now, nil when none is: a log
// that lost events, a store that cannot write.
func (a *App) refusal() error {
	if err := a.lost.Current(); err != nil {
		return err
	}
	return a.store.Current()
}

// unavailable words a log that cannot be opened: what happened, what to do.
func unavailable(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, events.ErrUnavailable) {
		return fmt.Errorf("%s: the NATS servers did not answer in time (no quorum, or a leader being elected); check they are up and try again: %w",
			what, errors.Join(err, events.ErrUnavailable))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// openProjection opens the SQLite projection, verifying events with the
// ledger's keys. A file that cannot be read is moved aside and rebuilt
// from the log; DB.Damaged says where it went (the CLI prints it).
func openProjection(path string, ring *events.Keyring, logger *slog.Logger) (*sqlite.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("projection folder: %w", err)
	}
	db, err := sqlite.OpenWith(path, sqlite.Options{Keys: ring, MoveDamaged: true})
	if err == nil && db.Damaged() != nil && logger != nil {
		logger.Warn(db.Damaged().String())
	}
	return db, err
}

// Operator is the caller the data folder's owner is: the local operator,
// or the person of the token given with --token.
func operatorCaller(token, lang string) app.Caller {
	if token != "" {
		return app.Caller{Token: token, Lang: lang}
	}
	return app.Caller{Operator: "operator", Lang: lang}
}

// NATSToolsUsage says in lang how to read the log with the nats CLI
// through the embedded server's listening port (nats.listen) as the
// read-only tools user (cli.serve.nats_tools; in English as
// jetstream.ToolsUsage says it); "" when there is none. `ledger serve`
// prints it.
func (a *App) NATSToolsUsage(w words) string {
	if a.embedded == nil {
		return ""
	}
	url, file := a.embedded.ToolsAccess()
	if url == "" {
		return ""
	}
	return w.t("serve.nats_tools", "url", url, "user", ledgerjs.UserTools, "file", file, "inbox", ledgerjs.ToolsInboxPrefix)
}

// CatchUp applies every event of the log to the projection.
func (a *App) CatchUp(ctx context.Context, onProgress func(projections.Progress)) error {
	return projections.Run(ctx, a.Log, a.DB, projections.RunOptions{OnProgress: onProgress})
}

// Close releases the projection, the connection, the embedded server and
// the folder's lock.
func (a *App) Close() error {
	var errs []error
	if a.DB != nil {
		errs = append(errs, a.DB.Close())
	}
	if a.nc != nil {
		a.nc.Close()
	}
	if a.embedded != nil {
		a.embedded.Shutdown()
	}
	a.lock.release()
	return errors.Join(errs...)
}

// adminOps is the operator's work on the projection and the log, behind
// the door (app.Admin): the same code for the CLI on a folder it owns and
// for `ledger serve`.
type adminOps struct{ a *App }

func (o adminOps) Status(ctx context.Context) (app.Status, error) {
	st := app.Status{Log: "ok", DB: o.a.DB.Path()}
	last, err := o.a.Log.LastSequence(ctx)
	if err != nil {
		st.Log = err.Error()
	}
	st.LastSequence = last
	if st.Checkpoint, err = o.a.DB.Checkpoint(ctx); err != nil {
		return st, err
	}
	st.Lag = last - min(st.Checkpoint, last)
	if o.a.projector != nil {
		ps := o.a.projector.Status()
		st.ProjectorState = &ps
	}
	if o.a.guard != nil {
		findings, err := o.a.guard(ctx)
		switch {
		case errors.Is(err, ledgerjs.ErrConsumersUnlisted):
			st.Guard = append(findings, err.Error())
		case err != nil:
			st.Guard = []string{"the stream guard could not read the configuration: " + err.Error()}
		default:
			st.Guard = findings
		}
	}
	if st.Stopped, err = o.a.DB.Stopped(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// Rebuild rebuilds aside and swaps in (sqlite.Rebuild): under the running
// projector when a server runs one, else directly.
func (o adminOps) Rebuild(ctx context.Context, opt app.RebuildOptions) (app.Rebuilt, error) {
	r, err := sqlite.Rebuild(ctx, o.a.Log, o.a.DB, sqlite.RebuildOptions{
		Fresh: opt.Fresh, BatchSize: opt.Batch, OnResume: opt.Resuming, OnProgress: opt.Progress,
		Projecting: o.a.projector != nil,
	})
	if err != nil {
		return app.Rebuilt{}, err
	}
	// The projection now holds what the log holds: a log that had lost
	// events is trusted as it is from here on.
	o.a.lost.Check(ctx)
	return app.Rebuilt{Rebuilt: true, Path: r.Path, ResumedFrom: r.ResumedFrom, Checkpoint: r.Checkpoint,
		Events: r.Events, Seconds: r.Seconds, EventsPerSecond: r.EventsPerSecond()}, nil
}

// Verify rebuilds into a scratch file up to the live checkpoint and
// compares the two table by table (sqlite.Verify).
func (o adminOps) Verify(ctx context.Context, opt app.VerifyOptions) (app.Verified, error) {
	v, err := sqlite.Verify(ctx, o.a.Log, o.a.DB, sqlite.VerifyOptions{OnProgress: opt.Progress, Projecting: o.a.projector != nil})
	if err != nil {
		return app.Verified{}, err
	}
	out := app.Verified{Checkpoint: v.Checkpoint, Tables: len(v.Tables), Differences: v.Differences()}
	for _, t := range v.Tables {
		out.Rows = append(out.Rows, app.TableCompared(t))
	}
	return out, nil
}

// Backup writes the log and the vault.
func (o adminOps) Backup(ctx context.Context, w io.Writer) (app.BackedUp, error) {
	vault, err := backupVault(ctx, o.a)
	if err != nil {
		return app.BackedUp{}, err
	}
	start := time.Now()
	source := "stream " + o.a.Config.NATS.Stream
	if o.a.Config.NATS.URL != "" {
		source += " at " + o.a.Config.NATS.URL
	}
	sum, err := backup.Write(ctx, w, o.a.Log, vault, time.Now(), source)
	if err != nil {
		return app.BackedUp{}, err
	}
	return app.BackedUp{LastSequence: sum.Header.LastSequence, Events: sum.Events, Streams: sum.Streams, Sealed: sum.Sealed,
		Bytes: sum.Bytes, Seconds: time.Since(start).Seconds()}, nil
}
