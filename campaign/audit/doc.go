// Package audit verifies a battle from its events alone: the hash chain
// (docs/principles.md principle 5), the dice commitments and reveals, every digital
// roll recomputed from the revealed seed (principle 4, docs/dice.md), the
// roll counters, and every order's reading of its roll against the battle's
// recorded ruleset; then it sums up whose dice ran hot.
//
// It also writes and reads the export format, ledger-export-v1: one battle
// as one self-contained JSON Lines file that keeps every event's stored
// bytes verbatim, so that the audit (or any other program, docs/audit.md)
// can recompute every hash from the file alone.
//
// The package is pure: functions over []events.Envelope and io streams, no
// NATS, no SQL, no clock. The CLI (`ledger audit`, `ledger export`) reads
// the live log or a file and hands the events here.
package audit
