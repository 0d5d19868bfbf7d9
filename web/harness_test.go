package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/web"
)

// These tests run the web server on real parts: an in-process NATS server
// with JetStream (the log and the vault), the campaign service, a SQLite
// projection kept up by its projector, the ledger's door, and the HTTP
// handler on a loopback listener; they talk to it over HTTP.

const adminToken = "web-test-admin-token"

type server struct {
	t      *testing.T
	url    string
	web    *web.Server
	tokens map[string]string
}

// logWriter sends the server's log to the test's log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startServer starts a server on real parts with opts (Ledger, Log,
// AdminToken and Logger are set here).
func startServer(t *testing.T, opts web.Options) *server {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ledger := campaigntest.Open(t, campaigntest.Options{Keys: true})
	log, svc, k := ledger.Log, ledger.Service, ledger.Keys
	db, err := sqlite.OpenWith(filepath.Join(t.TempDir(), "ledger.db"), sqlite.Options{Keys: k.Keyring()})
	if err != nil {
		t.Fatal(err)
	}
	proj := app.NewProjector(log, db, logger)
	ctx, cancel := context.WithCancel(context.Background())
	go proj.Run(ctx)
	l, err := app.New(app.Options{Service: svc, Log: log, Read: db, Logger: logger, Keys: k.Keyring(),
		Projected: proj.WaitFor(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	opts.Ledger, opts.Log, opts.AdminToken, opts.Logger = l, log, adminToken, logger
	srv, err := web.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.CloseStreams()
		hs.Close()
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		if err := srv.Shutdown(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		cancel()
		<-proj.Done()
		db.Close()
	})
	return &server{t: t, url: hs.URL, web: srv, tokens: map[string]string{}}
}

// response is an answer: its status, headers and JSON body.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (r response) errorField(name string) any {
	e, _ := r.body["error"].(map[string]any)
	return e[name]
}

// do sends a request; body is nil, a string sent as it is, or a value sent
// as JSON; header holds pairs of names and values.
func (s *server) do(method, path, token string, body any, header ...string) response {
	s.t.Helper()
	return s.doWith(http.DefaultClient, method, path, token, body, header...)
}

// from returns a client whose connections come from the loopback address
// ip (any of 127.0.0.0/8), a client of its own to the server.
func from(t *testing.T, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func (s *server) doWith(client *http.Client, method, path, token string, body any, header ...string) response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (s *server) must(r response, status int) response {
	s.t.Helper()
	if r.status != status {
		s.t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// command posts a command as token on campaign demo (battle "" for the
// campaign's own).
func (s *server) command(token, battle, name string, req any) response {
	s.t.Helper()
	path := "/api/campaigns/demo/commands/" + name
	if battle != "" {
		path = "/api/campaigns/demo/battles/" + battle + "/commands/" + name
	}
	return s.do("POST", path, token, req)
}

// seed opens campaign demo with an umpire (uma), a player of each side
// (marie: french, karl: austrians) and a reader (rita), and creates battle
// b1.
func (s *server) seed() {
	s.t.Helper()
	s.must(s.command(adminToken, "", "campaign.create", map[string]any{"command": map[string]any{
		"name": "Danube 1809", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}},
	}}), 201)
	for _, p := range []map[string]string{
		{"player": "uma", "role": "umpire"}, {"player": "marie", "role": "player", "side": "french"},
		{"player": "karl", "role": "player", "side": "austrians"}, {"player": "rita", "role": "reader"},
	} {
		r := s.must(s.command(adminToken, "", "player.add", map[string]any{"command": p}), 201)
		s.tokens[p["player"]] = r.body["token"].(string)
	}
	s.must(s.command(s.tokens["uma"], "b1", "battle.create", map[string]any{"command": map[string]any{
		"name": "Eggmuhl", "measurement": "in", "table": map[string]int{"width": 72, "depth": 48}, "first_side": "french"}}), 201)
}

// stream opens b1's live stream as token; the channel closes when the
// server ends the stream (or the test ends).
func (s *server) stream(token string) <-chan struct{} {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/api/campaigns/demo/battles/b1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if res.StatusCode != 200 {
		s.t.Fatalf("stream: %d", res.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
		}
	}()
	return ended
}

// waitFor calls cond every few milliseconds until it holds, and fails the
// test if it has not within limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
