package memlog_test

import (
	"testing"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/eventstest"
	"github.com/clubledger/ledger/events/memlog"
)

// TestConformance: the in-memory log keeps the events.Log contract the
// JetStream log keeps (events/eventstest, the same suite): appends all or
// none with their expected last sequence, a batch sent again is a
// duplicate, streams apart, following in log order, the head.
func TestConformance(t *testing.T) {
	shared := memlog.New()
	eventstest.Run(t, func(t *testing.T) events.Log { return shared })
}
