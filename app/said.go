package app

import (
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// What the door says in the caller's language from the words a message
// was printed from (i18n's exact lookup; docs/languages.md): a log's broken
// chain and unsigned events, an audit's summaries and findings, the odds'
// modifiers.

// said says english, printed from w, in the caller's language (i18n, by
// its format among family's): "" in English, or where no entry says it.
func (s *Session) said(family string, w events.Words, english string) string {
	if s.lang == "en" || s.l.cat == nil {
		return ""
	}
	words, _ := audit.SayValue(w).(rules.Words)
	if out, ok := s.l.cat.Said(s.lang, family, words, english); ok {
		return out
	}
	return ""
}

// auditWords puts an audit's words (each check's title and summary, each
// finding's message) in the caller's language, once, at the door, so that
// the page's audit card, the API and the CLI say the same: said from the
// format and values Verify printed them from (SummaryWords, Words); what
// has no Russian in the catalogue stays as Verify wrote it.
func (s *Session) auditWords(r *audit.Report) *audit.Report {
	if s.lang == "en" || s.l.cat == nil {
		return r
	}
	r.Lang = s.lang
	for i := range r.Checks {
		ch := &r.Checks[i]
		ch.Title = s.l.cat.Term(s.lang, "check_title", ch.ID)
		if out, ok := s.l.cat.Said(s.lang, "phrase.audit.summary", ch.SummaryWords, ch.Summary); ok {
			ch.Summary = out
		}
		for j := range ch.Findings {
			f := &ch.Findings[j]
			if out, ok := s.l.cat.Said(s.lang, "phrase.audit.finding", f.Words, f.Message); ok {
				f.Message = out
			}
		}
	}
	return r
}

// reasonsSaid is each of the odds' modifiers' reasons in the caller's
// language, from its words, to go beside the English (Odds.ReasonsSaid);
// nil in English.
func (s *Session) reasonsSaid(ms []rules.Modifier) []string {
	if s.lang == "en" || s.l.cat == nil || len(ms) == 0 {
		return nil
	}
	said := make([]string, len(ms))
	for i, m := range ms {
		said[i] = m.Reason
		if out, ok := s.l.cat.Said(s.lang, "phrase.modifier", m.Words, m.Reason); ok {
			said[i] = out
		}
	}
	return said
}
