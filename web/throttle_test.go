package web_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/web"
)

// TestThrottleFailedTokens: 50 wrong tokens sent from one address within
// about a second meet 429 once the address has spent its failed checks
// (the default: 20 in a row, then one every 3 s), each with Retry-After
// and the refusal in words, in English and Russian, naming the setting
// and the numbers; a good token that opened the campaign from that
// address before still answers 200 while it is throttled.
func TestThrottleFailedTokens(t *testing.T) {
	s := startServer(t, web.Options{})
	s.seed()
	state := "/api/campaigns/demo/battles/b1/state"
	s.must(s.do("GET", state, s.tokens["marie"], nil), 200)

	start := time.Now()
	var unauthorized, throttled int
	for i := range 50 {
		lang := "en"
		if i%2 == 1 {
			lang = "ru"
		}
		r := s.do("GET", state+"?lang="+lang, fmt.Sprintf("lt_%040d", i), nil)
		switch r.status {
		case 401:
			if throttled > 0 {
				t.Errorf("guess %d: 401 after a 429 (%s since the first guess)", i+1, time.Since(start))
			}
			unauthorized++
		case 429:
			throttled++
			msg, _ := r.errorField("message").(string)
			retry, err := strconv.Atoi(r.header.Get("Retry-After"))
			want := map[string]string{"en": "20 a minute", "ru": "20 в минуту"}[lang]
			if err != nil || retry < 1 || retry > 3 || r.errorField("code") != "too_many_failed_tokens" ||
				!strings.Contains(msg, want) || !strings.Contains(msg, "http.token_failures_per_minute") ||
				!strings.Contains(msg, strconv.Itoa(retry)) {
				t.Errorf("guess %d (%s): 429 with Retry-After %q: %s", i+1, lang, r.header.Get("Retry-After"), r.raw)
			}
		default:
			t.Fatalf("guess %d: %d %s", i+1, r.status, r.raw)
		}
	}
	elapsed := time.Since(start)
	t.Logf("50 wrong tokens in %s: %d answered 401, %d 429", elapsed.Round(time.Millisecond), unauthorized, throttled)
	// 20 in a row, and one more for every 3 s the guesses took.
	if most := 20 + int(elapsed/(3*time.Second)); unauthorized < 20 || unauthorized > most || throttled == 0 {
		t.Errorf("%d answered 401 and %d 429 in %s: want 20 to %d 401s, then 429s", unauthorized, throttled, elapsed, most)
	}
	// marie's token opened the campaign from here before: still good.
	s.must(s.do("GET", state, s.tokens["marie"], nil), 200)
	s.must(s.command(s.tokens["marie"], "b1", "unit.move", "{not json"), 400)
	// The operator's admin token is never throttled.
	s.must(s.do("GET", state, adminToken, nil), 200)
}

// TestThrottleBounded: each address has its own failed checks (a
// throttled one does not slow another), and the throttle holds at most its
// number of addresses, forgetting the one used longest ago. One failed
// check is given back an hour: nothing comes back while the test runs,
// however slow the machine.
func TestThrottleBounded(t *testing.T) {
	s := startServer(t, web.Options{Throttle: web.Throttle{Burst: 3, Every: time.Hour, Addresses: 4}})
	s.seed()
	state := "/api/campaigns/demo/battles/b1/state"
	spend := func(ip string) {
		t.Helper()
		c := from(t, ip)
		for i := range 3 {
			if r := s.doWith(c, "GET", state, "lt_wrong", nil); r.status != 401 {
				t.Fatalf("%s: wrong token %d of 3: %d %s", ip, i+1, r.status, r.raw)
			}
		}
		r := s.doWith(c, "GET", state, "lt_wrong", nil)
		if retry, _ := strconv.Atoi(r.header.Get("Retry-After")); r.status != 429 || retry < 3000 || retry > 3600 {
			t.Fatalf("%s: the 4th wrong token: %d, Retry-After %q: %s", ip, r.status, r.header.Get("Retry-After"), r.raw)
		}
	}
	for i := 1; i <= 6; i++ {
		spend(fmt.Sprintf("127.0.0.%d", i))
		if n := s.web.Throttled(); n > 4 {
			t.Fatalf("after %d addresses the throttle holds %d, want at most 4", i, n)
		}
	}
	// 127.0.0.6 is still throttled; 127.0.0.1, used longest ago, was
	// forgotten: its wrong tokens are checked again.
	if r := s.doWith(from(t, "127.0.0.6"), "GET", state, "lt_wrong", nil); r.status != 429 {
		t.Errorf("127.0.0.6 again: %d", r.status)
	}
	if r := s.doWith(from(t, "127.0.0.1"), "GET", state, "lt_wrong", nil); r.status != 401 {
		t.Errorf("127.0.0.1, forgotten: %d", r.status)
	}
}
