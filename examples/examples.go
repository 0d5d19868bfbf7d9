// Package examples holds the example scenarios shipped with the ledger
// (docs/scenario-format.md). They are embedded so that `ledger demo` works
// from any folder, and the test suite plays every one of them.
package examples

import "embed"

// FS holds every example scenario and the files they include.
//
//go:embed *.yaml
var FS embed.FS

// Demo is the scenario `ledger demo` plays.
const Demo = "first-battle.yaml"
