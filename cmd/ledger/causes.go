package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/rules"
)

// Causes in words: an error of another package (encoding/json, the YAML
// parser, the system, net/http) whose English the CLI prints as it is,
// read back into words with a format of their own, so that exit says it
// in the user's language (each format's entry in i18n's detail.usage).
// A cause is put in words only when the words print exactly the error's
// own text: English is unchanged by construction, and a text of another
// shape (another Go release's) is printed as it is.

// sameText is w when it prints text exactly, else text itself.
func sameText(w rules.Words, text string) any {
	if w.String() == text {
		return w
	}
	return text
}

// jsonContexts are the places encoding/json's scanner names in "invalid
// character 'x' <where>".
var jsonContexts = []rules.Words{
	rules.Words{Format: "looking for beginning of value"},
	rules.Words{Format: "looking for beginning of object key string"},
	rules.Words{Format: "after object key"},
	rules.Words{Format: "after object key:value pair"},
	rules.Words{Format: "after array element"},
	rules.Words{Format: "after top-level value"},
	rules.Words{Format: "in string literal"},
	rules.Words{Format: "in string escape code"},
	rules.Words{Format: `in \u hexadecimal character escape`},
	rules.Words{Format: "in numeric literal"},
	rules.Words{Format: "after decimal point in numeric literal"},
	rules.Words{Format: "in exponent of numeric literal"},
}

// jsonLiteral is the scanner's place inside true, false or null.
var jsonLiteral = regexp.MustCompile(`^in literal (true|false|null) \(expecting ('.')\)$`)

// jsonKinds are the kinds of JSON value encoding/json names when a body is
// not an object.
var jsonKinds = map[string]rules.Words{
	"array":  rules.Words{Format: "array"},
	"string": rules.Words{Format: "string"},
	"number": rules.Words{Format: "number"},
	"bool":   rules.Words{Format: "bool"},
}

// jsonWords is why a command's JSON body (--json) cannot be read.
func jsonWords(err error) any {
	text := err.Error()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		if text == "unexpected end of JSON input" {
			return sameText(rules.Words{Format: "unexpected end of JSON input"}, text)
		}
		rest, ok := strings.CutPrefix(text, "invalid character ")
		if !ok {
			return text
		}
		for _, where := range jsonContexts {
			if char, ok := strings.CutSuffix(rest, " "+where.Format); ok {
				return sameText(rules.Words{Format: "invalid character %s %s", Args: []any{char, where}}, text)
			}
		}
		for i := 0; i+1 < len(rest); i++ {
			if rest[i] != ' ' {
				continue
			}
			if m := jsonLiteral.FindStringSubmatch(rest[i+1:]); m != nil {
				where := rules.Words{Format: "in literal %s (expecting %s)", Args: []any{m[1], m[2]}}
				return sameText(rules.Words{Format: "invalid character %s %s", Args: []any{rest[:i], where}}, text)
			}
		}
	case errors.As(err, &te):
		// The body is read into a map[string]any: a value of another kind
		// at its top is not an object.
		kind, ok := jsonKinds[te.Value]
		if !ok {
			return text
		}
		return sameText(rules.Words{Format: "json: cannot unmarshal %s into Go value of type map[string]interface {}", Args: []any{kind}}, text)
	}
	return text
}

// configOpenWords is why the configuration file path cannot be read.
func configOpenWords(path string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "open" {
		return fmt.Errorf("config %s: %w", path, err)
	}
	var cause any = err.Error()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cause = sameText(rules.Words{Format: "open %s: no such file or directory", Args: []any{pe.Path}}, err.Error())
	case errors.Is(err, fs.ErrPermission):
		cause = sameText(rules.Words{Format: "open %s: permission denied", Args: []any{pe.Path}}, err.Error())
	case errors.Is(err, syscall.EISDIR):
		cause = sameText(rules.Words{Format: "open %s: is a directory", Args: []any{pe.Path}}, err.Error())
	}
	return said(err, rules.Words{Format: "config %s: %s", Args: []any{path, cause}})
}

// configInvalid is why the configuration is refused (config.Validate's
// problems, one a line), in words: each config.Problem by its format and
// values, so that it is said in the user's language.
func configInvalid(err error) error {
	var list []rules.Words
	var problems []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		problems = j.Unwrap()
	} else {
		problems = []error{err}
	}
	for _, e := range problems {
		var p *config.Problem
		if errors.As(e, &p) {
			list = append(list, rules.Words{Format: p.Format, Args: p.Args})
		} else {
			list = append(list, rules.Words{Format: "%s", Args: []any{e.Error()}})
		}
	}
	return said(err, rules.Words{Format: "config: %s", Args: []any{joinWords(list, "%s\n%s")}})
}

// errNotReady is a server that answered ledger health, not ready.
var errNotReady = errors.New("not ready")

// healthWords is why `ledger health` found no server ready at url.
func healthWords(url string, err error) error {
	return said(err, rules.Words{Format: "not ready: %s does not answer: %s", Args: []any{url, requestWords(err)}})
}

// requestWords is why an HTTP request had no answer: refused (nothing
// listens there) or out of time, else as net/http says it.
func requestWords(err error) any {
	text := err.Error()
	var ue *url.Error
	if !errors.As(err, &ue) {
		return text
	}
	var oe *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) && errors.As(err, &oe) && oe.Op == "dial" && oe.Addr != nil:
		return sameText(rules.Words{Format: "%s %q: dial %s %s: connect: connection refused", Args: []any{ue.Op, ue.URL, oe.Net, oe.Addr.String()}}, text)
	case errors.Is(err, context.DeadlineExceeded):
		return sameText(rules.Words{Format: "%s %q: context deadline exceeded", Args: []any{ue.Op, ue.URL}}, text)
	}
	return text
}

// yamlLine is the YAML parser's "yaml: line N: problem".
var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): (.+)$`)

// yamlField is one of the YAML decoder's "line N: field F not found in type T".
var yamlField = regexp.MustCompile(`^line ([0-9]+): field (\S+) not found in type (\S+)$`)

// yamlOther is another of the YAML decoder's "line N: problem".
var yamlOther = regexp.MustCompile(`^line ([0-9]+): (.+)$`)

// yamlProblems are the YAML parser's commonest words for a syntax error.
var yamlProblems = []rules.Words{
	rules.Words{Format: "did not find expected key"},
	rules.Words{Format: "did not find expected ',' or ']'"},
	rules.Words{Format: "did not find expected ',' or '}'"},
	rules.Words{Format: "mapping values are not allowed in this context"},
	rules.Words{Format: "found character that cannot start any token"},
	rules.Words{Format: "could not find expected ':'"},
	rules.Words{Format: "did not find expected node content"},
	rules.Words{Format: "did not find expected '-' indicator"},
}

// yamlProblem is a syntax error's problem in words, or as it is.
func yamlProblem(text string) any {
	for _, w := range yamlProblems {
		if w.Format == text {
			return w
		}
	}
	return text
}

// scenarioWords is why the scenario file path cannot be read (err is
// campaign.LoadScenario's): its YAML's syntax, or fields it does not know,
// in words; any other error as it is.
func scenarioWords(path string, err error) error {
	inner := errors.Unwrap(errors.Unwrap(err))
	if inner == nil || err.Error() != fmt.Sprintf("scenario %s: parse: %s", path, inner.Error()) {
		return err
	}
	var cause rules.Words
	var te *yaml.TypeError
	if errors.As(inner, &te) && len(te.Errors) > 0 {
		lines := make([]rules.Words, len(te.Errors))
		for i, e := range te.Errors {
			if m := yamlField.FindStringSubmatch(e); m != nil {
				n, _ := strconv.Atoi(m[1])
				lines[i] = rules.Words{Format: "line %d: field %s not found in type %s", Args: []any{n, m[2], m[3]}}
			} else if m := yamlOther.FindStringSubmatch(e); m != nil {
				n, _ := strconv.Atoi(m[1])
				lines[i] = rules.Words{Format: "line %d: %s", Args: []any{n, m[2]}}
			} else {
				lines[i] = rules.Words{Format: "%s", Args: []any{e}}
			}
		}
		cause = rules.Words{Format: "yaml: unmarshal errors:\n  %s", Args: []any{joinWords(lines, "%s\n  %s")}}
	} else if m := yamlLine.FindStringSubmatch(inner.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		cause = rules.Words{Format: "yaml: line %d: %s", Args: []any{n, yamlProblem(m[2])}}
	} else {
		return err
	}
	if cause.String() != inner.Error() {
		return err
	}
	return said(err, rules.Words{Format: "scenario %s: parse: %s", Args: []any{path, cause}})
}
