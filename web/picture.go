package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/picture"
)

// ErrNotCharge is ChargeOverlay's answer for a version whose event is not a
// charge.declared.
var ErrNotCharge = errors.New("not " + rules.EvChargeDeclared)

// ChargeOverlay reads the charge.declared of version v of tl and the
// charge.pushed_back events its command caused, and returns the overlay
// web/svg draws (the target's base from the state just before the charge)
// and the version of the command's last event: where a picture of the
// charge stands. An event of another type: an error wrapping ErrNotCharge.
// `ledger picture --charge` and GET .../battlefield.svg both use it.
func ChargeOverlay(tl *projections.Timeline, v uint64) (*picture.Charge, uint64, error) {
	return chargeOverlay(tl, v, nil)
}

// chargeOverlay is ChargeOverlay; view, when not nil, is applied to the
// state before the charge (the target's base is read from what the caller
// may see).
func chargeOverlay(tl *projections.Timeline, v uint64, view func(*rules.State) (*rules.State, error)) (*picture.Charge, uint64, error) {
	env, ev, err := tl.Event(v)
	if err != nil {
		return nil, 0, err
	}
	ch, ok := ev.(*rules.ChargeDeclared)
	if !ok {
		return nil, 0, fmt.Errorf("event %d is %s: %w", v, env.Type, ErrNotCharge)
	}
	before, err := tl.At(v - 1)
	if err != nil {
		return nil, 0, err
	}
	if view != nil {
		if before, err = view(before); err != nil {
			return nil, 0, err
		}
	}
	last := v
	var pushes []*rules.ChargePushedBack
	for n := v + 1; n <= tl.Len(); n++ {
		e2, ev2, err := tl.Event(n)
		if err != nil {
			return nil, 0, err
		}
		if e2.CommandID != env.CommandID {
			break
		}
		last = n
		if p, ok := ev2.(*rules.ChargePushedBack); ok {
			pushes = append(pushes, p)
		}
	}
	c := picture.ChargeOf(ch, before, pushes)
	c.Version = v
	return c, last, nil
}

// handleBattlefield answers GET .../battlefield.svg?version=N[&charge=V]:
// the battle just after event N, folded from the log as replay folds it
// and through the same view (view: a player never sees what the rules have
// not revealed), drawn by web/svg, the one renderer of the battlefield the
// page and `ledger picture` use. With charge=V (a charge.declared the caller
// may read) the charge's overlay is drawn over it, and N defaults to the
// last event of V's command; without it, N defaults to the battle's last
// event, and the overlay is drawn when the event at N is a charge.declared
// the caller may read. Units that changed at event N are marked "moved".
func (s *Server) handleBattlefield(w http.ResponseWriter, r *http.Request) {
	wh, key, tl, last, ok := s.battleTimeline(w, r)
	if !ok {
		return
	}
	defer tl.mu.RUnlock()
	view := func(st *rules.State) (*rules.State, error) { return s.view(r.Context(), key, st, wh.Principal) }
	readable := func(v uint64) (events.Envelope, bool) {
		e, _, err := tl.tl.Event(v)
		return e, err == nil && wh.CanRead(e.Audience)
	}

	cv, err := uintParam(r, "charge", 0)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	var overlay *picture.Charge
	def := last
	if r.URL.Query().Has("charge") {
		if cv == 0 || cv > last {
			s.writeError(w, r, notFound("the battle has events 1 to "+itoa(last)), noVars)
			return
		}
		if _, ok := readable(cv); !ok {
			s.writeError(w, r, notFound("no event "+itoa(cv)+" you may read"), noVars)
			return
		}
		overlay, def, err = chargeOverlay(tl.tl, cv, view)
		if errors.Is(err, ErrNotCharge) {
			s.writeError(w, r, badRequest("charge="+itoa(cv)+": "+err.Error()), noVars)
			return
		}
		if err != nil {
			s.writeError(w, r, err, noVars)
			return
		}
	}
	v, err := uintParam(r, "version", def)
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	if v > last {
		s.writeError(w, r, notFound("the battle has events 1 to "+itoa(last)), noVars)
		return
	}
	if overlay == nil && v > 0 {
		if _, ok := readable(v); ok {
			overlay, _, err = chargeOverlay(tl.tl, v, view)
			if errors.Is(err, ErrNotCharge) {
				overlay, err = nil, nil
			}
			if err != nil {
				s.writeError(w, r, err, noVars)
				return
			}
		}
	}

	st, err := tl.tl.At(v)
	if err == nil {
		st, err = view(st)
	}
	if err != nil {
		s.writeError(w, r, err, noVars)
		return
	}
	opt := picture.Options{Data: map[string]string{"version": itoa(v), "last": itoa(last)}, Charge: overlay}
	if v > 0 {
		prev, err := tl.tl.At(v - 1)
		if err == nil {
			prev, err = view(prev)
		}
		if err != nil {
			s.writeError(w, r, err, noVars)
			return
		}
		opt.Moved = picture.Moved(prev, st)
	}
	// The title in the request's language (picture.title, picture.charge).
	lang := s.lang(r)
	words := strings.NewReplacer("{turn}", strconv.Itoa(st.Turn), "{n}", itoa(v))
	text := "picture.title"
	if overlay != nil {
		words = strings.NewReplacer("{turn}", strconv.Itoa(st.Turn), "{n}", itoa(v), "{unit}", overlay.Unit, "{target}", overlay.Target, "{charge}", itoa(overlay.Version))
		text = "picture.charge"
		opt.Data["charge"] = itoa(overlay.Version)
	}
	opt.Title = words.Replace(s.cat.Text(lang, text))
	if st.Name != "" {
		opt.Title = st.Name + ": " + opt.Title
	}
	body := picture.Render(st, opt)
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	// The picture is the caller's own view: never shared by a cache. It is
	// never a document that runs anything.
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
