package main

import (
	"sync"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/i18n"
)

// The CLI's words: every text a command prints for people (tables, lines,
// statuses, errors) comes from the message catalogues (i18n/en.json,
// i18n/ru.json: the "cli." keys, and the ledger's own words under "term."),
// in the language of --lang (LEDGER_LANG, the file's lang). Ids, rule
// numbers and hashes are printed as they are. JSON output (-o json) is for
// programs and stays as the API gives it.

// messages are the catalogues, loaded once: it is embedded, so an error is a bug.
var messages = sync.OnceValue(i18n.MustLoad)

// words says the CLI's texts in one language.
type words struct {
	cat  *i18n.Catalogue
	lang string
	// measurement is the battle's ("in" or "cm"), for lengths.
	measurement string
}

// words returns the CLI's texts in the configured language.
func (c *cli) words() words { return langWords(c.lang()) }

// langWords returns the CLI's texts in lang (English when the catalogues
// do not have it).
func langWords(lang string) words {
	if !i18n.Supported(lang) {
		lang = "en"
	}
	return words{cat: messages(), lang: lang}
}

// t says the catalogue's text for key ("cli." is prepended), with values
// given as name, value pairs.
func (w words) t(key string, kv ...any) string {
	values := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		name, _ := kv[i].(string)
		values[name] = kv[i+1]
	}
	return w.cat.Render(w.lang, "cli."+key, w.measurement, values)
}

// term is the ledger's word for value, of kind ("status", "formation",
// "role", ...): in English the value itself, an id the commands take.
func (w words) term(kind, value string) string {
	if value == "" {
		return ""
	}
	return w.cat.Term(w.lang, kind, value)
}

// fixed prints v with d decimals in the language's format.
func (w words) fixed(v float64, d int) string { return i18n.Decimal(w.lang, v, d) }

// duration says d to the second in the language (cli.duration): "2m34s",
// "1h0m5s" as Go prints it in English, "2 мин 34 с", "1 ч 5 с" in Russian.
// Hours and minutes are given only when there are some (minutes, too, under
// hours: the template says or drops a zero).
func (w words) duration(d time.Duration) string {
	s := int64(max(d.Round(time.Second), 0) / time.Second)
	kv := []any{"s", s % 60}
	if h := s / 3600; h > 0 {
		kv = append(kv, "h", h, "m", s/60%60)
	} else if m := s / 60; m > 0 {
		kv = append(kv, "m", m)
	}
	return w.t("duration", kv...)
}

// actor names who entered an event: "marie", or "uma for marie".
// The ledger's own operator is named in the language ("оператор"); a
// person by their id.
func (w words) actor(actor, onBehalfOf string) string {
	actor = w.term("actor", actor)
	if onBehalfOf == "" {
		return actor
	}
	return w.t("actor_for", "actor", actor, "for", onBehalfOf)
}

// player names a row of the audit's players: a person's id, or every
// player's sum (the audit calls it "all players"; ids have no spaces).
func (w words) player(id string) string {
	if id == "all players" {
		return w.t("audit.all_players")
	}
	return id
}

// stepStatus says a scenario step's outcome: accepted, duplicate, error,
// refused or "refused C.17" (campaign.StepResult.State, and a step's
// expect:, Step.Expected).
func (w words) stepStatus(st campaign.StepState) string {
	if st.Outcome == "refused" && st.Rule != "" {
		return w.t("step.refused_rule", "rule", w.rule(st.Rule))
	}
	return w.term("step", st.Outcome)
}

// rule names the rule a refusal cites: a numbered rule (C.17) as it is,
// the ledger's own kinds of refusal (input, battle, campaign, dice, ...)
// in the language.
func (w words) rule(id string) string { return w.term("rule", id) }
