package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

// Kind is what went wrong, in the terms every edge maps once: HTTP to a
// status, the CLI to an exit code.
type Kind string

// The kinds of error.
const (
	// KindInvalid is a request the ledger cannot read: a malformed body, a
	// field over its limit, a bad id (HTTP 400, CLI exit 2).
	KindInvalid Kind = "invalid"
	// KindUnauthenticated is a missing or unknown token (401, exit 7).
	KindUnauthenticated Kind = "unauthenticated"
	// KindForbidden is a principal asking for what they may not do (403,
	// exit 7).
	KindForbidden Kind = "forbidden"
	// KindNotFound is a campaign, battle or event that does not exist, or
	// that the caller may not know of (404, exit 1).
	KindNotFound Kind = "not_found"
	// KindRefused is a refusal by the rules: the rule and the numbers
	// (422, exit 3).
	KindRefused Kind = "refused"
	// KindIdempotencyConflict is a command id already used by another
	// command (409, exit 6).
	KindIdempotencyConflict Kind = "idempotency_conflict"
	// KindConflict is a command that kept losing the race to other writers
	// (409, exit 1): nothing was appended; send it again.
	KindConflict Kind = "conflict"
	// KindUnavailable is a log that cannot answer (no quorum, a leader
	// being elected, no space, a timeout): the outcome of a command is
	// unknown; retry with the same id (503 with Retry-After, exit 5).
	KindUnavailable Kind = "unavailable"
	// KindTooMany is a limit reached (too many live streams): 429.
	KindTooMany Kind = "too_many"
	// KindDraining is a server shutting down (503).
	KindDraining Kind = "draining"
	// KindDamaged is a projection file that cannot be read (a damaged
	// page, a damaged header): nothing recorded is lost, the file is only
	// a projection of the log; it is rebuilt from it (`ledger projections
	// rebuild`, or a restart of serve, which moves it aside). Logged and
	// said in words (500; `projections verify` exit 4, elsewhere exit 1).
	KindDamaged Kind = "damaged"
	// KindInterrupted is work stopped part way by its caller (Ctrl-C, a
	// client gone, a server shutting down: its context cancelled). A
	// projection rebuild's (code rebuild_interrupted): nothing of the live
	// projection changed, the rebuild's file keeps what it built up to the
	// log sequence named (numbers: at), and running it again resumes it.
	// Anything else's (code interrupted): what was recorded stays
	// recorded; a command cut off may or may not have been, and sending it
	// again with the same id tells. Not a fault: logged as information
	// only (503, exit 1).
	KindInterrupted Kind = "interrupted"
	// KindInternal is anything else: logged, never shown raw (500, exit 1).
	KindInternal Kind = "internal"
)

// Error is an error as the door answers it: its kind, a stable code, and a
// message in the caller's language. A refusal by the rules keeps its rule
// and numbers; a storage fault says the outcome is unknown and what to do.
type Error struct {
	Kind Kind `json:"kind"`
	// Code is stable: the refusal's code ("move.too_far"), or the kind's.
	Code string `json:"code"`
	// Rule is the rule a refusal cites ("C.17").
	Rule    string             `json:"rule,omitempty"`
	Message string             `json:"message"`
	Numbers map[string]float64 `json:"numbers,omitempty"`
	// MessageEn is the English message when Message is a translation.
	MessageEn string `json:"message_en,omitempty"`
	// Lang is the language of Message.
	Lang string `json:"lang,omitempty"`
	// RetryAfter, in seconds, for an unavailable log or a draining server.
	RetryAfter int `json:"retry_after,omitempty"`

	err    error
	detail string      // English detail added to the catalogue's text
	why    rules.Words // the detail's format and values (i18n: detail.<code>)
}

func (e *Error) Error() string {
	if e.Rule != "" {
		return e.Rule + ": " + e.Message
	}
	return e.Message
}

// Unwrap gives the cause, when the error was made here (a refusal's
// *rules.Refusal, a storage fault's events.ErrUnavailable).
func (e *Error) Unwrap() error { return e.err }

// Refusal returns the refusal an error of KindRefused carries.
func (e *Error) Refusal() *rules.Refusal {
	if e.Kind != KindRefused {
		return nil
	}
	var r *rules.Refusal
	if errors.As(e.err, &r) {
		return r
	}
	return e.wireRefusal()
}

// wireRefusal is the refusal an Error read from the wire stands for: its
// English message, and the words the server said in the caller's language
// (Said), for the refusal carries no format to say it again from.
func (e *Error) wireRefusal() *rules.Refusal {
	r := &rules.Refusal{Rule: e.Rule, Code: e.Code, Message: firstNonEmpty(e.MessageEn, e.Message), Numbers: e.Numbers}
	if e.Lang != "" && e.Message != "" {
		r.Said = map[string]string{e.Lang: e.Message}
	}
	return r
}

// Wire returns the error with its cause attached again, as a client reads
// it from the wire: a refusal's *rules.Refusal and a storage fault's
// events.ErrUnavailable can then be found with errors.As and errors.Is.
func (e *Error) Wire() *Error {
	switch e.Kind {
	case KindRefused:
		e.err = e.wireRefusal()
	case KindUnavailable:
		e.err = events.ErrUnavailable
	}
	return e
}

// OverBudget says a request was stopped at its budget of time (the web
// server's http.request_budget): its context was cancelled with this as
// the cause. A query changed nothing; a command's outcome is unknown.
type OverBudget struct {
	Budget time.Duration
}

func (e *OverBudget) Error() string {
	return fmt.Sprintf("the request took longer than its budget of %s", e.Budget)
}

// retryAfter is what an unavailable log and a draining server suggest.
const retryAfter = 2

// Classify maps any error to its Error, once, in lang: every edge calls it
// (or reads an Error the door already made). vars name the command's
// references for a translated refusal.
func Classify(err error, cat *i18n.Catalogue, lang string, vars i18n.Vars) *Error {
	var (
		ae  *Error
		ref *rules.Refusal
		fb  *campaign.Forbidden
		ua  *campaign.Unauthenticated
		uc  *campaign.UnknownCampaign
		ii  *campaign.InvalidInput
		ic  *campaign.IdempotencyConflict
		ob  *OverBudget
		sf  *events.StoreFault
		imf *ImportFailed
		itr *projections.Interrupted
	)
	text := func(code string) string {
		if cat == nil {
			return code
		}
		return cat.Text(lang, "error."+code)
	}
	out := &Error{Lang: lang, err: err}
	switch {
	case errors.As(err, &ae):
		if ae.Message == "" {
			ae.Message = text(ae.Code)
			if ae.detail != "" {
				ae.Message += " (" + cat.Detail(lang, "detail."+ae.Code, ae.why, ae.detail) + ")"
			}
			ae.Lang = lang
		}
		return ae
	case errors.As(err, &ref):
		out.Kind, out.Code, out.Rule, out.Numbers = KindRefused, ref.Code, ref.Rule, ref.Numbers
		out.Message = ref.Message
		if cat != nil {
			out.Message = cat.Refusal(lang, ref, vars)
		}
		if out.Message != ref.Message {
			out.MessageEn = ref.Message
		}
		if ref.Rule == "command" || ref.Code == "command.bad_body" || ref.Code == "dice.out_of_range" {
			// Not a decision of the rules: a command that cannot be read,
			// a die that shows no such face.
			out.Kind = KindInvalid
		}
	case errors.As(err, &imf):
		// An import refused by its audit or its file (nothing appended), or
		// of a battle this ledger already has.
		out.Kind, out.Code = KindRefused, "import_refused"
		if !imf.Audit {
			out.Kind, out.Code = KindConflict, "import_exists"
		}
		out.Message = text(out.Code) + " (" + cat.Detail(lang, "detail."+out.Code, imf.Words, imf.Reason) + ")"
	case errors.As(err, &ii):
		out.Kind, out.Code = KindInvalid, "bad_request"
		// Its field, and its reason said from its format and values (a
		// reason with none is said as its own words).
		var reason any = ii.Reason
		if ii.Why.Format != "" {
			reason = ii.Why
		}
		said := rules.Words{Format: campaign.InvalidFormat, Args: []any{ii.Field, reason}}
		out.Message = text("bad_request") + " (" + cat.Detail(lang, "detail.bad_request", said, ii.Error()) + ")"
	case errors.As(err, &fb):
		out.Kind, out.Code = KindForbidden, "forbidden"
		out.Message = text("forbidden") + " (" + cat.Detail(lang, "detail.forbidden", fb.Why, fb.Reason) + ")"
	case errors.As(err, &ua):
		out.Kind, out.Code = KindUnauthenticated, "unauthorized"
		out.Message = text("unauthorized")
	case errors.As(err, &uc):
		out.Kind, out.Code = KindNotFound, "not_found"
		out.Message = text("not_found") + " (" + cat.Detail(lang, "detail.not_found", uc.Why(), uc.Error()) + ")"
	case errors.As(err, &ic):
		// The headline says what to do; the detail only which command
		// has the id, said from its format in the reader's language.
		e := Errorf(KindIdempotencyConflict, "idempotency_conflict", "command id %q: %s, event %d, entered by %s",
			ic.ID, ic.EarlierType, ic.EarlierVersion, ic.EarlierActor)
		e.err = err
		return Classify(e, cat, lang, vars)
	case errors.As(err, &itr):
		// Stopped by its caller, before the context's own error is taken
		// for a timeout: the log sequence its kept file reached, and what
		// to do.
		out.Kind, out.Code = KindInterrupted, "rebuild_interrupted"
		out.Numbers = map[string]float64{"at": float64(itr.At)}
		out.Message = strings.ReplaceAll(text("rebuild_interrupted"), "{at}", strconv.FormatUint(itr.At, 10))
	case errors.Is(err, context.Canceled):
		// Stopped by its caller (Ctrl-C, a client gone), not a fault of
		// the server: what was recorded stays recorded; a command cut off
		// may or may not have been.
		out.Kind, out.Code = KindInterrupted, "interrupted"
		out.Message = text("interrupted")
	case errors.Is(err, projections.ErrNotFound):
		out.Kind, out.Code = KindNotFound, "not_found"
		out.Message = text("not_found")
	case errors.As(err, &ob):
		out.Kind, out.Code, out.RetryAfter = KindUnavailable, "over_budget", retryAfter
		out.Message = strings.ReplaceAll(text("over_budget"), "{budget}", ob.Budget.String())
	case errors.As(err, &sf):
		// A full or failing disk: nothing more is recorded until it is
		// mended; the headline says which, and what to do; the detail the
		// disk's figures and the store's cause (said as the system says
		// it), and whether the gate refused the command before the store.
		free, size := events.Bytes(sf.Free), events.Bytes(sf.Size)
		gated := errors.Is(err, events.ErrGateRefused)
		var e *Error
		switch {
		case sf.Full && gated:
			e = Errorf(KindUnavailable, "disk_full", "refused, nothing appended: %s free of %s; %s", free, size, sf.Cause)
		case sf.Full:
			e = Errorf(KindUnavailable, "disk_full", "%s free of %s; %s", free, size, sf.Cause)
		case gated:
			e = Errorf(KindUnavailable, "disk_failed", "refused, nothing appended: %s; %s free", sf.Cause, free)
		default:
			e = Errorf(KindUnavailable, "disk_failed", "%s; %s free", sf.Cause, free)
		}
		e.RetryAfter, e.err = retryAfter, err
		return Classify(e, cat, lang, vars)
	case errors.Is(err, projections.ErrBusy):
		out.Kind, out.Code = KindConflict, "projection_busy"
		out.Message = text("projection_busy")
	case errors.Is(err, projections.ErrDamaged):
		out.Kind, out.Code = KindDamaged, "projection_damaged"
		out.Message = text("projection_damaged") + " (" + err.Error() + ")"
	case errors.Is(err, events.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		out.Kind, out.Code, out.RetryAfter = KindUnavailable, "unavailable", retryAfter
		out.Message = text("unavailable") + " (" + err.Error() + ")"
	case errors.Is(err, events.ErrConflict):
		out.Kind, out.Code = KindConflict, "conflict"
		out.Message = text("conflict") + " (" + err.Error() + ")"
	default:
		out.Kind, out.Code = KindInternal, "internal"
		out.Message = text("internal")
	}
	return out
}

// notFound says something does not exist (or is not the caller's to know).
func notFound(format string, a ...any) *Error {
	return Errorf(KindNotFound, "not_found", format, a...)
}

// invalid says a request cannot be read.
func invalid(format string, a ...any) *Error {
	return Errorf(KindInvalid, "bad_request", format, a...)
}

// forbidden says the caller may not do this.
func forbidden(format string, a ...any) *Error {
	return Errorf(KindForbidden, "forbidden", format, a...)
}

// Errorf makes an Error of a kind and code with a detail, for the door's
// and the edges' own errors (a malformed HTTP body, too many streams): the
// message is the catalogue's text for the code in the caller's language,
// with the detail after it, said from its format and values
// (i18n: detail.<code>; English, or no entry, prints it as given).
func Errorf(kind Kind, code, format string, a ...any) *Error {
	w := rules.Words{Format: format, Args: a}
	e := &Error{Kind: kind, Code: code, why: w}
	if format != "" {
		e.detail = w.String()
	}
	return e
}

// JSONProblem says what is wrong with a JSON body (an HTTP command's
// envelope) without echoing it, in words of the ledger's own with their
// format (rules.BodyWords, i18n's phrase.body): where it stops being JSON,
// which field wants what kind of value ("id: text, not a number"), an
// unknown field's name cut short.
func JSONProblem(err error) rules.Words {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se), errors.As(err, &te):
		return rules.BodyWords(err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		return rules.Words{Format: "unknown field %s", Args: []any{strconv.QuoteToASCII(name)}}
	}
	return rules.Words{Format: "not the expected JSON"}
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
