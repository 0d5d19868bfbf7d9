package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
)

// TestNoSentenceParsing (issue 29: "the CLI parses prefixes of
// sentence-valued API fields"): the CLI reads who signed an event from
// EventView.Signature, the projector's state from Status.ProjectorState and
// a scenario step's outcome from StepResult.State / Step.Expected, never by
// cutting the sentences kept for older clients. Its non-test sources read
// neither EventView.Signed nor Status.Projector, nor events.ImportedSuffix,
// and hold no string literal that begins as those sentences do.
func TestNoSentenceParsing(t *testing.T) {
	prefixes := []string{"signed ", "unsigned", "NOT SIGNED", "stopped: ", "stopped:", "running", "refused "}
	fields := map[string]string{
		"Signed":    "EventView.Signed (read Signature)",
		"Projector": "Status.Projector (read ProjectorState)",
	}
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(x.Value)
				if err != nil {
					return true
				}
				for _, pre := range prefixes {
					if strings.HasPrefix(s, pre) {
						t.Errorf("%s: the literal %q begins as a sentence of the API does (%q): read the field's parts instead", fset.Position(x.Pos()), s, pre)
					}
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "events" && x.Sel.Name == "ImportedSuffix" {
					t.Errorf("%s: events.ImportedSuffix cuts EventView.Signed: read EventView.Signature", fset.Position(x.Pos()))
				}
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "app" {
					return true // a name of package app (app.Projector), no field
				}
				if why, ok := fields[x.Sel.Name]; ok {
					t.Errorf("%s: .%s reads %s", fset.Position(x.Pos()), x.Sel.Name, why)
				}
			}
			return true
		})
	}
	if files == 0 {
		t.Fatal("no Go sources read")
	}
}

// TestProjectorStateThroughTheDoor: `ledger projections status` beside a
// running `ledger serve` asks it through the door's socket and says its
// projector runs, from Status.ProjectorState; -o json gives the state in
// parts and the sentence kept for older clients.
func TestProjectorStateThroughTheDoor(t *testing.T) {
	data := t.TempDir()
	startServe(t, data)
	code, out, errs := cliRun(t, data, "projections", "status")
	if code != 0 || !strings.Contains(out, "projector (ledger serve): running\n") {
		t.Errorf("projections status: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cliRun(t, data, "projections", "status", "-o", "json")
	var st app.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("projections status -o json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	if st.ProjectorState == nil || *st.ProjectorState != (app.ProjectorState{State: app.ProjectorRunning}) || st.Projector != "running" {
		t.Errorf("projections status -o json: projector_state %+v, projector %q", st.ProjectorState, st.Projector)
	}
}

// TestPlaySaysStepStates: `ledger play` says each step's outcome from
// StepResult.State and what a step expected from Step.Expected, in the
// same words as when it cut "refused <rule>": played twice into one
// ledger, the first battle's C.17 step is refused for T.5 (the battle has
// ended), which the expectation names.
func TestPlaySaysStepStates(t *testing.T) {
	c := newCLI(t)
	if out := c.ok("play", "../../examples/first-battle.yaml"); !strings.Contains(out, "]: refused C.17\n") {
		t.Errorf("play:\n%s", out)
	}
	code, out, errs := c.run("play", "../../examples/first-battle.yaml")
	if code != exitCheck || !strings.Contains(out, "]: refused T.5\n") || !strings.Contains(out, "!! expected refused C.17, got refused T.5\n") || !strings.Contains(out, "]: duplicate\n") {
		t.Errorf("play again: exit %d\n%s\n%s", code, out, errs)
	}
}
