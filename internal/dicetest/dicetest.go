// Package dicetest fixes the dice of a test: it gives the ledger's service
// an entropy source chosen by the test harness, so that the secret dice
// seeds (and with them every digital roll) and the flank-march salts are
// the same on every run.
//
// No test may depend on luck (docs/architecture.md, "Tests"). A test that
// drives the service passes Entropy(t) as campaign.Options.Entropy (the CLI
// and serve tests do it through their harness). Its assertions must then
// hold for every sequence of dice, not only for the one the default source
// gives: .ci/run plays the packages that play battles a second time with
// LEDGER_TEST_DICE_SEED set to another value, and an assertion true for one
// sequence only fails at once instead of one run in eighteen.
//
// Only test code imports this package; the program never reads
// LEDGER_TEST_DICE_SEED (cmd/ledger's dependency test checks it).
package dicetest

import (
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

// SeedVar is the environment variable that chooses the harness's dice.
// Unset, the seed is "1".
const SeedVar = "LEDGER_TEST_DICE_SEED"

// Seed returns the harness's dice seed: LEDGER_TEST_DICE_SEED, or "1".
func Seed() string {
	if s := os.Getenv(SeedVar); s != "" {
		return s
	}
	return "1"
}

// Entropy returns a deterministic entropy source for tb: a ChaCha8 stream
// keyed by the harness's seed and the test's name, so that each test has
// its own fixed dice and a second seed changes all of them.
func Entropy(tb testing.TB) io.Reader {
	tb.Helper()
	return New(tb.Name())
}

// New returns the deterministic entropy source for a name, under the
// harness's seed.
func New(name string) io.Reader {
	return &locked{r: rand.NewChaCha8(sha256.Sum256([]byte("ledger-test-dice/" + Seed() + "/" + name)))}
}

// locked makes the source safe for the service's concurrent commands.
type locked struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *locked) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}
