package dice

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const docsPath = "../../docs/dice.md"

// readDocs returns docs/dice.md, the specification this package implements.
func readDocs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatalf("read the specification: %v", err)
	}
	return string(b)
}

// TestDocsVectors keeps the published test vectors in step with the code.
func TestDocsVectors(t *testing.T) {
	doc := readDocs(t)
	for _, v := range vectors {
		for _, s := range []string{v.block0, v.commit, v.seed, "| " + joinInts(v.want)} {
			if !strings.Contains(doc, s) {
				t.Errorf("vector %q: %s not in %s", v.name, s, docsPath)
			}
		}
	}
}

// joinInts formats dice as the docs' table does: "4, 6, 3".
func joinInts(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// referenceStart opens the Python reference block of docs/dice.md.
const referenceStart = "```python\n# ledger-dice reference implementation: ledger-dice-v1, v2 and v3\n"

// referenceBlock returns the Python reference implementation of docs/dice.md.
func referenceBlock(t *testing.T) string {
	t.Helper()
	doc := readDocs(t)
	i := strings.Index(doc, referenceStart)
	if i < 0 {
		t.Fatalf("no Python reference block in %s", docsPath)
	}
	code := doc[i+len("```python\n"):]
	return code[:strings.Index(code, "```")]
}

// TestDocsPythonReference runs the Python reference implementation published
// in docs/dice.md on every test vector. It is skipped without python3.
func TestDocsPythonReference(t *testing.T) {
	runPythonVectors(t, referenceBlock(t))
}

// verifierPath is the independent verifier of docs/dice.md section 12.
const verifierPath = "../../docs/verify_dice.py"

// TestVerifierCarriesTheReference: the verifier's derivation is the
// reference of docs/dice.md section 7, verbatim.
func TestVerifierCarriesTheReference(t *testing.T) {
	b, err := os.ReadFile(verifierPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), referenceBlock(t)) {
		t.Errorf("%s does not carry the reference implementation of %s section 7 verbatim", verifierPath, docsPath)
	}
}

// TestVerifierAgreesOnVectors runs the test vectors through the verifier
// script itself, imported as a module. It is skipped without python3.
func TestVerifierAgreesOnVectors(t *testing.T) {
	runPythonVectors(t, "import sys\nsys.path.insert(0, '../../docs')\nfrom verify_dice import *\n")
}

// runPythonVectors runs code, which must define roll, commitment and
// verify as docs/dice.md section 7 does, on every vector.
func runPythonVectors(t *testing.T, code string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	type pyVector struct {
		Seed    string      `json:"seed"`
		Battle  string      `json:"battle"`
		Period  string      `json:"period"`
		Players [][2]string `json:"players"` // in descending order: the reference must sort
		Counter uint64      `json:"counter"`
		N       int         `json:"n"`
		Sides   int         `json:"sides"`
		Scheme  string      `json:"scheme"`
		Command string      `json:"command"`
		Nonce   string      `json:"nonce"`
	}
	type pyResult struct {
		Roll   []int  `json:"roll"`
		Commit string `json:"commit"`
		Verify bool   `json:"verify"`
	}
	var in []pyVector
	for _, v := range vectors {
		players := [][2]string{}
		for id, seed := range v.players {
			players = append(players, [2]string{id, seed})
		}
		slices.SortFunc(players, func(a, b [2]string) int { return strings.Compare(b[0], a[0]) })
		in = append(in, pyVector{v.seed, v.battle, v.period, players, v.counter, v.n, v.sides, v.schemeName(), v.command, v.nonce})
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	driver := code + `
import json, sys
out = []
for v in json.load(sys.stdin):
    if v["scheme"] == "ledger-dice-v1":  # the v1 call, as before v2
        r = roll(v["seed"], v["battle"], v["period"], dict(v["players"]), v["counter"], v["n"], v["sides"])
    else:
        r = roll(v["seed"], v["battle"], v["period"], dict(v["players"]), v["counter"], v["n"], v["sides"],
                 v["scheme"], v["command"], v["nonce"])
    out.append({"roll": r, "commit": commitment(v["seed"]), "verify": verify(v["seed"], commitment(v["seed"]).upper())})
json.dump(out, sys.stdout)
`
	cmd := exec.Command(python, "-c", driver)
	cmd.Stdin = strings.NewReader(string(stdin))
	stdout, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("python3: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("python3: %v", err)
	}
	var got []pyResult
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("python3 output %q: %v", stdout, err)
	}
	if len(got) != len(vectors) {
		t.Fatalf("python3 returned %d results for %d vectors", len(got), len(vectors))
	}
	for i, v := range vectors {
		if !slices.Equal(got[i].Roll, v.want) || got[i].Commit != v.commit || !got[i].Verify {
			t.Errorf("vector %q: python3 gives %+v, want roll %v commitment %s", v.name, got[i], v.want, v.commit)
		}
	}
}
