package audit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// pythonBlock returns the ```python block of a docs page that starts with first.
func pythonBlock(t *testing.T, page, first string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../docs", page))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := "```python\n" + first
	i := strings.Index(doc, start)
	if i < 0 {
		t.Fatalf("docs/%s has no Python block starting %q", page, first)
	}
	code := doc[i+len("```python\n"):]
	return code[:strings.Index(code, "```")]
}

// TestDocsPythonAudit runs the offline audit of docs/audit.md, with the
// dice reference of docs/dice.md, on a real exported battle (it passes)
// and on a forged one (a digital roll changed and re-chained: it fails,
// naming the roll). It is skipped without python3.
func TestDocsPythonAudit(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("ledger_dice.py", pythonBlock(t, "dice.md", "# ledger-dice-v1 reference implementation\n"))
	write("ledger_ed25519.py", pythonBlock(t, "audit.md", "# Ed25519 signature verification (RFC 8032"))
	script := write("audit_export.py", pythonBlock(t, "audit.md", "# ledger-export offline audit"))
	run := func(file string) (int, string) {
		t.Helper()
		cmd := exec.Command(python, script, file)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatalf("python3: %v", err)
		}
		return 0, string(out)
	}

	evs := playFirstBattle(t)
	recomputed := itoa(uint64(digitalRolls(t, evs))) + " digital rolls recomputed"
	if code, out := run(write("good.jsonl", string(exportBytes(t, evs, false)))); code != 0 || !strings.Contains(out, "OK:") || !strings.Contains(out, recomputed) {
		t.Errorf("the real battle: exit %d\n%s", code, out)
	}

	i := find(t, evs, rules.EvDiceRolled, rollCounter(3))
	edit(t, &evs[i], func(r *rules.DiceRolled) { r.Values = []int{r.Values[1]%6 + 1, r.Values[0]} })
	forged := rechain(t, evs)
	code, out := run(write("forged.jsonl", string(exportBytes(t, forged, false))))
	if code != 1 || !strings.Contains(out, "v"+itoa(forged[i].Version)) || !strings.Contains(out, "roll 3 recomputes") {
		t.Errorf("the forged battle: exit %d\n%s", code, out)
	}

	// An event appended by someone with NATS write access and no key,
	// chained correctly: named as not signed by the ledger.
	for _, s := range []*events.Signer{nil, strangerKey(t, 9)} {
		appended := forgeAfter(t, playFirstBattle(t), s)
		v := "v" + itoa(appended[len(appended)-1].Version)
		if code, out := run(write("appended.jsonl", string(exportBytes(t, appended, false)))); code != 1 || !strings.Contains(out, v) || !strings.Contains(out, "not signed by the ledger") {
			t.Errorf("an appended event: exit %d\n%s", code, out)
		}
	}

	// One byte changed in the file, not re-chained.
	file := exportBytes(t, playFirstBattle(t), false)
	at := strings.Index(string(file), `\"on_behalf_of\":\"karl\"`) + len(`\"on_behalf_of\":\"k`)
	file[at] = 'c'
	if code, out := run(write("flipped.jsonl", string(file))); code != 1 || !strings.Contains(out, "altered") {
		t.Errorf("a flipped byte: exit %d\n%s", code, out)
	}
}
