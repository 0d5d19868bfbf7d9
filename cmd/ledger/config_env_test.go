package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runConfigured runs the ledger's Main as a user would, configuration from
// a file, LEDGER_* variables and flags (not set directly as newCLI does).
func runConfigured(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb, nil, nil)
	return code, out.String(), errb.String()
}

// TestConfigUnknownEnv: a LEDGER_* variable that sets no configuration key
// is refused (exit 2), naming it and the variable it may have meant, as an
// unknown key in ledger.yaml is; a known variable is applied, and the test
// harness's own variables (LEDGER_TEST_DICE_SEED...) are let through.
func TestConfigUnknownEnv(t *testing.T) {
	data := t.TempDir()
	t.Setenv("LEDGER_HTTP_ADRR", "127.0.0.1:9")
	t.Setenv("LEDGER_NATS_REPLICA", "3")
	code, out, errs := runConfigured(t, "--data", data, "config")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (usage)\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"LEDGER_HTTP_ADRR (did you mean LEDGER_HTTP_ADDR?)", "LEDGER_NATS_REPLICA (did you mean LEDGER_NATS_REPLICAS?)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, errs)
		}
	}

	os.Unsetenv("LEDGER_HTTP_ADRR")
	os.Unsetenv("LEDGER_NATS_REPLICA")
	t.Setenv("LEDGER_HTTP_ADDR", "127.0.0.1:9")
	t.Setenv("LEDGER_TEST_DICE_SEED", "1")
	code, out, errs = runConfigured(t, "--data", data, "config")
	if code != 0 || !strings.Contains(out, "127.0.0.1:9") {
		t.Fatalf("a known variable: exit %d\n%s\n%s", code, out, errs)
	}

	// The file's typo is refused as before.
	file := filepath.Join(t.TempDir(), "ledger.yaml")
	if err := os.WriteFile(file, []byte("http:\n  adrr: 127.0.0.1:9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runConfigured(t, "--data", data, "--config", file, "config")
	if code != 2 || !strings.Contains(errs, `unknown key "http.adrr"`) {
		t.Errorf("a typo in the file: exit %d\n%s", code, errs)
	}
}
