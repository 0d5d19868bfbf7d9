package bench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLiteOpenedAsTheProjection: the bench's code (not its tests, which
// read the files back plainly) opens no SQLite file with a connection
// string of its own: the raw write opens its file with sqlite.OpenSQL, the
// projection's one definition of its settings, so that what it measures
// cannot drift from what the projection runs with.
func TestSQLiteOpenedAsTheProjection(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	read := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		read++
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "sql" && x.Sel.Name == "Open" {
					t.Errorf("%s: sql.Open: open the file with sqlite.OpenSQL", fset.Position(x.Pos()))
				}
			case *ast.BasicLit:
				if x.Kind == token.STRING && (strings.Contains(x.Value, "file:") || strings.Contains(x.Value, "_journal_mode")) {
					t.Errorf("%s: a connection string %s: open the file with sqlite.OpenSQL", fset.Position(x.Pos()), x.Value)
				}
			}
			return true
		})
	}
	if read == 0 {
		t.Fatal("no source read")
	}
}
