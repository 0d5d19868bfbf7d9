package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependenciesPointInward lists each package's dependencies with `go
// list -deps` and fails on a banned one: the domain never reaches for
// NATS, SQL, the CLI libraries, a clock-free engine never for randomness,
// and adapters never import each other (docs/architecture.md).
func TestDependenciesPointInward(t *testing.T) {
	const mod = "github.com/clubledger/ledger/"
	banned := map[string][]string{
		"rules/...": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http", "math/rand", "crypto/rand",
			mod + "events", mod + "projections", mod + "campaign", mod + "config", mod + "cmd"},
		"events":             {"github.com/nats-io/", "database/sql", "github.com/spf13/", mod + "rules", mod + "projections", mod + "campaign"},
		"projections":        {"github.com/nats-io/", "database/sql", "github.com/spf13/"},
		"campaign":           {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", mod + "projections", mod + "events/jetstream"},
		"config":             {"github.com/spf13/", "github.com/nats-io/", "database/sql"},
		"events/jetstream":   {"database/sql", "github.com/spf13/", mod + "projections", mod + "campaign", mod + "rules"},
		"projections/sqlite": {"github.com/nats-io/", "github.com/spf13/", mod + "events/jetstream", mod + "web"},
		// The web server reads through interfaces and the projections'
		// views; the adapters behind them are wired in cmd/ledger.
		"web": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", mod + "projections/sqlite", mod + "events/jetstream"},
		// The door knows no technology: the log, the vault and the
		// projection reach it through interfaces wired in cmd/ledger.
		"app":    {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http", mod + "projections/sqlite", mod + "events/jetstream", mod + "web", mod + "client"},
		"client": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", mod + "projections/sqlite", mod + "events/jetstream", mod + "web"},
		// The bench measures what cmd/ledger wires and hands it (an
		// Opener): it never reaches for the wiring, nor for the CLI.
		"internal/bench": {mod + "cmd", "github.com/spf13/", "github.com/nats-io/", mod + "events/jetstream", mod + "web"},
	}
	// The program never reads the test harness's dice (internal/dicetest)
	// nor its fuzz budgets (internal/bounded), nor opens the tests' ledger
	// (campaign/campaigntest): only test code imports them.
	for _, pkg := range []string{"cmd/ledger", "web", "campaign", "projections/...", "events/...", "rules/..."} {
		banned[pkg] = append(banned[pkg], mod+"internal/dicetest", mod+"internal/bounded", mod+"campaign/campaigntest")
	}
	for pkg, bans := range banned {
		out, err := exec.Command("go", "list", "-deps", "../../"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bans {
				if dep == b || strings.HasPrefix(dep, b) && (strings.HasSuffix(b, "/") || strings.HasPrefix(dep, b+"/")) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
