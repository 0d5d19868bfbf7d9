package web

import "net/http"

// Every API route runs behind guarded: the door is asked who the caller is
// on the campaign the path names before anything else is done (issue 25).
// A command's body is read only once the door has said the token opens the
// campaign, so a stranger gets 401, whatever the body, and learns nothing
// of how bodies are read. The door decides (Session.Principal); the edge
// only asks it first, and the handler's own call asks it again.

// guarded runs h once the caller's token opens the path's campaign (a
// route without one: h answers for itself).
func (s *Server) guarded(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := s.caller(r)
		if camp := r.PathValue("campaign"); camp != "" && c.Operator == "" {
			if _, err := s.opts.Ledger.As(c).Principal(r.Context(), camp); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		h(w, r)
	}
}
