package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/config"
)

// TestProjectionRebuildCtrlCInFlight: the CLI's rebuild through a server's
// door, stopped (Ctrl-C: its context cancelled) while its request is with
// the server, says what TestProjectionRebuildInterruptedInWords's CLI
// stopped before sending says: the server keeps its file, running it again
// resumes it, how far it got is not known here; exit 1. The server here
// reads the request and never answers, so the request is in flight when
// the context is cancelled, whatever the machine's speed.
func TestProjectionRebuildCtrlCInFlight(t *testing.T) {
	said := map[string][]string{
		"en": {"error: rebuild interrupted before the server answered", "how far it got is not known here", "keeps its file: run it again to resume"},
		"ru": {"ошибка: перестройка прервана до ответа сервера", "неизвестно, как далеко она дошла", "сохраняет её файл: запустите её снова, чтобы продолжить"},
	}
	for _, lang := range []string{"en", "ru"} {
		cfg := config.Default()
		// A short folder: a Unix socket's path has a length limit.
		dir, err := os.MkdirTemp("", "inflight")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		cfg.DataDir, cfg.Lang = dir, lang
		ln, err := net.Listen("unix", socketPath(cfg))
		if err != nil {
			t.Fatal(err)
		}
		received := make(chan string, 1)
		hold := make(chan struct{})
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
			req, err := http.ReadRequest(bufio.NewReader(conn))
			if err != nil {
				received <- "unreadable: " + err.Error()
				return
			}
			received <- req.Method + " " + req.URL.Path
			<-hold // never answers
		}()

		ctx, cancel := context.WithCancel(context.Background())
		var errb bytes.Buffer
		c := &cli{ctx: ctx, stderr: &errb, stdout: io.Discard, cfgSet: &cfg}
		done := make(chan error, 1)
		go func() {
			_, err := c.doorClient(cfg).RebuildProjection(ctx, app.RebuildOptions{})
			done <- err
		}()
		got := <-received
		if !strings.Contains(got, "rebuild") {
			t.Errorf("%s: the server received %q, want the rebuild's request", lang, got)
		}
		cancel() // Ctrl-C, the request with the server
		err = <-done
		close(hold)
		ln.Close()
		if code := c.exit(c.serverRebuildStopped(nil, err)); code != exitError {
			t.Errorf("%s: stopped in flight: exit %d, want %d (%v)\n%s", lang, code, exitError, err, errb.String())
		}
		for _, w := range said[lang] {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stopped in flight said %q, want %q", lang, errb.String(), w)
			}
		}
	}
}
