package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/viper"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign"
)

// cancelAt is an API that cancels the play's context (Ctrl-C) as its
// at-th command is sent, then sends it with the cancelled context.
type cancelAt struct {
	app.API
	n, at  int
	cancel context.CancelFunc
}

func (x *cancelAt) Execute(ctx context.Context, cmd app.Command) (app.Result, error) {
	x.n++
	if x.n == x.at {
		x.cancel()
	}
	return x.API.Execute(ctx, cmd)
}

// TestPlayStoppedByCtrlC: ledger play on a data folder the CLI owns (no
// server), stopped by Ctrl-C at its third step, says in words that the
// play was stopped there and that what was recorded stays recorded, in
// English and Russian, and exits non-zero; never "Something went wrong on
// the server" nor the raw "context canceled". The steps before it were
// recorded and are printed as such.
func TestPlayStoppedByCtrlC(t *testing.T) {
	said := map[string][]string{
		"en": {"error: play of first-battle stopped at step 3 of 21 (", "what was recorded stays recorded", "step 3 may or may not have been recorded", "play the file again"},
		"ru": {"ошибка: сценарий first-battle остановлен на шаге 3 из 21 (", "записанное остаётся записанным", "шаг 3 мог быть записан, а мог и нет", "проиграйте файл снова"},
	}
	for _, lang := range []string{"en", "ru"} {
		tc := newCLI(t)
		tc.cfg.Lang = lang
		sc, err := campaign.LoadScenario("../../examples/first-battle.yaml")
		if err != nil {
			t.Fatal(err)
		}
		a, err := OpenApp(context.Background(), tc.cfg, AppOptions{Entropy: tc.entropy})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb bytes.Buffer
		c := &cli{ctx: ctx, v: viper.New(), stdout: &out, stderr: &errb, cfgSet: &tc.cfg, entropy: tc.entropy, shared: a}
		api := &cancelAt{API: a.Ledger.As(operatorCaller("", lang)), at: 3, cancel: cancel}
		code := c.exit(c.playScenario(api, sc))
		cancel()
		a.Close()
		if code == exitOK {
			t.Errorf("%s: exit 0 after Ctrl-C", lang)
		}
		all := out.String() + errb.String()
		for _, w := range said[lang] {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr %q, want it to hold %q", lang, errb.String(), w)
			}
		}
		for _, bad := range []string{"context canceled", "Something went wrong", "На сервере произошла ошибка"} {
			if strings.Contains(all, bad) {
				t.Errorf("%s: says %q:\n%s", lang, bad, all)
			}
		}
		if !strings.Contains(out.String(), "#2 ") || strings.Contains(out.String(), "#3 ") {
			t.Errorf("%s: want steps 1 and 2 printed, not the stopped step 3:\n%s", lang, out.String())
		}
	}
}
