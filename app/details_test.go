package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/i18n"
)

// latinWord is a word of Latin letters with no dot, digit, dash or
// underscore: ids and rule names (33-ligne, unit.move, to.x, C.17) are not;
// "id" is what Russian screens call an id too.
var latinWord = regexp.MustCompile(`[A-Za-z0-9_.\-]*[A-Za-z][A-Za-z0-9_.\-]*`)

// englishIn returns the English words left in a Russian message, but the
// ids it names.
func englishIn(msg string, ids ...string) []string {
	for _, id := range ids {
		msg = strings.ReplaceAll(msg, id, " ")
	}
	var out []string
	for _, w := range latinWord.FindAllString(msg, -1) {
		if t := strings.Trim(w, ".-"); strings.ContainsAny(t, "._-0123456789") || t == "id" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// TestDetailsSaidInRussian: the detail of an error that is not a refusal
// (a Forbidden's reason, an InvalidInput's field and reason, the door's
// not found and forbidden, a command body that cannot be read) is said in
// the caller's language from its format and values, with no English left
// but ids; in English the words are as before.
func TestDetailsSaidInRussian(t *testing.T) {
	ctx := context.Background()
	cat := i18n.MustLoad()
	p := playBattle(t, memlog.New(), 20)
	var other string
	for _, s := range loadgen.Sides {
		if s.ID != p.side {
			other = s.ID
		}
	}
	as := func(side, lang string) *app.Session {
		if side == "operator" {
			return p.l.As(app.Caller{Operator: "operator", Lang: lang})
		}
		return p.l.As(app.Caller{Token: p.tokens[side], Lang: lang})
	}
	last := asCommand(p.last)
	move := func(id, body string) app.Command {
		c := last
		c.ID, c.Name, c.Body = id, "unit.move", json.RawMessage(body)
		return c
	}
	cases := []struct {
		name string
		side string
		do   func(s *app.Session) error
		kind app.Kind
		en   string // a part of the English detail
		ids  []string
	}{
		{"forbidden: another side's command", other, func(s *app.Session) error {
			c := last
			c.ID = "other-side-" + s.Lang()
			_, err := s.Execute(ctx, c)
			return err
		}, app.KindForbidden, "commands side " + other + " only", []string{"player-" + p.side, "player-" + other, other, p.side, p.last.Name}},
		{"forbidden: the operator's", loadgen.Sides[0].ID, func(s *app.Session) error {
			_, err := s.Status(ctx)
			return err
		}, app.KindForbidden, "the ledger's status is the operator's", nil},
		{"invalid input: a number too large", p.side, func(s *app.Session) error {
			_, err := s.Execute(ctx, move("big-"+s.Lang(), `{"unit": "x", "to": {"x": 1e9, "y": 0}}`))
			return err
		}, app.KindInvalid, "a number between -100000 and 100000", []string{"to.x"}},
		{"invalid input: a bad campaign id", p.side, func(s *app.Session) error {
			c := move("badid-"+s.Lang(), `{}`)
			c.Campaign = "No Such"
			_, err := s.Execute(ctx, c)
			return err
		}, app.KindInvalid, `campaign id "No Such": want lower-case letters`, []string{"No Such", "campaign/battle"}},
		{"not found: no such event", "operator", func(s *app.Session) error {
			_, err := s.Review(ctx, p.key, 100000)
			return err
		}, app.KindNotFound, "the battle has events 1 to", nil},
		{"invalid: a charge's picture of an event that is no charge", "operator", func(s *app.Session) error {
			_, err := s.Picture(ctx, p.key, app.PictureQuery{Charge: 1})
			return err
		}, app.KindInvalid, "(charge=1: event 1 is ", []string{"charge=1", "battle.created", "charge.declared"}},
		{"not found: no such campaign", "operator", func(s *app.Session) error {
			// As the service answers an operator's command for it.
			return app.Classify(&campaign.UnknownCampaign{Campaign: "nosuch"}, cat, s.Lang(), i18n.Vars{})
		}, app.KindNotFound, `(no campaign "nosuch")`, []string{"nosuch"}},
		{"unknown command", p.side, func(s *app.Session) error {
			c := last
			c.ID, c.Name = "nosuch-"+s.Lang(), "no.such"
			_, err := s.Execute(ctx, c)
			return err
		}, app.KindInvalid, `"no.such" is not a command a battle takes`, nil},
		{"a body that cannot be read", p.side, func(s *app.Session) error {
			_, err := s.Execute(ctx, move("text-"+s.Lang(), `{"unit": "x", "to": {"x": "far", "y": 0}}`))
			return err
		}, app.KindInvalid, "to.x: a number, not text", []string{"to.x"}},
	}
	for _, c := range cases {
		var en, ru *app.Error
		if err := c.do(as(c.side, "en")); !errors.As(err, &en) || en.Kind != c.kind {
			t.Errorf("%s: %v in English, want %s", c.name, err, c.kind)
			continue
		}
		if !strings.Contains(en.Message, c.en) {
			t.Errorf("%s: the English %q, want %q in it", c.name, en.Message, c.en)
		}
		if err := c.do(as(c.side, "ru")); !errors.As(err, &ru) || ru.Kind != c.kind {
			t.Errorf("%s: %v in Russian, want %s", c.name, err, c.kind)
			continue
		}
		if w := englishIn(ru.Message, c.ids...); len(w) > 0 {
			t.Errorf("%s: English left in %q: %v", c.name, ru.Message, w)
		}
		t.Logf("%s:\n  en %s\n  ru %s", c.name, en.Message, ru.Message)
	}
}
