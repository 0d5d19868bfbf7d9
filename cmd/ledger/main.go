// Command ledger is the campaign ledger: it records a battle's orders, dice
// and moves as events on NATS JetStream, checks each against the rules, and
// keeps SQLite projections of battlefield and campaign.
//
// Run `ledger --help` for the subcommands; README.md shows the first steps.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
