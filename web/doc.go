// Package web is the ledger's HTTP face: the JSON API for every command and
// query of the CLI, a live stream of a battle's events (server-sent events),
// and the web page (battlefield map with a timeline, the event log with each
// decision's reason, the dice view), all served by the one binary.
//
// It is an edge: it authenticates a request by the campaign's tokens
// (campaign.State.Authenticate), decides who may give a command and read an
// event, hands commands to campaign.Service and reads the SQLite projection
// through the ReadModel interface; errors are mapped to HTTP statuses once,
// in errors.go. The page is plain HTML, CSS and JavaScript embedded with
// go:embed: no build step. The battlefield is drawn by web/svg alone: the
// page fetches GET .../battlefield.svg (picture.go) and inlines it, and
// `ledger picture` uses the same renderer. Texts and refusal messages come from the message
// catalogues in web/i18n. docs/api.md documents the routes.
package web
