package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/docs"
	"github.com/clubledger/ledger/events"
)

// The handlers are thin: decode the request, call the caller's Session
// (package app, the one door), encode its answer. Who may do what is
// decided behind the door.

// maxBody bounds a command's JSON (an army's deployment is the largest).
const maxBody = 1 << 20

var errNoRoute = app.Errorf(app.KindNotFound, "not_found", "no such route")

// handleHealth answers that the process is alive (no token: for probes).
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// handleReady answers whether the server may take commands: the log
// answers, the stream guards itself, the projection keeps up (no token:
// for a load balancer's probe).
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if s.opts.Ready == nil {
		writeJSON(w, http.StatusOK, Readiness{Ready: true, Checks: map[string]string{}})
		return
	}
	rd := s.opts.Ready(r.Context())
	status := http.StatusOK
	if !rd.Ready {
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "2")
	}
	writeJSON(w, status, rd)
}

// handleMetrics serves the figures to the operator (a scraper sends the
// admin token).
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if s.caller(r).Operator == "" {
		err := error(app.Errorf(app.KindForbidden, "forbidden", "the metrics are the operator's: send the admin token"))
		if bearer(r) == "" {
			err = app.Errorf(app.KindUnauthenticated, "unauthorized", "")
		}
		s.writeError(w, r, err)
		return
	}
	if s.opts.Metrics == nil {
		s.writeError(w, r, errNoRoute)
		return
	}
	s.opts.Metrics.ServeHTTP(w, r)
}

func battleKey(r *http.Request) events.Key {
	return events.Key{Campaign: r.PathValue("campaign"), Battle: r.PathValue("battle")}
}

// answer writes v, or the error.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) handleCampaigns(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Campaigns(r.Context())
	s.answer(w, r, v, err)
}

func (s *Server) handleCampaign(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Campaign(r.Context(), r.PathValue("campaign"))
	s.answer(w, r, v, err)
}

func (s *Server) handleStandings(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Standings(r.Context(), r.PathValue("campaign"))
	s.answer(w, r, v, err)
}

func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).State(r.Context(), battleKey(r))
	s.answer(w, r, v, err)
}

func (s *Server) handleCampaignEvents(w http.ResponseWriter, r *http.Request) {
	s.events(w, r, events.Key{Campaign: r.PathValue("campaign")})
}

func (s *Server) handleBattleEvents(w http.ResponseWriter, r *http.Request) {
	s.events(w, r, battleKey(r))
}

func (s *Server) events(w http.ResponseWriter, r *http.Request, key events.Key) {
	after, err := uintParam(r, "after", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.session(r).Events(r.Context(), key, after)
	s.answer(w, r, v, err)
}

func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	v, err := uintParam(r, "version", app.Latest)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := s.session(r).Replay(r.Context(), battleKey(r), v)
	s.answer(w, r, b, err)
}

func (s *Server) handleOdds(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	oq := app.OddsQuery{General: q.Get("general"), Action: q.Get("action"), Formation: q.Get("formation"),
		Target: q.Get("target"), Special: q.Get("special"), Units: list(q["units"]), OnRoad: list(q["on_road"])}
	v, err := s.session(r).Odds(r.Context(), battleKey(r), oq)
	s.answer(w, r, v, err)
}

// list reads a repeated, comma-separated query parameter.
func list(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

func (s *Server) handleDice(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Dice(r.Context(), battleKey(r))
	s.answer(w, r, v, err)
}

func (s *Server) handleDisputes(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Disputes(r.Context(), battleKey(r))
	s.answer(w, r, v, err)
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Audit(r.Context(), battleKey(r), app.AuditOptions{Head: r.URL.Query().Get("head")})
	s.answer(w, r, v, err)
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	sum, err := s.session(r).Export(r.Context(), battleKey(r), app.ExportOptions{Umpire: r.URL.Query().Get("umpire") == "1"}, &buf)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/jsonl; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Ledger-Export-Events", strconv.Itoa(sum.Events))
	h.Set("Ledger-Export-Head", sum.Head)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) handleBattlefield(w http.ResponseWriter, r *http.Request) {
	v, err := uintParam(r, "version", app.Latest)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ch, err := uintParam(r, "charge", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if r.URL.Query().Has("charge") && ch == 0 {
		s.writeError(w, r, app.Errorf(app.KindNotFound, "not_found", "charge=0: events are numbered from 1"))
		return
	}
	scale, err := scaleParam(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var noLabels bool
	if nl := r.URL.Query().Get("no_labels"); nl != "" {
		if noLabels, err = strconv.ParseBool(nl); err != nil {
			s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "no_labels %q: want true or false", nl))
			return
		}
	}
	body, err := s.session(r).Picture(r.Context(), battleKey(r), app.PictureQuery{Version: v, Charge: ch, Scale: scale, NoLabels: noLabels})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	// The picture is the caller's own view: never shared by a cache. It is
	// never a document that runs anything.
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Status(r.Context())
	s.answer(w, r, v, err)
}

// handleRebuild rebuilds the projection: ?fresh=true discards an
// interrupted rebuild instead of resuming it, ?batch=N applies N events a
// transaction.
func (s *Server) handleRebuild(w http.ResponseWriter, r *http.Request) {
	var opt app.RebuildOptions
	if f := r.URL.Query().Get("fresh"); f != "" {
		var err error
		if opt.Fresh, err = strconv.ParseBool(f); err != nil {
			s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "%s %q: want true or false", "fresh", f))
			return
		}
	}
	if b := r.URL.Query().Get("batch"); b != "" {
		// Any whole number: the door says which it takes.
		n, err := strconv.ParseInt(b, 10, 32)
		if err != nil {
			s.writeError(w, r, app.Errorf(app.KindInvalid, "bad_request", "%s: want a whole number", "batch"))
			return
		}
		opt.Batch = int(n)
	}
	v, err := s.session(r).RebuildProjection(r.Context(), opt)
	s.answer(w, r, v, err)
}

func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).VerifyProjection(r.Context(), app.VerifyOptions{})
	s.answer(w, r, v, err)
}

// handleImport imports the export file in the body (the door reads and
// bounds it), each ?key=FINGERPRINT a trust anchor besides this ledger's
// own keys.
func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	v, err := s.session(r).Import(r.Context(), r.Body, app.ImportOptions{Trust: r.URL.Query()["key"]})
	s.answer(w, r, v, err)
}

// handleBackup streams the backup file; its summary follows in the
// Ledger-Backup trailer once the last byte is written (a client that does
// not get it knows the file is incomplete).
func (s *Server) handleBackup(w http.ResponseWriter, r *http.Request) {
	sess := s.session(r)
	if err := sess.MayBackup(r.Context()); err != nil {
		s.writeError(w, r, err) // not the operator, or no admin here
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("Trailer", "Ledger-Backup")
	w.WriteHeader(http.StatusOK)
	sum, err := sess.Backup(r.Context(), w)
	if err != nil {
		s.log.Error("http: backup failed midway", "err", err)
		return
	}
	b, _ := json.Marshal(sum)
	h.Set("Ledger-Backup", string(b))
}

// CommandRequest is the body of POST .../commands/{name}. The command id
// may come in the Idempotency-Key header instead of ID (not both,
// differently). Dice are physical dice thrown on the table, in the order
// the command uses them, entered by the caller; none means the ledger's
// digital dice. For enters the command for a person of the campaign (an
// umpire's or the operator's, at the table); Nonce is the device's fresh
// randomness for the digital dice; DryRun decides without appending.
type CommandRequest struct {
	ID      string          `json:"id,omitempty"`
	Dice    []int           `json:"dice,omitempty"`
	Command json.RawMessage `json:"command,omitempty"`
	For     string          `json:"for,omitempty"`
	Nonce   string          `json:"nonce,omitempty"`
	DryRun  bool            `json:"dry_run,omitempty"`
}

func (s *Server) handleCommand(w http.ResponseWriter, r *http.Request) {
	if !s.commands.enter() {
		s.writeError(w, r, errDraining)
		return
	}
	defer s.commands.leave()
	req, err := readCommand(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key := battleKey(r)
	res, err := s.session(r).Execute(r.Context(), app.Command{ID: req.ID, Campaign: key.Campaign, Battle: key.Battle,
		Name: r.PathValue("command"), Body: req.Command, Dice: req.Dice, For: req.For, Nonce: req.Nonce, DryRun: req.DryRun})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusCreated
	if res.Duplicate || res.DryRun {
		status = http.StatusOK
	}
	writeJSON(w, status, res)
}

var errDraining = &app.Error{Kind: app.KindDraining, Code: "draining", RetryAfter: 5}

// readCommand decodes a command's body strictly, bounded in size.
func readCommand(w http.ResponseWriter, r *http.Request) (CommandRequest, error) {
	var req CommandRequest
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, app.Errorf(app.KindInvalid, "bad_request", "the body is over %d bytes", maxBody)
		}
		return req, app.Errorf(app.KindInvalid, "bad_request", "the body could not be read in time")
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return req, app.Errorf(app.KindInvalid, "bad_request", `the body is {"id": ..., "dice": [...], "command": {...}}: %s`, app.JSONProblem(err))
		}
		if dec.More() {
			return req, app.Errorf(app.KindInvalid, "bad_request", "trailing data after the body")
		}
	}
	if h := r.Header.Get("Idempotency-Key"); h != "" {
		if req.ID != "" && req.ID != h {
			return req, app.Errorf(app.KindInvalid, "bad_request", "the Idempotency-Key header and the body's id differ")
		}
		req.ID = h
	}
	return req, nil
}

func uintParam(r *http.Request, name string, def uint64) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, app.Errorf(app.KindInvalid, "bad_request", "%s: want a whole number", name)
	}
	return n, nil
}

// handleOpenAPI answers the API's OpenAPI 3.1 description (no token).
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(docs.OpenAPI)
}
