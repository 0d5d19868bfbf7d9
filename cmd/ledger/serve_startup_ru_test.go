package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeStartupSaidInRussian: a server that cannot start says why and
// what to do in the user's language: a port another program uses, a
// certificate file that cannot be read, and a data folder another ledger
// serves (before: English after "ошибка:");
// the system's own cause stays as the system says it. In English the words
// are as before.
func TestServeStartupSaidInRussian(t *testing.T) {
	english := regexp.MustCompile(`cannot be read|check http|cannot listen|another program|choose another|stop that program|in use by|one ledger serve per|give this one`)
	serve := func(lang string, args ...string) (int, string) {
		t.Helper()
		t.Setenv("LEDGER_LANG", lang)
		var out, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"serve"}, args...), strings.NewReader(""), &out, &errb)
		return code, errb.String()
	}
	check := func(what, lang string, code int, errs string, want ...string) {
		t.Helper()
		if code != exitError {
			t.Errorf("%s, %s: exit %d, want %d\n%s", what, lang, code, exitError, errs)
		}
		for _, w := range want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s, %s: %q does not say %q", what, lang, errs, w)
			}
		}
		if lang == "ru" {
			if m := english.FindString(errs); m != "" {
				t.Errorf("%s, ru: English %q left in %q", what, m, errs)
			}
		}
	}

	// A port another program listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	for lang, want := range map[string]string{
		"en": "error: http: cannot listen on " + addr + ": another program uses this port; choose another http.addr (or --addr), or stop that program (",
		"ru": "ошибка: http: нельзя слушать " + addr + ": этот порт занят другой программой; выберите другой http.addr (или --addr) или остановите ту программу (",
	} {
		code, errs := serve(lang, "--data", t.TempDir(), "--addr", addr)
		check("port in use", lang, code, errs, want, "address already in use")
	}

	// A certificate file that cannot be read.
	t.Setenv("LEDGER_HTTP_TLS_CERT", filepath.Join(t.TempDir(), "nope.crt"))
	t.Setenv("LEDGER_HTTP_TLS_KEY", filepath.Join(t.TempDir(), "nope.key"))
	for lang, want := range map[string]string{
		"en": ".crt cannot be read: check http.tls_cert (",
		"ru": ".crt не читается: проверьте http.tls_cert (",
	} {
		code, errs := serve(lang, "--data", t.TempDir(), "--addr", "127.0.0.1:0")
		check("certificate unreadable", lang, code, errs, want, "no such file or directory")
	}
	t.Setenv("LEDGER_HTTP_TLS_CERT", "")
	t.Setenv("LEDGER_HTTP_TLS_KEY", "")

	// A data folder another ledger serves (its intent held).
	dir := t.TempDir()
	intent, err := takeIntent(dir, "serve")
	if err != nil {
		t.Fatal(err)
	}
	defer intent.release()
	for lang, want := range map[string][]string{
		"en": {"error: the data folder " + dir + " is in use by another ledger process (pid ", "): one ledger serve per data folder; stop it, or give this one another --data"},
		"ru": {"ошибка: папка данных " + dir + " занята другим процессом леджера (pid ", "): на одну папку данных — один ledger serve; остановите тот или дайте этому другую --data"},
	} {
		code, errs := serve(lang, "--data", dir, "--addr", "127.0.0.1:0")
		check("folder served", lang, code, errs, append(want, "ledger serve since ")...)
	}
}

// TestServeSaysWhereInRussian: a server that starts says where it serves,
// where its data is and how the CLI reaches it in the user's language
// (before: English whatever the language), and in English as docs/club.md
// shows it.
func TestServeSaysWhereInRussian(t *testing.T) {
	for lang, want := range map[string]string{
		"en": "ledger: serving http://127.0.0.1:",
		"ru": "ledger: сервер работает на http://127.0.0.1:",
	} {
		t.Setenv("LEDGER_LANG", lang)
		t.Setenv("LEDGER_HTTP_ADMIN_TOKEN", "club-admin-token-0123456789")
		dir := t.TempDir()
		ctx, stop := context.WithCancel(context.Background())
		var out, errb syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, []string{"serve", "--data", dir, "--addr", "127.0.0.1:0"}, strings.NewReader(""), &out, &errb)
		}()
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(out.String(), "Ctrl-C") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		<-done
		first, _, _ := strings.Cut(out.String(), "\n")
		if !strings.HasPrefix(first, want) || !strings.Contains(first, dir) || !strings.HasSuffix(first, "Ctrl-C") {
			t.Errorf("%s: serve said %q, want it to start %q and name %s", lang, first, want, dir)
		}
		if lang == "ru" {
			if m := regexp.MustCompile(`serving|the CLI|goes through|stop with`).FindString(first); m != "" {
				t.Errorf("ru: English %q left in %q", m, first)
			}
		}
	}
}
