package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

// ReadModel is what the door reads from the projection.
type ReadModel interface {
	Campaign(ctx context.Context, id string) (projections.CampaignView, error)
	Campaigns(ctx context.Context) ([]projections.CampaignListed, error)
	// CampaignStandings are a campaign's standings and rosters with the
	// projection's checkpoint, read together (ErrNotFound: the projection
	// does not hold the campaign yet).
	CampaignStandings(ctx context.Context, id string) (projections.Standings, error)
}

// Admin is the operator's work on the projection, wired by whoever owns
// it (cmd/ledger, over projections/sqlite's Rebuild and Verify): its
// status, a rebuild, a verification and a backup.
type Admin interface {
	Status(ctx context.Context) (Status, error)
	Rebuild(ctx context.Context, opt RebuildOptions) (Rebuilt, error)
	Verify(ctx context.Context, opt VerifyOptions) (Verified, error)
	Backup(ctx context.Context, w io.Writer) (BackedUp, error)
}

// Options are what a Ledger needs.
type Options struct {
	// Service runs commands and folds campaign and battle state from the log.
	Service *campaign.Service
	// Log is the event log the queries read.
	Log events.Log
	// Read is the projection the campaign queries read.
	Read ReadModel
	// Admin, when set, answers Status and RebuildProjection.
	Admin Admin
	// TrustImported, when set, keeps another ledger's key as trusted for
	// one battle imported from it (the key file's list); Import needs it.
	TrustImported func(keyHex string, battle events.Key) error
	// Projected, when set, is called after a command appended events with
	// the sequence of its last one: it returns once the projection holds
	// it (a server waits for its projector; the CLI brings the projection
	// up to date itself), so that the caller's next query sees the command.
	Projected func(ctx context.Context, seq uint64) error
	// Lang is the language when the caller names none it supports.
	Lang string
	// Now stamps exports; defaults to time.Now.
	Now func() time.Time
	// Logger receives what goes wrong that no caller is told of.
	Logger *slog.Logger
	// Observer, when set, is told of every command the door answers (the
	// server's metrics).
	Observer Observer
	// Keys are the ledger's keys (its key file): the audit checks every
	// signature against them, and an export carries them.
	Keys *events.Keyring
	// TimelineEvents bounds the events the battles' replay timelines hold
	// in all (config cache.timeline_events); 0: DefaultTimelineEvents.
	TimelineEvents int
}

// Observer is told what the door does: each command, by name, with its
// outcome ("accepted", "duplicate", "dry_run", or the error's kind), the
// rule a refusal cites, and how long it took.
type Observer interface {
	Command(name, outcome, rule string, d time.Duration)
}

// Ledger is the one door: make a Session for each caller with As.
type Ledger struct {
	opts      Options
	cat       *i18n.Catalogue
	timelines timelines
}

// New returns the door to a ledger.
func New(opts Options) (*Ledger, error) {
	if opts.Service == nil || opts.Log == nil || opts.Read == nil {
		return nil, errors.New("app: a ledger needs a service, a log and a read model")
	}
	if opts.Lang == "" {
		opts.Lang = "en"
	}
	if !i18n.Supported(opts.Lang) {
		return nil, fmt.Errorf("app: language %q has no catalogue", opts.Lang)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	cat, err := i18n.Load()
	if err != nil {
		return nil, err
	}
	return &Ledger{opts: opts, cat: cat, timelines: timelines{limit: opts.TimelineEvents}}, nil
}

// Timelines says how many battles' replay timelines the door holds, and
// how many events they hold in all (the server's metrics).
func (l *Ledger) Timelines() (battles int, events uint64) { return l.timelines.size() }

// Catalogue is the message catalogue the door speaks from.
func (l *Ledger) Catalogue() *i18n.Catalogue { return l.cat }

// Service is the command service behind the door.
func (l *Ledger) Service() *campaign.Service { return l.opts.Service }

// Caller is who asks, as an edge knows them: the operator by name, or a
// token; and the language they read.
type Caller struct {
	// Operator, when not empty, is the ledger's operator by this name:
	// the owner of the data folder ("operator": the CLI on that machine,
	// the local door) or the server's admin token ("admin"). The edge
	// vouches for it; no token is asked.
	Operator string
	// Token is a person's token (HTTP bearer, `ledger --token`).
	Token string
	// Lang is the language of messages and descriptions.
	Lang string
}

// Session is the ledger as one caller sees it. It implements API.
type Session struct {
	l    *Ledger
	c    Caller
	lang string
}

var _ API = (*Session)(nil)

// As returns the ledger as c sees it.
func (l *Ledger) As(c Caller) *Session {
	lang := c.Lang
	if !i18n.Supported(lang) {
		lang = l.opts.Lang
	}
	return &Session{l: l, c: c, lang: lang}
}

// Lang is the session's language.
func (s *Session) Lang() string { return s.lang }

// fail is every error the session answers: classified once, in its
// language.
func (s *Session) fail(err error, vars i18n.Vars) error {
	if err == nil {
		return nil
	}
	e := Classify(err, s.l.cat, s.lang, vars)
	switch e.Kind {
	case KindInternal:
		s.l.opts.Logger.Error("app: internal error", "err", err)
	case KindDamaged:
		s.l.opts.Logger.Error("app: the projection file is damaged", "err", err)
	case KindInterrupted:
		// Its caller stopped it (a client's Ctrl-C): not a fault.
		if e.Code != "rebuild_interrupted" {
			s.l.opts.Logger.Info("app: stopped by its caller", "err", err)
			break
		}
		s.l.opts.Logger.Info("app: projection rebuild interrupted by its caller; its file is kept and the next rebuild resumes it", "at", e.Numbers["at"], "err", err)
	}
	return e
}

// Principal returns who the caller is on campaign id: the operator, or the
// person whose token it is. An unknown campaign is not found (for a token:
// nobody may learn which campaigns exist); an unknown token is
// unauthenticated.
func (s *Session) Principal(ctx context.Context, id string) (campaign.Principal, error) {
	p, err := s.principal(ctx, id)
	return p, s.fail(err, i18n.Vars{})
}

func (s *Session) principal(ctx context.Context, id string) (campaign.Principal, error) {
	if s.c.Operator != "" {
		return campaign.Operator(s.c.Operator), nil
	}
	if s.c.Token == "" {
		return campaign.Principal{}, &campaign.Unauthenticated{Campaign: id}
	}
	if !events.ValidID(id) {
		return campaign.Principal{}, notFound("no campaign %s", id)
	}
	return s.l.opts.Service.Authenticate(ctx, id, s.c.Token)
}

// battle resolves a battle's key and who asks; a battle that does not exist
// (no events, or never created) is not found.
func (s *Session) battle(ctx context.Context, key events.Key) (campaign.Principal, error) {
	p, err := s.principal(ctx, key.Campaign)
	if err != nil {
		return p, err
	}
	if key.Battle == "" || key.Validate() != nil {
		return p, notFound("no battle %s", key)
	}
	return p, nil
}

// knownCommand reports whether name is a command the door takes on a
// battle (battle) or on a campaign's own stream.
func knownCommand(name string, battle bool) bool {
	if battle {
		return slices.Contains(rules.CommandNames(), name)
	}
	return campaign.IsCampaignCommand(name)
}

// maxNonce bounds a device's nonce: 16 to 64 hex digits.
const maxNonce = 64

// Execute runs a command through the service as the caller. The service
// authorises it on the state the rules decide it on. A refusal names the
// rule and the numbers; nothing is appended then, nor for a dry run.
func (s *Session) Execute(ctx context.Context, cmd Command) (Result, error) {
	start := time.Now()
	vars := commandVars(cmd.Body)
	res, err := s.execute(ctx, cmd, &vars)
	err = s.fail(err, vars)
	if o := s.l.opts.Observer; o != nil {
		outcome, rule := "accepted", ""
		var ae *Error
		switch {
		case errors.As(err, &ae):
			outcome, rule = string(ae.Kind), ae.Rule
		case res.DryRun:
			outcome = "dry_run"
		case res.Duplicate:
			outcome = "duplicate"
		}
		name := cmd.Name
		if !knownCommand(name, cmd.Battle != "") {
			name = "unknown" // never a label per made-up name
		}
		o.Command(name, outcome, rule, time.Since(start))
	}
	return res, err
}

func (s *Session) execute(ctx context.Context, cmd Command, vars *i18n.Vars) (Result, error) {
	key := events.Key{Campaign: cmd.Campaign, Battle: cmd.Battle}
	if !knownCommand(cmd.Name, cmd.Battle != "") {
		return Result{}, Errorf(KindInvalid, "unknown_command", "%.64q is not a command %s takes", cmd.Name, map[bool]string{true: "a battle", false: "a campaign"}[cmd.Battle != ""])
	}
	if err := campaign.InvalidKey(key); err != nil {
		return Result{}, err
	}
	if cmd.Nonce != "" {
		if _, err := hex.DecodeString(cmd.Nonce); err != nil || len(cmd.Nonce) < 16 || len(cmd.Nonce) > maxNonce {
			return Result{}, campaign.Invalid("nonce", "16 to 64 hex digits of fresh randomness from the device")
		}
	}
	// campaign.create is the operator's alone: a person's token is
	// forbidden before the new campaign (where no token is known) is
	// looked for.
	if cmd.Name == campaign.CmdCreate && cmd.Battle == "" {
		if err := s.operatorOnly(ctx, "creating a campaign"); err != nil {
			return Result{}, err
		}
	}
	p, err := s.principal(ctx, key.Campaign)
	if err != nil {
		return Result{}, err
	}
	if cmd.ID == "" {
		cmd.ID = NewCommandID()
	}
	body := cmd.Body
	if len(body) == 0 {
		body = json.RawMessage("{}")
	}
	req := campaign.Request{ID: cmd.ID, Principal: p, For: cmd.For, Campaign: key.Campaign, Battle: key.Battle,
		Name: cmd.Name, Body: body, DryRun: cmd.DryRun, Nonce: cmd.Nonce}
	if len(cmd.Dice) > 0 {
		req.Dice = campaign.DiceInput{Values: cmd.Dice}
	}
	out, err := s.l.opts.Service.Execute(ctx, req)
	var nd *campaign.NeedsDice
	if cmd.DryRun && errors.As(err, &nd) {
		return Result{CommandID: cmd.ID, Command: cmd.Name, Key: key, DryRun: true, Events: []EventView{}, NeedsDice: nd.Purpose}, nil
	}
	if err != nil {
		var ref *rules.Refusal
		if key.Battle != "" && errors.As(err, &ref) {
			// A refusal says its distances in the battle's unit: asked
			// for here, on the way out, rather than before every command.
			if st, _, serr := s.l.opts.Service.State(ctx, key); serr == nil && st != nil {
				vars.Measurement = st.Measurement
			}
		}
		return Result{}, err
	}
	if n := len(out.Events); n > 0 && !out.DryRun && !out.Duplicate && s.l.opts.Projected != nil {
		if err := s.l.opts.Projected(ctx, out.Events[n-1].Sequence); err != nil && ctx.Err() == nil {
			s.l.opts.Logger.Warn("app: the projection has not caught up with an accepted command", "command", cmd.ID, "err", err)
		}
	}
	d := s.describer(ctx)
	return Result{CommandID: cmd.ID, Command: cmd.Name, Key: out.Key, Duplicate: out.Duplicate, DryRun: out.DryRun,
		Events: readable(p, out.Events, 0, d), Token: out.Token}, nil
}

// commandVars are a command's references, for a refusal's message in
// another language: its unit, general and target.
func commandVars(body json.RawMessage) i18n.Vars {
	var b struct {
		Unit    string   `json:"unit"`
		General string   `json:"general"`
		Side    string   `json:"side"`
		Player  string   `json:"player"`
		Target  string   `json:"target"`
		Units   []string `json:"units"`
		Content struct {
			Target string `json:"target"`
		} `json:"content"`
	}
	_ = json.Unmarshal(body, &b)
	words := map[string]string{"unit": b.Unit, "general": b.General, "side": b.Side, "player": b.Player,
		"target": firstNonEmpty(b.Target, b.Content.Target)}
	if b.Unit == "" && len(b.Units) == 1 {
		words["unit"] = b.Units[0]
	}
	return i18n.Vars{Words: words}
}

// describer says events in the session's language, asking the service for
// a battle's measurement when it has not seen its battle.created.
func (s *Session) describer(ctx context.Context) *Describer {
	return NewDescriber(s.l.cat, s.lang, func(key events.Key) string {
		if st, _, err := s.l.opts.Service.State(ctx, key); err == nil && st != nil {
			return st.Measurement
		}
		return ""
	}).WithSides(func(key events.Key) map[string]string {
		if st, _, err := s.l.opts.Service.State(ctx, key); err == nil && st != nil {
			return SideNames(st.Sides)
		}
		return nil
	})
}

// NewCommandID returns a random command id: the ledger's one, for the CLI
// (which prints it, so that a command whose outcome is unknown can be sent
// again with it) and for commands sent over HTTP without one (such a
// command cannot be safely repeated: send an id to retry).
func NewCommandID() string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "c-" + hex.EncodeToString(b[:])
}

// NewNonce returns 16 bytes of fresh randomness from this device, hex: the
// nonce a player's command mixes into the digital dice it rolls.
func NewNonce() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}
