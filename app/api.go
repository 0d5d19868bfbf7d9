package app

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
)

// API is the ledger as one caller sees it: every command and query. A
// Session implements it in the process that owns the ledger; the client
// package implements it over HTTP (the local door's Unix socket, or a
// server's address), so the CLI runs the same way against either.
type API interface {
	// Execute runs a command (or, with DryRun, decides it without
	// appending anything).
	Execute(ctx context.Context, cmd Command) (Result, error)

	// Campaigns lists the campaigns the caller may see.
	Campaigns(ctx context.Context) ([]CampaignSummary, error)
	// Campaign is one campaign: its sides, battles, people and the caller.
	Campaign(ctx context.Context, id string) (CampaignInfo, error)
	// Standings are a campaign's standings and rosters (V.3, V.4), and
	// the log sequence they are true at.
	Standings(ctx context.Context, id string) (Standings, error)

	// State is a battle now, as the caller may see it.
	State(ctx context.Context, key events.Key) (Board, error)
	// Replay is a battle just after event version (Latest: now).
	Replay(ctx context.Context, key events.Key, version uint64) (Board, error)
	// Events are a stream's events the caller may read, after a version.
	Events(ctx context.Context, key events.Key, after uint64) (EventsPage, error)
	// Odds are the exact chances of an order the caller could give now.
	Odds(ctx context.Context, key events.Key, q OddsQuery) (Odds, error)
	// Dice counts every die of a battle by person and face.
	Dice(ctx context.Context, key events.Key) (DiceChart, error)
	// Disputes are a battle's disputes and retraction requests.
	Disputes(ctx context.Context, key events.Key) (DisputesView, error)
	// Audit audits a battle from its events (campaign/audit).
	Audit(ctx context.Context, key events.Key, opt AuditOptions) (*audit.Report, error)
	// Export writes a battle as a ledger-export-v1 file to w.
	Export(ctx context.Context, key events.Key, opt ExportOptions, w io.Writer) (ExportSummary, error)
	// Picture draws a battle at a version as SVG.
	Picture(ctx context.Context, key events.Key, q PictureQuery) ([]byte, error)
	// Review is one event reviewed: the battle before and after it, as
	// corrected, the geometry that decided it (app/review.go).
	Review(ctx context.Context, key events.Key, version uint64) (Review, error)
	// ReviewPicture draws an event's review as SVG.
	ReviewPicture(ctx context.Context, key events.Key, q ReviewQuery) ([]byte, error)

	// Status is the ledger's health: the log, the projection and its lag
	// (the operator's).
	Status(ctx context.Context) (Status, error)
	// RebuildProjection rebuilds the projection from the log aside, going
	// on from an interrupted rebuild unless opt.Fresh, and swaps it in
	// (the operator's).
	RebuildProjection(ctx context.Context, opt RebuildOptions) (Rebuilt, error)
	// VerifyProjection builds the projection afresh up to the live one's
	// checkpoint and compares them table by table (the operator's).
	VerifyProjection(ctx context.Context, opt VerifyOptions) (Verified, error)
	// Backup writes the whole log and the sealed vault to w, a consistent
	// cut (ledger-backup-v1; the operator's).
	Backup(ctx context.Context, w io.Writer) (BackedUp, error)
	// Import reads a battle's export file from r, audits it whole and
	// appends it, or nothing (the operator's; app/import.go).
	Import(ctx context.Context, r io.Reader, opt ImportOptions) (Imported, error)
}

// Latest asks Replay and Picture for the battle's last event.
const Latest = ^uint64(0)

// Command is one command through the door.
type Command struct {
	// ID identifies the command: the same id with the same command is
	// answered with the recorded outcome; with another, a conflict.
	ID       string          `json:"id,omitempty"`
	Campaign string          `json:"campaign"`
	Battle   string          `json:"battle,omitempty"`
	Name     string          `json:"name"`
	Body     json.RawMessage `json:"command,omitempty"`
	// Dice are physical dice thrown on the table, in the order the command
	// uses them; none: the ledger's digital dice.
	Dice []int `json:"dice,omitempty"`
	// For is the person of the campaign an umpire or the operator enters
	// the command for, at the table.
	For string `json:"for,omitempty"`
	// Nonce is fresh randomness from the player's device, mixed into the
	// digital dice the command rolls (docs/dice.md).
	Nonce string `json:"nonce,omitempty"`
	// DryRun decides the command without appending anything.
	DryRun bool `json:"dry_run,omitempty"`
}

// Result is a command's outcome: the events it appended (for a repeated id,
// those it appended the first time; for a dry run, those it would append),
// as the caller may read them.
type Result struct {
	CommandID string      `json:"command_id"`
	Command   string      `json:"command"`
	Key       events.Key  `json:"key"`
	Duplicate bool        `json:"duplicate"`
	DryRun    bool        `json:"dry_run,omitempty"`
	Events    []EventView `json:"events"`
	// NeedsDice, on a dry run, names the digital roll the command would
	// make next: everything before it was checked, the roll itself happens
	// only when the command is given.
	NeedsDice string `json:"needs_dice,omitempty"`
	// Token is the secret a player.add or player.reissue_token issued:
	// shown this once.
	Token string `json:"token,omitempty"`
}

// EventView is one event as a caller sees it: the envelope, its hash, and
// what it records in words.
type EventView struct {
	Seq         uint64          `json:"seq"`
	Version     uint64          `json:"version"`
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Schema      int             `json:"schema"`
	Time        time.Time       `json:"time"`
	Actor       string          `json:"actor"`
	OnBehalfOf  string          `json:"on_behalf_of,omitempty"`
	CommandID   string          `json:"command_id"`
	Audience    string          `json:"audience"`
	PrevHash    string          `json:"prev_hash"`
	Hash        string          `json:"hash,omitempty"` // of the stored message; absent for a dry run
	Payload     json.RawMessage `json:"payload"`
	Description string          `json:"description"`
	// Refers are the versions of the events this one points at: the
	// disputed event of a dispute, its ruling and its corrections; the
	// events of a retracted command (docs/disputes.md).
	Refers []uint64 `json:"refers,omitempty"`
	// Signed says who signed the event in a sentence: "signed
	// <fingerprint>", the same followed by events.ImportedSuffix for
	// another ledger's key, "unsigned (before signing)", or "NOT SIGNED BY
	// THE LEDGER: <why>" (docs/audit.md). Empty where not checked. Kept for
	// older clients: read Signature, which says the same in parts.
	Signed string `json:"signed,omitempty"`
	// Signature says who signed the event, against the ledger's keys, in
	// parts; nil where not checked (a ledger without keys).
	Signature *Signature `json:"signature,omitempty"`
}

// Signature is who signed an event, as the ledger's keys find it
// (EventView.Signature).
type Signature struct {
	// State is SignatureSigned, SignatureImported, SignatureUnsigned or
	// SignatureNotSigned.
	State string `json:"state"`
	// Key is the hex Ed25519 public key that signed the event, Fingerprint
	// its first 16 digits (signed and imported only).
	Key         string `json:"key,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Why says why the event is not the ledger's (not_signed only).
	Why string `json:"why,omitempty"`
}

// The states of a Signature.
const (
	// SignatureSigned: signed by one of this ledger's keys.
	SignatureSigned = "signed"
	// SignatureImported: signed by the key of the ledger the battle was
	// imported from, trusted for this battle only.
	SignatureImported = "imported"
	// SignatureUnsigned: stored before the ledger signed (it passes,
	// unproven).
	SignatureUnsigned = "unsigned"
	// SignatureNotSigned: not the ledger's (a forgery, a key it does not
	// trust for this stream...): Why says why.
	SignatureNotSigned = "not_signed"
)

// Envelope returns the event's envelope (without its stored bytes).
func (v EventView) Envelope(key events.Key) events.Envelope {
	return events.Envelope{ID: v.ID, Campaign: key.Campaign, Battle: key.Battle, Version: v.Version, Type: v.Type, Schema: v.Schema,
		Time: v.Time, Actor: v.Actor, OnBehalfOf: v.OnBehalfOf, CommandID: v.CommandID, Audience: v.Audience,
		PrevHash: v.PrevHash, Payload: v.Payload, Sequence: v.Seq}
}

// EventsPage is a stream's events as one caller may read them, with the
// stream's head and the check of its whole hash chain.
type EventsPage struct {
	Key events.Key `json:"key"`
	// Last is the stream's last version, whether or not the caller may
	// read it; Head its hash.
	Last uint64 `json:"last"`
	Head string `json:"head"`
	// Chain is "intact", or what breaks it, checked over every event.
	Chain string `json:"chain"`
	// Signatures is SignaturesHold when every event was signed by the
	// ledger (or stored before it signed), SignaturesImported when some
	// were signed by the key of the ledger the battle was imported from
	// (Imported counts them), else the first that was not, checked over
	// every event; empty where the ledger has no keys.
	Signatures string `json:"signatures,omitempty"`
	// ChainSaid and SignaturesSaid are Chain and Signatures, where they
	// name what breaks, said in the caller's language when that is not
	// English (from the error's format and values); absent in English and
	// where the catalogue has no words for it.
	ChainSaid      string `json:"chain_said,omitempty"`
	SignaturesSaid string `json:"signatures_said,omitempty"`
	// Unsigned counts the events stored before the ledger signed (they
	// pass, unproven).
	Unsigned int `json:"unsigned,omitempty"`
	// Imported counts the events signed by another ledger's key, trusted
	// for this battle only because the battle was imported from it.
	Imported int         `json:"imported,omitempty"`
	Events   []EventView `json:"events"`
}

// SignaturesHold is EventsPage.Signatures when every event is the ledger's
// (or stored before it signed: Unsigned counts those).
const SignaturesHold = "every event signed by the ledger"

// SignaturesImported is EventsPage.Signatures when every event is signed by
// a key the ledger trusts for it, some by the key of the ledger the battle
// was imported from (EventsPage.Imported counts those).
const SignaturesImported = "every event signed by a key this ledger trusts for it, some by the key of the ledger the battle was imported from"

// ChainIntact is EventsPage.Chain for an unbroken chain.
const ChainIntact = "intact"

// CampaignSummary is one campaign of the list.
type CampaignSummary struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Era     string `json:"era"`
	Battles int    `json:"battles"`
	// You is the caller's role in it.
	You Person `json:"you"`
}

// Person is a person of a campaign as the door shows them: never their
// token's hash.
type Person struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Role   string `json:"role"`
	Side   string `json:"side,omitempty"`
}

// CampaignInfo is a campaign: the projected campaign, its people and who is
// asking.
type CampaignInfo struct {
	projections.CampaignView
	People []Person `json:"people"`
	You    Person   `json:"you"`
}

// Standings are a campaign's standings and each side's roster for its
// next battle (campaign.Standings), with where they were read and the log
// sequence they are true at (docs/projections.md, "What is read from the
// projection, and what from the log").
type Standings struct {
	campaign.Standings
	// Source is StandingsProjection, or StandingsLog when the projection
	// did not hold the campaign yet (its projector behind the campaign's
	// creation) and the standings were folded from the log.
	Source string `json:"source"`
	// Sequence is the log sequence the standings hold every event up to:
	// the projection's checkpoint read with its rows, or, folded from the
	// log, the log's last sequence read just before the fold (the fold
	// may hold later events too).
	Sequence uint64 `json:"sequence"`
}

// Where standings were read (Standings.Source).
const (
	StandingsProjection = "projection"
	StandingsLog        = "log"
)

// OddsQuery is an order a general could give now.
type OddsQuery struct {
	General   string   `json:"general"`
	Units     []string `json:"units"`
	OnRoad    []string `json:"on_road,omitempty"`
	Action    string   `json:"action,omitempty"`
	Formation string   `json:"formation,omitempty"`
	Target    string   `json:"target,omitempty"`
	Special   string   `json:"special,omitempty"`
}

// AuditOptions tune an audit.
type AuditOptions struct {
	// Head, when set, is a head hash someone kept: the audit checks it is
	// in the chain.
	Head string `json:"head,omitempty"`
}

// ExportOptions tune an export.
type ExportOptions struct {
	// Umpire exports events hidden from the players in full (an umpire's
	// or the operator's only).
	Umpire bool `json:"umpire,omitempty"`
}

// ExportSummary says what an export wrote.
type ExportSummary struct {
	Events int    `json:"events"`
	Head   string `json:"head"`
}

// PictureQuery asks for a picture of a battle.
type PictureQuery struct {
	// Version is the event the picture stands after (Latest: now).
	Version uint64 `json:"version"`
	// Charge, when not 0, is a charge.declared to draw over the picture
	// (its path, placement and pushes); Version then defaults to its
	// command's last event.
	Charge uint64 `json:"charge,omitempty"`
	// Scale is pixels per inch (or cm) of the table; 0: the renderer's.
	Scale float64 `json:"scale,omitempty"`
	// NoLabels leaves out names.
	NoLabels bool `json:"no_labels,omitempty"`
}

// Status is the ledger's health as the operator sees it.
type Status struct {
	// Log is "ok" or what is wrong with it.
	Log string `json:"log"`
	// LastSequence is the log's last event.
	LastSequence uint64 `json:"last_sequence"`
	// Checkpoint is the projection's: the last event it holds; Lag how far
	// it is behind the log.
	Checkpoint uint64 `json:"checkpoint"`
	Lag        uint64 `json:"lag"`
	// Projector is "running", "stopped: why", "stopped", or "" where no
	// projector runs (the CLI brings the projection up to date itself).
	// Kept for older clients: read ProjectorState, which says the same in
	// parts.
	Projector string `json:"projector,omitempty"`
	// ProjectorState is the projector's state in parts; nil where no
	// projector runs.
	ProjectorState *ProjectorState `json:"projector_state,omitempty"`
	// DB is the projection file.
	DB string `json:"db,omitempty"`
	// Guard is what the stream guard found wrong with the log's and the
	// vault's configuration (a limit that would drop events, deletes or
	// purges allowed...), in words; empty when all is as the ledger needs.
	Guard []string `json:"guard"`
	// Stopped are the streams the projector stopped at an event the ledger
	// did not write (projections.Stopped says which, why, what to do).
	Stopped []projections.Stopped `json:"stopped,omitempty"`
}

// ProjectorState is the projector's state (Status.ProjectorState).
type ProjectorState struct {
	// State is ProjectorRunning or ProjectorStopped.
	State string `json:"state"`
	// Why says why it stopped; empty while it runs, or when it stopped
	// because the server is stopping.
	Why string `json:"why,omitempty"`
}

// The states of a ProjectorState.
const (
	ProjectorRunning = "running"
	ProjectorStopped = "stopped"
)

// Verified says how the projection compares with a fresh build.
type Verified struct {
	Checkpoint uint64 `json:"checkpoint"`
	// Tables are compared; Differences name those that differ (empty: the
	// projection equals the log's).
	Tables      int      `json:"tables"`
	Differences []string `json:"differences"`
	// Rows are the tables compared, each with its rows in the projection
	// and in the rebuild.
	Rows []TableCompared `json:"rows,omitempty"`
}

// TableCompared is one table of a verification.
type TableCompared struct {
	Table   string `json:"table"`
	Rows    int    `json:"rows"`
	Rebuilt int    `json:"rebuilt_rows"`
	Same    bool   `json:"same"`
}

// VerifyOptions tune VerifyProjection.
type VerifyOptions struct {
	// Progress, when set, is told the scratch build's progress (in this
	// process only: a client's door does not report it).
	Progress func(projections.Progress) `json:"-"`
}

// RebuildOptions tune RebuildProjection.
type RebuildOptions struct {
	// Fresh discards an interrupted rebuild instead of resuming it.
	Fresh bool
	// Batch is the most events applied per transaction (0: the default).
	Batch int
	// Resuming, when set, is told the interrupted rebuild's file and the
	// log sequence the rebuild goes on from, before it starts; Progress
	// the build's progress (both in this process only).
	Resuming func(file string, seq uint64) `json:"-"`
	Progress func(projections.Progress)    `json:"-"`
}

// BackedUp says what a backup wrote.
type BackedUp struct {
	LastSequence uint64  `json:"last_sequence"`
	Events       int     `json:"events"`
	Streams      int     `json:"streams"`
	Sealed       int     `json:"sealed"`
	Bytes        int64   `json:"bytes"`
	Seconds      float64 `json:"seconds"`
}

// Rebuilt says what a rebuild did.
type Rebuilt struct {
	// Rebuilt is true: the new projection is in place.
	Rebuilt    bool    `json:"rebuilt"`
	Checkpoint uint64  `json:"checkpoint"`
	Seconds    float64 `json:"seconds"`
	// Path is the projection's file.
	Path string `json:"path,omitempty"`
	// ResumedFrom is the log sequence an interrupted rebuild went on
	// from (none: built from the first event).
	ResumedFrom uint64 `json:"resumed_from"`
	// Events were applied by this rebuild, at EventsPerSecond.
	Events          uint64  `json:"events"`
	EventsPerSecond float64 `json:"events_per_second"`
}
