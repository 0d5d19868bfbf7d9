package audit

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// TestDocsVectors recomputes every published test vector of docs/dice.md
// section 6, both schemes, read from the page itself, with the audit's
// recomputation.
func TestDocsVectors(t *testing.T) {
	b, err := os.ReadFile("../../docs/dice.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	seeds := map[string]string{}
	for _, m := range regexp.MustCompile("seed ([AB]) `([0-9a-f]{64})`,\\s+commitment `([0-9a-f]{64})`").FindAllStringSubmatch(doc, -1) {
		seeds[m[1]] = m[2]
		if err := dice.Verify(m[2], m[3]); err != nil {
			t.Errorf("seed %s: %v", m[1], err)
		}
	}
	m := regexp.MustCompile("(?s)Players' seeds used by the Borodino vectors: `(\\{.*?\\})`").FindStringSubmatch(doc)
	if len(seeds) != 2 || m == nil {
		t.Fatalf("docs/dice.md: seeds %v, Borodino players %v", seeds, m)
	}
	var borodino map[string]string
	if err := json.Unmarshal([]byte(strings.ReplaceAll(m[1], "\n", " ")), &borodino); err != nil {
		t.Fatal(err)
	}
	playerSeeds := func(p string) map[string]string {
		switch p {
		case "none":
			return map[string]string{}
		case "Borodino":
			return borodino
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(strings.Trim(p, "`")), &m); err != nil {
			t.Fatalf("vector players %s: %v", p, err)
		}
		return m
	}
	ints := func(s string) []int {
		var out []int
		for _, f := range strings.Split(s, ",") {
			v, _ := strconv.Atoi(strings.TrimSpace(f))
			out = append(out, v)
		}
		return out
	}
	check := func(id, scheme, seed, battle, period, players string, ev *rules.DiceRolled, n, sides, want string) {
		t.Helper()
		nn, _ := strconv.Atoi(n)
		ns, _ := strconv.Atoi(sides)
		got, err := recomputeRoll(scheme, seeds[seed], playerSeeds(players), battle, period, ev, nn, ns)
		if err != nil || !slices.Equal(got, ints(want)) {
			t.Errorf("vector %s: audit recomputes %v (%v), docs publish %v", id, got, err, ints(want))
		}
	}

	v1 := regexp.MustCompile("(?m)^\\| (\\d+) \\| ([AB]) \\| `([^`]+)` \\| `([^`]+)` \\| (none|Borodino|`[^`]+`) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| ([\\d, ]+)")
	rows := v1.FindAllStringSubmatch(doc, -1)
	if len(rows) != 7 {
		t.Fatalf("found %d ledger-dice-v1 vector rows in docs/dice.md, want 7", len(rows))
	}
	for _, r := range rows {
		counter, _ := strconv.ParseUint(r[6], 10, 64)
		check(r[1], dice.SchemeV1, r[2], r[3], r[4], r[5], &rules.DiceRolled{Counter: counter}, r[7], r[8], r[9])
	}

	defs := regexp.MustCompile("Nonce N is\\s+`([0-9a-f]+)`; the page's command id P is `([^`]+)`").FindStringSubmatch(doc)
	if defs == nil {
		t.Fatal("docs/dice.md does not define nonce N and command id P")
	}
	v2 := regexp.MustCompile("(?m)^\\| (\\d+) \\| ([AB]) \\| `([^`]+)` \\| `([^`]+)` \\| (none|Borodino|`[^`]+`) \\| (\\d+) \\| (P|`[^`]+`) \\| (N|none|`[0-9a-f]+`) \\| (\\d+) \\| (\\d+) \\| ([\\d, ]+)")
	rows = v2.FindAllStringSubmatch(doc, -1)
	if len(rows) != 7 {
		t.Fatalf("found %d ledger-dice-v2 vector rows in docs/dice.md, want 7", len(rows))
	}
	for _, r := range rows {
		counter, _ := strconv.ParseUint(r[6], 10, 64)
		ev := &rules.DiceRolled{Counter: counter, CommandID: strings.Trim(r[7], "`"), Nonce: strings.Trim(r[8], "`")}
		if r[7] == "P" {
			ev.CommandID = defs[2]
		}
		switch r[8] {
		case "N":
			ev.Nonce = defs[1]
		case "none":
			ev.Nonce = ""
		}
		check(r[1], dice.SchemeV2, r[2], r[3], r[4], r[5], ev, r[9], r[10], r[11])
	}
}

// TestOrderOddsAgreeWithRules: the audit's exact outcome probabilities,
// from the effective rating alone, are those of rules.Odds for the same
// order (which plans it from the state) for every rating and special.
func TestOrderOddsAgreeWithRules(t *testing.T) {
	rs := rules.DefaultRuleset()
	for eff := -2; eff <= 14; eff++ {
		for _, special := range []string{"", rules.SpecialFollowMe, rules.SpecialSteady} {
			odds := orderOdds(rs, special, eff)
			total := 0.0
			for _, p := range odds {
				total += p
			}
			if total < 1-1e-12 || total > 1+1e-12 {
				t.Errorf("rating %d %q: probabilities sum to %v", eff, special, total)
			}
			if special == "" {
				// Every face combination, as C.3/C.5 read it.
				ways := map[outcomeKey]int{}
				for a := 1; a <= 6; a++ {
					for b := 1; b <= 6; b++ {
						o, n := rs.Command.Resolve([]int{a, b}, eff)
						ways[outcomeKey{o, n}]++
					}
				}
				for k, w := range ways {
					if odds[k]*36 < float64(w)-1e-9 || odds[k]*36 > float64(w)+1e-9 {
						t.Errorf("rating %d: %v %v/36, want %d/36", eff, k, odds[k]*36, w)
					}
				}
			}
		}
	}
	// Against rules.Odds on a real order, with a C.7 modifier.
	s := oddsState(t)
	res, err := rules.Odds(s, &rules.GiveOrder{General: "vukassovich", Units: []string{"ir-4"}, Content: rules.OrderContent{Action: rules.ActionMove}})
	if err != nil {
		t.Fatal(err)
	}
	mine := orderOdds(s.Ruleset, "", res.Effective)
	for _, o := range res.Outcomes {
		if got := mine[outcomeKey{o.Outcome, o.Actions}]; got < o.Probability-1e-12 || got > o.Probability+1e-12 {
			t.Errorf("%s %d: audit %v, rules.Odds %v", o.Outcome, o.Actions, got, o.Probability)
		}
	}
}

// oddsState decides and applies a small battle up to turn 2, the
// Austrians' command phase, with Vukassovich 8" from his unit.
func oddsState(t *testing.T) *rules.State {
	t.Helper()
	s := rules.NewState()
	apply := func(cmd rules.Command) {
		t.Helper()
		evs, err := rules.Decide(s, cmd, rules.NewFixedDice(1, 1, 1, 1))
		if err != nil {
			t.Fatalf("%s: %v", cmd.CommandName(), err)
		}
		for _, e := range evs {
			rules.Apply(s, e)
		}
	}
	decode := func(name, body string) rules.Command {
		t.Helper()
		c, err := rules.DecodeCommand(name, []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return c
	}
	apply(decode(rules.CmdBattleCreate, `{"battle":"b","name":"B","measurement":"in","table":{"width":72,"depth":48},"first_side":"french","sides":[{"id":"french","name":"F"},{"id":"austrians","name":"A"}]}`))
	apply(decode(rules.CmdArmyDeploy, `{"side":"french","c_in_c":{"id":"davout","name":"D","rating":9,"position":{"x":36,"y":3}},"brigades":[{"id":"bf","name":"F","order":"attack","general":{"id":"friant","name":"F","rating":8,"position":{"x":30,"y":8}},"units":[{"id":"33-ligne","type":"infantry","position":{"x":24,"y":10},"facing":0}]}]}`))
	apply(decode(rules.CmdArmyDeploy, `{"side":"austrians","c_in_c":{"id":"charles","name":"C","rating":8,"position":{"x":36,"y":45}},"brigades":[{"id":"ba","name":"A","order":"defend","general":{"id":"vukassovich","name":"V","rating":7,"position":{"x":30,"y":40}},"units":[{"id":"ir-4","type":"infantry","position":{"x":30,"y":38},"facing":180}]}]}`))
	apply(rules.WithDiceCommitment(decode(rules.CmdBattleStart, `{}`), strings.Repeat("ab", 32)))
	for range 3 {
		apply(decode(rules.CmdPhaseEnd, `{"side":"french"}`))
	}
	return s
}

// TestPure: the package's own files import neither NATS nor SQL nor
// anything that reads a clock, draws randomness or does I/O beyond the
// io.Reader and io.Writer it is given; nor do its dependencies bring NATS
// or SQLite in (docs/architecture.md: dependencies point inward).
func TestPure(t *testing.T) {
	banned := map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "database/sql": true,
		"math/rand": true, "math/rand/v2": true, "crypto/rand": true, "syscall": true, "unsafe": true}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if banned[p] || strings.Contains(p, "nats") || strings.Contains(p, "sqlite") || strings.Contains(p, "/projections") || strings.Contains(p, "/events/jetstream") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found: transitive imports not checked")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "nats") || strings.Contains(p, "sqlite") || p == "database/sql" || p == "net/http" {
			t.Errorf("the audit depends on %s", p)
		}
	}
}
