package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Refusal is a command the rules do not allow. Rule cites docs/rules.md ("C.17"),
// Code is stable for programs ("move_too_far"), Message is readable at the
// table and carries the numbers, which Numbers repeats for programs.
//
// Format and Args are the message as it was made: the English format
// (i18n's "refusal.<code>#<n>", or "refusal.wrap#<n>" for words said
// around another refusal) and its values, from which i18n says the
// message in the reader's language. A value may be Words (a part of the
// message made from the rules' own words) or a *Refusal (the refusal a
// wrapper says more around). They are not sent: a refusal read back from
// JSON has its Message, and Said.
type Refusal struct {
	Rule    string             `json:"rule"`
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Numbers map[string]float64 `json:"numbers,omitempty"`

	Format string `json:"-"`
	Args   []any  `json:"-"`
	// Said is the message as a server already said it, by language: a
	// refusal a client read from a server's answer (app.Error.Wire) has
	// no Format, but the words the server said in the caller's language.
	Said map[string]string `json:"-"`
}

// Error renders "C.17: infantry moves 6" per action; ...: refused".
func (r *Refusal) Error() string { return r.Rule + ": " + r.Message + ": refused" }

// Refuse makes a refusal of rule and code whose message is format (a Go
// format, English) filled with a: the refusals made outside the rules
// (the campaign's) are made by it too, so that every refusal carries its
// format and values (i18n's "refusal.<code>#<n>").
func Refuse(rule, code, format string, a ...any) *Refusal {
	return &Refusal{Rule: rule, Code: code, Message: sprintf(format, a), Format: format, Args: a}
}

func refuse(rule, code, format string, a ...any) *Refusal {
	return Refuse(rule, code, format, a...)
}

// wrap says more around r's message, in place: format names the refusal
// inside by a %s whose value is that refusal (r.copy(), i18n's
// "refusal.wrap#<n>"). r keeps its rule, code and numbers.
func (r *Refusal) wrap(format string, a ...any) *Refusal {
	r.Format, r.Args, r.Message = format, a, sprintf(format, a)
	return r
}

// copy is a copy of r, to be wrapped by r.wrap.
func (r *Refusal) copy() *Refusal {
	c := *r
	return &c
}

// Words are a part of a refusal's message made from the rules' own words
// (" (path 5.0", turning 3.7")", "waypoint 2"): an English format (i18n's
// "phrase.<family>#<n>") and its values. They print as the English.
type Words struct {
	Format string
	Args   []any
}

func (w Words) String() string { return sprintf(w.Format, w.Args) }

// WordsError is an error of the rules that is not a refusal, printed from
// its Words, which it keeps for the reader's language (i18n says them as
// it says a refusal's).
type WordsError struct{ Words Words }

func (e *WordsError) Error() string { return e.Words.String() }

// words makes Words.
func words(format string, a ...any) Words { return Words{Format: format, Args: a} }

// kindWords says a terrain kind as its String does, each flag a value
// ("difficult,road": phrase.terrain_kind).
func kindWords(k geom.Kind) Words {
	names := k.Names()
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	return Words{Format: strings.TrimSuffix(strings.Repeat("%s,", len(names)), ","), Args: args}
}

// sprintf is fmt.Sprintf, but a refusal among the values prints as its
// message (a wrapper's inner refusal), not as its Error.
func sprintf(format string, a []any) string {
	for i, v := range a {
		if r, ok := v.(*Refusal); ok {
			b := make([]any, len(a))
			copy(b, a)
			b[i] = r.Message
			a = b
		}
	}
	return fmt.Sprintf(format, a...)
}

// with adds numbers to the refusal and returns it.
func (r *Refusal) with(kv ...any) *Refusal {
	if r.Numbers == nil {
		r.Numbers = map[string]float64{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		switch v := kv[i+1].(type) {
		case float64:
			r.Numbers[k] = v
		case int:
			r.Numbers[k] = float64(v)
		case uint64:
			r.Numbers[k] = float64(v)
		}
	}
	return r
}

// Rule ids cited by refusals that are not about one numbered rule: the
// command is malformed or the battle is in the wrong state for it.
const (
	RuleInput  = "input"  // malformed command: a field missing or out of range
	RuleBattle = "battle" // battle life cycle: not created, already started, ended
)

// fmtLen renders a length in the battle's system: 6" or 10 cm, with up to
// two decimals and no trailing zeros.
func fmtLen(v float64, m string) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if m == Centimetres {
		return s + " cm"
	}
	return s + `"`
}

// fmtMeasured renders a measured length with one decimal (6.1"), or two if one
// would hide the difference from limit.
func fmtMeasured(v, limit float64, m string) string {
	prec := 1
	if strconv.FormatFloat(v, 'f', 1, 64) == strconv.FormatFloat(limit, 'f', 1, 64) && v != limit {
		prec = 2
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if m == Centimetres {
		return s + " cm"
	}
	return s + `"`
}

func plural(n int, one, many string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// WithNumbers sets the refusal's numbers and returns it.
func (r *Refusal) WithNumbers(n map[string]float64) *Refusal {
	r.Numbers = n
	return r
}
