package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

var noVars = i18n.Vars{}

// Campaigns lists the campaigns the caller may see: every one for the
// operator, the token's own for a person. Source: the projection.
func (s *Session) Campaigns(ctx context.Context) ([]CampaignSummary, error) {
	all, err := s.l.opts.Read.Campaigns(ctx)
	if err != nil {
		return nil, s.fail(err, noVars)
	}
	out := []CampaignSummary{}
	for _, c := range all {
		p, err := s.principal(ctx, c.ID)
		if err != nil {
			continue
		}
		out = append(out, CampaignSummary{ID: c.ID, Name: c.Name, Era: c.Era, Battles: c.Battles, You: person(p)})
	}
	if len(out) == 0 && s.c.Operator == "" {
		return nil, s.fail(&campaign.Unauthenticated{}, noVars)
	}
	return out, nil
}

func person(p campaign.Principal) Person {
	return Person{Player: p.Player, Role: p.Role, Side: p.Side}
}

// Campaign is one campaign: its sides and battles (source: the projection),
// its people (the campaign's own stream, never their token hashes) and
// who is asking.
func (s *Session) Campaign(ctx context.Context, id string) (CampaignInfo, error) {
	p, err := s.principal(ctx, id)
	if err != nil {
		return CampaignInfo{}, s.fail(err, noVars)
	}
	v, err := s.l.opts.Read.Campaign(ctx, id)
	if err != nil {
		return CampaignInfo{}, s.fail(err, noVars)
	}
	c, err := s.l.opts.Service.Campaign(ctx, id)
	if err != nil {
		return CampaignInfo{}, s.fail(err, noVars)
	}
	out := CampaignInfo{CampaignView: v, People: []Person{}, You: person(p)}
	for _, pp := range c.Players {
		out.People = append(out.People, Person{Player: pp.ID, Name: pp.Name, Role: pp.Role, Side: pp.Side})
	}
	if out.Sides == nil {
		out.Sides = []projections.SideView{}
	}
	if out.Battles == nil {
		out.Battles = []projections.CampaignBattle{}
	}
	return out, nil
}

// State is the battle now, as the caller may see it. Source: the log,
// folded by the service (the same fold the projection stores).
func (s *Session) State(ctx context.Context, key events.Key) (Board, error) {
	p, err := s.battle(ctx, key)
	if err != nil {
		return Board{}, s.fail(err, noVars)
	}
	st, v, err := s.l.opts.Service.State(ctx, key)
	if err != nil {
		return Board{}, s.fail(err, noVars)
	}
	if v == 0 || st.Status == rules.StatusNew {
		return Board{}, s.fail(notFound("no battle %s", key), noVars)
	}
	if st, err = s.l.opts.Service.View(ctx, key, st, p); err != nil {
		return Board{}, s.fail(err, noVars)
	}
	b := board(key, st, v, v)
	if b.Head, err = s.head(ctx, key, v); err != nil {
		return Board{}, s.fail(err, noVars)
	}
	return b, nil
}

// head is the hash of key's event at version v (v > 0).
func (s *Session) head(ctx context.Context, key events.Key, v uint64) (string, error) {
	tl, err := s.l.timelines.get(ctx, s.l.opts.Log, key)
	if err != nil {
		return "", err
	}
	tl.mu.RLock()
	defer tl.mu.RUnlock()
	return tl.tl.Hash(v), nil
}

// timeline returns key's timeline, read-locked (call the returned unlock),
// and its last version; a battle with no events is not found.
func (s *Session) timeline(ctx context.Context, key events.Key) (*timeline, uint64, func(), error) {
	tl, err := s.l.timelines.get(ctx, s.l.opts.Log, key)
	if err != nil {
		return nil, 0, nil, err
	}
	tl.mu.RLock()
	last := tl.tl.Len()
	if last == 0 {
		tl.mu.RUnlock()
		return nil, 0, nil, notFound("no battle %s", key)
	}
	return tl, last, tl.mu.RUnlock, nil
}

// Replay is the board just after event version (Latest: the last), folded
// from the log through rules.Apply (projections.Timeline), as the caller
// may see it. Source: the log.
func (s *Session) Replay(ctx context.Context, key events.Key, version uint64) (Board, error) {
	p, err := s.battle(ctx, key)
	if err != nil {
		return Board{}, s.fail(err, noVars)
	}
	tl, last, unlock, err := s.timeline(ctx, key)
	if err != nil {
		return Board{}, s.fail(err, noVars)
	}
	defer unlock()
	if version == Latest {
		version = last
	}
	if version > last {
		return Board{}, s.fail(notFound("the battle has events 1 to %d", last), noVars)
	}
	st, err := tl.tl.At(version)
	if err == nil {
		st, err = s.l.opts.Service.View(ctx, key, st, p)
	}
	if err != nil {
		return Board{}, s.fail(err, noVars)
	}
	b := board(key, st, version, last)
	if version > 0 {
		e, _, err := tl.tl.Event(version)
		if err != nil {
			return Board{}, s.fail(err, noVars)
		}
		b.Head = tl.tl.Hash(version)
		if p.CanRead(e.Audience) {
			d := s.describer(ctx)
			d.Note(key, st.Measurement)
			d.NoteSides(key, SideNames(st.Sides))
			ev := view(e, d)
			b.Event = &ev
		}
	}
	return b, nil
}

// Events are a stream's events the caller may read after version after,
// with the whole chain checked. Source: the log itself (the truth, hash
// chain included).
func (s *Session) Events(ctx context.Context, key events.Key, after uint64) (EventsPage, error) {
	p, err := s.principal(ctx, key.Campaign)
	if err != nil {
		return EventsPage{}, s.fail(err, noVars)
	}
	if key.Validate() != nil {
		return EventsPage{}, s.fail(notFound("no stream %s", key), noVars)
	}
	evs, err := s.readToHead(ctx, key)
	if err != nil {
		return EventsPage{}, s.fail(err, noVars)
	}
	if len(evs) == 0 {
		return EventsPage{}, s.fail(notFound("no events on %s", key), noVars)
	}
	page := EventsPage{Key: key, Last: evs[len(evs)-1].Version, Head: events.Hash(evs[len(evs)-1].Raw), Chain: ChainIntact,
		Events: readable(p, evs, after, s.describer(ctx))}
	if err := events.VerifyChain(evs); err != nil {
		page.Chain = err.Error()
		var ce *events.ChainError
		if errors.As(err, &ce) {
			page.ChainSaid = s.said("phrase.chain", ce.Sentence(), page.Chain)
		}
	}
	if ring := s.l.opts.Keys; ring != nil {
		page.Signatures = SignaturesHold
		signed := map[uint64]*Signature{}
		for i, v := range events.VerifySignatures(evs) {
			a, err := ring.Admit(&evs[i], v)
			signed[evs[i].Version] = signatureOf(a, err)
			switch {
			case err != nil:
				if page.Signatures == SignaturesHold {
					page.Signatures = err.Error()
					var ns *events.NotSignedError
					if errors.As(err, &ns) {
						page.SignaturesSaid = s.said("phrase.signature", ns.Sentence(), page.Signatures)
					}
				}
			default:
				if a.Legacy {
					page.Unsigned++
				}
				if a.Imported {
					page.Imported++
				}
			}
		}
		if page.Signatures == SignaturesHold && page.Imported > 0 {
			page.Signatures = SignaturesImported
		}
		for i := range page.Events {
			if sig := signed[page.Events[i].Version]; sig != nil {
				page.Events[i].Signature, page.Events[i].Signed = sig, sig.sentence()
			}
		}
	}
	return page, nil
}

// signatureOf is an event's Signature from what the ledger's keys found
// (events.Keyring.Admit).
func signatureOf(a events.Authorship, err error) *Signature {
	switch {
	case err != nil:
		why := err.Error()
		var ns *events.NotSignedError
		if errors.As(err, &ns) {
			why = ns.Reason
		}
		return &Signature{State: SignatureNotSigned, Why: why}
	case a.Key == "":
		return &Signature{State: SignatureUnsigned}
	case a.Imported:
		return &Signature{State: SignatureImported, Key: a.Key, Fingerprint: events.Fingerprint(a.Key)}
	}
	return &Signature{State: SignatureSigned, Key: a.Key, Fingerprint: events.Fingerprint(a.Key)}
}

// sentence is the Signature said as EventView.Signed says it (kept for
// older clients).
func (s *Signature) sentence() string {
	switch s.State {
	case SignatureNotSigned:
		return "NOT SIGNED BY THE LEDGER: " + s.Why
	case SignatureUnsigned:
		return events.Authorship{}.String()
	}
	return events.Authorship{Key: s.Key, Imported: s.State == SignatureImported}.String()
}

// Odds are the exact chances of an order (rules.OddsResult) as the door
// answers them: with the modifiers' reasons in the caller's language.
type Odds struct {
	rules.OddsResult
	// ReasonsSaid are the modifiers' reasons said in the caller's language
	// (from their Words), one for each modifier; absent in English.
	ReasonsSaid []string `json:"reasons_said,omitempty"`
}

// Odds are the exact chances of an order the caller's side could give now
// (rules.Odds, the same code that decides it). Source: the log's state.
func (s *Session) Odds(ctx context.Context, key events.Key, q OddsQuery) (Odds, error) {
	vars := i18n.Vars{Words: map[string]string{"general": q.General, "target": q.Target}}
	if len(q.Units) == 1 {
		vars.Words["unit"] = q.Units[0]
	}
	if _, err := s.battle(ctx, key); err != nil {
		return Odds{}, s.fail(err, vars)
	}
	// The query's words are held to a command's limits (ids of 64
	// characters, no control characters), as the order it asks about
	// would be, before any of them is said back.
	if body, err := json.Marshal(q); err != nil {
		return Odds{}, s.fail(err, noVars)
	} else if err := campaign.CheckBody(body); err != nil {
		return Odds{}, s.fail(err, noVars)
	}
	cmd := &rules.GiveOrder{General: q.General, Units: q.Units, OnRoad: q.OnRoad, Special: q.Special,
		Content: rules.OrderContent{Action: q.Action, Formation: q.Formation, Target: q.Target}}
	if cmd.Content.Action == "" && cmd.Special == "" {
		cmd.Content.Action = rules.ActionMove
	}
	st, _, err := s.l.opts.Service.State(ctx, key)
	if err != nil {
		return Odds{}, s.fail(err, vars)
	}
	if st.Status == rules.StatusNew {
		return Odds{}, s.fail(notFound("no battle %s", key), vars)
	}
	vars.Measurement = st.Measurement
	res, err := rules.Odds(st, cmd)
	if err != nil {
		return Odds{}, s.fail(err, vars)
	}
	return Odds{OddsResult: res, ReasonsSaid: s.reasonsSaid(res.Modifiers)}, nil
}

// battleEvents reads a battle's events from the log; a battle with none is
// not found.
func (s *Session) battleEvents(ctx context.Context, key events.Key) (campaign.Principal, []events.Envelope, error) {
	p, err := s.battle(ctx, key)
	if err != nil {
		return p, nil, err
	}
	evs, err := s.readToHead(ctx, key)
	if err != nil {
		return p, nil, err
	}
	if len(evs) == 0 {
		return p, nil, notFound("no battle %s", key)
	}
	return p, evs, nil
}

// readToHead reads key's whole stream and checks it reaches the stream
// leader's head, asked first: a replica that lags (one just restarted
// after a leader change) would otherwise serve a prefix of the battle as if
// it were all of it (once 179 of 249 events, "hash chain intact"). A read
// that ends short is refused as the log not answering yet, naming both
// sequences. Every whole read of a battle or a campaign goes through it:
// the events page (ledger log), the audit, the export, the dice, the
// disputes.
func (s *Session) readToHead(ctx context.Context, key events.Key) ([]events.Envelope, error) {
	head, err := s.l.opts.Log.Head(ctx, key)
	if err != nil {
		return nil, err
	}
	evs, err := s.l.opts.Log.Read(ctx, key, 0)
	if err != nil {
		return nil, err
	}
	last := uint64(0)
	if len(evs) > 0 {
		last = evs[len(evs)-1].Sequence
	}
	if last < head {
		return nil, fmt.Errorf("%w: read %s up to log sequence %d, but the stream's leader holds it up to %d: a replica behind; ask again in a moment",
			events.ErrUnavailable, key, last, head)
	}
	return evs, nil
}

// DiceChart is every die of a battle's dice.rolled events the caller may
// read, counted by face for each person and die size.
type DiceChart struct {
	People []DicePerson `json:"people"`
}

// DicePerson is one person's dice of one size, charged as the audit charges
// them (audit.Charge): a physical die to whoever threw and entered it; a
// digital one with a player's device nonce to that player; one without to
// whoever entered the command, shown apart (For) when it was entered for
// someone else: "entered by anna for marie, no device nonce".
type DicePerson struct {
	Person string `json:"person"`
	// For is the player the dice were entered for by Person, without a
	// device nonce; empty: Person's own.
	For   string `json:"for,omitempty"`
	Sides int    `json:"sides"`
	// NoNonce counts the digital dice without a player's device nonce:
	// whoever held the period's seed could compute them in advance.
	NoNonce int `json:"no_nonce"`
	// Dice is the number of dice; Faces[i] how many showed i+1, and
	// PhysicalFaces and DigitalFaces the same by source.
	Dice          int   `json:"dice"`
	Faces         []int `json:"faces"`
	Physical      int   `json:"physical"`
	Digital       int   `json:"digital"`
	PhysicalFaces []int `json:"physical_faces"`
	DigitalFaces  []int `json:"digital_faces"`
	// Expected is how many of each face fair dice show on average: Dice/Sides.
	Expected float64 `json:"expected"`
}

// Dice counts the battle's dice. Source: the log.
func (s *Session) Dice(ctx context.Context, key events.Key) (DiceChart, error) {
	p, evs, err := s.battleEvents(ctx, key)
	if err != nil {
		return DiceChart{}, s.fail(err, noVars)
	}
	type k struct {
		person, for_ string
		sides        int
	}
	by := map[k]*DicePerson{}
	for _, e := range evs {
		if e.Type != rules.EvDiceRolled || !p.CanRead(e.Audience) {
			continue
		}
		payload, err := campaign.Registry().Upcast(&e)
		if err != nil {
			continue
		}
		var d rules.DiceRolled
		if err := json.Unmarshal(payload, &d); err != nil || d.Sides < 1 {
			continue
		}
		who, forWho := audit.Charge(e.Actor, e.OnBehalfOf, &d)
		dp := by[k{who, forWho, d.Sides}]
		if dp == nil {
			dp = &DicePerson{Person: who, For: forWho, Sides: d.Sides, Faces: make([]int, d.Sides), PhysicalFaces: make([]int, d.Sides), DigitalFaces: make([]int, d.Sides)}
			by[k{who, forWho, d.Sides}] = dp
		}
		for _, v := range d.Values {
			if v < 1 || v > d.Sides {
				continue
			}
			dp.Faces[v-1]++
			dp.Dice++
			if d.Source == rules.SourcePhysical {
				dp.Physical++
				dp.PhysicalFaces[v-1]++
			} else {
				dp.Digital++
				dp.DigitalFaces[v-1]++
				if d.Nonce == "" {
					dp.NoNonce++
				}
			}
		}
	}
	out := DiceChart{People: []DicePerson{}}
	for _, dp := range by {
		dp.Expected = float64(dp.Dice) / float64(dp.Sides)
		out.People = append(out.People, *dp)
	}
	sort.Slice(out.People, func(i, j int) bool {
		if out.People[i].Person != out.People[j].Person {
			return out.People[i].Person < out.People[j].Person
		}
		if out.People[i].For != out.People[j].For {
			return out.People[i].For < out.People[j].For
		}
		return out.People[i].Sides < out.People[j].Sides
	})
	return out, nil
}

// Audit audits the battle (campaign/audit, docs/audit.md). Events the
// caller may not read are withheld, chained through their hashes as in an
// export. Source: the log.
func (s *Session) Audit(ctx context.Context, key events.Key, opt AuditOptions) (*audit.Report, error) {
	if opt.Head != "" && !isHeadHash(opt.Head) {
		return nil, s.fail(invalid("head %.80q is not a head hash: 16 to 64 hexadecimal digits, 0-9 and a-f (a hash, or its first digits as ledger log prints them)", opt.Head), noVars)
	}
	p, evs, err := s.battleEvents(ctx, key)
	if err != nil {
		return nil, s.fail(err, noVars)
	}
	ao := audit.Options{Key: key, Keys: s.l.opts.Keys}
	if opt.Head != "" {
		ao.Heads = []string{opt.Head}
	}
	withheld := false
	for _, e := range evs {
		withheld = withheld || !p.CanRead(e.Audience)
	}
	if withheld {
		ao.Hashes = make([]string, len(evs))
		shown := make([]events.Envelope, len(evs))
		for i, e := range evs {
			ao.Hashes[i] = events.Hash(e.Raw)
			if !p.CanRead(e.Audience) {
				e.Raw, e.Payload = nil, nil
			}
			shown[i] = e
		}
		evs = shown
	}
	return s.auditWords(audit.Verify(evs, ao)), nil
}

// isHeadHash says whether h is written as an event's hash, or the start of
// one, is: 16 to 64 lowercase hexadecimal digits (docs/audit.md: a kept head
// has at least 16; docs/openapi.yaml's pattern for ?head=).
func isHeadHash(h string) bool {
	if len(h) < 16 || len(h) > 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Export writes the battle as one self-contained ledger-export-v1 file.
// Events hidden from the players are exported as their hash only unless
// opt.Umpire (an umpire's or the operator's). Source: the log.
func (s *Session) Export(ctx context.Context, key events.Key, opt ExportOptions, w io.Writer) (ExportSummary, error) {
	p, evs, err := s.battleEvents(ctx, key)
	if err != nil {
		return ExportSummary{}, s.fail(err, noVars)
	}
	if opt.Umpire && !p.Umpires() {
		return ExportSummary{}, s.fail(forbidden("only an umpire exports hidden events in full"), noVars)
	}
	meta := audit.Meta{Campaign: key.Campaign, Battle: key.Battle, ExportedAt: s.l.opts.Now().UTC().Truncate(time.Second), Umpire: opt.Umpire}
	if err := s.exportKeys(ctx, &meta); err != nil {
		return ExportSummary{}, s.fail(err, noVars)
	}
	if err := audit.WriteExport(w, meta, evs); err != nil {
		return ExportSummary{}, s.fail(err, noVars)
	}
	return ExportSummary{Events: len(evs), Head: events.Hash(evs[len(evs)-1].Raw)}, nil
}

// exportKeys gives an export what verifies its signatures on its own: from
// when the ledger signs, and the campaign's key changes (read from its own
// stream; nothing else of it goes into the export).
func (s *Session) exportKeys(ctx context.Context, meta *audit.Meta) error {
	if s.l.opts.Keys == nil {
		return nil
	}
	meta.SignedFrom = s.l.opts.Keys.SignedFrom()
	camp, err := s.l.opts.Log.Read(ctx, events.Key{Campaign: meta.Campaign}, 0)
	if err != nil {
		return err
	}
	for _, e := range camp {
		if e.Type == events.KeyChangedType {
			meta.KeyChanges = append(meta.KeyChanges, e)
		}
	}
	return nil
}

// Watcher is a caller's view of a battle's live events: the edge that
// streams them (the page's server-sent events) asks it, event by event,
// what the caller sees.
type Watcher struct {
	p campaign.Principal
	d *Describer
}

// Watch returns the caller's view of key's live events.
func (s *Session) Watch(ctx context.Context, key events.Key) (*Watcher, error) {
	p, err := s.battle(ctx, key)
	if err != nil {
		return nil, s.fail(err, noVars)
	}
	return &Watcher{p: p, d: s.describer(context.WithoutCancel(ctx))}, nil
}

// View is e as the caller sees it, and whether they may read it at all.
func (w *Watcher) View(e events.Envelope) (EventView, bool) {
	if !w.p.CanRead(e.Audience) {
		return EventView{}, false
	}
	return view(e, w.d), true
}
