// Package web is the ledger's HTTP face: the JSON API for every command and
// query of the CLI, a live stream of a battle's events (server-sent events),
// the web page where a battle is played (the battlefield map with a
// timeline, the play panel, the event log with each decision's reason, the
// dice, disputes and the audit), and the server's health, readiness and
// metrics, all served by the one binary.
//
// It is a thin edge over the ledger's one door (package app): a handler
// decodes the request, finds who asks (a person's bearer token, the
// server's admin token, or the local door's owner), calls that caller's
// app.Session and encodes its answer. Who may do what, and what each caller
// may read, is decided behind the door, never here. Errors are mapped to
// HTTP statuses once, in errors.go; every answer carries the security
// headers of headers.go. The page is plain HTML, CSS and JavaScript embedded
// with go:embed: no build step. The battlefield is drawn by package picture
// alone (GET .../battlefield.svg), the same renderer `ledger picture` uses.
// Texts come from the message catalogues in package i18n. docs/api.md and
// docs/openapi.yaml document the routes.
package web
