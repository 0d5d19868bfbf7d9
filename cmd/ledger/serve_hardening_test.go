package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clubledger/ledger/config"
)

// TestServeHeadersOnEveryRoute: no answer of the server may be framed,
// sniffed into another type or leak its address; the page's policy allows
// no other base and forms only to itself; the page's template is never
// served as a page; nothing echoes the request's raw text.
func TestServeHeadersOnEveryRoute(t *testing.T) {
	ts := seed(t)
	routes := []struct {
		path, token string
		status      int
	}{
		{"/", "", 200},
		{"/c/demo/b/b1", "", 200},
		{"/api/campaigns/demo/battles/b1/state", ts.tokens["marie"], 200},
		{"/api/campaigns/demo/battles/b1/battlefield.svg", ts.tokens["marie"], 200},
		{"/api/campaigns/demo/battles/b1/state", "", 401},
		{"/api/no/such/<script>alert(1)</script>", "", 404},
		{"/static/app.js", "", 200},
		{"/static/style.css", "", 200},
		{"/static/index.html", "", 404},
		{"/static/", "", 404},
		{"/healthz", "", 200},
	}
	for _, r := range routes {
		res := ts.do("GET", r.path, r.token, nil)
		if res.status != r.status {
			t.Errorf("GET %s: %d, want %d", r.path, res.status, r.status)
		}
		req, _ := http.NewRequest("GET", ts.url+r.path, nil)
		if r.token != "" {
			req.Header.Set("Authorization", "Bearer "+r.token)
		}
		hr, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(hr.Body)
		hr.Body.Close()
		h := hr.Header
		csp := h.Get("Content-Security-Policy")
		if h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(csp, "frame-ancestors 'none'") ||
			h.Get("Referrer-Policy") != "no-referrer" || !strings.Contains(csp, "base-uri 'none'") || !strings.Contains(csp, "form-action") {
			t.Errorf("GET %s: headers %v", r.path, h)
		}
		if strings.HasPrefix(r.path, "/c/") || r.path == "/" {
			if !strings.Contains(csp, "form-action 'self'") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("the page's policy: %s", csp)
			}
		}
		if h.Get("Strict-Transport-Security") != "" {
			t.Errorf("GET %s over plain HTTP sends HSTS", r.path)
		}
		if strings.Contains(string(body), "<script>alert") {
			t.Errorf("GET %s echoes the request: %s", r.path, body)
		}
	}
}

// TestServeHSTSOverTLS: served with a certificate, every answer asks the
// browser to keep to HTTPS.
func TestServeHSTSOverTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	ts := startServerWith(t, func(c *config.Config) { c.HTTP.TLSCert, c.HTTP.TLSKey = cert, key })
	if !strings.HasPrefix(ts.url, "https://") {
		t.Fatalf("served at %s", ts.url)
	}
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	res, err := cl.Get(ts.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if h := res.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(h, "max-age=") {
		t.Fatalf("HSTS over TLS: %q", h)
	}
}

// selfSigned writes a certificate and key for 127.0.0.1.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ledger test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestServeBoundedInput: a bad command id, an oversized name, a name with a
// bidirectional override or a control character, invalid text, an absurd
// or null number: each refused with the field and the limit named, and
// nothing appended; nothing of it is logged as an error.
func TestServeBoundedInput(t *testing.T) {
	ts := seed(t)
	before := ts.lastVersion()
	move := func(to any) map[string]any {
		return map[string]any{"command": map[string]any{"unit": "33-ligne", "to": to}}
	}
	cases := []struct {
		name   string
		cmd    string
		body   any
		header []string
		field  string
	}{
		{"a dot in the id", "unit.move", map[string]any{"id": "a.b", "command": map[string]any{}}, nil, "id"},
		{"a > in the id", "unit.move", map[string]any{"id": "a>b"}, nil, "id"},
		{"a space in the Idempotency-Key", "unit.move", nil, []string{"Idempotency-Key", "a b"}, "id"},
		{"an id over 128", "unit.move", map[string]any{"id": strings.Repeat("x", 129)}, nil, "id"},
		{"a huge number", "unit.move", move(map[string]any{"x": 1e308, "y": 1}), nil, "to.x"},
		{"a null number", "unit.move", move(map[string]any{"x": nil, "y": 1}), nil, "to.x"},
		{"a bidi name", "dispute.raise", map[string]any{"command": map[string]any{"event": 3, "reason": "\u202Eesrever"}}, nil, "reason"},
		{"a control character", "dispute.raise", map[string]any{"command": map[string]any{"event": 3, "reason": "bell\x07"}}, nil, "reason"},
		{"a reason over 2000", "dispute.raise", map[string]any{"command": map[string]any{"event": 3, "reason": strings.Repeat("é", 2001)}}, nil, "reason"},
		{"a seed over 256 bytes", "dice.add_seed", map[string]any{"command": map[string]any{"player": "marie", "seed": strings.Repeat("s", 257)}}, nil, "seed"},
		{"a bidi unit id", "unit.move", map[string]any{"command": map[string]any{"unit": "33\u202Eligne", "to": map[string]float64{"x": 1, "y": 1}}}, nil, "unit"},
		// 30,000 waypoints once held a battle for 20 s (issue 24).
		{"33 waypoints", "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 30, "y": 10},
			"path": waypoints(33)}}, nil, "path"},
		{"a list of 501", "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 30, "y": 10}, "units": make([]string, 501)}}, nil, "units"},
	}
	for _, c := range cases {
		r := ts.command("marie", "b1", c.cmd, c.body, c.header...)
		msg, _ := r.errorField("message").(string)
		if r.status != 400 || !strings.Contains(msg, c.field) {
			t.Errorf("%s: %d %s", c.name, r.status, r.raw)
		}
	}
	// A query's words are held to the same limits, and never said back
	// (the odds echoed a 30,000-character general, and control characters).
	for name, q := range map[string]string{
		"a general of 30,000 characters": "general=" + strings.Repeat("x", 30000) + "&units=33-ligne",
		"control characters":             "general=%00%1b%5b31m&units=33-ligne",
	} {
		r := ts.do("GET", "/api/campaigns/demo/battles/b1/odds?"+q, ts.tokens["marie"], nil)
		msg, _ := r.errorField("message").(string)
		if r.status != 400 || !strings.Contains(msg, "general") || strings.Contains(string(r.raw), "xxxxxxxxxx") || strings.Contains(string(r.raw), `\u001b`) || strings.Contains(string(r.raw), "\x1b") {
			t.Errorf("odds with %s: %d %.300s", name, r.status, r.raw)
		}
	}
	// 32 waypoints are a path the rules judge (whatever they decide of it).
	r32 := ts.command("marie", "b1", "unit.move", map[string]any{"dry_run": true, "command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 30, "y": 10},
		"path": waypoints(32)}})
	if r32.status == 400 {
		t.Errorf("32 waypoints: %d %s", r32.status, r32.raw)
	}
	// A unit named with 900,000 characters, the first an override: refused.
	long := "\u202E" + strings.Repeat("w", 900_000)
	r := ts.command("uma", "b2", "battle.create", map[string]any{"command": map[string]any{"name": long, "measurement": "in",
		"table": map[string]int{"width": 72, "depth": 48}, "first_side": "french"}})
	if msg, _ := r.errorField("message").(string); r.status != 400 || !strings.Contains(msg, "name") || !strings.Contains(msg, "at most 100") {
		t.Errorf("a 900,000-character name: %d %.300s", r.status, r.raw)
	}
	// Invalid UTF-8 in a seed.
	r = ts.do("POST", "/api/campaigns/demo/battles/b1/commands/dice.add_seed", ts.tokens["marie"],
		"{\"command\": {\"player\": \"marie\", \"seed\": \"\xff\xfe\"}}")
	if msg, _ := r.errorField("message").(string); r.status != 400 || !strings.Contains(msg, "UTF-8") {
		t.Errorf("invalid UTF-8 in a seed: %d %s", r.status, r.raw)
	}
	if v := ts.lastVersion(); v != before {
		t.Fatalf("refused input appended: %d -> %d", before, v)
	}
}

// TestServeStreamLimitsAndSlowBodies: one token may hold only so many live
// streams (then 429), the server only so many in all (then 503); a body
// sent a byte at a time is cut off within the configured read timeout; a
// reissued token's open stream ends at once.
func TestServeStreamLimitsAndSlowBodies(t *testing.T) {
	ts := startServerWith(t, func(c *config.Config) {
		c.HTTP.StreamsPerCaller, c.HTTP.Streams = 2, 3
		c.HTTP.ReadTimeout = time.Second
	})
	seedOn(t, ts)
	open := func(token string) (*http.Response, error) {
		req, _ := http.NewRequest("GET", ts.url+"/api/campaigns/demo/battles/b1/events/stream", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultClient.Do(req)
	}
	var held []*http.Response
	defer func() {
		for _, r := range held {
			r.Body.Close()
		}
	}()
	for range 2 {
		r, err := open(ts.tokens["rita"])
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("a stream within the limit: %v %v", err, r)
		}
		held = append(held, r)
	}
	if r, err := open(ts.tokens["rita"]); err != nil || r.StatusCode != 429 {
		t.Fatalf("a third stream for one token: %v %v", err, r)
	} else {
		r.Body.Close()
	}
	r, err := open(ts.tokens["marie"])
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("marie's stream: %v %v", err, r)
	}
	held = append(held, r)
	if r, err := open(ts.tokens["karl"]); err != nil || r.StatusCode != 503 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("a stream over the server's limit: %v %v", err, r)
	} else {
		r.Body.Close()
	}

	// Marie's token is reissued: her open stream ends at once.
	ts.must(ts.command("admin", "", "player.reissue_token", map[string]any{"command": map[string]any{"player": "marie"}}), 201)
	ended := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r.Body)
		for sc.Scan() {
		}
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the reissued token's stream is still open")
	}

	// A body at one byte every 200 ms is cut off within the read timeout.
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	fmt.Fprintf(c, "POST /api/campaigns/demo/battles/b1/commands/phase.end HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nAuthorization: Bearer %s\r\n\r\n", ts.tokens["karl"])
	for time.Since(start) < 10*time.Second {
		if _, err := c.Write([]byte("{")); err != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("a slow body was still being read after %s (read timeout 1s)", el)
	}
}

// seedOn is seed on an already started server.
func seedOn(t *testing.T, ts *testServer) {
	t.Helper()
	ts.must(ts.command("admin", "", "campaign.create", map[string]any{"command": map[string]any{
		"name": "Danube 1809", "sides": []map[string]string{{"id": "french", "name": "France"}, {"id": "austrians", "name": "Austria"}},
	}}), 201)
	for _, p := range []map[string]string{
		{"player": "uma", "role": "umpire"}, {"player": "marie", "role": "player", "side": "french"},
		{"player": "karl", "role": "player", "side": "austrians"}, {"player": "rita", "role": "reader"},
	} {
		r := ts.must(ts.command("admin", "", "player.add", map[string]any{"command": p}), 201)
		ts.tokens[p["player"]] = r.body["token"].(string)
	}
	ts.must(ts.command("uma", "b1", "battle.create", map[string]any{"command": map[string]any{
		"name": "Eggmuhl", "measurement": "in", "table": map[string]int{"width": 72, "depth": 48}, "first_side": "french"}}), 201)
}

// TestBrowserRefusesFraming: a page on another origin of the same host
// frames the battle page; Chromium refuses to show it (the frame holds
// Chromium's error page, not the ledger), so no click in a disguised
// frame can reach the umpire's buttons.
func TestBrowserRefusesFraming(t *testing.T) {
	exe := browserPath(t)
	ts := seed(t)
	evil := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><iframe id="f" src="%s/c/demo/b/b1" width="800" height="600"></iframe></body></html>`, ts.url)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go evil.Serve(ln)
	defer evil.Close()
	ctx := browserContext(t, exe)
	var frames []string
	err = chromedp.Do(ctx,
		chromedp.Navigate("http://"+ln.Addr().String()+"/"),
		chromedp.Sleep(2*time.Second),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
			if err != nil {
				return err
			}
			for _, c := range tree.FrameTree.ChildFrames {
				frames = append(frames, c.Frame.URL+" "+c.Frame.UnreachableURL)
			}
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1 || strings.Contains(frames[0], ts.url+"/c/demo") && !strings.Contains(frames[0], "chrome-error") {
		t.Fatalf("the framed ledger page loaded: %v", frames)
	}
	t.Logf("the frame: %v", frames)
}

// TestServeNoTokenHashesForPeople: a person's token hash is the operator's
// alone: a reader, a player and an umpire reading the campaign's events see
// who joined, never the hash; the operator (the admin token) sees it.
func TestServeNoTokenHashesForPeople(t *testing.T) {
	ts := seed(t)
	for _, who := range []string{"rita", "marie", "uma"} {
		r := ts.must(ts.do("GET", "/api/campaigns/demo/events", ts.tokens[who], nil), 200)
		if strings.Contains(string(r.raw), "token_hash") || !strings.Contains(string(r.raw), "campaign.player_added") {
			t.Errorf("%s reads token hashes: %.400s", who, r.raw)
		}
	}
	r := ts.must(ts.do("GET", "/api/campaigns/demo/events", testAdminToken, nil), 200)
	if !strings.Contains(string(r.raw), "token_hash") {
		t.Errorf("the operator does not see the token hashes")
	}
}

// waypoints is a path of n points, each a step from the last.
func waypoints(n int) []map[string]float64 {
	out := make([]map[string]float64, n)
	for i := range out {
		out[i] = map[string]float64{"x": 20 + float64(i%2)*0.01, "y": 10 + float64(i)*0.001}
	}
	return out
}
