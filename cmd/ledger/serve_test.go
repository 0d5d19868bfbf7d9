package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/config"
	"github.com/clubledger/ledger/examples"
	"github.com/clubledger/ledger/internal/dicetest"
)

// These tests run the real server (Serve) on 127.0.0.1:0 with the embedded
// NATS server and a SQLite file in a temporary folder, and talk to it over
// HTTP as any client would.

const testAdminToken = "test-admin-token"

type testServer struct {
	t      *testing.T
	cfg    config.Config
	served *Served
	url    string
	cancel context.CancelFunc
	// tokens of the campaign's people, by player id
	tokens map[string]string
}

// logWriter sends the server's log to the test's log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startServer runs Serve on a fresh data folder; the test's end shuts it
// down gracefully and fails the test if that goes wrong.
func startServer(t *testing.T) *testServer {
	t.Helper()
	return startServerWith(t, nil)
}

// startServerWith is startServer with the configuration changed by set.
func startServerWith(t *testing.T, set func(*config.Config)) *testServer {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.HTTP.Addr = "127.0.0.1:0"
	if set != nil {
		set(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Serve(ctx, cfg, ServeOptions{AdminToken: testAdminToken, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil)), Entropy: dicetest.Entropy(t)})
	if err != nil {
		cancel()
		t.Fatalf("serve: %v", err)
	}
	ts := &testServer{t: t, cfg: cfg, served: s, url: s.URL, cancel: cancel, tokens: map[string]string{}}
	t.Cleanup(func() {
		cancel()
		if err := s.Wait(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return ts
}

// serveUntilEnd runs `ledger serve` on cfg, with a data folder of its
// own, until the test ends (a server on a cluster: another may run beside
// it on the same cluster).
func serveUntilEnd(t *testing.T, cfg config.Config) *Served {
	t.Helper()
	cfg.DataDir = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Serve(ctx, cfg, ServeOptions{AdminToken: testAdminToken, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil)), Entropy: dicetest.Entropy(t)})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = s.Wait()
	})
	return s
}

// response is an answer: its status and JSON body.
type response struct {
	status int
	body   map[string]any
	raw    []byte
}

func (r response) errorField(name string) any {
	e, _ := r.body["error"].(map[string]any)
	return e[name]
}

func (ts *testServer) do(method, path, token string, body any, header ...string) response {
	ts.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			ts.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, raw: raw}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

// command posts a command; who is a player id of ts.tokens or "admin".
func (ts *testServer) command(who, battle, name string, req any, header ...string) response {
	ts.t.Helper()
	path := "/api/campaigns/demo/commands/" + name
	if battle != "" {
		path = "/api/campaigns/demo/battles/" + battle + "/commands/" + name
	}
	return ts.do("POST", path, ts.token(who), req, header...)
}

func (ts *testServer) token(who string) string {
	if who == "admin" {
		return testAdminToken
	}
	return ts.tokens[who]
}

func (ts *testServer) must(r response, status int) response {
	ts.t.Helper()
	if r.status != status {
		ts.t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// lastVersion is the battle's last event version, read as the umpire.
func (ts *testServer) lastVersion() int {
	ts.t.Helper()
	r := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", ts.tokens["uma"], nil), 200)
	return int(r.body["last"].(float64))
}

func exampleBody(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := examples.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// seed sets up, over HTTP, campaign "demo" with an umpire (uma), a player
// for each side (marie: french, karl: austrians) and a reader (rita), and
// battle b1 with both armies of the example deployed and started, then
// Friant's order to the 33e (dice 3+3: two actions) and its first move.
func seed(t *testing.T) *testServer {
	ts := peopleServer(t)
	ts.must(ts.command("uma", "b1", "battle.create", map[string]any{"command": map[string]any{
		"name": "Eggmuhl", "measurement": "in", "table": map[string]int{"width": 72, "depth": 48}, "first_side": "french", "turn_limit": 6,
	}}), 201)
	ts.must(ts.command("uma", "b1", "army.deploy", map[string]any{"command": exampleBody(t, "oob-french.yaml")}), 201)
	// A player deploys their own side.
	ts.must(ts.command("karl", "b1", "army.deploy", map[string]any{"command": exampleBody(t, "oob-austrians.yaml")}), 201)
	ts.must(ts.command("uma", "b1", "battle.start", nil), 201)
	ts.must(ts.command("marie", "b1", "order.give", map[string]any{"id": "order-1", "dice": []int{3, 3},
		"command": map[string]any{"general": "friant", "units": []string{"33-ligne"}, "content": map[string]any{"action": "move"}}}), 201)
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"id": "move-1",
		"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 16}}}), 201)
	return ts
}

func TestServeAuthRoles(t *testing.T) {
	ts := seed(t)
	before := ts.lastVersion()
	move := map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 20}}}
	enemyMove := map[string]any{"command": map[string]any{"unit": "ir-4", "to": map[string]float64{"x": 26, "y": 36}}}
	cases := []struct {
		name   string
		token  string
		cmd    string
		body   any
		status int
		code   string
	}{
		{"no token", "", "unit.move", move, 401, "unauthorized"},
		{"unknown token", "lt_0000", "unit.move", move, 401, "unauthorized"},
		{"reader commands", ts.tokens["rita"], "unit.move", move, 403, "forbidden"},
		{"player moves the enemy's unit", ts.tokens["marie"], "unit.move", enemyMove, 403, "forbidden"},
		{"player orders the enemy's general", ts.tokens["marie"], "order.give", map[string]any{"command": map[string]any{"general": "vukassovich", "units": []string{"ir-4"}, "content": map[string]any{"action": "move"}}}, 403, "forbidden"},
		{"player ends the enemy's phase", ts.tokens["karl"], "phase.end", map[string]any{"command": map[string]any{"side": "french"}}, 403, "forbidden"},
		{"player ends the battle", ts.tokens["marie"], "battle.end", map[string]any{"command": map[string]any{"reason": "bored"}}, 403, "forbidden"},
		{"player adds another's seed", ts.tokens["marie"], "dice.add_seed", map[string]any{"command": map[string]any{"player": "karl", "seed": "x"}}, 403, "forbidden"},
		{"player deploys the enemy", ts.tokens["marie"], "army.deploy", map[string]any{"command": map[string]any{"side": "austrians"}}, 403, "forbidden"},
		{"malformed JSON", ts.tokens["marie"], "unit.move", "{not json", 400, "bad_request"},
		{"unknown field in the envelope", ts.tokens["marie"], "unit.move", map[string]any{"comand": map[string]any{}}, 400, "bad_request"},
		{"unknown field in the command", ts.tokens["marie"], "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "too": 1}}, 400, "command.bad_body"},
		{"unknown command", ts.tokens["marie"], "unit.teleport", move, 404, "unknown_command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts.t = t
			r := ts.do("POST", "/api/campaigns/demo/battles/b1/commands/"+c.cmd, c.token, c.body)
			if r.status != c.status || r.errorField("code") != c.code {
				t.Fatalf("status %d code %v, want %d %s: %s", r.status, r.errorField("code"), c.status, c.code, r.raw)
			}
		})
	}
	ts.t = t
	if after := ts.lastVersion(); after != before {
		t.Fatalf("refused requests appended events: last version %d -> %d", before, after)
	}
	// Campaign-level: only the admin token creates campaigns; an unknown
	// campaign is 401 to a token; a reader reads but sees the same campaign.
	r := ts.do("POST", "/api/campaigns/other/commands/campaign.create", ts.tokens["uma"], map[string]any{"command": map[string]any{"name": "x"}})
	if r.status != 401 && r.status != 403 {
		t.Errorf("umpire of another campaign creating one: %d %s", r.status, r.raw)
	}
	r = ts.do("POST", "/api/campaigns/demo/commands/player.add", ts.tokens["marie"], map[string]any{"command": map[string]any{"player": "x", "role": "umpire"}})
	if r.status != 403 {
		t.Errorf("a player adding an umpire: %d %s", r.status, r.raw)
	}
	r = ts.must(ts.do("GET", "/api/campaigns/demo", ts.tokens["rita"], nil), 200)
	if you := r.body["you"].(map[string]any); you["role"] != "reader" {
		t.Errorf("you = %v", you)
	}
	// A campaign that does not exist answers a token 401, as one that
	// does not know it: no token tells which campaigns exist.
	ts.must(ts.do("GET", "/api/campaigns/nowhere", ts.tokens["rita"], nil), 401)
	ts.must(ts.do("GET", "/api/campaigns/nowhere", "lt_"+strings.Repeat("5a", 20), nil), 401)
	ts.must(ts.do("GET", "/api/campaigns/demo/battles/nowhere/replay", ts.tokens["rita"], nil), 404)
	ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", "", nil), 401)
}

func TestServeRefusalInTwoLanguages(t *testing.T) {
	ts := seed(t)
	before := ts.lastVersion()
	tooFar := map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 22.1}}}
	r := ts.must(ts.command("marie", "b1", "unit.move", tooFar), 422)
	if r.errorField("rule") != "C.17" || r.errorField("code") != "move_too_far" ||
		!strings.Contains(r.errorField("message").(string), `this move is 6.1"`) {
		t.Fatalf("refusal: %s", r.raw)
	}
	nums := r.errorField("numbers").(map[string]any)
	if nums["allowed"] != 6.0 || nums["actions"] != 1.0 {
		t.Errorf("numbers: %v", nums)
	}
	ru := ts.must(ts.command("marie", "b1", "unit.move", tooFar, "Accept-Language", "ru-RU,ru;q=0.9,en;q=0.5"), 422)
	msg := ru.errorField("message").(string)
	if ru.errorField("rule") != "C.17" || ru.errorField("lang") != "ru" || !strings.Contains(msg, `6,1"`) || !strings.Contains(msg, "за действие") {
		t.Fatalf("Russian refusal: %s", ru.raw)
	}
	if ru.errorField("message_en") != r.errorField("message") {
		t.Errorf("message_en %v", ru.errorField("message_en"))
	}
	if q := ts.must(ts.command("marie", "b1", "unit.move", tooFar, "Accept-Language", "en"), 422); q.errorField("lang") != "en" {
		t.Errorf("lang: %s", q.raw)
	}
	if q := ts.do("POST", "/api/campaigns/demo/battles/b1/commands/unit.move?lang=ru", ts.tokens["marie"], tooFar); q.errorField("lang") != "ru" {
		t.Errorf("?lang=ru: %s", q.raw)
	}
	if after := ts.lastVersion(); after != before {
		t.Fatalf("refusals appended events: %d -> %d", before, after)
	}
}

func TestServeIdempotentRepeat(t *testing.T) {
	ts := seed(t)
	body := map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 22}}}
	first := ts.must(ts.command("marie", "b1", "unit.move", body, "Idempotency-Key", "second-move"), 201)
	last := ts.lastVersion()
	again := ts.must(ts.command("marie", "b1", "unit.move", body, "Idempotency-Key", "second-move"), 200)
	if again.body["duplicate"] != true {
		t.Fatalf("repeat not marked duplicate: %s", again.raw)
	}
	id := func(r response) string { return r.body["events"].([]any)[0].(map[string]any)["id"].(string) }
	if id(first) != id(again) {
		t.Errorf("repeat answered %s, first %s", id(again), id(first))
	}
	if ts.lastVersion() != last {
		t.Errorf("the repeat appended")
	}
	// The id in the body works the same; a header that disagrees is refused.
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"id": "second-move", "command": body["command"]}), 200)
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"id": "other", "command": body["command"]}, "Idempotency-Key", "second-move"), 400)
}

// sseEvent is one server-sent event.
type sseEvent struct {
	id   string
	data map[string]any
}

// openStream connects to the battle's live stream and delivers its events
// on a channel until the test ends; query, if given, is added to the URL
// ("lang=ru").
func openStream(t *testing.T, ts *testServer, token, lastID string, query ...string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	url := ts.url + "/api/campaigns/demo/battles/b1/events/stream"
	if len(query) > 0 {
		url += "?" + strings.Join(query, "&")
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	ch := make(chan sseEvent, 64)
	go func() {
		defer res.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
			case line == "" && ev.data != nil:
				ch <- ev
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return sseEvent{}
}

func TestServeStreamDeliversNewEvents(t *testing.T) {
	ts := seed(t)
	last := ts.lastVersion()
	live := openStream(t, ts, ts.tokens["rita"], "")
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 22}}}), 201)
	ev := next(t, live)
	if ev.id != fmt.Sprint(last+1) || ev.data["type"] != "unit.moved" || !strings.Contains(ev.data["description"].(string), "33-ligne moved 6.0") {
		t.Fatalf("event %s %v", ev.id, ev.data)
	}
	// Resuming after an event replays what followed it, then goes on live.
	resumed := openStream(t, ts, ts.tokens["marie"], fmt.Sprint(last-1))
	for v := last; v <= last+1; v++ {
		if ev := next(t, resumed); ev.id != fmt.Sprint(v) {
			t.Fatalf("resumed stream gave %s, want %d", ev.id, v)
		}
	}
	ts.must(ts.command("marie", "b1", "phase.end", map[string]any{"command": map[string]any{"side": "french"}}), 201)
	for _, ch := range []<-chan sseEvent{live, resumed} {
		if ev := next(t, ch); ev.data["type"] != "phase.ended" || ev.id != fmt.Sprint(last+2) {
			t.Fatalf("after phase.end: %s %v", ev.id, ev.data["type"])
		}
	}
}

func TestServeReplayAndQueries(t *testing.T) {
	ts := seed(t)
	token := ts.tokens["rita"]
	evs := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/events", token, nil), 200)
	var moved int
	for _, e := range evs.body["events"].([]any) {
		if e := e.(map[string]any); e["type"] == "unit.moved" {
			moved = int(e["version"].(float64))
		}
	}
	// The state just before and after the move, folded from the log.
	unit := func(b response, id string) map[string]any {
		for _, u := range b.body["units"].([]any) {
			if u := u.(map[string]any); u["unit"] == id {
				return u
			}
		}
		t.Fatalf("no unit %s", id)
		return nil
	}
	at := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d", moved), token, nil), 200)
	before := ts.must(ts.do("GET", fmt.Sprintf("/api/campaigns/demo/battles/b1/replay?version=%d", moved-1), token, nil), 200)
	if u := unit(at, "33-ligne"); u["y"] != 16.0 {
		t.Errorf("after the move: %v", u)
	}
	if u := unit(before, "33-ligne"); u["y"] != 10.0 {
		t.Errorf("before the move: %v", u)
	}
	// The projection's state (GET state) is the fold of the whole log.
	state := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", token, nil), 200)
	last := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/replay", token, nil), 200)
	for _, u := range state.body["units"].([]any) {
		u := u.(map[string]any)
		r := unit(last, u["unit"].(string))
		for _, f := range []string{"x", "y", "facing", "formation", "width", "depth", "status"} {
			if u[f] != r[f] {
				t.Errorf("unit %s %s: state %v, replay %v", u["unit"], f, u[f], r[f])
			}
		}
	}
	// Odds of a proposed order, exact; a refused one is a structured refusal.
	odds := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/odds?general=friant&units=48-ligne", ts.tokens["marie"], nil), 200)
	if odds.body["effective_rating"] != 8.0 || len(odds.body["outcomes"].([]any)) == 0 {
		t.Errorf("odds: %s", odds.raw)
	}
	bad := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/odds?general=nobody&units=48-ligne", ts.tokens["marie"], nil), 422)
	if bad.errorField("rule") != "C.2" {
		t.Errorf("odds refusal: %s", bad.raw)
	}
	// Dice: marie entered 2 physical dice, 3 and 3.
	dice := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/dice", token, nil), 200)
	p := dice.body["people"].([]any)[0].(map[string]any)
	if p["person"] != "marie" || p["dice"] != 2.0 || p["faces"].([]any)[2] != 2.0 || p["expected"] != 2.0/6 {
		t.Errorf("dice: %s", dice.raw)
	}
	// The page and its assets are served.
	for _, path := range []string{"/", "/c/demo", "/c/demo/b/b1?lang=ru", "/static/app.js", "/static/style.css"} {
		res, err := http.Get(ts.url + path)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", path, err, res)
		}
		res.Body.Close()
	}
}

func TestServeGracefulShutdown(t *testing.T) {
	ts := seed(t)
	// Draining: commands get 503 while queries still answer.
	ts.served.web.BeginDrain()
	r := ts.command("marie", "b1", "phase.end", map[string]any{"command": map[string]any{"side": "french"}})
	if r.status != 503 || r.errorField("code") != "draining" {
		t.Fatalf("command while draining: %d %s", r.status, r.raw)
	}
	ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["rita"], nil), 200)
	ts.cancel()
	if err := ts.served.Wait(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	// The projection stopped with every event of the log applied.
	app, err := OpenApp(context.Background(), ts.cfg, AppOptions{Entropy: dicetest.New(ts.t.Name() + "/reopen")})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	cp, _ := app.DB.Checkpoint(context.Background())
	last, _ := app.Log.LastSequence(context.Background())
	if cp != last || last == 0 {
		t.Fatalf("checkpoint %d, log %d", cp, last)
	}
}
