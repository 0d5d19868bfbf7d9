package app

import (
	"encoding/json"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// Describer says events in words in one language: the ledger's one
// describer, for the page, the API, the live stream and the CLI. In
// English it is the rules' own words (rules.Describe for a battle's events,
// campaign.Describe for a campaign's), but for the events en.json has a
// template for; in another language the catalogue's template for the event
// type (i18n, "event.<type>") filled from the payload. Either way lengths
// are in the battle's measurement and sides go by their names.
type Describer struct {
	cat  *i18n.Catalogue
	lang string
	// battles is what the describer knows of each battle: its
	// measurement, from its battle.created or asked of measure, and its
	// sides' names, from its battle.created or asked of sides.
	battles map[events.Key]*i18n.Battle
	measure func(events.Key) string
	sides   func(events.Key) map[string]string
	// asked are the questions asked of measure and sides, once each per
	// battle.
	questions map[question]bool
}

type question struct {
	key  events.Key
	what string
}

// asked reports whether what was asked of key's battle, and notes it.
func (d *Describer) asked(key events.Key, what string) bool {
	q := question{key, what}
	if d.questions[q] {
		return true
	}
	d.questions[q] = true
	return false
}

// NewDescriber returns the describer for lang. measure, when not nil,
// gives a battle's measurement ("in" or "cm") when the describer has not
// seen its battle.created; it is asked once per battle.
func NewDescriber(cat *i18n.Catalogue, lang string, measure func(events.Key) string) *Describer {
	if cat == nil || !i18n.Supported(lang) {
		lang = "en"
	}
	return &Describer{cat: cat, lang: lang, battles: map[events.Key]*i18n.Battle{}, measure: measure, questions: map[question]bool{}}
}

// WithSides has the describer ask sides for a battle's sides' names (by
// id) when it has not seen its battle.created; it is asked once per
// battle. It returns d.
func (d *Describer) WithSides(sides func(events.Key) map[string]string) *Describer {
	d.sides = sides
	return d
}

// Lang is the describer's language.
func (d *Describer) Lang() string { return d.lang }

// Describe says what e records.
func (d *Describer) Describe(e events.Envelope) string {
	payload, err := campaign.Registry().Upcast(&e)
	if err != nil {
		return e.Type
	}
	var en string
	if e.Battle == "" {
		en = campaign.Describe(e, payload)
	} else {
		ev, err := rules.DecodeEvent(e.Type, payload)
		if err != nil {
			return e.Type
		}
		en = rules.Describe(ev)
	}
	if d.cat == nil {
		return en
	}
	return d.cat.EventIn(d.lang, e.Type, payload, d.battleOf(e, payload), en)
}

// Note shows the describer a battle's measurement.
func (d *Describer) Note(key events.Key, measurement string) {
	if measurement != "" {
		d.battle(key).Measurement = measurement
	}
}

// NoteSides shows the describer a battle's sides: their names by id.
func (d *Describer) NoteSides(key events.Key, names map[string]string) {
	if len(names) > 0 {
		d.battle(key).Sides = names
	}
}

// SideNames are a battle's sides' names by id.
func SideNames(sides []rules.Side) map[string]string {
	out := map[string]string{}
	for _, sd := range sides {
		if sd.Name != "" {
			out[sd.ID] = sd.Name
		}
	}
	return out
}

func (d *Describer) battle(key events.Key) *i18n.Battle {
	b, ok := d.battles[key]
	if !ok {
		b = &i18n.Battle{}
		d.battles[key] = b
	}
	return b
}

// battleOf is what the describer knows of e's battle, learning it from a
// battle.created or asking for it once.
func (d *Describer) battleOf(e events.Envelope, payload json.RawMessage) i18n.Battle {
	if e.Battle == "" {
		return i18n.Battle{}
	}
	key := e.Key()
	b := d.battle(key)
	if e.Type == rules.EvBattleCreated {
		var bc struct {
			Measurement string `json:"measurement"`
		}
		if json.Unmarshal(payload, &bc) == nil && bc.Measurement != "" {
			b.Measurement = bc.Measurement
		}
		if names := i18n.SideNames(payload); names != nil {
			b.Sides = names
		}
		return *b
	}
	if b.Measurement == "" && d.measure != nil && !d.asked(key, "measure") {
		b.Measurement = d.measure(key)
	}
	if b.Sides == nil && d.sides != nil && !d.asked(key, "sides") {
		b.Sides = d.sides(key)
	}
	return *b
}

// view is an event as p sees it, described.
func view(e events.Envelope, d *Describer) EventView {
	v := EventView{Seq: e.Sequence, Version: e.Version, ID: e.ID, Type: e.Type, Schema: e.Schema, Time: e.Time,
		Actor: e.Actor, OnBehalfOf: e.OnBehalfOf, CommandID: e.CommandID, Audience: e.Audience, PrevHash: e.PrevHash,
		Payload: e.Payload, Description: d.Describe(e), Refers: refers(e)}
	if len(e.Raw) > 0 {
		v.Hash = events.Hash(e.Raw)
	}
	return v
}

// readable returns the events p may read, after version after. A person's
// token hash is the operator's alone to see: it is left out of the
// payloads everyone else reads (the description keeps its first 8
// characters, enough to tell two tokens apart).
func readable(p campaign.Principal, evs []events.Envelope, after uint64, d *Describer) []EventView {
	out := []EventView{}
	for _, e := range evs {
		if e.Version > after && p.CanRead(e.Audience) {
			v := view(e, d)
			if !p.IsOperator() && (e.Type == campaign.EvPlayerAdded || e.Type == campaign.EvTokenReissued) {
				v.Payload = withoutTokenHash(v.Payload)
			}
			out = append(out, v)
		}
	}
	return out
}

// withoutTokenHash returns a people event's payload without its token_hash.
func withoutTokenHash(payload json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(payload, &m) != nil {
		return json.RawMessage(`{}`)
	}
	delete(m, "token_hash")
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// refers returns the versions of the events e points at: a dispute's event
// (dispute.raised, dispute.upheld, dispute.dismissed), a correction's
// disputed event and ruling, or a retracted command's events
// (command.retract_requested, command.retracted).
func refers(e events.Envelope) []uint64 {
	if e.Battle == "" || !rules.IsDisputeEvent(e.Type) {
		return nil
	}
	ev, err := decodeEvent(e)
	if err != nil {
		return nil
	}
	switch x := ev.(type) {
	case *rules.DisputeRaised:
		return []uint64{x.EventVersion}
	case *rules.DisputeUpheld:
		return []uint64{x.EventVersion}
	case *rules.DisputeDismissed:
		return []uint64{x.EventVersion}
	case *rules.RetractRequested:
		return x.Versions
	case *rules.CommandRetracted:
		return x.Versions
	}
	// A correction points at the disputed event and at its ruling.
	if _, event, ruling, ok := rules.CorrectionRef(ev); ok {
		if ruling > 0 {
			return []uint64{event, ruling}
		}
		return []uint64{event}
	}
	return nil
}

func decodeEvent(e events.Envelope) (rules.Event, error) {
	payload, err := campaign.Registry().Upcast(&e)
	if err != nil {
		return nil, err
	}
	return rules.DecodeEvent(e.Type, payload)
}
