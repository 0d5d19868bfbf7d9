package app

import (
	"context"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// DisputesView is the battle's disputes and retraction
// requests, each linked to the events it concerns, with who did what.
type DisputesView struct {
	Disputes    []DisputeView    `json:"disputes"`
	Retractions []RetractionView `json:"retractions"`
}

// DisputeView is one dispute: the disputed event, the reason and who gave
// it, the ruling and who gave it, and the corrections that followed.
type DisputeView struct {
	Dispute      int         `json:"dispute"`
	EventVersion uint64      `json:"event_version"`
	EventType    string      `json:"event_type"`
	Event        *EventView  `json:"event,omitempty"`
	Reason       string      `json:"reason"`
	RaisedBy     string      `json:"raised_by"`
	RaisedAt     uint64      `json:"raised_at"`
	Status       string      `json:"status"`
	Ruling       string      `json:"ruling,omitempty"`
	RuledBy      string      `json:"ruled_by,omitempty"`
	RuledAt      uint64      `json:"ruled_at,omitempty"`
	Corrections  []EventView `json:"corrections"`
}

// RetractionView is one retraction request and its answer.
type RetractionView struct {
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

// Disputes are the battle's disputes and retraction requests as the caller
// may read them. Source: the log.
func (s *Session) Disputes(ctx context.Context, key events.Key) (DisputesView, error) {
	p, evs, err := s.battleEvents(ctx, key)
	if err != nil {
		return DisputesView{}, s.fail(err, noVars)
	}
	return disputes(p, evs, s.describer(ctx)), nil
}

// disputes folds a battle's events into its disputes and retractions as p
// may read them.
func disputes(p campaign.Principal, evs []events.Envelope, desc *Describer) DisputesView {
	out := DisputesView{Disputes: []DisputeView{}, Retractions: []RetractionView{}}
	dispute := func(n int) *DisputeView {
		for i := range out.Disputes {
			if out.Disputes[i].Dispute == n {
				return &out.Disputes[i]
			}
		}
		return nil
	}
	retraction := func(n int) *RetractionView {
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
			d := DisputeView{Dispute: x.Dispute, EventVersion: x.EventVersion, EventType: x.DisputedType, Reason: x.Reason,
				RaisedBy: e.Author(), RaisedAt: e.Version, Status: rules.DisputeOpen, Corrections: []EventView{}}
			if v := x.EventVersion; v >= 1 && int(v) <= len(evs) && evs[v-1].Version == v && p.CanRead(evs[v-1].Audience) {
				ej := view(evs[v-1], desc)
				d.Event = &ej
			}
			out.Disputes = append(out.Disputes, d)
		case *rules.DisputeUpheld:
			if d := dispute(x.Dispute); d != nil {
				d.Status, d.Ruling, d.RuledBy, d.RuledAt = rules.DisputeStatusUpheld, x.Ruling, e.Author(), e.Version
			}
		case *rules.DisputeDismissed:
			if d := dispute(x.Dispute); d != nil {
				d.Status, d.Ruling, d.RuledBy, d.RuledAt = rules.DisputeStatusDismissed, x.Ruling, e.Author(), e.Version
			}
		case *rules.UnitCorrected, *rules.OrderCorrected, *rules.CommandUndone, *rules.GeneralCorrected,
			*rules.FlankCorrected, *rules.ObjectiveCorrected, *rules.BattleRescored:
			n, _, _, _ := rules.CorrectionRef(x)
			if d := dispute(n); d != nil {
				d.Corrections = append(d.Corrections, view(e, desc))
			}
		case *rules.RetractRequested:
			out.Retractions = append(out.Retractions, RetractionView{Request: x.Request, CommandID: x.CommandID, Versions: x.Versions,
				Description: desc.Describe(e), RequestedBy: e.Author(), RequestedAt: e.Version, Status: rules.RetractPending})
		case *rules.RetractDeclined:
			if q := retraction(x.Request); q != nil {
				q.Status, q.AnsweredBy, q.AnsweredAt, q.Reason = rules.RetractStatusDeclined, e.Author(), e.Version, x.Reason
			}
		case *rules.CommandRetracted:
			if q := retraction(x.Request); q != nil {
				q.Status, q.AnsweredBy, q.AnsweredAt = rules.RetractDone, e.Author(), e.Version
			}
		}
	}
	return out
}
