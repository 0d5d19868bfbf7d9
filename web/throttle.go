package web

import (
	linked "container/list"
	"crypto/sha256"
	"math"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Throttle bounds the failed token checks one client address may make: a
// token the ledger does not know costs the address one of Burst checks,
// given back at one every Every; with none left, no new token from that
// address is checked (429 with Retry-After) until one is given back. A
// token that has opened a campaign from the address before is checked as
// ever: a good token is never slowed by a stranger guessing beside it (a
// club's tablets often share one address). Addresses bounds the addresses
// held: past it the one used longest ago is forgotten (nothing a client
// sends may cost unbounded memory).
type Throttle struct {
	Burst     int
	Every     time.Duration
	Addresses int
}

// DefaultThrottle is the throttle when Options.Throttle leaves a field at
// 0: 20 failed checks in a row, then one every 3 s (20 a minute: config
// http.token_failures_per_minute), 10,000 addresses (under 10 MB in all:
// TestThrottleMemory).
var DefaultThrottle = Throttle{Burst: 20, Every: 3 * time.Second, Addresses: 10000}

// fingerprint is a token's SHA-256, cut to 128 bits: enough to tell the
// tokens that opened a campaign from one address apart.
type fingerprint [16]byte

// goodTokens is how many tokens that opened a campaign from an address the
// throttle remembers for it (the tablets behind one address).
const goodTokens = 32

// throttle holds, by client address, what its token checks cost: a token
// bucket (golang.org/x/time/rate) and the tokens known to be good from it.
type throttle struct {
	cfg Throttle

	mu    sync.Mutex
	addrs map[netip.Prefix]*linked.Element // of *address
	lru   linked.List                      // front: used last
}

type address struct {
	key     netip.Prefix
	lim     *rate.Limiter
	pending int                     // checks of unknown tokens under way
	good    [goodTokens]fingerprint // of good tokens
	ngood   int
}

func newThrottle(cfg Throttle) *throttle {
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultThrottle.Burst
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultThrottle.Every
	}
	if cfg.Addresses <= 0 {
		cfg.Addresses = DefaultThrottle.Addresses
	}
	return &throttle{cfg: cfg, addrs: map[netip.Prefix]*linked.Element{}}
}

// clientKey is what the throttle counts by: the connection's address, an
// IPv6 one by its /64 (what one household or club is given). ok is false
// when the address is not an IP address (the local door's socket).
func clientKey(remote string) (netip.Prefix, bool) {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return netip.Prefix{}, false
	}
	a := ap.Addr().Unmap()
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, err := a.Prefix(bits)
	return p, err == nil
}

// entry returns key's address, made if new, as used last (t.mu held).
func (t *throttle) entry(key netip.Prefix) *address {
	if el, ok := t.addrs[key]; ok {
		t.lru.MoveToFront(el)
		return el.Value.(*address)
	}
	for len(t.addrs) >= t.cfg.Addresses {
		old := t.lru.Back()
		delete(t.addrs, old.Value.(*address).key)
		t.lru.Remove(old)
	}
	a := &address{key: key, lim: rate.NewLimiter(rate.Every(t.cfg.Every), t.cfg.Burst)}
	t.addrs[key] = t.lru.PushFront(a)
	return a
}

func (a *address) knows(fp fingerprint) bool {
	for i := range min(a.ngood, goodTokens) {
		if a.good[i] == fp {
			return true
		}
	}
	return false
}

// A check is one token check from an address: begin it, then say how it
// went with done.
type check struct {
	t       *throttle
	a       *address
	fp      fingerprint
	pending bool
}

// begin starts a check of token from key: ok false, with the seconds to
// wait, when the address has no failed check left and the token is not one
// it knows.
func (t *throttle) begin(key netip.Prefix, token string, now time.Time) (c check, retryAfter int, ok bool) {
	sum := sha256.Sum256([]byte(token))
	fp := fingerprint(sum[:16])
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.entry(key)
	c = check{t: t, a: a, fp: fp}
	if a.knows(fp) {
		return c, 0, true
	}
	left := a.lim.TokensAt(now) - float64(a.pending)
	if left < 1 {
		wait := (1 - left) * t.cfg.Every.Seconds()
		return c, max(1, int(math.Ceil(wait))), false
	}
	a.pending++
	c.pending = true
	return c, 0, true
}

// outcome is how a token check went.
type outcome int

const (
	failed  outcome = iota // the ledger does not know the token
	passed                 // the token opened the campaign
	unknown                // neither: no such campaign, the log did not answer
)

// done ends a check: a failed one costs the address one check; a token
// that passed is known from here on.
func (c check) done(o outcome, now time.Time) {
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	if c.pending {
		c.a.pending--
	}
	switch o {
	case failed:
		c.a.lim.AllowN(now, 1)
		return
	case unknown:
		return
	}
	if !c.a.knows(c.fp) {
		c.a.good[c.a.ngood%goodTokens] = c.fp
		c.a.ngood++
	}
}

// size is how many addresses the throttle holds.
func (t *throttle) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.addrs)
}
