package geom

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPurity keeps the package pure (docs/architecture.md, "the rules engine"): its
// non-test files may import only these standard packages, so no clock,
// randomness, I/O or third-party code creeps in.
func TestPurity(t *testing.T) {
	allowed := map[string]bool{"fmt": true, "math": true, "sort": true, "strings": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[p] {
				t.Errorf("%s imports %q: geom may use only %v", f, p, allowed)
			}
		}
	}
}
