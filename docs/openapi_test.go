package docs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

// TestOpenAPIValid loads openapi.yaml (the file `ledger serve` answers at
// /api/openapi.yaml) with kin-openapi and validates it as OpenAPI 3.1, all
// its errors at once. It also fails on a key with no value: in YAML's flow
// style an unquoted comma ends a value, so `{description: a head, checked}`
// is a description "a head" and a key "checked" with nothing, which YAML
// accepts and a validator of the document's fields may not notice.
func TestOpenAPIValid(t *testing.T) {
	var node yaml.Node
	if err := yaml.Unmarshal(OpenAPI, &node); err != nil {
		t.Fatalf("openapi.yaml is not YAML: %v", err)
	}
	for _, e := range emptyKeys(&node, "") {
		t.Errorf("openapi.yaml: %s (quote a value that holds a comma)", e)
	}

	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(OpenAPI)
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi.yaml says openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context, openapi3.EnableMultiError()); err != nil {
		t.Errorf("openapi.yaml is not valid OpenAPI:\n%v", err)
	}
	if l := doc.Info.License; l == nil || l.Identifier != "Apache-2.0" {
		t.Errorf("openapi.yaml's license: %+v, want the identifier Apache-2.0 of the file LICENSE", l)
	}
}

// emptyKeys names the mapping keys of n that have no value (null), with
// their line.
func emptyKeys(n *yaml.Node, at string) []string {
	var out []string
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			out = append(out, emptyKeys(c, fmt.Sprintf("%s/%d", at, i))...)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" && strings.TrimSpace(v.Value) == "" {
				out = append(out, fmt.Sprintf("line %d: the key %q under %s has no value", k.Line, k.Value, at))
			}
			out = append(out, emptyKeys(v, at+"/"+k.Value)...)
		}
	}
	return out
}
