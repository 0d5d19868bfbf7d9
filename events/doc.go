// Package events defines the ledger's event envelope, the per-stream hash chain,
// the codec registry with its upcasters, and the Log interface that stores
// implement. It knows nothing of NATS: events/jetstream implements Log on
// JetStream.
//
// The log is the truth (docs/principles.md principle 1): every battle and every
// campaign is one stream of envelopes, each carrying the hash of the one
// before it (principle 5), appended with optimistic concurrency and
// idempotency.
package events
