package main

import (
	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// describe says in words what an event records, for tables and logs.
func describe(e events.Envelope) string {
	payload, err := campaign.Registry().Upcast(&e)
	if err != nil {
		return err.Error()
	}
	if e.Battle == "" {
		return campaign.Describe(e, payload)
	}
	ev, err := rules.DecodeEvent(e.Type, payload)
	if err != nil {
		return err.Error()
	}
	return rules.Describe(ev)
}
