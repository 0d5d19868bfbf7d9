package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/events"
)

// DefaultBudget is each request's budget of time when Options.Budget is 0
// (config http.request_budget).
const DefaultBudget = 15 * time.Second

// Nothing a user sends may cost unbounded time (issue 24): every API
// request but the few that are long by nature runs under a deadline, its
// budget; the door's work (a replay, a picture, a command's retries) sees
// it through the request's context, as it sees a client that has gone, and
// stops. The answer then says so in words (503, error.over_budget), with
// what to do.

// unbudgeted are the routes whose work is long by nature and bounded
// otherwise, or nothing at all: a live stream lasts as long as its client (and its token)
// and the operator's rebuild, verify and backup run over the whole log.
var unbudgeted = map[string]bool{
	"GET /healthz": true, // answers from memory: nothing to bound
	"GET /api/campaigns/{campaign}/battles/{battle}/events/stream": true,
	"POST /api/admin/projections/rebuild":                          true,
	"POST /api/admin/projections/verify":                           true,
	"POST /api/admin/backup":                                       true,
	"POST /api/admin/import":                                       true, // bounded by app.ImportMaxBytes
}

// budgeted runs h under the server's budget.
func (s *Server) budgeted(h http.HandlerFunc) http.HandlerFunc {
	d := s.opts.Budget
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeoutCause(r.Context(), d, &app.OverBudget{Budget: d})
		defer cancel()
		h(w, r.WithContext(ctx))
	}
}

// overBudget gives the budget's own error for err when err is the
// request's context running out of its budget, and err otherwise. A read
// of the log cut short by the deadline comes back as the log being
// unavailable ("the server did not answer in time"), not as the deadline:
// when the request's budget is spent, that is the reason, and the answer
// says so (a battle's state, events, picture or audit answered
// "unavailable" under a spent budget, the campaign's "over_budget").
func overBudget(r *http.Request, err error) error {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, events.ErrUnavailable) {
		return err
	}
	var ob *app.OverBudget
	if cause := context.Cause(r.Context()); r.Context().Err() != nil && errors.As(cause, &ob) {
		return cause
	}
	return err
}
