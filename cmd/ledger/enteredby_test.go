package main

import (
	"strings"
	"testing"
)

// TestNoEnteredByFlag: the commands that take physical dice have no
// --entered-by: it once did nothing (the dice were recorded as entered by
// the actor whatever it named), and no flag may name who entered them, the
// service records the person the command is for. Asked for, it is a usage
// error that names the flag, and nothing is run.
func TestNoEnteredByFlag(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{
		{"order", "c/b", "--general", "friant", "--units", "33-ligne", "--dice", "3,3", "--entered-by", "karl"},
		{"move", "c/b", "33-ligne", "--to", "20,18", "--dice", "3", "--entered-by", "karl"},
		{"do", "c/b", "order.give", "--json", `{"general":"friant","units":["33-ligne"]}`, "--dice", "3,3", "--entered-by", "karl"},
	} {
		code, out, errs := c.run(args...)
		if want := "ledger " + args[0] + " has no flag --entered-by"; code != exitUsage || !strings.Contains(errs, want) {
			t.Errorf("ledger %s: exit %d, stderr %q, want exit %d saying %q (stdout %.100q)", strings.Join(args, " "), code, errs, exitUsage, want, out)
		}
	}
}
