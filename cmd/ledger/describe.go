package main

import (
	"context"
	"encoding/json"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/i18n"
)

// describeEnglish returns the event's payload, upcast to its current
// schema, and what it records in English (rules.Describe for a battle's
// events, campaign.Describe for a campaign's own).
func describeEnglish(e events.Envelope) (json.RawMessage, string) {
	payload, err := campaign.Registry().Upcast(&e)
	if err != nil {
		return nil, err.Error()
	}
	if e.Battle == "" {
		return payload, campaign.Describe(e, payload)
	}
	ev, err := rules.DecodeEvent(e.Type, payload)
	if err != nil {
		return nil, err.Error()
	}
	return payload, rules.Describe(ev)
}

// eventWords says events in words in the configured language: English is
// the rules' own words, another language the message catalogue's template
// for the event type (web/i18n, "event.<type>") filled from the payload,
// with lengths in the battle's measurement.
type eventWords struct {
	ctx  context.Context
	lang string
	cat  *i18n.Catalogue
	app  *App // for a battle's measurement when its battle.created is not at hand; may be nil
	// measurement is each battle's, from its battle.created or its state.
	measurement map[events.Key]string
}

// eventWords returns the describer for the configured language.
func (c *cli) eventWords(app *App) *eventWords {
	w := &eventWords{ctx: c.ctx, lang: c.lang(), app: app, measurement: map[events.Key]string{}}
	if w.lang != "en" {
		cat, err := i18n.Load()
		if err != nil {
			w.lang = "en"
		}
		w.cat = cat
	}
	return w
}

func (w *eventWords) describe(e events.Envelope) string {
	payload, en := describeEnglish(e)
	if w.lang == "en" || payload == nil {
		return en
	}
	return w.cat.Event(w.lang, e.Type, payload, w.measurementOf(e, payload), en)
}

func (w *eventWords) measurementOf(e events.Envelope, payload json.RawMessage) string {
	if e.Battle == "" {
		return ""
	}
	key := e.Key()
	if e.Type == rules.EvBattleCreated {
		var bc struct {
			Measurement string `json:"measurement"`
		}
		if json.Unmarshal(payload, &bc) == nil {
			w.measurement[key] = bc.Measurement
		}
	}
	m, ok := w.measurement[key]
	if !ok && w.app != nil {
		if st, _, err := w.app.Service.State(w.ctx, key); err == nil && st != nil {
			m = st.Measurement
		}
		w.measurement[key] = m
	}
	return m
}
