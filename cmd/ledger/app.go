package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	ledgerjs "github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

// App is one running ledger: its connection to the log, the sealed vault,
// the command service and the SQLite projection. The same App serves the
// CLI, scenario files and HTTP.
type App struct {
	Config  config.Config
	Log     events.Log
	Vault   events.Vault
	Service *campaign.Service
	DB      *sqlite.DB

	embedded *ledgerjs.Embedded
	nc       *nats.Conn
}

// AppOptions tune an App beyond its configuration.
type AppOptions struct {
	// Entropy is where the service draws secret dice seeds and sealing
	// salts: the operating system's random source when nil. Tests fix it
	// (internal/dicetest) so that no test depends on luck.
	Entropy io.Reader
}

// OpenApp connects to the log (starting the embedded server when no URL is
// configured), opens the stream, the vault and the projection, and builds
// the service. Close releases all of it.
func OpenApp(ctx context.Context, cfg config.Config, opts AppOptions) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data folder: %w", err)
	}
	a := &App{Config: cfg}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	var err error
	if cfg.Embedded() {
		a.embedded, err = ledgerjs.StartEmbedded(ledgerjs.EmbeddedOptions{
			DataDir:      cfg.DataDir,
			NoSyncAlways: !cfg.NATS.SyncAlways,
			Listen:       cfg.NATS.Listen,
		})
		if err != nil {
			return nil, err
		}
		a.nc, err = a.embedded.Connect()
	} else {
		a.nc, err = ledgerjs.Connect(cfg.NATS.URL, ledgerjs.ConnectOptions{
			Name:      "ledger",
			CredsFile: cfg.NATS.Creds,
			User:      cfg.NATS.User,
			Password:  cfg.NATS.Password,
			CAFile:    cfg.NATS.CA,
		})
	}
	if err != nil {
		return nil, err
	}
	js, err := natsjs.New(a.nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	log, err := ledgerjs.Open(openCtx, js, ledgerjs.Config{
		Stream:          cfg.NATS.Stream,
		Replicas:        cfg.NATS.Replicas,
		DuplicateWindow: cfg.NATS.DuplicateWindow,
	})
	if err != nil {
		return nil, err
	}
	a.Log = log
	a.Vault, err = ledgerjs.OpenVault(openCtx, js, ledgerjs.VaultConfig{Replicas: cfg.NATS.Replicas})
	if err != nil {
		return nil, err
	}
	a.DB, err = sqlite.Open(cfg.DBPath())
	if err != nil {
		return nil, err
	}
	a.Service = campaign.NewService(a.Log, a.Vault, campaign.Options{Retries: cfg.Retries, Entropy: opts.Entropy})
	ok = true
	return a, nil
}

// CatchUp applies every event of the log to the projection.
func (a *App) CatchUp(ctx context.Context, onProgress func(projections.Progress)) error {
	return projections.Run(ctx, a.Log, a.DB, projections.RunOptions{OnProgress: onProgress})
}

// Close releases the projection, the connection and the embedded server.
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
	return errors.Join(errs...)
}
