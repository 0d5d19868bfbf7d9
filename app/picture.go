package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/picture"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
)

// ErrNotCharge is what a picture's charge overlay answers for an event
// that is not a charge.declared.
var ErrNotCharge = errors.New("not " + rules.EvChargeDeclared)

// NotCharge is an event a charge's overlay was asked of that is not a
// charge: its version and type (errors.Is ErrNotCharge).
type NotCharge struct {
	Version uint64
	Type    string
}

func (e *NotCharge) Error() string {
	return fmt.Sprintf("event %d is %s: %v", e.Version, e.Type, ErrNotCharge)
}

// Is makes a NotCharge an ErrNotCharge.
func (e *NotCharge) Is(target error) bool { return target == ErrNotCharge }

// ChargeOverlay reads the charge.declared of version v of tl and the
// charge.pushed_back events its command caused, and returns the overlay
// the picture draws (the target's base from the state just before the
// charge, through view when not nil) and the version of the command's last
// event: where a picture of the charge stands. An event of another type:
// an error wrapping ErrNotCharge.
func ChargeOverlay(tl *projections.Timeline, v uint64, view func(*rules.State) (*rules.State, error)) (*picture.Charge, uint64, error) {
	env, ev, err := tl.Event(v)
	if err != nil {
		return nil, 0, err
	}
	ch, ok := ev.(*rules.ChargeDeclared)
	if !ok {
		return nil, 0, &NotCharge{Version: v, Type: env.Type}
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

// Picture draws the battle just after event q.Version (Latest: the last),
// folded from the log as Replay folds it and through the same view, by
// the one renderer of the battlefield (package picture). With q.Charge (a
// charge.declared the caller may read) the charge's overlay is drawn over
// it, and the version defaults to the last event of its command; without
// it, the overlay is drawn when the event at the version is a
// charge.declared the caller may read. Units that changed at that event
// are marked "moved". Source: the log.
func (s *Session) Picture(ctx context.Context, key events.Key, q PictureQuery) ([]byte, error) {
	b, err := s.picture(ctx, key, q)
	return b, s.fail(err, noVars)
}

func (s *Session) picture(ctx context.Context, key events.Key, q PictureQuery) ([]byte, error) {
	p, err := s.battle(ctx, key)
	if err != nil {
		return nil, err
	}
	tl, last, unlock, err := s.timeline(ctx, key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	viewOf := func(st *rules.State) (*rules.State, error) { return s.l.opts.Service.View(ctx, key, st, p) }
	readableAt := func(v uint64) bool {
		e, _, err := tl.tl.Event(v)
		return err == nil && p.CanRead(e.Audience)
	}
	var overlay *picture.Charge
	def := last
	if q.Charge != 0 {
		if q.Charge > last {
			return nil, notFound("the battle has events 1 to %d", last)
		}
		if !readableAt(q.Charge) {
			return nil, notFound("no event %d you may read", q.Charge)
		}
		overlay, def, err = ChargeOverlay(tl.tl, q.Charge, viewOf)
		var nc *NotCharge
		if errors.As(err, &nc) {
			return nil, invalid("charge=%d: event %d is %s: not %s", q.Charge, nc.Version, nc.Type, rules.EvChargeDeclared)
		}
		if err != nil {
			return nil, err
		}
	}
	v := q.Version
	if v == Latest {
		v = def
	}
	if v > last {
		return nil, notFound("the battle has events 1 to %d", last)
	}
	if overlay == nil && v > 0 && readableAt(v) {
		overlay, _, err = ChargeOverlay(tl.tl, v, viewOf)
		if errors.Is(err, ErrNotCharge) {
			overlay, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	st, err := tl.tl.At(v)
	if err == nil {
		st, err = viewOf(st)
	}
	if err != nil {
		return nil, err
	}
	itoa := func(n uint64) string { return strconv.FormatUint(n, 10) }
	opt := picture.Options{Data: map[string]string{"version": itoa(v), "last": itoa(last)}, Charge: overlay, Scale: q.Scale, NoLabels: q.NoLabels, Lang: s.lang}
	if v > 0 {
		prev, err := tl.tl.At(v - 1)
		if err == nil {
			prev, err = viewOf(prev)
		}
		if err != nil {
			return nil, err
		}
		opt.Moved = picture.Moved(prev, st)
	}
	// The title in the caller's language (picture.title, picture.charge).
	words := strings.NewReplacer("{turn}", strconv.Itoa(st.Turn), "{n}", itoa(v))
	text := "picture.title"
	if overlay != nil {
		words = strings.NewReplacer("{turn}", strconv.Itoa(st.Turn), "{n}", itoa(v), "{unit}", overlay.Unit, "{target}", overlay.Target, "{charge}", itoa(overlay.Version))
		text = "picture.charge"
		opt.Data["charge"] = itoa(overlay.Version)
	}
	opt.Title = words.Replace(s.l.cat.Text(s.lang, text))
	if st.Name != "" {
		opt.Title = st.Name + ": " + opt.Title
	}
	return picture.Render(st, opt), nil
}
