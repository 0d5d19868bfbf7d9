package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpLongStartsInRussian: a command's Russian help begins in Russian,
// naming the command as it is typed ("Команда rebuild проецирует ..."),
// not with the English Go-doc subject ("Rebuild проецирует ...", found by
// a tester in ledger projections rebuild --help --lang ru).
func TestHelpLongStartsInRussian(t *testing.T) {
	cat := messages()
	latin := regexp.MustCompile(`^[A-Za-z]+\b`)
	longs := 0
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.Long != "" {
			longs++
			ru, _ := cat.Lookup("ru", helpKey(cmd)+".long")
			// A Latin word of its own (a name as typed: ledger, NATS) may
			// begin it; the English help's first word may not.
			if w := latin.FindString(ru); w != "" && strings.HasPrefix(cmd.Long, w+" ") {
				t.Errorf("%s: the Russian help begins with the English %q: %.60q", cmd.CommandPath(), w, ru)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(helpTree())
	if longs < 20 {
		t.Errorf("only %d long helps found: the walk is broken", longs)
	}
	out := helpOutput(t, "--lang", "ru", "projections", "rebuild", "--help")
	if want := "Команда rebuild проецирует весь журнал в новый файл рядом с живым\n"; !strings.HasPrefix(out, want) {
		t.Errorf("ledger projections rebuild --help --lang ru begins\n%.120s\nwant\n%s", out, want)
	}
}
