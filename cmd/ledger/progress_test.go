package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/projections"
)

// TestProgressLineInBothLanguages: the rebuild's progress line says its
// rate with the noun that agrees with it (Russian: 1 событие/с, 2 события/с,
// 5 событий/с, 21 событие/с, 132 события/с) and its time left in the
// reader's language (2 мин 34 с; English as Go says it, 2m34s).
func TestProgressLineInBothLanguages(t *testing.T) {
	for _, tc := range []struct {
		rate   uint64
		en, ru string
	}{
		{1, "1 event/s", "1 событие/с"},
		{2, "2 events/s", "2 события/с"},
		{5, "5 events/s", "5 событий/с"},
		{11, "11 events/s", "11 событий/с"},
		{21, "21 events/s", "21 событие/с"},
		{132, "132 events/s", "132 события/с"},
	} {
		for lang, want := range map[string]string{"en": tc.en, "ru": tc.ru} {
			// A run of 100 s at tc.rate events a second, a tenth done:
			// 900 s left at that rate (15 minutes).
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := start.Add(100 * time.Second)
			applied := 100 * tc.rate
			var out bytes.Buffer
			r := newProgressReporter(&out, "rebuild", words{cat: messages(), lang: lang})
			r.now = func() time.Time { return now }
			r.update(projections.Progress{Applied: applied, Sequence: applied, Target: 10 * applied, Start: start})
			line := out.String()
			left := map[string]string{"en": ", 15m0s left", "ru": ", осталось 15 мин"}[lang]
			if !strings.Contains(line, ", "+want) || !strings.HasSuffix(line, want+left+"\n") {
				t.Errorf("%s, %d events/s: %q, want %q then %q", lang, tc.rate, line, want, left)
			}
		}
	}
	ru := words{cat: messages(), lang: "ru"}
	en := words{cat: messages(), lang: "en"}
	for _, tc := range []struct {
		d      time.Duration
		en, ru string
	}{
		{0, "0s", "0 с"},
		{time.Second, "1s", "1 с"},
		{154 * time.Second, "2m34s", "2 мин 34 с"},
		{154*time.Second + 600*time.Millisecond, "2m35s", "2 мин 35 с"},
		{2 * time.Minute, "2m0s", "2 мин"},
		{time.Hour + 5*time.Second, "1h0m5s", "1 ч 5 с"},
		{3*time.Hour + 12*time.Minute, "3h12m0s", "3 ч 12 мин"},
	} {
		if got := en.duration(tc.d); got != tc.en || got != tc.d.Round(time.Second).String() {
			t.Errorf("%s in English: %q, want %q (as Go says it)", tc.d, got, tc.en)
		}
		if got := ru.duration(tc.d); got != tc.ru {
			t.Errorf("%s in Russian: %q, want %q", tc.d, got, tc.ru)
		}
	}
}

// TestProgressLeftWaitsThenSmooths: no time left is said from the first
// events (a wild guess: a slow first batch said hours for a run of
// minutes); it is said once the run has gone on for leftAfter and done
// leftAfterShare, and a sudden fast stretch moves it gradually, not at once.
func TestProgressLeftWaitsThenSmooths(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	var out bytes.Buffer
	r := newProgressReporter(&out, "rebuild", words{cat: messages(), lang: "ru"})
	r.now = func() time.Time { return now }
	const target = 100_000
	step := func(d time.Duration, seq uint64) string {
		now = now.Add(d)
		out.Reset()
		r.update(projections.Progress{Applied: seq, Sequence: seq, Target: target, Start: start})
		return out.String()
	}
	// The first batch after a tenth of a second: no line yet (its rate,
	// let alone a time left, would say nothing).
	if line := step(100*time.Millisecond, 1000); line != "" {
		t.Errorf("a line from the first batch: %q", line)
	}
	// 2 s in, 2% done: still too early (under leftAfter).
	if line := step(2*time.Second, 2000); strings.Contains(line, "осталось") || line == "" {
		t.Errorf("time left 2 s in: %q", line)
	}
	// 6 s in but only 0.5% done (a slow start): too little to go on.
	r2 := newProgressReporter(&bytes.Buffer{}, "rebuild", words{cat: messages(), lang: "ru"})
	r2.est.observe(projections.Progress{Applied: 500, Sequence: 500, Target: target, Start: start}, start.Add(6*time.Second))
	if d, ok := r2.est.left(projections.Progress{Applied: 500, Sequence: 500, Target: target, Start: start}); ok {
		t.Errorf("time left at 0.5%% done: %s", d)
	}
	// 10 s in, 10,000 done at 1000/s: 90 s left.
	if line := step(7900*time.Millisecond, 10_000); !strings.HasSuffix(line, ", осталось 1 мин 30 с\n") {
		t.Errorf("10 s in: %q", line)
	}
	// Then a 2 s stretch ten times as fast: the estimate moves towards
	// the new rate, not all the way (which would say 5 s).
	step(2*time.Second, 30_000)
	d, ok := r.est.left(r.p)
	if !ok || d <= 10*time.Second || d >= 70*time.Second {
		t.Errorf("after a fast stretch: %s (%v), want between 10 s and 70 s", d, ok)
	}
	// Done: nothing left to say.
	r.p = projections.Progress{Applied: target, Sequence: target, Target: target, Start: start}
	if _, ok := r.est.left(r.p); ok {
		t.Error("a time left once done")
	}
}
