package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
)

// Every API route runs behind guarded: the door is asked who the caller is
// on the campaign the path names before anything else is done, and a
// client address that keeps sending tokens the ledger does not know is
// throttled.
//
//   - The token is checked first (issue 25): a command's body is read only
//     once the door has said the token opens the campaign, so a stranger
//     gets 401, whatever the body, and learns nothing of how bodies are
//     read. The door decides (Session.Principal); the edge only asks it
//     first, and the handler's own call asks it again.
//   - Failed token checks are throttled by the client's address
//     (Throttle): an edge concern of the HTTP door, as the live streams'
//     limits are; who may do what stays behind the door.

// guarded runs h once the caller's token opens the path's campaign (a
// route without one: h answers for itself, and a 401 or 403 it gives a
// token counts as a failed check).
func (s *Server) guarded(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := s.caller(r)
		var chk *check
		if c.Operator == "" && c.Token != "" {
			if key, ok := clientKey(r.RemoteAddr); ok {
				k, retry, ok := s.throttle.begin(key, c.Token, time.Now())
				if !ok {
					s.writeError(w, r, s.throttled(r, retry))
					return
				}
				chk = &k
			}
		}
		camp := r.PathValue("campaign")
		// campaign.create names a campaign that does not exist yet: the
		// ledger decides it (the operator's alone: a person's token is
		// forbidden), not who the token is on that campaign.
		creating := r.PathValue("command") == campaign.CmdCreate && r.PathValue("battle") == ""
		if camp == "" || c.Operator != "" || creating {
			if chk == nil {
				h(w, r)
				return
			}
			sw := &statusWriter{ResponseWriter: w}
			h(sw, r)
			// Only the door's answer on a campaign makes a token known
			// good: a route that reads no token answers anything 200.
			o := unknown
			if sw.status == http.StatusUnauthorized || sw.status == http.StatusForbidden {
				o = failed
			}
			chk.done(o, time.Now())
			return
		}
		_, err := s.opts.Ledger.As(c).Principal(r.Context(), camp)
		if chk != nil {
			o := passed
			if err != nil {
				o = unknown // no such campaign, the log did not answer: nothing learned of the token
				if ae := (*app.Error)(nil); errors.As(err, &ae) && ae.Kind == app.KindUnauthenticated {
					o = failed
				}
			}
			chk.done(o, time.Now())
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		h(w, r)
	}
}

// throttled is the refusal of a throttled address, in the caller's
// language, with its numbers.
func (s *Server) throttled(r *http.Request, retry int) error {
	perMinute := float64(time.Minute) / float64(s.throttle.cfg.Every)
	msg := s.cat.Text(s.lang(r), "error.too_many_failed_tokens")
	msg = strings.NewReplacer("{failures}", strconv.FormatFloat(perMinute, 'f', -1, 64), "{burst}", strconv.Itoa(s.throttle.cfg.Burst),
		"{retry}", strconv.Itoa(retry)).Replace(msg)
	return &app.Error{Kind: app.KindTooMany, Code: "too_many_failed_tokens", Message: msg, Lang: s.lang(r), RetryAfter: retry,
		Numbers: map[string]float64{"failed_checks_per_minute": perMinute, "burst": float64(s.throttle.cfg.Burst), "retry_after_seconds": float64(retry)}}
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
