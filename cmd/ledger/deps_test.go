package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/clubledger/ledger/"

// dependencyBans are what each package (a "/..." pattern: and everything
// under it) must not depend on: an import path, or a prefix of one ending
// in "/" (docs/architecture.md, "What a package must not import", says the
// same: TestDependencyBansDocumented).
func dependencyBans() map[string][]string {
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
		// Words and pictures: text and drawing from the rules' values,
		// below the door and everything that stores, serves or wires.
		"i18n": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http", "math/rand", "crypto/rand",
			mod + "events", mod + "campaign", mod + "projections", mod + "app", mod + "picture", mod + "report", mod + "web", mod + "client", mod + "config", mod + "cmd"},
		"picture": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http", "math/rand", "crypto/rand",
			mod + "events", mod + "campaign", mod + "projections", mod + "app", mod + "report", mod + "web", mod + "client", mod + "config", mod + "cmd"},
		// The report reads the door's queries (app.API), whoever answers
		// them: never the adapters behind the door, nor a server's client.
		"report": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http",
			mod + "events/jetstream", mod + "projections/sqlite", mod + "web", mod + "client", mod + "config", mod + "cmd"},
		// The key file's adapter knows the events' signer and sealer only.
		"keys": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http",
			mod + "rules", mod + "campaign", mod + "projections", mod + "app", mod + "web", mod + "client", mod + "config", mod + "cmd"},
		// The figures are handed over (an app.Observer, a wrapped
		// events.Log): no adapter of the log or the projection. Its
		// prometheus/client_golang brings database/sql (a collector of
		// sql.DBStats) and net/http (/metrics): those are allowed.
		"metrics": {"github.com/nats-io/", "github.com/mattn/go-sqlite3", "github.com/spf13/",
			mod + "events/jetstream", mod + "projections", mod + "web", mod + "client", mod + "config", mod + "cmd"},
		// A backup reads and writes through events.Log and events.Vault:
		// the NATS adapter behind them is wired in cmd/ledger.
		"campaign/backup": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http",
			mod + "events/jetstream", mod + "projections", mod + "app", mod + "web", mod + "client", mod + "config", mod + "cmd"},
		// Commands for benchmarks and load tests, sent by whoever runs them.
		"campaign/loadgen": {"github.com/nats-io/", "database/sql", "github.com/mattn/go-sqlite3", "github.com/spf13/", "net/http",
			mod + "events/jetstream", mod + "projections", mod + "app", mod + "web", mod + "client", mod + "config", mod + "cmd"},
	}
	// The program never reads the test harness's dice (internal/dicetest)
	// nor its fuzz budgets (internal/bounded), nor opens the tests' ledger
	// (campaign/campaigntest): only test code imports them.
	for _, pkg := range []string{"cmd/ledger", "web", "campaign", "projections/...", "events/...", "rules/..."} {
		banned[pkg] = append(banned[pkg], mod+"internal/dicetest", mod+"internal/bounded", mod+"campaign/campaigntest")
	}
	return banned
}

// TestDependenciesPointInward lists each package's dependencies with `go
// list -deps` and fails on a banned one (dependencyBans): the domain never
// reaches for NATS, SQL, the CLI libraries, a clock-free engine never for
// randomness, and adapters never import each other (docs/architecture.md).
func TestDependenciesPointInward(t *testing.T) {
	for pkg, bans := range dependencyBans() {
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

// TestDependencyBansDocumented: docs/architecture.md's table "What a
// package must not import" says what dependencyBans holds, row by row:
// "NATS" is github.com/nats-io/, "the CLI libraries" github.com/spf13/,
// mattn/go-sqlite3 github.com/mattn/go-sqlite3, other plain words import
// paths, a `name` this module's package; a parenthesis is a comment.
func TestDependencyBansDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "### What a package must not import\n")
	if !ok {
		t.Fatal("docs/architecture.md has no section \"What a package must not import\"")
	}
	ticked := regexp.MustCompile("`([^`]+)`")
	paren := regexp.MustCompile(`\([^)]*\)`)
	doc := map[string][]string{}
	inTable := false
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != 2 || strings.HasPrefix(cells[0], "---") || strings.TrimSpace(cells[0]) == "package" {
			continue
		}
		// The packages: "`rules/` and everything under it", or "`a`, `b`,
		// and everything under `c/` and `d/`".
		var pkgs []string
		plain, under, _ := strings.Cut(cells[0], "everything under")
		for _, m := range ticked.FindAllStringSubmatch(plain, -1) {
			name := strings.TrimSuffix(m[1], "/")
			if strings.Contains(under, " it") {
				name += "/..."
			}
			pkgs = append(pkgs, name)
		}
		for _, m := range ticked.FindAllStringSubmatch(under, -1) {
			pkgs = append(pkgs, strings.TrimSuffix(m[1], "/")+"/...")
		}
		var bans []string
		for _, item := range strings.FieldsFunc(paren.ReplaceAllString(cells[1], ""), func(r rune) bool { return r == ',' || r == ';' }) {
			item = strings.TrimSpace(item)
			switch {
			case strings.HasPrefix(item, "`"):
				bans = append(bans, mod+strings.TrimSuffix(strings.Trim(item, "`"), "/"))
			case item == "NATS":
				bans = append(bans, "github.com/nats-io/")
			case item == "the CLI libraries":
				bans = append(bans, "github.com/spf13/")
			case item == "mattn/go-sqlite3":
				bans = append(bans, "github.com/mattn/go-sqlite3")
			case item != "":
				bans = append(bans, item)
			}
		}
		if len(pkgs) == 0 || len(bans) == 0 {
			t.Errorf("docs/architecture.md: a row not read: %s", l)
		}
		for _, p := range pkgs {
			doc[p] = append(doc[p], bans...)
		}
	}
	code := dependencyBans()
	for pkg := range code {
		if _, ok := doc[pkg]; !ok {
			doc[pkg] = nil
		}
	}
	for pkg, bans := range doc {
		want := slices.Sorted(slices.Values(code[pkg]))
		got := slices.Sorted(slices.Values(bans))
		if !slices.Equal(got, want) {
			t.Errorf("%s: docs/architecture.md bans %v, TestDependenciesPointInward %v", pkg, got, want)
		}
	}
}
