package app_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/i18n"
	"github.com/clubledger/ledger/rules"
)

// TestRefusalOverTheWire: a refusal classified in Russian, sent as JSON and
// read back by a client (Wire), has no format to be said from again: it is
// said as the server said it in Russian, and in English by its English.
func TestRefusalOverTheWire(t *testing.T) {
	cat := i18n.MustLoad()
	ref := rules.Refuse("C.3", "no_order", "unit %s has no order this turn, so no actions", "33-ligne")
	sent := app.Classify(ref, cat, "ru", i18n.Vars{})
	if sent.Kind != app.KindRefused || sent.MessageEn != ref.Message || sent.Message == ref.Message {
		t.Fatalf("classified: %+v", sent)
	}
	b, err := json.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	var got app.Error
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var r *rules.Refusal
	if !errors.As(got.Wire(), &r) || r.Format != "" {
		t.Fatalf("read back: %+v", r)
	}
	if s := cat.Refusal("ru", r, i18n.Vars{}); s != sent.Message {
		t.Errorf("ru: %q, want the server's %q", s, sent.Message)
	}
	if s := cat.Refusal("en", r, i18n.Vars{}); s != ref.Message {
		t.Errorf("en: %q", s)
	}
}
