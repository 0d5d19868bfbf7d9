package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/viper"

	"github.com/clubledger/ledger/app"
)

// TestRetryAdviceNamesTheIDOnlyWhenThereIsOne: an unavailable log, or a
// data folder that stayed busy, tells a command of the campaign's to send
// it again with the same --id, and a query or an admin command (state,
// projections rebuild: no --id flag) to run it again.
func TestRetryAdviceNamesTheIDOnlyWhenThereIsOne(t *testing.T) {
	for _, hasID := range []bool{true, false} {
		var errb bytes.Buffer
		c := &cli{v: viper.New(), stderr: &errb, hasID: hasID}
		if code := c.exit(&app.Error{Kind: app.KindUnavailable, Code: "unavailable", Message: "the log is down"}); code != exitUnavailable {
			t.Errorf("hasID %v: exit %d, want %d", hasID, code, exitUnavailable)
		}
		if got := strings.Contains(errb.String(), "--id"); got != hasID {
			t.Errorf("hasID %v: unavailable says --id %v:\n%s", hasID, got, errb.String())
		}
		if !hasID && !strings.Contains(errb.String(), "run the command again") {
			t.Errorf("no --id: unavailable does not say to run it again:\n%s", errb.String())
		}
	}

	data := t.TempDir()
	held, err := lockFolder(data, "test holding the folder")
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	code, out, errs := cliRun(t, data, "state", "club/b1")
	if code != exitUnavailable || !strings.Contains(errs, "nothing was sent; run the same command again") || strings.Contains(errs, "--id") {
		t.Fatalf("a query on a busy folder: exit %d, want %d saying to run it again, no --id\n%s\n%s", code, exitUnavailable, out, errs)
	}
}
