// Package i18n holds the message catalogues, one JSON file per language
// (en.json, ru.json), of the web page, the HTTP API, the CLI and the
// picture, and says in a language what the rules and the audit print in
// English: refusals, findings, event descriptions. The rule id and the
// numbers stay, the words change.
//
// A catalogue maps keys to texts. The page's texts use keys such as
// "battle.events", the CLI's "cli.board.title", the ledger's own words
// "term.<kind>.<value>" (Render, Term: render.go).
//
// A refusal's English is the rules' message. A refusal carries the Go
// format its message was made with and the values (rules.Refuse); en.json
// holds each format a refusal of a code can have ("refusal.<code>#<n>"),
// and another catalogue says it under the same key, naming the values by
// position. The refusal is said by the entry whose format is its own, an
// exact lookup, never by reading its English back (refusal.go); a format
// no entry has, or a template naming a value that is not there, shows the
// English instead, so a translation never drops a number or a word. Tests
// read the rules' and the campaign's sources to keep the formats in step.
// Other messages made by code (the audit's findings and summaries, a
// broken chain, unsigned events, an order's modifiers) keep their format
// and values too and are said the same way (Catalogue.Said, phrase.go).
//
// Event descriptions are said from templates "event.<type>" filled from
// the event's payload (event.go: Catalogue.Event), English being the
// rules' own words.
//
// The CLI's help (every command's descriptions and flags, and cobra's own
// words) is in help.<lang>.json, merged into that language's texts under
// "cli.help.": Russian only, the English being the commands' own in
// cmd/ledger (help_i18n.go).
package i18n

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules"
)

//go:embed *.json
var files embed.FS

// Languages are the languages with a catalogue, the default first.
var Languages = []string{"en", "ru"}

// Catalogue is the set of message catalogues, one per language.
type Catalogue struct {
	texts map[string]map[string]string
	// formats are the English formats of refusals and other messages made
	// by code, by family (refusal.go, phrase.go).
	formats map[string][]format
}

// Load reads the embedded catalogues. Every key of the English catalogue
// must exist in the others (a test checks it), so a page never shows a key.
func Load() (*Catalogue, error) {
	c := &Catalogue{texts: map[string]map[string]string{}}
	for _, lang := range Languages {
		raw, err := files.ReadFile(lang + ".json")
		if err != nil {
			return nil, fmt.Errorf("i18n: %w", err)
		}
		m := map[string]string{}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("i18n: %s.json: %w", lang, err)
		}
		if err := mergeHelp(lang, m); err != nil {
			return nil, err
		}
		c.texts[lang] = m
	}
	fs, err := compileFormats(c.texts["en"])
	if err != nil {
		return nil, fmt.Errorf("i18n: %w", err)
	}
	c.formats = fs
	return c, nil
}

// mergeHelp adds help.<lang>.json, when there is one, to lang's texts: the
// CLI's help ("cli.help.*", cmd/ledger/help_i18n.go), kept apart from the
// catalogue of messages. A key in both files is a mistake, never a choice
// of one over the other.
func mergeHelp(lang string, m map[string]string) error {
	name := "help." + lang + ".json"
	raw, err := files.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("i18n: %w", err)
	}
	help := map[string]string{}
	if err := json.Unmarshal(raw, &help); err != nil {
		return fmt.Errorf("i18n: %s: %w", name, err)
	}
	var both []string
	for k, v := range help {
		if _, ok := m[k]; ok {
			both = append(both, k)
			continue
		}
		m[k] = v
	}
	if len(both) > 0 {
		sort.Strings(both)
		return fmt.Errorf("i18n: %s and %s.json both have %s", name, lang, strings.Join(both, ", "))
	}
	return nil
}

// MustLoad is Load for package initialisation: the catalogues are embedded,
// so an error is a programming mistake.
func MustLoad() *Catalogue {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

// Supported reports whether lang has a catalogue.
func Supported(lang string) bool { return slices.Contains(Languages, lang) }

// Text returns key's text in lang, else in English, else the key itself.
func (c *Catalogue) Text(lang, key string) string {
	if s, ok := c.texts[lang][key]; ok {
		return s
	}
	if s, ok := c.texts["en"][key]; ok {
		return s
	}
	return key
}

// Lookup returns key's text in lang itself, and whether lang has it: no
// English fills the gap.
func (c *Catalogue) Lookup(lang, key string) (string, bool) {
	s, ok := c.texts[lang][key]
	return s, ok
}

// Page returns the texts the web page uses (every key but the refusals',
// "refusal.", and the event descriptions', "event." and "term."), in lang
// with English filling any gap.
func (c *Catalogue) Page(lang string) map[string]string {
	out := map[string]string{}
	for k, v := range c.texts["en"] {
		if pageKey(k) {
			out[k] = v
		}
	}
	for k, v := range c.texts[lang] {
		if pageKey(k) {
			out[k] = v
		}
	}
	return out
}

func pageKey(k string) bool {
	for _, p := range []string{"refusal.", "event.", "term.", "phrase.", "detail.", "cli.", sayPrefix} {
		if strings.HasPrefix(k, p) {
			return false
		}
	}
	return true
}

// Keys returns the keys of lang's catalogue, sorted (for tests).
func (c *Catalogue) Keys(lang string) []string {
	out := make([]string, 0, len(c.texts[lang]))
	for k := range c.texts[lang] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Negotiate picks the language of a request: the query parameter if it
// names a supported language, else the first supported language of the
// Accept-Language header (by quality), else def.
func Negotiate(query, acceptLanguage, def string) string {
	if Supported(query) {
		return query
	}
	type pref struct {
		lang string
		q    float64
		i    int
	}
	var prefs []pref
	for i, part := range strings.Split(acceptLanguage, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if Supported(base) && q > 0 {
			prefs = append(prefs, pref{base, q, i})
		}
	}
	sort.SliceStable(prefs, func(a, b int) bool { return prefs[a].q > prefs[b].q })
	if len(prefs) > 0 {
		return prefs[0].lang
	}
	if Supported(def) {
		return def
	}
	return "en"
}

// Vars are the words of the refused command a template may name ({unit},
// {general}, ...), and the battle's measurement ("in" or "cm") for lengths.
type Vars struct {
	Measurement string
	Words       map[string]string
}

// Refusal renders r's message in lang, from its format and values
// (r.Format, r.Args; refusal.go), never from its English text. English is
// the rules' own message, but where en.json says its format again in words
// ("say.", phrase.go). Another language says it by the entry of r's code
// whose Go format is r's ("refusal.<code>#<n>", or "refusal.wrap#<n>" for
// words said around another refusal), its template naming the values by
// position (and r's numbers and vars' words by name); without one it
// falls back to the English message. A refusal read from a server's
// answer (no format) is said as the server said it in lang (r.Said), else
// in English. The rule id is not part of the message: callers show it
// beside.
func (c *Catalogue) Refusal(lang string, r *rules.Refusal, vars Vars) string {
	if r == nil {
		return ""
	}
	if r.Format == "" {
		if s, ok := r.Said[lang]; ok && s != "" {
			return s
		}
		return r.Message
	}
	if c == nil {
		return r.Message
	}
	more := map[string]any{}
	for k, w := range vars.Words {
		if w != "" {
			more[k] = w
		}
	}
	for k, v := range r.Numbers {
		more[k] = v
	}
	rr := &renderer{c: c, lang: lang, measurement: vars.Measurement, say: lang == "en"}
	if out, ok := rr.refusal(r, more); ok {
		return out
	}
	return r.Message
}

// Detail says the detail of an error that is not a refusal (the reason of
// a campaign.Forbidden or InvalidInput, the words of the door's and the
// edges' own errors) in lang, from its format and values (w), as refusals
// are: by the entry of family ("detail.<code>", "detail.input") whose Go
// format is w's, an exact lookup, never by reading english back. English,
// and a detail no entry says, is english, the words the code printed.
func (c *Catalogue) Detail(lang, family string, w rules.Words, english string) string {
	if c == nil || lang == "en" || w.Format == "" {
		return english
	}
	rr := &renderer{c: c, lang: lang}
	if out, ok := rr.said(family, w.Format, w.Args, nil); ok {
		return out
	}
	return english
}

// Number renders a number with at most two decimals and no trailing zeros.
func Number(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// Length renders a measured length with one decimal in the battle's unit:
// 6.1" for inches, "6,1 см" in Russian centimetres.
func Length(v float64, measurement, lang string) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if measurement == "cm" {
		if lang == "ru" {
			return strings.ReplaceAll(s, ".", ",") + " см"
		}
		return s + " cm"
	}
	if lang == "ru" {
		s = strings.ReplaceAll(s, ".", ",")
	}
	return s + `"`
}
