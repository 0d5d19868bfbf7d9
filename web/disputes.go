package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// refers returns the versions of the events e points at: a dispute's event
// (dispute.raised, dispute.upheld, dispute.dismissed, unit.corrected) or a
// retracted command's events (command.retract_requested,
// command.retracted).
func refers(e events.Envelope) []uint64 {
	if e.Battle == "" || !rules.IsDisputeEvent(e.Type) {
		return nil
	}
	ev, err := decodeEvent(e)
	if err != nil {
		return nil
	}
	switch x := ev.(type) {
	case *rules.DisputeRaised:
		return []uint64{x.EventVersion}
	case *rules.DisputeUpheld:
		return []uint64{x.EventVersion}
	case *rules.DisputeDismissed:
		return []uint64{x.EventVersion}
	case *rules.UnitCorrected:
		return []uint64{x.EventVersion}
	case *rules.RetractRequested:
		return x.Versions
	case *rules.CommandRetracted:
		return x.Versions
	}
	return nil
}

func decodeEvent(e events.Envelope) (rules.Event, error) {
	payload, err := campaign.Registry().Upcast(&e)
	if err != nil {
		return nil, err
	}
	return rules.DecodeEvent(e.Type, payload)
}

// authorizeRetraction checks who answers a retraction request: the
// opponent agrees (a player of another side than the requester's); the
// opponent declines, or the requester withdraws. The umpire may do either.
// A request the log does not hold is left to the rules, which refuse it.
func (s *Server) authorizeRetraction(ctx context.Context, w who, key events.Key, name string, body refs) error {
	if (name != rules.CmdRetractAgree && name != rules.CmdRetractDecline) || w.Role == campaign.RoleUmpire {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(body.Request)))
	if err != nil {
		return nil // the rules' strict decoding says what is wrong
	}
	evs, err := s.opts.Log.Read(ctx, key, 0)
	if err != nil {
		return err
	}
	requester := ""
	for _, e := range evs {
		if e.Type != rules.EvRetractRequested {
			continue
		}
		if ev, err := decodeEvent(e); err == nil && ev.(*rules.RetractRequested).Request == n {
			requester = e.Actor
		}
	}
	if requester == "" {
		return nil
	}
	c, err := s.opts.Service.Campaign(ctx, key.Campaign)
	if err != nil {
		return err
	}
	side := ""
	if p, ok := c.Player(requester); ok {
		side = p.Side
	}
	own := w.Player == requester || (side != "" && w.Side == side)
	switch {
	case name == rules.CmdRetractAgree && own:
		return forbidden("the opponent agrees to a retraction: " + requester + " of side " + side + " asked for request " + strconv.Itoa(n))
	case name == rules.CmdRetractDecline && own && w.Player != requester:
		return forbidden("only the opponent declines, or " + requester + " withdraws, request " + strconv.Itoa(n))
	}
	return nil
}

// DisputesJSON is GET .../disputes: the battle's disputes and retraction
// requests, each linked to the events it concerns, with who did what.
type DisputesJSON struct {
	Disputes    []DisputeJSON    `json:"disputes"`
	Retractions []RetractionJSON `json:"retractions"`
}

// DisputeJSON is one dispute: the disputed event, the reason and who gave
// it, the ruling and who gave it, and the corrections that followed.
type DisputeJSON struct {
	Dispute      int         `json:"dispute"`
	EventVersion uint64      `json:"event_version"`
	EventType    string      `json:"event_type"`
	Event        *EventJSON  `json:"event,omitempty"`
	Reason       string      `json:"reason"`
	RaisedBy     string      `json:"raised_by"`
	RaisedAt     uint64      `json:"raised_at"`
	Status       string      `json:"status"`
	Ruling       string      `json:"ruling,omitempty"`
	RuledBy      string      `json:"ruled_by,omitempty"`
	RuledAt      uint64      `json:"ruled_at,omitempty"`
	Corrections  []EventJSON `json:"corrections"`
}

// RetractionJSON is one retraction request and its answer.
type RetractionJSON struct {
	Request     int      `json:"request"`
	CommandID   string   `json:"command_id"`
	Versions    []uint64 `json:"versions"`
	Description string   `json:"description"`
	RequestedBy string   `json:"requested_by"`
	RequestedAt uint64   `json:"requested_at"`
	Status      string   `json:"status"`
	AnsweredBy  string   `json:"answered_by,omitempty"`
	AnsweredAt  uint64   `json:"answered_at,omitempty"`
	Reason      string   `json:"reason,omitempty"`
}

func (s *Server) handleDisputes(w http.ResponseWriter, r *http.Request) {
	wh, key, evs, ok := s.battleEvents(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, disputes(wh.Principal, evs, s.describer(r, key, evs)))
}

// disputes folds a battle's events into its disputes and retractions as p
// may read them.
func disputes(p campaign.Principal, evs []events.Envelope, desc describer) DisputesJSON {
	out := DisputesJSON{Disputes: []DisputeJSON{}, Retractions: []RetractionJSON{}}
	dispute := func(n int) *DisputeJSON {
		for i := range out.Disputes {
			if out.Disputes[i].Dispute == n {
				return &out.Disputes[i]
			}
		}
		return nil
	}
	retraction := func(n int) *RetractionJSON {
		for i := range out.Retractions {
			if out.Retractions[i].Request == n {
				return &out.Retractions[i]
			}
		}
		return nil
	}
	for _, e := range evs {
		if !rules.IsDisputeEvent(e.Type) || !p.CanRead(e.Audience) {
			continue
		}
		ev, err := decodeEvent(e)
		if err != nil {
			continue
		}
		switch x := ev.(type) {
		case *rules.DisputeRaised:
			d := DisputeJSON{Dispute: x.Dispute, EventVersion: x.EventVersion, EventType: x.DisputedType, Reason: x.Reason,
				RaisedBy: e.Actor, RaisedAt: e.Version, Status: rules.DisputeOpen, Corrections: []EventJSON{}}
			if v := x.EventVersion; v >= 1 && int(v) <= len(evs) && evs[v-1].Version == v && p.CanRead(evs[v-1].Audience) {
				ej := eventJSON(evs[v-1], desc)
				d.Event = &ej
			}
			out.Disputes = append(out.Disputes, d)
		case *rules.DisputeUpheld:
			if d := dispute(x.Dispute); d != nil {
				d.Status, d.Ruling, d.RuledBy, d.RuledAt = rules.DisputeStatusUpheld, x.Ruling, e.Actor, e.Version
			}
		case *rules.DisputeDismissed:
			if d := dispute(x.Dispute); d != nil {
				d.Status, d.Ruling, d.RuledBy, d.RuledAt = rules.DisputeStatusDismissed, x.Ruling, e.Actor, e.Version
			}
		case *rules.UnitCorrected:
			if d := dispute(x.Dispute); d != nil {
				d.Corrections = append(d.Corrections, eventJSON(e, desc))
			}
		case *rules.RetractRequested:
			out.Retractions = append(out.Retractions, RetractionJSON{Request: x.Request, CommandID: x.CommandID, Versions: x.Versions,
				Description: desc.describe(e), RequestedBy: e.Actor, RequestedAt: e.Version, Status: rules.RetractPending})
		case *rules.RetractDeclined:
			if q := retraction(x.Request); q != nil {
				q.Status, q.AnsweredBy, q.AnsweredAt, q.Reason = rules.RetractStatusDeclined, e.Actor, e.Version, x.Reason
			}
		case *rules.CommandRetracted:
			if q := retraction(x.Request); q != nil {
				q.Status, q.AnsweredBy, q.AnsweredAt = rules.RetractDone, e.Actor, e.Version
			}
		}
	}
	return out
}

// handleAudit answers with the battle's audit (campaign/audit, docs/audit.md):
// every check, the dice periods, and each player's faces and order
// outcomes against their expected numbers. Events the caller may not read
// are withheld, chained through their hashes as in an export.
func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	wh, key, evs, ok := s.battleEvents(w, r)
	if !ok {
		return
	}
	opt := audit.Options{Key: key}
	withheld := false
	for _, e := range evs {
		withheld = withheld || !wh.CanRead(e.Audience)
	}
	if withheld {
		opt.Hashes = make([]string, len(evs))
		shown := make([]events.Envelope, len(evs))
		for i, e := range evs {
			opt.Hashes[i] = events.Hash(e.Raw)
			if !wh.CanRead(e.Audience) {
				e.Raw, e.Payload = nil, nil
			}
			shown[i] = e
		}
		evs = shown
	}
	writeJSON(w, http.StatusOK, audit.Verify(evs, opt))
}

func (s *Server) handleStandings(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("campaign")
	if _, err := s.authenticate(r, id); err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	st, err := s.opts.Service.Standings(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
