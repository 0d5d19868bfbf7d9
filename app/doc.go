// Package app is the ledger's one door: every command and every query,
// from every edge, passes through it, with who is asking.
//
// The edges are thin twins. The HTTP handlers (web/) decode a request,
// call a Session's method and encode its answer; the CLI (cmd/ledger)
// parses flags, calls the same method and prints a table. When `ledger
// serve` owns a data folder the CLI reaches it through the local door, a
// Unix socket in that folder that speaks the same HTTP API, with the
// client in package client implementing the same API interface; when no
// server owns the folder, the CLI opens the ledger itself and calls a
// Session directly. Either way the same code decides.
//
// A Session is the ledger as one Caller sees it: the operator (the owner of
// the data folder, or the server's admin token) or a person of a campaign
// (by their token). The service (campaign.Service) authorises every
// command on the very state the rules decide it on; the queries here show
// each caller only what they may see (a flank march's sealed orders only
// to its own side and the umpire; events by audience; no token hashes).
//
// Each query has one source, named in its doc comment: the log folded
// through the rules (state, replay, events, dice, disputes, audit), or the
// SQLite projection (the campaign list, a campaign's battles with where
// they stand, and its standings with the sequence they are true at; see
// Session.Standings for what still comes from the log).
package app
