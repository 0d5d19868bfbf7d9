package rules

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPurity: the package's own files import only the standard library
// (minus anything that reads a clock, draws randomness or does I/O),
// go.yaml.in/yaml/v3, github.com/go-json-experiment/json/v1 and rules/geom
// or rules/dice (docs/architecture.md: the rules engine is pure).
func TestPurity(t *testing.T) {
	banned := map[string]bool{
		"math/rand": true, "math/rand/v2": true, "crypto/rand": true, "time": true,
		"os": true, "os/exec": true, "io/ioutil": true, "net": true, "net/http": true,
		"database/sql": true, "sync": true, "syscall": true, "unsafe": true,
	}
	allowedModule := map[string]bool{
		"go.yaml.in/yaml/v3": true,
		// encoding/json's semantics on encoding/json/v2 (the standard
		// library's from Go 1.27), for stored payloads: no clock, no I/O.
		"github.com/go-json-experiment/json/v1":   true,
		"github.com/go-json-experiment/json":      true,
		"github.com/clubledger/ledger/rules/geom": true,
		"github.com/clubledger/ledger/rules/dice": true,
	}
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
			std := !strings.Contains(strings.Split(p, "/")[0], ".")
			switch {
			case std && banned[p]:
				t.Errorf("%s imports %s: the rules engine has no clock, randomness or I/O", f, p)
			case !std && !allowedModule[p]:
				t.Errorf("%s imports %s: only yaml, go-json-experiment/json (and its v1) and rules/geom, rules/dice are allowed", f, p)
			}
		}
	}
}
