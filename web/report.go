package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/report"
)

// reportCSP is the report's policy: a document with its own inline style
// and inline SVG, that runs nothing and loads nothing.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// reportTypes are the answers' media types by format.
var reportTypes = map[string]string{
	report.HTML:     "text/html; charset=utf-8",
	report.BBCode:   "text/plain; charset=utf-8",
	report.Markdown: "text/markdown; charset=utf-8",
}

// handleReport answers GET .../report?format=html|bbcode|markdown: the
// battle's after-action report as the caller may see it (package report,
// docs/report.md), in the caller's language; on a campaign's path, the
// campaign's (its standings, then each battle's: report.BuildCampaign).
// Its work (one replay, the log's events, the audit, a picture per turn
// and decisive moment, at most report.MaxPictures or max_pictures, and
// for a campaign report.MaxCampaignPictures) runs under the request's
// budget, through the same door as every other query.
func (s *Server) handleReport(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	format := q.Get("format")
	if format == "" {
		format = report.HTML
	}
	if !slices.Contains(report.Formats, format) {
		s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "format: html, bbcode or markdown"))
		return
	}
	limit, perr := uintParam(r, "max_pictures", 0)
	if perr != nil {
		s.writeError(w, r, perr)
		return
	}
	if limit > report.MaxPictures {
		s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "max_pictures: at most %d, got %d", report.MaxPictures, limit))
		return
	}
	sess := s.session(r)
	opt := report.Options{Lang: sess.Lang(), MaxPictures: int(limit)}
	var rep interface{ Write(io.Writer, string) error }
	var err error
	if battle := r.PathValue("battle"); battle == "" {
		rep, err = report.BuildCampaign(r.Context(), sess, s.cat, r.PathValue("campaign"), opt)
	} else {
		rep, err = report.Build(r.Context(), sess, s.cat, battleKey(r), opt)
	}
	if err != nil && r.Context().Err() != nil {
		// The budget ran out under the report's work: that is the reason,
		// whatever the query it cut short made of it.
		err = context.Cause(r.Context())
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var body bytes.Buffer
	if err := rep.Write(&body, format); err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", reportTypes[format])
	h.Set("Content-Length", strconv.Itoa(body.Len()))
	// The caller's own view: never shared by a cache.
	h.Set("Cache-Control", "private, no-store")
	if format == report.HTML {
		h.Set("Content-Security-Policy", reportCSP)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body.Bytes())
}
