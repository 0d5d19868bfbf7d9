package campaign

import (
	"sync"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

var (
	registryOnce sync.Once
	registry     *events.Registry
)

// Registry returns every event type the ledger writes: the campaign's own
// and the rules engine's, with their schema versions and upcasters.
func Registry() *events.Registry {
	registryOnce.Do(func() {
		r := events.NewRegistry()
		r.Register(EvCreated, 1, "a campaign was opened: its name, era, sides and ruleset overlay")
		r.Register(EvBattleAdded, 1, "a battle was added to the campaign, numbered in order")
		r.Register(EvPlayerAdded, 1, "a person was given a role (umpire, player of a side, reader) and a token, stored as its SHA-256")
		r.Register(EvTokenReissued, 1, "a person's token was replaced; the old one no longer works")
		events.RegisterTypes(r) // ledger.key_changed
		for _, t := range rules.EventTypes() {
			r.Register(t.Name, t.Schema, t.Doc)
		}
		registerUpcasters(r)
		registry = r
	})
	return registry
}

// registerUpcasters is where an event type whose payload changed gets the
// function that upgrades its older payloads on read.
func registerUpcasters(r *events.Registry) {}
