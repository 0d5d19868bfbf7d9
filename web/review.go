package web

import (
	"net/http"
	"strconv"

	"github.com/clubledger/ledger/app"
)

// handleReview answers GET .../review?version=N: the review of one event
// as JSON (app.Review: before, after, as corrected, the geometry that
// decided it, its dice, disputes and corrections), or with format=svg the
// review picture (scale: pixels per inch or cm).
func (s *Server) handleReview(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("version") == "" {
		s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "version: the event to review is required"))
		return
	}
	v, err := uintParam(r, "version", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	switch q.Get("format") {
	case "", "json":
		rv, err := s.session(r).Review(r.Context(), battleKey(r), v)
		s.answer(w, r, rv, err)
	case "svg":
		scale, err := scaleParam(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body, err := s.session(r).ReviewPicture(r.Context(), battleKey(r), app.ReviewQuery{Version: v, Scale: scale})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "image/svg+xml; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		// The caller's own view: never shared by a cache.
		h.Set("Cache-Control", "private, no-store")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	default:
		s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "format: json or svg"))
	}
}

// scaleParam reads a picture's scale (pixels per inch or cm of the table)
// from ?scale=, 0 when absent: the renderer's own.
func scaleParam(r *http.Request) (float64, error) {
	sc := r.URL.Query().Get("scale")
	if sc == "" {
		return 0, nil
	}
	scale, err := strconv.ParseFloat(sc, 64)
	if err != nil || !(scale > 0 && scale <= 100) {
		return 0, app.Errorf(app.KindInvalid, "bad_request", "scale %q: want a number of pixels per unit, more than 0 and at most 100", sc)
	}
	return scale, nil
}
