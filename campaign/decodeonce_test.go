package campaign_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestBodyDecodedOnce reads the package's own sources (go/parser, tests
// left out) for every call that builds a Go value from a command's JSON
// body: json.Unmarshal, rules.DecodeCommand, or Decode on a json.Decoder
// made over the body (a body is an identifier body or a field .Body). All
// of them are in one function, decodeBody, which one call, in Execute,
// makes per command: the limits scan (CheckBody) reads tokens and builds
// no value, and the authorizer and the decision take the decoded value
// (issue 29). Before, the body was decoded by CheckBody, authorize,
// strictJSON and executeBattle.
func TestBodyDecodedOnce(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	decoders := map[string]int{} // function → body-decoding calls
	calls := map[string]int{}    // function → calls of decodeBody
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			// made: the decoders the function makes, by variable, and
			// whether they read a body.
			made := map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
					for i, r := range as.Rhs {
						if c, ok := r.(*ast.CallExpr); ok && isCall(c, "json", "NewDecoder") && len(c.Args) == 1 {
							if id, ok := as.Lhs[i].(*ast.Ident); ok {
								made[id.Name] = readsBody(c.Args[0])
							}
						}
					}
				}
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "decodeBody" {
					calls[fn.Name.Name]++
				}
				switch {
				case isCall(c, "json", "Unmarshal") && len(c.Args) > 0 && readsBody(c.Args[0]),
					isCall(c, "rules", "DecodeCommand") && len(c.Args) > 1 && readsBody(c.Args[1]):
					decoders[fn.Name.Name]++
				default:
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Decode" {
						if id, ok := sel.X.(*ast.Ident); ok && made[id.Name] {
							decoders[fn.Name.Name]++
						}
					}
				}
				return true
			})
		}
	}
	if len(decoders) != 1 || decoders["decodeBody"] == 0 {
		t.Errorf("functions decoding a command's body: %v; want decodeBody alone", sorted(decoders))
	}
	if len(calls) != 1 || calls["Execute"] != 1 {
		t.Errorf("calls of decodeBody: %v; want one, in Execute", sorted(calls))
	}
}

// isCall reports whether c calls pkg.name.
func isCall(c *ast.CallExpr, pkg, name string) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// readsBody reports whether e mentions a body: an identifier body or a
// field Body.
func readsBody(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			found = found || x.Name == "body"
		case *ast.SelectorExpr:
			found = found || x.Sel.Name == "Body"
		}
		return !found
	})
	return found
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s (%d)", k, v))
	}
	sort.Strings(out)
	return out
}
