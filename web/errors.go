package web

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/i18n"
)

// Status maps an error's kind to its HTTP status, once, at the edge.
func Status(k app.Kind) int {
	switch k {
	case app.KindInvalid:
		return http.StatusBadRequest
	case app.KindUnauthenticated:
		return http.StatusUnauthorized
	case app.KindForbidden:
		return http.StatusForbidden
	case app.KindNotFound:
		return http.StatusNotFound
	case app.KindRefused:
		return http.StatusUnprocessableEntity
	case app.KindIdempotencyConflict, app.KindConflict:
		return http.StatusConflict
	case app.KindTooMany:
		return http.StatusTooManyRequests
	case app.KindUnavailable, app.KindDraining, app.KindInterrupted:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// ErrorBody is the JSON of every error answer:
//
//	{"error": {"status": 422, "kind": "refused", "code": "move.too_far",
//	           "rule": "C.17", "message": "...", "numbers": {...}}}
type ErrorBody struct {
	Error ErrorJSON `json:"error"`
}

// ErrorJSON is an app.Error with its HTTP status.
type ErrorJSON struct {
	Status int `json:"status"`
	app.Error
}

// writeError answers err, classified once by the door (app.Classify). An
// internal error is logged and shown only as "internal"; nothing in an
// answer echoes the request's raw text.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	err = overBudget(r, err)
	if ae, ok := err.(*app.Error); ok && ae.Message == "" {
		// The edge's own errors are shared values (errNoRoute, errDraining):
		// word a copy, in this caller's language, never the shared one (the
		// first caller's language stuck to it, and two callers raced).
		c := *ae
		err = &c
	}
	e := app.Classify(err, s.cat, s.lang(r), i18n.Vars{})
	if e.Kind == app.KindInternal {
		if r.Context().Err() != nil {
			return // the client went away; nobody reads the answer
		}
		s.log.Error("http: internal error", "method", r.Method, "route", r.Pattern, "err", err)
	}
	status := Status(e.Kind)
	if e.Code == "unknown_command" {
		status = http.StatusNotFound // no such command to post to
	}
	if e.Code == "method_not_allowed" {
		status = http.StatusMethodNotAllowed // the route takes other methods: Allow names them
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ledger"`)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeJSON(w, status, ErrorBody{Error: ErrorJSON{Status: status, Error: *e}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
