package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/config"
)

// TestHealthCommand: `ledger health` (the container's healthcheck) exits 0
// against a ready server, printing its /readyz answer, and 1 against an
// address nothing answers on.
func TestHealthCommand(t *testing.T) {
	ts := startServer(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, out, errs := runConfigured(t, "health", "--url", ts.url)
		if code == 0 {
			if !strings.Contains(out, `"ready": true`) {
				t.Errorf("ready, but printed %q", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a running server not ready after 30 s: exit %d\n%s\n%s", code, out, errs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, _, errs := runConfigured(t, "health", "--url", "http://127.0.0.1:9", "--timeout", "2s")
	if code != 1 || !strings.Contains(errs, "not ready") {
		t.Errorf("nothing listening: exit %d, want 1 saying not ready\n%s", code, errs)
	}
	if got := readyURL("0.0.0.0:8080", false); got != "http://127.0.0.1:8080" {
		t.Errorf("readyURL(0.0.0.0:8080) = %s", got)
	}
}

// TestHealthTrustsTheConfiguredCertificate: against a server speaking
// HTTPS with a self-signed certificate (docs/club.md), `ledger health`
// with the same configuration trusts its http.tls_cert, and --cacert
// trusts a given file; a certificate it is not told of is still refused.
func TestHealthTrustsTheConfiguredCertificate(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	ts := startServerWith(t, func(c *config.Config) { c.HTTP.TLSCert, c.HTTP.TLSKey = cert, key })
	if !strings.HasPrefix(ts.url, "https://") {
		t.Fatalf("served at %s", ts.url)
	}
	addr := strings.TrimPrefix(ts.url, "https://")
	ready := func(args ...string) (int, string, string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, out, errs := runConfigured(t, args...)
			if code == 0 || strings.Contains(errs, "certificate") || time.Now().After(deadline) {
				return code, out, errs
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	t.Setenv("LEDGER_HTTP_ADDR", addr)
	t.Setenv("LEDGER_HTTP_TLS_CERT", cert)
	t.Setenv("LEDGER_HTTP_TLS_KEY", key)
	if code, out, errs := ready("--data", t.TempDir(), "health"); code != 0 || !strings.Contains(out, `"ready": true`) {
		t.Errorf("health with the server's configuration: exit %d\n%s\n%s", code, out, errs)
	}
	os.Unsetenv("LEDGER_HTTP_TLS_CERT")
	os.Unsetenv("LEDGER_HTTP_TLS_KEY")
	if code, out, errs := ready("--data", t.TempDir(), "health", "--url", ts.url, "--cacert", cert); code != 0 {
		t.Errorf("health --cacert: exit %d\n%s\n%s", code, out, errs)
	}
	other, _ := selfSigned(t, t.TempDir())
	if code, _, errs := runConfigured(t, "--data", t.TempDir(), "health", "--url", ts.url, "--cacert", other); code != 1 || !strings.Contains(errs, "certificate") {
		t.Errorf("health trusting another certificate: exit %d, want 1\n%s", code, errs)
	}
}
