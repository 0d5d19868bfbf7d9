package audit_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
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
// dice reference of docs/dice.md, on a real exported battle (it passes), on
// the export a ledger wrote by ledger-dice-v2 (it passes), and on a forged one (a digital roll changed and re-chained: it fails,
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
	write("ledger_dice.py", pythonBlock(t, "dice.md", "# ledger-dice reference implementation: ledger-dice-v1, v2 and v3\n"))
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

	// The export a ledger wrote by ledger-dice-v2: its rolls still recompute.
	oldV2, err := os.ReadFile(v2Export)
	if err != nil {
		t.Fatal(err)
	}
	if code, out := run(write("v2.jsonl", string(oldV2))); code != 0 || !strings.Contains(out, "5 digital rolls recomputed") {
		t.Errorf("the export written by v2: exit %d\n%s", code, out)
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

// verifierReport is what docs/verify_dice.py --json prints.
type verifierReport struct {
	Battle       string            `json:"battle"`
	DigitalRolls int               `json:"digital_rolls"`
	Recomputed   int               `json:"recomputed"`
	Unverified   int               `json:"unverified"`
	V1Rolls      int               `json:"v1_rolls"`
	Nonces       map[string][2]int `json:"nonces"`
	EnteredFor   map[string]int    `json:"entered_for"`
	Problems     []string          `json:"problems"`
}

// runVerifier runs docs/verify_dice.py --json on an export file.
func runVerifier(t *testing.T, python, file string) (int, verifierReport) {
	t.Helper()
	cmd := exec.Command(python, "../../docs/verify_dice.py", "--json", file)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var r verifierReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("verify_dice.py printed %q: %v", out, err)
	}
	return code, r
}

// TestIndependentVerifierAgrees runs the independent verifier of
// docs/dice.md section 12 (docs/verify_dice.py, Python, written from the
// page alone) on exported battles and requires it to agree with the
// ledger's audit: a battle played with player nonces over two periods, one
// begun with ledger-dice-v1, one begun with ledger-dice-v2 (rolling by v3
// now), the export a ledger wrote by ledger-dice-v2 (testdata), the example
// battle (no player nonces), and a forgery of the first (one nonce changed,
// re-signed by the key holder), where both name the same roll: the same
// rolls recomputed, charged to the same people, the same rolls entered for
// a player. It is skipped without python3.
func TestIndependentVerifierAgrees(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	dir := t.TempDir()
	nonced := playNoncedBattle(t, dice.Scheme)
	noncedEvs := nonced.evs
	playerRoll := find(t, noncedEvs, rules.EvDiceRolled, func(e events.Envelope) bool {
		var r rules.DiceRolled
		return json.Unmarshal(e.Payload, &r) == nil && r.Nonce != ""
	})
	forged := cloneEnvs(noncedEvs)
	edit(t, &forged[playerRoll], func(r *rules.DiceRolled) { r.Nonce = otherNonce(t, noncedEvs, playerRoll) })
	forged = rechainWith(t, forged, nonced.l.Keys.Signer)

	oldV2, err := os.ReadFile(v2Export)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		evs  []events.Envelope
		raw  []byte
	}{
		{"nonced", noncedEvs, nil},
		{"v1", playNoncedBattle(t, dice.SchemeV1).evs, nil},
		{"begun with v2", playNoncedBattle(t, dice.SchemeV2).evs, nil},
		{"written by v2", nil, oldV2},
		{"first battle", playFirstBattle(t), nil},
		{"forged", forged, nil},
	} {
		raw := c.raw
		if raw == nil {
			raw = exportBytes(t, c.evs, false)
		}
		file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		rep := readExport(t, raw).Verify()
		code, py := runVerifier(t, python, file)

		// What the ledger's audit says, in the verifier's terms.
		want := verifierReport{Battle: rep.Campaign + "/" + rep.Battle, Nonces: map[string][2]int{}, EnteredFor: map[string]int{}}
		for _, p := range rep.Periods {
			want.DigitalRolls += p.DigitalRolls
			want.Recomputed += p.Recomputed
			if p.Scheme == dice.SchemeV1 {
				want.V1Rolls += p.DigitalRolls
			}
		}
		for _, p := range rep.Players {
			if p.NonceRolls+p.NoNonceRolls > 0 {
				want.Nonces[p.Player] = [2]int{p.NonceRolls, p.NoNonceRolls}
			}
			for _, e := range p.EnteredFor {
				want.EnteredFor[e.By+" for "+e.For] = e.Rolls
			}
		}
		got := py
		got.Problems = nil
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the verifier says %+v, the audit %+v", c.name, got, want)
		}
		if c.name != "forged" {
			if code != 0 || len(py.Problems) != 0 || rep.Failed() || want.Recomputed != want.DigitalRolls || want.DigitalRolls == 0 {
				t.Errorf("%s: verifier exit %d %v; audit failed %v", c.name, code, py.Problems, rep.Failures())
			}
			continue
		}
		f := firstFailure(t, rep, audit.CheckRolls)
		roll := fmt.Sprintf("roll %d ", f.Counter)
		if code != 1 || len(py.Problems) != 1 || !strings.Contains(py.Problems[0], fmt.Sprintf("v%d ", forged[playerRoll].Version)) ||
			!strings.Contains(py.Problems[0], roll+"recomputes") || f.Version != forged[playerRoll].Version {
			t.Errorf("the forgery: verifier exit %d %v; audit %s", code, py.Problems, f)
		}
	}
}
