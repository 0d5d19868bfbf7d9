package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/web"
)

// interruptedWords is what an interrupted rebuild says, by language: the
// log sequence its file reached and what to do.
var interruptedWords = map[string]string{
	"en": "rebuild interrupted at log sequence %d; run it again to resume",
	"ru": "перестройка прервана на позиции журнала %d; запустите её снова, чтобы продолжить",
}

// interruptRebuild runs a rebuild through door, cancelled from its
// progress once it reaches log sequence at (no timing: the callback
// cancels), and returns its error.
func interruptRebuild(t *testing.T, door app.API, batch int, at uint64) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := door.RebuildProjection(ctx, app.RebuildOptions{Fresh: true, Batch: batch,
		Progress: func(p projections.Progress) {
			if p.Sequence >= at {
				cancel()
			}
		}})
	if err == nil {
		t.Fatal("the interrupted rebuild succeeded")
	}
	return err
}

// checkInterrupted checks err is the door's interrupted rebuild, at the
// log sequence of the file it kept, in lang's words, and that the CLI
// says it so and exits 1.
func checkInterrupted(t *testing.T, err error, aside, lang string) uint64 {
	t.Helper()
	cp, cerr := sqlite.FileCheckpoint(context.Background(), aside)
	if cerr != nil {
		t.Fatalf("the interrupted rebuild's file: %v", cerr)
	}
	var ae *app.Error
	if !errors.As(err, &ae) || ae.Kind != "interrupted" || ae.Code != "rebuild_interrupted" {
		t.Fatalf("%s: the interrupted rebuild is %#v (%v), want kind interrupted, code rebuild_interrupted", lang, ae, err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%s: the interrupted rebuild does not unwrap to context.Canceled: %v", lang, err)
	}
	if ae.Numbers["at"] != float64(cp) {
		t.Errorf("%s: the interrupted rebuild's numbers %v, want at %d", lang, ae.Numbers, cp)
	}
	if want := fmt.Sprintf(interruptedWords[lang], cp); !strings.Contains(ae.Message, want) {
		t.Errorf("%s: the interrupted rebuild said %q, want %q", lang, ae.Message, want)
	}
	if s := web.Status(ae.Kind); s == 500 {
		t.Errorf("%s: an interrupted rebuild is HTTP %d", lang, s)
	}
	cfg := config.Default()
	cfg.Lang = lang
	var errb bytes.Buffer
	c := &cli{ctx: context.Background(), stderr: &errb, stdout: io.Discard, cfgSet: &cfg}
	head := map[string]string{"en": "error: ", "ru": "ошибка: "}[lang]
	if code := c.exit(err); code != exitError || !strings.Contains(errb.String(), head+fmt.Sprintf(interruptedWords[lang], cp)) {
		t.Errorf("%s: the CLI said (exit %d):\n%s", lang, code, errb.String())
	}
	return cp
}

// syncBuffer is a log the server writes from its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestProjectionRebuildInterruptedInWords: a rebuild interrupted part way
// (its caller's context cancelled: Ctrl-C, a client gone) is the door's
// kind interrupted, not an internal error: it names the log sequence its
// kept file reached and says to run it again to resume, in English and in
// Russian, on a folder alone and in a running server, whose log does not
// call it an internal error. A rebuild through the server's door that
// resumed says so in the CLI's text, as on a folder alone; a CLI stopped
// (Ctrl-C) before the server answered says what the server does with its
// rebuild without claiming how far it got.
func TestProjectionRebuildInterruptedInWords(t *testing.T) {
	op := newCLI(t)
	op.ok("play", "../../examples/first-battle.yaml")
	aside := sqlite.AsidePath(op.cfg.DBPath())
	for _, lang := range []string{"en", "ru"} {
		a, err := OpenApp(context.Background(), op.cfg, AppOptions{Entropy: op.entropy})
		if err != nil {
			t.Fatal(err)
		}
		err = interruptRebuild(t, a.Ledger.As(operatorCaller("", lang)), 5, 10)
		a.Close()
		checkInterrupted(t, err, aside, lang)
	}

	// A running server: the same words, and no internal error in its log.
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.HTTP.Addr = "127.0.0.1:0"
	logs := &syncBuffer{}
	ctx, stop := context.WithCancel(context.Background())
	s, err := Serve(ctx, cfg, ServeOptions{AdminToken: testAdminToken, Entropy: dicetest.Entropy(t),
		Logger: slog.New(slog.NewTextHandler(io.MultiWriter(logWriter{t}, logs), nil))})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop()
		if err := s.Wait(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, cancel: stop, tokens: map[string]string{}}
	seedOn(t, ts)
	served := sqlite.AsidePath(cfg.DBPath())
	for _, lang := range []string{"en", "ru"} {
		err := interruptRebuild(t, s.App.Ledger.As(operatorCaller("", lang)), 1, 3)
		cp := checkInterrupted(t, err, served, lang)
		if strings.Contains(logs.String(), "internal error") {
			t.Errorf("%s: the server logged the interrupted rebuild as an internal error:\n%s", lang, logs.String())
		}

		// The CLI through the server's door resumes it, and says so.
		c := &testCLI{t: t, cfg: cfg}
		c.cfg.Lang = lang
		code, out, errs := c.run("projections", "rebuild")
		want := map[string]string{
			"en": "the server resumed its interrupted rebuild from log sequence %d",
			"ru": "сервер продолжил свою прерванную перестройку с позиции журнала %d",
		}[lang]
		if code != 0 || !strings.Contains(errs, fmt.Sprintf(want, cp)) {
			t.Errorf("%s: a resumed rebuild through the server: exit %d\n%s\n%s", lang, code, out, errs)
		}
		// It says it waits for the server, and then what it applied, at
		// what rate (before: silence, then only the time).
		says := map[string][]string{
			"en": {"the server is rebuilding its projection; it answers when done", "applied in", "events/s"},
			"ru": {"сервер перестраивает свою проекцию; он ответит, когда закончит", "применено", "/с)"},
		}[lang]
		for _, w := range says {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%s: a rebuild through the server does not say %q:\n%s\n%s", lang, w, out, errs)
			}
		}
	}

	// The CLI stopped (Ctrl-C: its own context cancelled) before the
	// server answered: it says the server's rebuild stops and keeps its
	// file, that running it again resumes it, and that it does not know
	// how far it got; exit 1.
	said := map[string][]string{
		"en": {"error: rebuild interrupted before the server answered", "how far it got is not known here", "keeps its file: run it again to resume"},
		"ru": {"ошибка: перестройка прервана до ответа сервера", "неизвестно, как далеко она дошла", "сохраняет её файл: запустите её снова, чтобы продолжить"},
	}
	for _, lang := range []string{"en", "ru"} {
		stopped, cancel := context.WithCancel(context.Background())
		cancel()
		lc := cfg
		lc.Lang = lang
		var errb bytes.Buffer
		c := &cli{ctx: stopped, stderr: &errb, stdout: io.Discard, cfgSet: &lc}
		_, err := c.doorClient(lc).RebuildProjection(stopped, app.RebuildOptions{})
		if code := c.exit(c.serverRebuildStopped(nil, err)); code != exitError {
			t.Errorf("%s: the CLI stopped before the server answered: exit %d, want %d\n%s", lang, code, exitError, errb.String())
		}
		for _, w := range said[lang] {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: the CLI stopped before the server answered said %q, want %q", lang, errb.String(), w)
			}
		}
	}
}
