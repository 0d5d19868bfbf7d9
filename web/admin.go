package web

import (
	"crypto/subtle"
	"net/http"
	"sync"
	"time"
)

// rebuilding lets one rebuild run at a time.
var rebuilding sync.Mutex

// handleRebuild answers POST /api/admin/projections/rebuild (the server's
// admin token only): the SQLite projection is rebuilt from the first event
// aside while the server goes on serving, then swapped in under the running
// projector (docs/projections.md). It answers once the new projection is in
// place, with the checkpoint it reached and how long it took.
func (s *Server) handleRebuild(w http.ResponseWriter, r *http.Request) {
	token := bearer(r)
	switch {
	case token == "":
		s.writeError(w, r, errUnauthorized, noVars)
		return
	case s.opts.AdminToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.AdminToken)) != 1:
		s.writeError(w, r, forbidden("rebuilding the projection needs the server's admin token"), noVars)
		return
	case s.opts.Rebuild == nil:
		s.writeError(w, r, notFound("this server cannot rebuild its projection"), noVars)
		return
	}
	if !rebuilding.TryLock() {
		s.writeError(w, r, errorf(http.StatusConflict, "conflict", "a rebuild is already running"), noVars)
		return
	}
	defer rebuilding.Unlock()
	start := time.Now()
	if err := s.opts.Rebuild(r.Context()); err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	cp, err := s.opts.Read.Checkpoint(r.Context())
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"rebuilt": true, "checkpoint": cp, "seconds": time.Since(start).Seconds()})
}
