package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	ledgerjs "github.com/clubledger/ledger/events/jetstream"
)

// TestServeNATSToolsInRussian: ledger serve --nats-listen says how to reach
// the embedded server with the nats tools, and its log says to keep a copy
// of the key file it made, in the user's language (before: English under
// --lang ru). In English the usage is jetstream.ToolsUsage's, word for word.
func TestServeNATSToolsInRussian(t *testing.T) {
	for _, lang := range []string{"en", "ru"} {
		t.Setenv("LEDGER_LANG", lang)
		dir := t.TempDir()
		ctx, stop := context.WithCancel(context.Background())
		var out, errb syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, []string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--nats-listen", "127.0.0.1:0"}, strings.NewReader(""), &out, &errb)
		}()
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(out.String(), "stream view LEDGER") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		<-done
		said := out.String()
		m := regexp.MustCompile(`NATS_URL=(\S+) .*cat '([^']+)'`).FindStringSubmatch(said)
		if m == nil {
			t.Fatalf("%s: serve said no NATS tools usage:\n%s\n%s", lang, said, errb.String())
		}
		_, usage, _ := strings.Cut(said, "\n")
		if r := regexp.MustCompile(`(?m)^ledger: .*\n`); r.MatchString(usage) {
			usage = r.ReplaceAllString(usage, "")
		}
		usage = strings.TrimSuffix(usage, "\n")
		if lang == "en" {
			if want := ledgerjs.ToolsUsage(m[1], m[2]); usage != want {
				t.Errorf("en: the usage is\n%s\nwant\n%s", usage, want)
			}
			if !strings.Contains(errb.String(), `msg="made the ledger's key file: keep a copy apart from the data folder (docs/audit.md)"`) {
				t.Errorf("en: no key file advice in the log:\n%s", errb.String())
			}
			continue
		}
		for _, want := range []string{
			"NATS слушает " + m[1] + " только для инструментов чтения: пользователь «tools» может\n",
			"  nats --inbox-prefix _INBOX_tools stream get LEDGER 1\n",
			"(--inbox-prefix _INBOX_tools обязателен: пользователю tools нельзя слушать _INBOX.>.)",
		} {
			if !strings.Contains(usage, want) {
				t.Errorf("ru: the usage lacks %q:\n%s", want, usage)
			}
		}
		if w := regexp.MustCompile(`listens|read-only|may read|sealed vault|no other|Its password|readable|With the|is required|may not`).FindString(usage); w != "" {
			t.Errorf("ru: English %q left in\n%s", w, usage)
		}
		if !strings.Contains(errb.String(), `msg="создан файл ключей журнала: храните его копию отдельно от папки данных (docs/audit.md)"`) || strings.Contains(errb.String(), "keep a copy") {
			t.Errorf("ru: the key file advice is not Russian in the log:\n%s", errb.String())
		}
	}
}
