// Package report writes the after-action report of a battle (issue 28,
// docs/report.md): the title, the sides and their commanders, the table,
// a picture of the battlefield at the start of each turn and at each
// decisive moment, the narrative of each turn, the disputes and their
// rulings, the flank marches, the losses, the victory points, each
// person's dice luck, and the head of the battle with how to verify the
// report against the ledger.
//
// The report reads only the door's queries (app.API, as one caller sees
// the battle): what the caller may not see stays unseen, because the
// service decided it, not this package. Its sentences are the describer's
// (app.Describer, through EventView.Description); its own words are
// headings and labels from the catalogue (i18n, "report.*").
package report

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// Formats of a report.
const (
	HTML     = "html"
	BBCode   = "bbcode"
	Markdown = "markdown"
)

// Formats lists the formats Write takes.
var Formats = []string{HTML, BBCode, Markdown}

// MaxPictures bounds the pictures of one report (docs/report.md): the
// decisive moments' pictures first, then the turns', until the bound
// (the end's picture is beyond it). The report says how many turns and
// moments it left unpictured; their sentences stay in the narrative.
const MaxPictures = 250

// Options tune a report.
type Options struct {
	// Lang is the language of the report's own words (the descriptions and
	// the pictures' labels are in the session's: give the same).
	Lang string
	// Scale is the pictures' pixels per inch (or cm); 0: the picture's
	// own (the HTTP API's battlefield.svg takes no scale, so a report
	// through the door would differ from one made in the process with
	// another).
	Scale float64
	// MaxPictures, when above 0 and below MaxPictures, bounds the
	// pictures further.
	MaxPictures int
	// PictureFormat is the pictures' files beside a forum post: PNG (the
	// default: forums rarely show an SVG attachment) or SVG. The HTML
	// report inlines the SVG either way.
	PictureFormat string
}

// The pictures' formats beside a forum post (Options.PictureFormat).
const (
	PNG = "png"
	SVG = "svg"
)

// PictureFormats are the formats a forum post's pictures are written in.
var PictureFormats = []string{PNG, SVG}

// Report is one battle's after-action report, as one caller may see it.
type Report struct {
	Key         events.Key `json:"key"`
	Name        string     `json:"name"`
	Campaign    string     `json:"campaign_name,omitempty"`
	Lang        string     `json:"lang"`
	Status      string     `json:"status"`
	Ended       bool       `json:"ended"`
	Turn        int        `json:"turn"`
	Measurement string     `json:"measurement"`
	TableWidth  float64    `json:"table_width"`
	TableDepth  float64    `json:"table_depth"`
	Sides       []Side     `json:"sides"`
	// Prelude is what happened before the first turn; Turns each turn's.
	Prelude []Line `json:"prelude"`
	Turns   []Turn `json:"turns"`
	// Moments are the decisive moments (docs/report.md), in the log's
	// order; Unpictured counts the turns and moments left without a
	// picture by the bound.
	Moments    []Moment `json:"moments"`
	Unpictured int      `json:"unpictured,omitempty"`
	// PictureLimit is the bound the report was drawn under.
	PictureLimit int `json:"picture_limit"`
	// Pictures are the report's pictures (SVG), each named for the files
	// a forum post attaches.
	Pictures     []Picture          `json:"pictures"`
	Disputes     []rules.Dispute    `json:"disputes"`
	FlankMarches []rules.FlankMarch `json:"flank_marches"`
	Losses       []Loss             `json:"losses"`
	// Order is the order of battle: every general and unit the caller may
	// see, by side and brigade, with the id the narrative names them by.
	Order []Member `json:"order_of_battle"`
	// Score is the last battle.scored (or battle.rescored) the caller may
	// read; nil before the battle is scored.
	Score     *rules.BattleScored `json:"score,omitempty"`
	ScoredAt  uint64              `json:"scored_at,omitempty"`
	Luck      []audit.PlayerStats `json:"luck"`
	Head      string              `json:"head"`
	Last      uint64              `json:"last"`
	Chain     string              `json:"chain"`
	AuditPass bool                `json:"audit_passed"`
	// Events counts the events the report tells (those the caller may
	// read); Withheld those it may not.
	Events   int `json:"events"`
	Withheld int `json:"withheld"`

	cat *i18n.Catalogue
	// pictureFormat is the pictures' files' (PNG or SVG); endPicture says
	// that the last picture is the battle's end.
	pictureFormat string
	endPicture    bool
}

// Side is one side: its name, its players and its commanders.
type Side struct {
	ID       string   `json:"side"`
	Name     string   `json:"name"`
	Nation   string   `json:"nation,omitempty"`
	Players  []string `json:"players"`
	CInC     string   `json:"c_in_c,omitempty"`
	Generals []string `json:"generals"`
	Units    int      `json:"units"`
}

// Turn is one side turn: its number, its phasing side, the event that
// began it, its picture and its narrative.
type Turn struct {
	Turn    int    `json:"turn"`
	Side    string `json:"side"`
	Version uint64 `json:"version"`
	Picture int    `json:"picture"` // index in Pictures, -1: none
	Lines   []Line `json:"lines"`
}

// Line is one sentence of the narrative: an event, in the describer's
// words.
type Line struct {
	Version uint64 `json:"version"`
	Type    string `json:"type"`
	Text    string `json:"text"`
	// Moment is the index of the decisive moment the event is, -1: none.
	Moment int `json:"moment"`
}

// Moment is a decisive moment: its kind (charge, rout, destroyed,
// flank_arrival, blunder, ruling), the event and its picture.
type Moment struct {
	Kind    string `json:"kind"`
	Version uint64 `json:"version"`
	Turn    int    `json:"turn"`
	Text    string `json:"text"`
	Picture int    `json:"picture"` // -1: left unpictured by the bound
}

// Picture is one picture of the report.
type Picture struct {
	Name    string `json:"name"` // file name: 003-turn-2-french.png
	Caption string `json:"caption"`
	Version uint64 `json:"version"`
	SVG     []byte `json:"-"`
}

// Member is one general or unit of the order of battle: its id (as the
// narrative names it), its name and its type ("" for a general).
type Member struct {
	Side    string `json:"side"`
	Brigade string `json:"brigade,omitempty"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Type    string `json:"type,omitempty"`
	CInC    bool   `json:"c_in_c,omitempty"`
}

// Loss is one unit that suffered: its casualty markers and status at the
// end of what the caller may see.
type Loss struct {
	Side    string `json:"side"`
	Unit    string `json:"unit"`
	Type    string `json:"type"`
	Markers int    `json:"markers"`
	Status  string `json:"status"`
}

// begin is what a battle's and a campaign's report check first: a
// catalogue, a request's budget not already spent (said so before any
// query: a read of the log cut short by it would be told as the log
// unavailable), and the language, English when opt's is not supported.
func begin(ctx context.Context, cat *i18n.Catalogue, opt Options) (string, error) {
	if cat == nil {
		return "", fmt.Errorf("report: no catalogue")
	}
	if ctx.Err() != nil {
		return "", context.Cause(ctx)
	}
	if opt.PictureFormat != "" && !slices.Contains(PictureFormats, opt.PictureFormat) {
		return "", fmt.Errorf("report: picture format %q: png or svg", opt.PictureFormat)
	}
	if !i18n.Supported(opt.Lang) {
		return "en", nil
	}
	return opt.Lang, nil
}

// Build reads the battle through api, as api's caller may see it, and
// gathers its report. ctx bounds the work (a request's budget): every
// query sees it.
func Build(ctx context.Context, api app.API, cat *i18n.Catalogue, key events.Key, opt Options) (*Report, error) {
	lang, err := begin(ctx, cat, opt)
	if err != nil {
		return nil, err
	}
	scale := opt.Scale
	limit := MaxPictures
	if opt.MaxPictures > 0 && opt.MaxPictures < limit {
		limit = opt.MaxPictures
	}
	// The events first, then the battle as it stood at the last of them:
	// a command appended in between (a battle being played) does not
	// make the board newer than the narrative and the head.
	page, err := api.Events(ctx, key, 0)
	if err != nil {
		return nil, err
	}
	end, err := api.Replay(ctx, key, page.Last)
	if err != nil {
		return nil, err
	}
	r := &Report{Key: key, Name: end.Name, Lang: lang, Status: end.Status, Ended: end.Ended, Turn: end.Turn,
		Measurement: end.Measurement, TableWidth: end.TableWidth, TableDepth: end.TableDepth,
		Disputes: end.Disputes, FlankMarches: end.FlankMarches, Head: page.Head, Last: page.Last, Chain: page.Chain,
		Events: len(page.Events), cat: cat, pictureFormat: cmp.Or(opt.PictureFormat, PNG)}
	if r.Name == "" {
		r.Name = key.Battle
	}
	r.Withheld = int(page.Last) - len(page.Events)
	info, err := api.Campaign(ctx, key.Campaign)
	if err != nil {
		return nil, err
	}
	r.Campaign = info.Name
	r.sides(end, info.People)
	r.losses(end)
	r.narrate(page.Events)
	if err := r.draw(ctx, api, key, scale, limit); err != nil {
		return nil, err
	}
	// The audit checks the report's head is in the chain (a kept head).
	rep, err := api.Audit(ctx, key, app.AuditOptions{Head: page.Head})
	if err != nil {
		return nil, err
	}
	r.Luck = rep.Players
	r.AuditPass = !rep.Failed()
	return r, nil
}

// sides are the battle's sides with their players and commanders.
func (r *Report) sides(b app.Board, people []app.Person) {
	for _, s := range b.Sides {
		sd := Side{ID: s.Side, Name: s.Name, Nation: s.Nation}
		for _, p := range people {
			if p.Side == s.Side && p.Role == "player" {
				name := p.Player
				if p.Name != "" && p.Name != p.Player {
					name = p.Name + " (" + p.Player + ")"
				}
				sd.Players = append(sd.Players, name)
			}
		}
		for _, g := range b.Generals {
			if g.Side != s.Side {
				continue
			}
			name := g.General
			if g.Name != "" {
				name = g.Name
			}
			if g.CInC {
				sd.CInC = name
			} else {
				sd.Generals = append(sd.Generals, name)
			}
		}
		for _, u := range b.Units {
			if u.Side == s.Side {
				sd.Units++
			}
		}
		r.Sides = append(r.Sides, sd)
	}
	r.order(b)
}

// order is the order of battle, side by side as the board gives them:
// the commander-in-chief, then each brigade's general and its units.
func (r *Report) order(b app.Board) {
	for _, s := range b.Sides {
		var brigades []string
		for _, g := range b.Generals {
			if g.Side != s.Side {
				continue
			}
			r.Order = append(r.Order, Member{Side: g.Side, Brigade: g.Brigade, ID: g.General, Name: g.Name, CInC: g.CInC})
			if !g.CInC {
				brigades = append(brigades, g.Brigade)
				for _, u := range b.Units {
					if u.Side == s.Side && u.Brigade == g.Brigade {
						r.Order = append(r.Order, Member{Side: u.Side, Brigade: u.Brigade, ID: u.Unit, Name: u.Name, Type: u.Type})
					}
				}
			}
		}
		for _, u := range b.Units { // units of no brigade with a general
			if u.Side == s.Side && !slices.Contains(brigades, u.Brigade) {
				r.Order = append(r.Order, Member{Side: u.Side, Brigade: u.Brigade, ID: u.Unit, Name: u.Name, Type: u.Type})
			}
		}
	}
}

// losses are the units with casualty markers or out of good order.
func (r *Report) losses(b app.Board) {
	for _, u := range b.Units {
		if u.Markers > 0 || u.Status != rules.UnitOK && u.Status != "" {
			r.Losses = append(r.Losses, Loss{Side: u.Side, Unit: u.Unit, Type: u.Type, Markers: u.Markers, Status: u.Status})
		}
	}
	slices.SortStableFunc(r.Losses, func(a, b Loss) int { return strings.Compare(a.Side, b.Side) })
}

// untold are the events the narrative leaves out: the dice's own
// bookkeeping (each roll is told by the event that reads it; the luck
// section counts them all).
var untold = map[string]bool{
	rules.EvDiceRolled: true, rules.EvDiceCommitted: true, rules.EvDiceSeedAdded: true, rules.EvDiceRevealed: true,
}

// narrate groups the events into the prelude and the turns, and picks the
// decisive moments (docs/report.md, "The decisive moments").
func (r *Report) narrate(evs []app.EventView) {
	marches := map[int]bool{}
	for _, e := range evs {
		if e.Type == rules.EvTurnStarted {
			var ts rules.TurnStarted
			_ = json.Unmarshal(e.Payload, &ts)
			r.Turns = append(r.Turns, Turn{Turn: ts.Turn, Side: ts.Side, Version: e.Version, Picture: -1})
		}
		if e.Type == rules.EvBattleScored {
			var sc rules.BattleScored
			if json.Unmarshal(e.Payload, &sc) == nil {
				r.Score, r.ScoredAt = &sc, e.Version
			}
		}
		if e.Type == rules.EvBattleRescored {
			var rs rules.BattleRescored
			if json.Unmarshal(e.Payload, &rs) == nil {
				r.Score, r.ScoredAt = &rs.Score, e.Version
			}
		}
		if untold[e.Type] {
			continue
		}
		line := Line{Version: e.Version, Type: e.Type, Text: e.Description, Moment: -1}
		if kind := decisive(e, marches); kind != "" {
			line.Moment = len(r.Moments)
			turn := 0
			if len(r.Turns) > 0 {
				turn = r.Turns[len(r.Turns)-1].Turn
			}
			r.Moments = append(r.Moments, Moment{Kind: kind, Version: e.Version, Turn: turn, Text: e.Description, Picture: -1})
		}
		if len(r.Turns) == 0 {
			r.Prelude = append(r.Prelude, line)
		} else {
			t := &r.Turns[len(r.Turns)-1]
			t.Lines = append(t.Lines, line)
		}
	}
}

// Kinds of decisive moments.
const (
	KindCharge       = "charge"
	KindRout         = "rout"
	KindDestroyed    = "destroyed"
	KindFlankArrival = "flank_arrival"
	KindBlunder      = "blunder"
	KindRuling       = "ruling"
)

// decisive says which decisive moment e is, or "": the rule of
// docs/report.md. marches notes the flank marches already arrived.
func decisive(e app.EventView, marches map[int]bool) string {
	switch e.Type {
	case rules.EvChargeDeclared:
		var c rules.ChargeDeclared
		if json.Unmarshal(e.Payload, &c) == nil && !c.Pending {
			return KindCharge
		}
	case rules.EvCombatRecorded:
		var c rules.CombatRecorded
		if json.Unmarshal(e.Payload, &c) == nil && c.Status != c.StatusBefore {
			switch c.Status {
			case rules.UnitRouted:
				return KindRout
			case rules.UnitDestroyed:
				return KindDestroyed
			}
		}
	case rules.EvFlankUnitEntered:
		var f rules.FlankUnitEntered
		if json.Unmarshal(e.Payload, &f) == nil && !marches[f.March] {
			marches[f.March] = true
			return KindFlankArrival
		}
	case rules.EvOrderResolved:
		var o rules.OrderResolved
		if json.Unmarshal(e.Payload, &o) == nil && o.Outcome == rules.OutcomeBlunder {
			return KindBlunder
		}
	case rules.EvDisputeUpheld, rules.EvDisputeDismissed:
		return KindRuling
	}
	return ""
}

// draw asks the door for the pictures, up to limit: the decisive moments
// first, in the log's order, then the starts of the turns, in order (a
// long battle's later turns lose theirs first); and the end of an ended
// battle, beyond the bound. They are drawn and numbered in the log's
// order.
func (r *Report) draw(ctx context.Context, api app.API, key events.Key, scale float64, limit int) error {
	r.PictureLimit = limit
	moments := min(len(r.Moments), limit)
	turns := min(len(r.Turns), limit-moments)
	r.Unpictured = len(r.Moments) - moments + len(r.Turns) - turns
	type wanted struct {
		version      uint64
		turn, moment int
	}
	var order []wanted
	for i := range turns {
		order = append(order, wanted{r.Turns[i].Version, i, -1})
	}
	for i := range moments {
		order = append(order, wanted{r.Moments[i].Version, -1, i})
	}
	slices.SortStableFunc(order, func(a, b wanted) int { return cmp.Compare(a.version, b.version) })
	add := func(q app.PictureQuery, caption string, version uint64) (int, error) {
		if err := ctx.Err(); err != nil {
			return -1, context.Cause(ctx)
		}
		q.Scale = scale
		svg, err := api.Picture(ctx, key, q)
		if err != nil {
			return -1, err
		}
		n := len(r.Pictures)
		r.Pictures = append(r.Pictures, Picture{Caption: caption, Version: version, SVG: svg})
		return n, nil
	}
	for _, w := range order {
		if w.turn >= 0 {
			t := &r.Turns[w.turn]
			n, err := add(app.PictureQuery{Version: t.Version}, r.turnTitle(*t), t.Version)
			if err != nil {
				return err
			}
			t.Picture = n
			r.Pictures[n].Name = fmt.Sprintf("%03d-turn-%d-%s.%s", n+1, t.Turn, fileSafe(t.Side), r.pictureFormat)
			continue
		}
		m := &r.Moments[w.moment]
		q := app.PictureQuery{Version: m.Version}
		if m.Kind == KindCharge {
			q = app.PictureQuery{Version: app.Latest, Charge: m.Version}
		}
		n, err := add(q, r.momentTitle(*m), m.Version)
		if err != nil {
			return err
		}
		m.Picture = n
		r.Pictures[n].Name = fmt.Sprintf("%03d-%s-%d.%s", n+1, strings.ReplaceAll(m.Kind, "_", "-"), m.Version, r.pictureFormat)
	}
	if r.Ended {
		n, err := add(app.PictureQuery{Version: r.Last}, r.t("end_picture"), r.Last)
		if err != nil {
			return err
		}
		r.Pictures[n].Name = fmt.Sprintf("%03d-end.%s", n+1, r.pictureFormat)
		r.endPicture = true
	}
	return nil
}

// fileSafe keeps letters, digits and dashes of an id for a file name.
func fileSafe(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// t is the report's text for key ("report." is prepended).
func (r *Report) t(key string) string { return r.cat.Text(r.Lang, "report."+key) }

// f is t with {name} replaced by values, given as name, value pairs; a
// template that says a number with its noun ({n:plural=…}) is rendered by
// the catalogue, which picks the noun's form for the number.
func (r *Report) f(key string, kv ...any) string {
	s := r.t(key)
	if !strings.Contains(s, ":plural=") {
		return fmtText(s, kv...)
	}
	values := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		values[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return r.cat.Render(r.Lang, "report."+key, "", values)
}

// fmtText replaces each {name} of s by its value, given as name, value
// pairs.
func fmtText(s string, kv ...any) string {
	for i := 0; i+1 < len(kv); i += 2 {
		s = strings.ReplaceAll(s, "{"+fmt.Sprint(kv[i])+"}", fmt.Sprint(kv[i+1]))
	}
	return s
}

// term is the catalogue's word for a ruleset term (term.status.routed),
// or the id itself.
func (r *Report) term(kind, id string) string {
	k := "term." + kind + "." + id
	if s := r.cat.Text(r.Lang, k); s != k {
		return s
	}
	return id
}

func (r *Report) sideName(id string) string {
	for _, s := range r.Sides {
		if s.ID == id && s.Name != "" {
			return s.Name
		}
	}
	return id
}

func (r *Report) turnTitle(t Turn) string {
	return r.f("turn_title", "turn", t.Turn, "side", r.sideName(t.Side))
}

func (r *Report) momentTitle(m Moment) string {
	return r.f("moment_title", "kind", r.t("kind."+m.Kind), "version", m.Version)
}

// length is a length in the battle's measurement, in the report's language.
func (r *Report) length(v float64) string { return i18n.Length(v, r.Measurement, r.Lang) }
