package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
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

// TestIdempotencyConflictSaidInRussian: a command id already used by
// another command is said, headline and detail, in the caller's language
// (the detail was English inside the Russian before); in English as before.
func TestIdempotencyConflictSaidInRussian(t *testing.T) {
	cat := i18n.MustLoad()
	ic := &campaign.IdempotencyConflict{ID: "turn3-move", EarlierType: "unit.moved", EarlierVersion: 41, EarlierActor: "marie"}
	en := app.Classify(ic, cat, "en", i18n.Vars{})
	if want := `This command id was already used by another command; send this one with a new id. (command id "turn3-move": unit.moved, event 41, entered by marie)`; en.Message != want {
		t.Errorf("English: %q, want %q", en.Message, want)
	}
	ru := app.Classify(ic, cat, "ru", i18n.Vars{})
	if ru.Kind != app.KindIdempotencyConflict || ru.Code != "idempotency_conflict" {
		t.Fatalf("Russian: kind %s code %s", ru.Kind, ru.Code)
	}
	if want := "(id команды «turn3-move»: unit.moved, событие 41, внёс marie)"; !strings.HasSuffix(ru.Message, want) {
		t.Errorf("Russian: %q, want it to end %q", ru.Message, want)
	}
	if left := englishIn(ru.Message, "turn3-move", "unit.moved", "marie"); len(left) > 0 {
		t.Errorf("Russian %q has English words %q", ru.Message, left)
	}
	if !errors.As(error(ru), new(*campaign.IdempotencyConflict)) {
		t.Errorf("the classified error lost its cause")
	}
	// The operator (the CLI on the data folder) is said as the catalogue's
	// term; a player's id stays as it is (above).
	op := &campaign.IdempotencyConflict{ID: "turn3-move", EarlierType: "unit.moved", EarlierVersion: 41, EarlierActor: "operator"}
	if want := `(command id "turn3-move": unit.moved, event 41, entered by operator)`; !strings.HasSuffix(app.Classify(op, cat, "en", i18n.Vars{}).Message, want) {
		t.Errorf("English operator: %q, want it to end %q", app.Classify(op, cat, "en", i18n.Vars{}).Message, want)
	}
	if want := "(id команды «turn3-move»: unit.moved, событие 41, внёс оператор)"; !strings.HasSuffix(app.Classify(op, cat, "ru", i18n.Vars{}).Message, want) {
		t.Errorf("Russian operator: %q, want it to end %q", app.Classify(op, cat, "ru", i18n.Vars{}).Message, want)
	}
}

// TestDiskFaultSaidInRussian: a full or failing disk is said, headline and
// detail, in the caller's language; only the system's own cause stays as
// the system said it. A command the gate refused before the store says
// that nothing was appended.
func TestDiskFaultSaidInRussian(t *testing.T) {
	cat := i18n.MustLoad()
	full := &events.StoreFault{Full: true, Free: 0, Size: 64 << 20, Cause: "write /data/x: no space left on device"}
	failed := &events.StoreFault{Free: 3 << 30, Cause: "fsync /data/x: input/output error"}
	gate := func(f error) error { return fmt.Errorf("%w: %w", events.ErrGateRefused, f) }
	for _, c := range []struct {
		err        error
		code       string
		en, ru     string
		systemSaid string
	}{
		{full, "disk_full", "(0 B free of 64.0 MiB; write /data/x: no space left on device)", "(свободно 0 B из 64.0 MiB; write /data/x: no space left on device)", "write /data/x: no space left on device"},
		{gate(full), "disk_full", "(refused, nothing appended: 0 B free of 64.0 MiB; write /data/x: no space left on device)", "(отклонено, ничего не записано: свободно 0 B из 64.0 MiB; write /data/x: no space left on device)", "write /data/x: no space left on device"},
		{failed, "disk_failed", "(fsync /data/x: input/output error; 3.0 GiB free)", "(fsync /data/x: input/output error; свободно 3.0 GiB)", "fsync /data/x: input/output error"},
		{gate(failed), "disk_failed", "(refused, nothing appended: fsync /data/x: input/output error; 3.0 GiB free)", "(отклонено, ничего не записано: fsync /data/x: input/output error; свободно 3.0 GiB)", "fsync /data/x: input/output error"},
	} {
		en := app.Classify(c.err, cat, "en", i18n.Vars{})
		if en.Kind != app.KindUnavailable || en.Code != c.code || en.RetryAfter == 0 || !strings.HasSuffix(en.Message, c.en) {
			t.Errorf("English: %s %s retry %d %q, want %s ending %q", en.Kind, en.Code, en.RetryAfter, en.Message, c.code, c.en)
		}
		ru := app.Classify(c.err, cat, "ru", i18n.Vars{})
		if ru.Code != c.code || !strings.HasSuffix(ru.Message, c.ru) {
			t.Errorf("Russian: %s %q, want it to end %q", ru.Code, ru.Message, c.ru)
		}
		if left := englishIn(strings.Replace(ru.Message, c.systemSaid, " ", 1), "0 B", "MiB", "GiB", "dmesg"); len(left) > 0 {
			t.Errorf("Russian %q has English words %q", ru.Message, left)
		}
		if !errors.Is(ru, events.ErrUnavailable) {
			t.Errorf("%s: the classified fault is not ErrUnavailable", c.code)
		}
	}
}

// TestCancelledIsNotInternal: a command or query its caller stopped (Ctrl-C,
// a client gone: its context cancelled) is not a fault of the server: it is
// said as stopped, in the caller's language, what was recorded staying
// recorded; never "Something went wrong on the server".
func TestCancelledIsNotInternal(t *testing.T) {
	cat := i18n.MustLoad()
	err := fmt.Errorf("append: %w", context.Canceled)
	for lang, want := range map[string]string{
		"en": "What was recorded stays recorded",
		"ru": "Записанное остаётся записанным",
	} {
		e := app.Classify(err, cat, lang, i18n.Vars{})
		if e.Kind != app.KindInterrupted || e.Code != "interrupted" {
			t.Errorf("%s: kind %s code %s, want %s interrupted", lang, e.Kind, e.Code, app.KindInterrupted)
		}
		if !strings.Contains(e.Message, want) || strings.Contains(e.Message, "context canceled") {
			t.Errorf("%s: %q, want it to hold %q", lang, e.Message, want)
		}
		if !errors.Is(e, context.Canceled) {
			t.Errorf("%s: the classified error lost its cause", lang)
		}
	}
	if left := englishIn(app.Classify(err, cat, "ru", i18n.Vars{}).Message, "Ctrl-C", "id"); len(left) > 0 {
		t.Errorf("Russian has English words %q", left)
	}
}
