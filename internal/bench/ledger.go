package bench

import (
	"context"
	"log/slog"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections/sqlite"
)

// The bench measures ledgers it does not build: cmd/ledger wires them
// (the embedded NATS server or a cluster's, the stream, the vault, the key
// file, the SQLite projection, the service and the door, as `ledger serve`
// runs them) and hands them over through an Opener.

// Ledger is one opened ledger, as the bench drives it.
type Ledger struct {
	Config config.Config
	// Log is the ledger's log; Vault its sealed vault.
	Log   events.Log
	Vault events.Vault
	// Signer signs the ledger's events; Ring holds the keys whose
	// signatures are the ledger's.
	Signer *events.Signer
	Ring   *events.Keyring
	// DB is the SQLite projection of the log.
	DB *sqlite.DB
	// Service is the command service; Door the one door every command and
	// query goes through (app.Ledger).
	Service *campaign.Service
	Door    *app.Ledger
	// NewProjector makes the projector `ledger serve` runs on DB, logging to
	// logger, and has the door wait for it once a command is accepted, as
	// a server answers; the caller runs it. Nil on a served ledger.
	NewProjector func(logger *slog.Logger) *app.Projector
	// CatchUp applies every event of the log to DB.
	CatchUp func(ctx context.Context) error
	// Close releases the ledger and its data folder. Nil on a served
	// ledger: the server closes it when it stops.
	Close func() error
}

// OpenOptions tune how a ledger is opened.
type OpenOptions struct {
	// What says what the process does with the data folder, for whoever
	// finds it locked ("": the CLI's default).
	What string
	// Logger receives what the ledger warns of (nil: discarded).
	Logger *slog.Logger
}

// Served is a ledger served as `ledger serve` serves it.
type Served struct {
	// URL is the base URL of its HTTP API.
	URL string
	// Ledger is the ledger it serves.
	Ledger *Ledger
	// Wait blocks until the server has shut down (the context it was
	// started with ended) and returns what went wrong, if anything.
	Wait func() error
}

// Opener opens and serves ledgers for the bench; cmd/ledger fills it in
// with its own wiring.
type Opener struct {
	// Open opens the ledger of cfg, taking its data folder.
	Open func(ctx context.Context, cfg config.Config, o OpenOptions) (*Ledger, error)
	// Serve runs `ledger serve` on cfg until ctx ends, admin being the
	// administrator's token; the server's log is discarded.
	Serve func(ctx context.Context, cfg config.Config, admin string) (*Served, error)
}
