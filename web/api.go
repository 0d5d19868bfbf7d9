package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/i18n"
)

var noVars = i18n.Vars{}

// maxBody bounds a command's JSON (an army's deployment is the largest).
const maxBody = 1 << 20

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// battleKey authenticates the request on its campaign and returns the
// battle it addresses.
func (s *Server) battleKey(r *http.Request) (who, events.Key, error) {
	key := events.Key{Campaign: r.PathValue("campaign"), Battle: r.PathValue("battle")}
	wh, err := s.authenticate(r, key.Campaign)
	if err != nil {
		return wh, key, err
	}
	if err := key.Validate(); err != nil {
		return wh, key, notFound("")
	}
	return wh, key, nil
}

// Person is a person of a campaign as the API shows them: no token hash.
type Person struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Role   string `json:"role"`
	Side   string `json:"side,omitempty"`
}

// CampaignJSON is GET /api/campaigns/{c}: the projected campaign, its
// people and who is asking.
type CampaignJSON struct {
	projections.CampaignView
	People []Person `json:"people"`
	You    Person   `json:"you"`
}

func (s *Server) handleCampaign(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("campaign")
	wh, err := s.authenticate(r, id)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	v, err := s.opts.Read.Campaign(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	c, err := s.opts.Service.Campaign(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	out := CampaignJSON{CampaignView: v, People: []Person{},
		You: Person{Player: wh.Player, Role: wh.Role, Side: wh.Side}}
	for _, p := range c.Players {
		out.People = append(out.People, Person{Player: p.ID, Name: p.Name, Role: p.Role, Side: p.Side})
	}
	if v.Sides == nil {
		out.Sides = []projections.SideView{}
	}
	if v.Battles == nil {
		out.Battles = []projections.CampaignBattle{}
	}
	writeJSON(w, http.StatusOK, out)
}

// handleState answers with the battle now, folded from the log by the
// service (the same fold the projection stores), as the caller may see it
// (view): the umpire sees every flank march's sealed orders, a player their
// own side's, a reader none before the rules reveal them.
func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	wh, key, err := s.battleKey(r)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	st, v, err := s.opts.Service.State(r.Context(), key)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	if v == 0 || st.Status == rules.StatusNew {
		s.writeError(w, r, notFound("no battle "+key.String()), noVars)
		return
	}
	if st, err = s.view(r.Context(), key, st, wh.Principal); err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	writeJSON(w, http.StatusOK, board(key, st, v, v))
}

// EventJSON is one event as the API shows it: the envelope, its hash, and
// what it records in words.
type EventJSON struct {
	Seq         uint64          `json:"seq"`
	Version     uint64          `json:"version"`
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Schema      int             `json:"schema"`
	Time        time.Time       `json:"time"`
	Actor       string          `json:"actor"`
	CommandID   string          `json:"command_id"`
	Audience    string          `json:"audience"`
	PrevHash    string          `json:"prev_hash"`
	Hash        string          `json:"hash,omitempty"` // of the stored message; absent where it is not at hand (replay)
	Payload     json.RawMessage `json:"payload"`
	Description string          `json:"description"`
	// Refers are the versions of the events this one points at: the
	// disputed event of a dispute, its ruling and its corrections; the
	// events of a retracted command (docs/disputes.md).
	Refers []uint64 `json:"refers,omitempty"`
}

func eventJSON(e events.Envelope, d describer) EventJSON {
	j := EventJSON{Seq: e.Sequence, Version: e.Version, ID: e.ID, Type: e.Type, Schema: e.Schema, Time: e.Time,
		Actor: e.Actor, CommandID: e.CommandID, Audience: e.Audience, PrevHash: e.PrevHash,
		Payload: e.Payload, Description: d.describe(e), Refers: refers(e)}
	if len(e.Raw) > 0 {
		j.Hash = events.Hash(e.Raw)
	}
	return j
}

// describer says events in words in one language: in English the rules'
// own (rules.Describe for a battle's events, campaign.Describe for a
// campaign's), in another the catalogue's template for the event type
// filled from the payload, with lengths in the battle's measurement.
type describer struct {
	cat         *i18n.Catalogue
	lang        string
	measurement string
}

// describer returns the request's language's describer for key's events;
// evs, when they hold the battle's battle.created, give the measurement,
// else the battle's state does.
func (s *Server) describer(r *http.Request, key events.Key, evs []events.Envelope) describer {
	d := describer{cat: s.cat, lang: s.lang(r)}
	if d.lang == "en" || key.Battle == "" {
		return d
	}
	for _, e := range evs {
		if e.Type == rules.EvBattleCreated {
			var bc struct {
				Measurement string `json:"measurement"`
			}
			if json.Unmarshal(e.Payload, &bc) == nil && bc.Measurement != "" {
				d.measurement = bc.Measurement
				return d
			}
		}
	}
	if st, _, err := s.opts.Service.State(r.Context(), key); err == nil && st != nil {
		d.measurement = st.Measurement
	}
	return d
}

// describe says in words what an event records.
func (d describer) describe(e events.Envelope) string {
	payload, err := campaign.Registry().Upcast(&e)
	if err != nil {
		return e.Type
	}
	var en string
	if e.Battle == "" {
		en = campaign.Describe(e, payload)
	} else {
		ev, err := rules.DecodeEvent(e.Type, payload)
		if err != nil {
			return e.Type
		}
		en = rules.Describe(ev)
	}
	if d.cat == nil {
		return en
	}
	return d.cat.Event(d.lang, e.Type, payload, d.measurement, en)
}

// readable returns the events p may read, after version after, as JSON.
func readable(p campaign.Principal, evs []events.Envelope, after uint64, d describer) []EventJSON {
	out := []EventJSON{}
	for _, e := range evs {
		if e.Version > after && p.CanRead(e.Audience) {
			out = append(out, eventJSON(e, d))
		}
	}
	return out
}

// EventsJSON is a stream's events as one caller may read them.
type EventsJSON struct {
	Key events.Key `json:"key"`
	// Last is the stream's last version, whether or not the caller may read it.
	Last   uint64      `json:"last"`
	Events []EventJSON `json:"events"`
}

func (s *Server) handleBattleEvents(w http.ResponseWriter, r *http.Request) {
	wh, key, err := s.battleKey(r)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	s.writeEvents(w, r, wh, key)
}

func (s *Server) handleCampaignEvents(w http.ResponseWriter, r *http.Request) {
	key := events.Key{Campaign: r.PathValue("campaign")}
	wh, err := s.authenticate(r, key.Campaign)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	s.writeEvents(w, r, wh, key)
}

// battleEvents resolves the request's battle and who asks, and reads the
// battle's events from the log; it answers the error itself (and ok is
// false) when the battle is unknown or has no events.
func (s *Server) battleEvents(w http.ResponseWriter, r *http.Request) (who, events.Key, []events.Envelope, bool) {
	wh, key, err := s.battleKey(r)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return wh, key, nil, false
	}
	evs, err := s.opts.Log.Read(r.Context(), key, 0)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return wh, key, nil, false
	}
	if len(evs) == 0 {
		s.writeError(w, r, notFound("no battle "+key.String()), noVars)
		return wh, key, nil, false
	}
	return wh, key, evs, true
}

// writeEvents answers with a stream's events read from the log itself (the
// truth, hash chain included), filtered by audience, after ?after=VERSION.
func (s *Server) writeEvents(w http.ResponseWriter, r *http.Request, wh who, key events.Key) {
	after, err := uintParam(r, "after", 0)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	evs, err := s.opts.Log.Read(r.Context(), key, 0)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	if len(evs) == 0 {
		s.writeError(w, r, notFound("no events on "+key.String()), noVars)
		return
	}
	writeJSON(w, http.StatusOK, EventsJSON{Key: key, Last: evs[len(evs)-1].Version, Events: readable(wh.Principal, evs, after, s.describer(r, key, evs))})
}

func uintParam(r *http.Request, name string, def uint64) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, badRequest(fmt.Sprintf("%s=%q: want a whole number", name, v))
	}
	return n, nil
}

// CommandRequest is the body of POST .../commands/{name}. The command id
// may come in the Idempotency-Key header instead of ID (not both,
// differently). Dice are physical dice thrown on the table, in the order
// the command uses them, entered by the caller; none means the ledger's
// digital dice.
type CommandRequest struct {
	ID      string          `json:"id,omitempty"`
	Dice    []int           `json:"dice,omitempty"`
	Command json.RawMessage `json:"command,omitempty"`
}

// CommandResponse is an accepted command: what it appended (or, for a
// repeated id, what it appended the first time), as the caller may read it.
type CommandResponse struct {
	CommandID string      `json:"command_id"`
	Command   string      `json:"command"`
	Key       events.Key  `json:"key"`
	Duplicate bool        `json:"duplicate"`
	Events    []EventJSON `json:"events"`
	// Token is the secret a player.add or player.reissue_token issued:
	// shown this once.
	Token string `json:"token,omitempty"`
}

// commandNames are the commands the API takes: the rules' battle commands
// and the campaign's own.
func knownCommand(name string, battle bool) bool {
	if battle {
		return slices.Contains(rules.CommandNames(), name)
	}
	return name == campaign.CmdCreate || name == campaign.CmdPlayerAdd || name == campaign.CmdTokenReissue
}

func (s *Server) handleCommand(w http.ResponseWriter, r *http.Request) {
	key := events.Key{Campaign: r.PathValue("campaign"), Battle: r.PathValue("battle")}
	name := r.PathValue("command")
	vars := noVars
	err := s.command(w, r, key, name, &vars)
	if err != nil {
		s.writeError(w, r, err, vars)
	}
}

func (s *Server) command(w http.ResponseWriter, r *http.Request, key events.Key, name string, vars *i18n.Vars) error {
	if !s.commands.enter() {
		w.Header().Set("Retry-After", "5")
		return errDraining
	}
	defer s.commands.leave()
	wh, err := s.authenticate(r, key.Campaign)
	if err != nil {
		return err
	}
	if key.Battle != "" && !events.ValidID(key.Battle) {
		return notFound("")
	}
	if !knownCommand(name, key.Battle != "") {
		return &apiError{status: http.StatusNotFound, code: "unknown_command", detail: name}
	}
	var req CommandRequest
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return badRequest("reading the body: " + err.Error())
	}
	if len(strings.TrimSpace(string(raw))) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return badRequest(`the body is {"id": ..., "dice": [...], "command": {...}}: ` + err.Error())
		}
		if dec.More() {
			return badRequest("trailing data after the body")
		}
	}
	if h := r.Header.Get("Idempotency-Key"); h != "" {
		if req.ID != "" && req.ID != h {
			return badRequest("the Idempotency-Key header and the body's id differ")
		}
		req.ID = h
	}
	if req.ID == "" {
		req.ID = newID()
	}
	ref, err := parseRefs(req.Command)
	if err != nil {
		return err
	}
	vars.Words = ref.words()
	var st *rules.State
	if key.Battle != "" {
		if st, err = s.battleState(r.Context(), key); err != nil {
			return err
		}
		vars.Measurement = st.Measurement
	}
	if err := authorize(wh, name, ref, st); err != nil {
		return err
	}
	if err := s.authorizeRetraction(r.Context(), wh, key, name, ref); err != nil {
		return err
	}
	body := req.Command
	if len(body) == 0 {
		body = json.RawMessage("{}")
	}
	creq := campaign.Request{ID: req.ID, Actor: wh.Player, Campaign: key.Campaign, Battle: key.Battle, Name: name, Body: body}
	if len(req.Dice) > 0 {
		creq.Dice = campaign.DiceInput{Values: req.Dice, EnteredBy: wh.Player}
	}
	out, err := s.opts.Service.Execute(r.Context(), creq)
	if err != nil {
		return err
	}
	if n := len(out.Events); n > 0 {
		// Answer once the projection holds the events, so that the
		// caller's next query sees them.
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.ProjectionWait)
		werr := s.tracker.wait(ctx, out.Events[n-1].Sequence)
		cancel()
		if werr != nil && !errors.Is(werr, context.Canceled) {
			s.log.Warn("http: the projection has not caught up with an accepted command", "command", req.ID, "err", werr)
		}
	}
	resp := CommandResponse{CommandID: req.ID, Command: name, Key: out.Key, Duplicate: out.Duplicate,
		Events: readable(wh.Principal, out.Events, 0, s.describer(r, out.Key, out.Events)), Token: out.Token}
	status := http.StatusCreated
	if out.Duplicate {
		status = http.StatusOK
	}
	writeJSON(w, status, resp)
	return nil
}

// newID returns a random command id, for commands sent without one (such a
// command cannot be safely repeated: send an id to retry).
func newID() string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "http-" + hex.EncodeToString(b[:])
}

func (s *Server) handleOdds(w http.ResponseWriter, r *http.Request) {
	_, key, err := s.battleKey(r)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	q := r.URL.Query()
	cmd := &rules.GiveOrder{
		General: q.Get("general"),
		Content: rules.OrderContent{Action: q.Get("action"), Formation: q.Get("formation"), Target: q.Get("target")},
		Special: q.Get("special"),
	}
	for _, list := range []struct {
		param string
		into  *[]string
	}{{"units", &cmd.Units}, {"on_road", &cmd.OnRoad}} {
		for _, v := range q[list.param] {
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u != "" {
					*list.into = append(*list.into, u)
				}
			}
		}
	}
	if cmd.Content.Action == "" && cmd.Special == "" {
		cmd.Content.Action = rules.ActionMove
	}
	st, err := s.battleState(r.Context(), key)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	if st.Status == rules.StatusNew {
		s.writeError(w, r, notFound("no battle "+key.String()), noVars)
		return
	}
	vars := i18n.Vars{Measurement: st.Measurement, Words: map[string]string{"general": cmd.General, "target": cmd.Content.Target}}
	if len(cmd.Units) == 1 {
		vars.Words["unit"] = cmd.Units[0]
	}
	res, err := rules.Odds(st, cmd)
	if err != nil {
		s.writeError(w, r, err, vars)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
