package web

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/i18n"
)

// apiError is an error the API answers with its own status and code. Every
// other error is internal: logged, and answered with 500 and no detail.
type apiError struct {
	status int
	code   string // a stable code, also the catalogue key "error.<code>"
	detail string // English detail for the client, optional
}

func (e *apiError) Error() string { return e.code + ": " + e.detail }

func errorf(status int, code, detail string) error {
	return &apiError{status: status, code: code, detail: detail}
}

var (
	errUnauthorized = &apiError{status: http.StatusUnauthorized, code: "unauthorized"}
	errForbidden    = &apiError{status: http.StatusForbidden, code: "forbidden"}
	errDraining     = &apiError{status: http.StatusServiceUnavailable, code: "draining"}
)

func forbidden(detail string) error {
	return &apiError{status: http.StatusForbidden, code: "forbidden", detail: detail}
}

func notFound(detail string) error {
	return &apiError{status: http.StatusNotFound, code: "not_found", detail: detail}
}

func badRequest(detail string) error {
	return &apiError{status: http.StatusBadRequest, code: "bad_request", detail: detail}
}

// errorBody is the JSON of every error answer:
//
//	{"error": {"status": 422, "code": "move_too_far", "rule": "C.17",
//	           "message": "...", "numbers": {...}}}
type errorBody struct {
	Error errorJSON `json:"error"`
}

type errorJSON struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	// Rule is the rule a refusal cites ("C.17"); empty for other errors.
	Rule    string             `json:"rule,omitempty"`
	Message string             `json:"message"`
	Numbers map[string]float64 `json:"numbers,omitempty"`
	// MessageEn is the rules' own English message when Message is a
	// translation of it.
	MessageEn string `json:"message_en,omitempty"`
	Lang      string `json:"lang"`
}

// refusalStatus is the status of a refusal by the rules: 422, except a
// malformed command body (400).
func refusalStatus(r *rules.Refusal) int {
	if r.Code == "command.bad_body" || r.Rule == "command" {
		return http.StatusBadRequest
	}
	return http.StatusUnprocessableEntity
}

// writeError maps err to its answer, once, at the edge. vars fill the
// translated refusal's words.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error, vars i18n.Vars) {
	lang := s.lang(r)
	var (
		ref *rules.Refusal
		ae  *apiError
		out errorJSON
	)
	switch {
	case errors.As(err, &ref):
		out = errorJSON{Status: refusalStatus(ref), Code: ref.Code, Rule: ref.Rule, Numbers: ref.Numbers,
			Message: s.cat.Refusal(lang, ref, vars)}
		if out.Message != ref.Message {
			out.MessageEn = ref.Message
		}
	case errors.As(err, &ae):
		out = errorJSON{Status: ae.status, Code: ae.code, Message: s.cat.Text(lang, "error."+ae.code)}
		if ae.detail != "" {
			out.Message += " (" + ae.detail + ")"
		}
	case errors.Is(err, projections.ErrNotFound):
		out = errorJSON{Status: http.StatusNotFound, Code: "not_found", Message: s.cat.Text(lang, "error.not_found")}
	case errors.Is(err, events.ErrConflict):
		out = errorJSON{Status: http.StatusConflict, Code: "conflict", Message: s.cat.Text(lang, "error.conflict")}
	default:
		if r.Context().Err() != nil {
			// The client went away; nobody reads the answer.
			return
		}
		s.log.Error("http: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		out = errorJSON{Status: http.StatusInternalServerError, Code: "internal", Message: s.cat.Text(lang, "error.internal")}
	}
	out.Lang = lang
	if out.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ledger"`)
	}
	writeJSON(w, out.Status, errorBody{Error: out})
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

func (s *Server) lang(r *http.Request) string {
	return i18n.Negotiate(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"), s.opts.Lang)
}
