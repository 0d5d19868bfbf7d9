package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeStartProblemsSayWhatToDo: ledger serve on a port another
// program uses, or with a certificate file that cannot be read, exits 1
// with "error:" like every other refusal, saying what to do.
func TestServeStartProblemsSayWhatToDo(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	c := newCLI(t)
	c.cfg.HTTP.Addr = busy.Addr().String()
	code, _, errs := c.run("serve")
	if code != exitError || !strings.Contains(errs, "\nerror: http: ") && !strings.HasPrefix(errs, "error: http: ") || strings.Contains(errs, "Error:") || !strings.Contains(errs, "another program uses this port; choose another http.addr") {
		t.Errorf("serve on a port in use: exit %d\n%s", code, errs)
	}

	c = newCLI(t)
	c.cfg.HTTP.Addr = "127.0.0.1:0"
	c.cfg.HTTP.TLSCert, c.cfg.HTTP.TLSKey = filepath.Join(t.TempDir(), "nope.crt"), filepath.Join(t.TempDir(), "nope.key")
	code, _, errs = c.run("serve")
	if code != exitError || !strings.Contains(errs, "\nerror: http: ") && !strings.HasPrefix(errs, "error: http: ") || strings.Contains(errs, "Error:") || !strings.Contains(errs, "cannot be read: check http.tls_cert") {
		t.Errorf("serve with a certificate file that cannot be read: exit %d\n%s", code, errs)
	}
}
