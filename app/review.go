package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/picture"
	"github.com/clubledger/ledger/rules"
)

// Review is one decision of a battle reviewed (docs/disputes.md, "The
// review"): the event and the command that recorded it with the dice it
// used, the rules it cites, the battle just before the command and just
// after it as recorded, and, when a ruling corrected it, just after that
// ruling; the geometry that decided it, with its numbers; the disputes
// raised on it and the corrections that followed. Source: the log.
type Review struct {
	Key events.Key `json:"key"`
	// Version is the event reviewed; First and End the versions of its
	// command's events; Last the battle's last event.
	Version uint64    `json:"version"`
	First   uint64    `json:"first"`
	End     uint64    `json:"end"`
	Last    uint64    `json:"last"`
	Event   EventView `json:"event"`
	// Command are the command's events the caller may read; Dice its rolls.
	Command []EventView `json:"command"`
	Dice    []EventView `json:"dice"`
	// Rules are the rules the decision cites, the deciding one first.
	Rules []string `json:"rules"`
	// Before is the battle just before the command, After just after it
	// as recorded, Corrected just after the last ruling that corrected it
	// (absent when none did).
	Before    Board  `json:"before"`
	After     Board  `json:"after"`
	Corrected *Board `json:"corrected,omitempty"`
	// CorrectedAt is the version Corrected stands after.
	CorrectedAt uint64 `json:"corrected_at,omitempty"`
	// Geometry is what decided it, on the battle as recorded.
	Geometry rules.Review `json:"geometry"`
	// Disputes are those raised on the command's events; Corrections the
	// events that corrected them.
	Disputes    []DisputeView `json:"disputes"`
	Corrections []EventView   `json:"corrections"`
}

// ReviewQuery asks for the review picture of an event.
type ReviewQuery struct {
	Version uint64  `json:"version"`
	Scale   float64 `json:"scale,omitempty"`
}

// Review reviews the event at version: any event the caller may read.
func (s *Session) Review(ctx context.Context, key events.Key, version uint64) (Review, error) {
	rv, _, err := s.review(ctx, key, version)
	return rv, s.fail(err, noVars)
}

// reviewStates are the states a review picture draws, as the caller sees them.
type reviewStates struct {
	before, after, corrected *rules.State
	charge                   *picture.Charge
}

func (s *Session) review(ctx context.Context, key events.Key, version uint64) (Review, reviewStates, error) {
	var st reviewStates
	p, err := s.battle(ctx, key)
	if err != nil {
		return Review{}, st, err
	}
	tl, last, unlock, err := s.timeline(ctx, key)
	if err != nil {
		return Review{}, st, err
	}
	defer unlock()
	if version < 1 || version > last {
		return Review{}, st, notFound("the battle has events 1 to %d", last)
	}
	env, focus, err := tl.tl.Event(version)
	if err != nil {
		return Review{}, st, err
	}
	if !p.CanRead(env.Audience) {
		return Review{}, st, notFound("no event %d you may read", version)
	}
	// The command that recorded it: its events are contiguous.
	first, end := version, version
	for first > 1 {
		e, _, err := tl.tl.Event(first - 1)
		if err != nil || e.CommandID != env.CommandID {
			break
		}
		first--
	}
	for end < last {
		e, _, err := tl.tl.Event(end + 1)
		if err != nil || e.CommandID != env.CommandID {
			break
		}
		end++
	}
	viewOf := func(v uint64) (*rules.State, error) {
		raw, err := tl.tl.At(v)
		if err != nil {
			return nil, err
		}
		return s.l.opts.Service.View(ctx, key, raw, p)
	}
	if st.before, err = viewOf(first - 1); err != nil {
		return Review{}, st, err
	}
	if st.after, err = viewOf(end); err != nil {
		return Review{}, st, err
	}
	d := s.describer(ctx)
	d.Note(key, st.after.Measurement)
	d.NoteSides(key, SideNames(st.after.Sides))
	rv := Review{Key: key, Version: version, First: first, End: end, Last: last, Event: view(env, d),
		Command: []EventView{}, Dice: []EventView{}, Disputes: []DisputeView{}, Corrections: []EventView{}}
	var cmd []rules.Event
	for v := first; v <= end; v++ {
		e, ev, err := tl.tl.Event(v)
		if err != nil {
			return Review{}, st, err
		}
		cmd = append(cmd, ev)
		if !p.CanRead(e.Audience) {
			continue
		}
		ej := view(e, d)
		rv.Command = append(rv.Command, ej)
		if e.Type == rules.EvDiceRolled {
			rv.Dice = append(rv.Dice, ej)
		}
		if ch, ok := ev.(*rules.ChargeDeclared); ok && st.charge == nil {
			var pushes []*rules.ChargePushedBack
			for w := v + 1; w <= end; w++ {
				if _, x, err := tl.tl.Event(w); err == nil {
					if pb, ok := x.(*rules.ChargePushedBack); ok {
						pushes = append(pushes, pb)
					}
				}
			}
			st.charge = picture.ChargeOf(ch, st.before, pushes)
			st.charge.Version = v
		}
	}
	rv.Geometry = rules.ReviewOf(st.before, st.after, cmd, focus)
	rv.Rules = rv.Geometry.Rules
	if rv.Rules == nil {
		rv.Rules = []string{}
	}
	rv.Before = board(key, st.before, first-1, last)
	rv.After = board(key, st.after, end, last)
	// The disputes on the command's events, and the last ruling that
	// corrected one of them.
	envs := make([]events.Envelope, 0, last)
	for v := uint64(1); v <= last; v++ {
		e, _, err := tl.tl.Event(v)
		if err != nil {
			return Review{}, st, err
		}
		envs = append(envs, e)
	}
	all := disputes(p, envs, d)
	var correctedAt uint64
	for _, dv := range all.Disputes {
		if dv.EventVersion < first || dv.EventVersion > end {
			continue
		}
		rv.Disputes = append(rv.Disputes, dv)
		rv.Corrections = append(rv.Corrections, dv.Corrections...)
		for _, c := range dv.Corrections {
			correctedAt = max(correctedAt, c.Version)
		}
	}
	if correctedAt > 0 {
		if st.corrected, err = viewOf(correctedAt); err != nil {
			return Review{}, st, err
		}
		b := board(key, st.corrected, correctedAt, last)
		rv.Corrected, rv.CorrectedAt = &b, correctedAt
	}
	return rv, st, nil
}

// ReviewPicture draws the review of q.Version as SVG (package picture):
// the battle before and after the decision, as corrected when it was, the
// geometry that decided it, the rules and dice under it; titles in the
// caller's language. Source: the log.
func (s *Session) ReviewPicture(ctx context.Context, key events.Key, q ReviewQuery) ([]byte, error) {
	rv, st, err := s.review(ctx, key, q.Version)
	if err != nil {
		return nil, s.fail(err, noVars)
	}
	text := func(k string, words ...string) string {
		return strings.NewReplacer(words...).Replace(s.l.cat.Text(s.lang, k))
	}
	v := strconv.FormatUint(rv.Version, 10)
	r := picture.Review{Version: rv.Version, Before: st.before, After: st.after, Corrected: st.corrected, Geometry: rv.Geometry,
		Charge: st.charge, Scale: q.Scale, Lang: s.lang}
	r.Titles = [3]string{
		text("review.before", "{n}", strconv.FormatUint(rv.First-1, 10)),
		text("review.recorded", "{n}", strconv.FormatUint(rv.End, 10)),
		text("review.corrected", "{n}", strconv.FormatUint(rv.CorrectedAt, 10)),
	}
	r.Caption = append(r.Caption, fmt.Sprintf("%s %s: %s", text("review.event", "{n}", v), rv.Event.Type, rv.Event.Description))
	if len(rv.Rules) > 0 {
		r.Caption = append(r.Caption, text("review.rules", "{rules}", strings.Join(rv.Rules, ", ")))
	}
	for _, e := range rv.Dice {
		r.Caption = append(r.Caption, text("review.dice", "{n}", strconv.FormatUint(e.Version, 10))+": "+e.Description)
	}
	for _, dv := range rv.Disputes {
		line := text("review.dispute", "{n}", strconv.Itoa(dv.Dispute), "{who}", dv.RaisedBy, "{status}", dv.Status) + ": " + dv.Reason
		if dv.Ruling != "" {
			line += " — " + dv.Ruling
		}
		r.Caption = append(r.Caption, line)
	}
	for _, c := range rv.Corrections {
		r.Caption = append(r.Caption, fmt.Sprintf("v%d %s", c.Version, c.Description))
	}
	return picture.RenderReview(r), nil
}
