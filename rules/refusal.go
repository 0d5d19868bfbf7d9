package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Refusal is a command the rules do not allow. Rule cites docs/rules.md ("C.17"),
// Code is stable for programs ("move_too_far"), Message is readable at the
// table and carries the numbers, which Numbers repeats for programs.
type Refusal struct {
	Rule    string             `json:"rule"`
	Code    string             `json:"code"`
	Message string             `json:"message"`
	Numbers map[string]float64 `json:"numbers,omitempty"`
}

// Error renders "C.17: infantry moves 6" per action; ...: refused".
func (r *Refusal) Error() string { return r.Rule + ": " + r.Message + ": refused" }

func refuse(rule, code, format string, a ...any) *Refusal {
	return &Refusal{Rule: rule, Code: code, Message: fmt.Sprintf(format, a...)}
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
