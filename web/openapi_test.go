package web_test

import (
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/clubledger/ledger/docs"
	"github.com/clubledger/ledger/web"
)

// TestOpenAPIMatchesTheRoutes: docs/openapi.yaml (served at
// /api/openapi.yaml) describes exactly the API's routes, method by method:
// a route added to the server without the document, or a document path the
// server does not have, fails here. Every operation answers something and
// every $ref points at a component that exists.
func TestOpenAPIMatchesTheRoutes(t *testing.T) {
	var doc struct {
		OpenAPI    string                          `yaml:"openapi"`
		Paths      map[string]map[string]yaml.Node `yaml:"paths"`
		Components map[string]map[string]yaml.Node `yaml:"components"`
	}
	if err := yaml.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1", doc.OpenAPI)
	}
	var documented, served []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if method == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
			var o struct {
				Responses map[string]yaml.Node `yaml:"responses"`
			}
			if err := op.Decode(&o); err != nil || len(o.Responses) == 0 {
				t.Errorf("%s %s answers nothing in the document", method, path)
			}
		}
	}
	for _, r := range web.Routes() {
		served = append(served, r.Method+" "+r.Path)
	}
	sort.Strings(documented)
	sort.Strings(served)
	if strings.Join(documented, "\n") != strings.Join(served, "\n") {
		t.Errorf("the document and the server differ:\ndocumented:\n  %s\nserved:\n  %s", strings.Join(documented, "\n  "), strings.Join(served, "\n  "))
	}
	// Every reference resolves.
	for _, ref := range refs(docs.OpenAPI) {
		parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
		if len(parts) != 2 {
			t.Errorf("reference %q", ref)
			continue
		}
		if _, ok := doc.Components[parts[0]][parts[1]]; !ok {
			t.Errorf("reference %q points at nothing", ref)
		}
	}
}

// refs lists every $ref value of the document.
func refs(b []byte) []string {
	var out []string
	for _, line := range strings.Split(string(b), "$ref: ")[1:] {
		v := strings.Trim(strings.FieldsFunc(line, func(r rune) bool { return r == '}' || r == ',' || r == '\n' })[0], `"' `)
		out = append(out, v)
	}
	return out
}
