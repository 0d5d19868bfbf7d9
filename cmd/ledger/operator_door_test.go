package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestDependenciesOperatorWorkBehindTheDoor reads the Go sources of the
// program (cmd/ledger, tests aside) and fails on a call that does the
// operator's work on the projection itself: building a projection file
// (sqlite.Build, sqlite.AsidePath, sqlite.FileCheckpoint), swapping one in
// ((*sqlite.DB).Swap, SwapWhileProjecting) or comparing tables (Digest,
// Compare). Those belong to projections/sqlite (Rebuild, Verify), reached
// only through the door (app.Admin, which adminOps wires in app.go, and
// which nothing else makes to call around the door): so the CLI on a
// folder it owns rebuilds and verifies as a server does, with the same
// authorization, and only decodes flags, calls and prints (issue 29).
// Likewise nothing here appends to the log (Log.Append, four arguments) or
// defines an Append of its own: every event is the service's, through the
// door; the gate that refuses appends while the log lost events or the
// store cannot write is events.Gate, wired here.
func TestDependenciesOperatorWorkBehindTheDoor(t *testing.T) {
	// Functions of package sqlite the program may not call.
	funcs := map[string]bool{"Build": true, "AsidePath": true, "FileCheckpoint": true}
	// Methods the program may not call, on whatever value: the names are
	// the projection's own; Swap counts with two arguments or more
	// ((*sqlite.DB).Swap(ctx, built); sync/atomic's Swap takes one).
	methods := map[string]int{"Swap": 2, "SwapWhileProjecting": 1, "Digest": 1, "Compare": 1, "Append": 4}
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		// The name package sqlite goes by in this file, if it imports it.
		sqliteName := ""
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == "github.com/clubledger/ledger/projections/sqlite" {
				sqliteName = "sqlite"
				if imp.Name != nil {
					sqliteName = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Name == "Append" {
				t.Errorf("%s defines an Append: appending to the log is the service's, behind the door (events.Gate gates it)", fset.Position(fd.Pos()))
				return true
			}
			if lit, ok := n.(*ast.CompositeLit); ok {
				// adminOps is the door's wiring: made once, for app.Admin
				// (OpenApp), never called around the door.
				if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "adminOps" && p != "app.go" {
					t.Errorf("%s makes an adminOps: the operator's work is reached through the door (app.API), whose Admin OpenApp wires", fset.Position(lit.Pos()))
				}
				return true
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && sqliteName != "" && id.Name == sqliteName && funcs[sel.Sel.Name] {
				t.Errorf("%s calls %s.%s: the operator's work on the projection is projections/sqlite's (Rebuild, Verify), reached through the door (app.Admin)",
					fset.Position(call.Pos()), id.Name, sel.Sel.Name)
				return true
			}
			if min, ok := methods[sel.Sel.Name]; ok && len(call.Args) >= min && sel.Sel.Name == "Append" {
				t.Errorf("%s calls .Append: appending to the log is the service's, behind the door", fset.Position(call.Pos()))
			} else if ok && len(call.Args) >= min {
				t.Errorf("%s calls .%s: the operator's work on the projection is projections/sqlite's (Rebuild, Verify), reached through the door (app.Admin)",
					fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("read only %d source files of cmd/ledger", checked)
	}
}
