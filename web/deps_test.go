package web

import (
	"go/build"
	"strings"
	"testing"
)

// TestWebImports keeps the HTTP edge off the log's technology: it talks to
// the log through events.Log and never imports NATS or the JetStream
// adapter (docs/architecture.md: adapters do not import each other).
func TestWebImports(t *testing.T) {
	for _, dir := range []string{"."} {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if strings.Contains(imp, "nats") || strings.HasSuffix(imp, "/events/jetstream") || strings.Contains(imp, "spf13") {
				t.Errorf("web/%s imports %s", dir, imp)
			}
		}
	}
}
