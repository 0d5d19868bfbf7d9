// Package jetstream implements the ledger's events.Log and events.Vault on
// NATS JetStream, and runs the NATS server inside the program when no
// external one is configured (StartEmbedded).
//
// # Stream and subjects
//
// Every event of the ledger is one message of a single stream (default
// "LEDGER") bound to "ledger.>", file storage, kept forever (limits
// retention without limits), with deletes and purges denied by the server,
// atomic batch publish and direct gets allowed. Each consistency boundary
// (events.Key) is one subject:
//
//	ledger.campaign.<campaign>          a campaign's own events
//	ledger.battle.<campaign>.<battle>   the events of one battle
//
// Campaign and battle ids are subject tokens (events.ValidID: no dots,
// spaces or wildcards). This scheme is a public interface: operators and
// other programs subscribe to it ("ledger.battle.autumn-1809.>" is every
// battle of one campaign), so it never changes. Subject returns it.
//
// # Messages
//
// A message's data is exactly the event's stored form (events.Envelope.Raw,
// what the hash chain covers). Its headers are:
//
//	Nats-Msg-Id                          the event id, unique in the log
//	Nats-Expected-Last-Subject-Sequence  on the first event of an append
//	Ledger-Type, Ledger-Version,         informative copies of envelope
//	Ledger-Command, Ledger-Audience      fields, for standard tools
//
// The server deduplicates message ids over the whole stream (not per
// subject) within the duplicate window: event ids must be unique across the
// log, as events.Envelope requires.
//
// # Appending
//
// Append sends one event as a plain publish and several as one atomic batch
// (all or none). Both carry the expected last sequence of the subject; 0
// means "no message on this subject yet", which the server (v2.15) checks
// as such. A plain publish measured about ten times faster than a batch of
// one on a single server (0.3–0.4 ms against 3.6 ms, SyncAlways): for each
// atomic batch of an R1 file stream the server creates, syncs and removes a
// staging file store.
//
// Refusals are mapped once, here: wrong last sequence (API errors 10071,
// and 10164 on replicated streams) is events.ErrConflict, except a 10164
// while nothing was stored after the expected sequence (the leader still
// marks the subject's last write in process just after acknowledging it):
// that append is sent again within its bound. An atomic batch
// with an already stored message id (10201) or a publish acknowledged as a
// duplicate is events.ErrDuplicate. A single server checks a plain
// publish's expected sequence before its message id, so a repeated
// single-event command with its original expectation is answered 10071; a
// conflict whose first event is found stored after the expected sequence is
// therefore reported as events.ErrDuplicate too, which also covers repeats
// older than the duplicate window.
//
// # Reading
//
// Read pages through one subject with direct batch gets (no consumer is
// created on the server), over one reply subscription per Log. Measured on
// an in-process server with the battle's events interleaved with another
// battle's: 10 events in about 0.3 ms (an ordered consumer, created and
// deleted per read, 0.8 ms; jetstreamext.GetBatch, which subscribes per
// request, 0.8 ms), 2,000 events at about 77k events/s (ordered consumer
// about 90k/s, GetBatch 40k/s). Direct gets win where it matters, the
// read before every command, and leave nothing behind on the server.
//
// In a cluster any replica may answer a direct get, and a follower can lag
// the leader by a moment. Read therefore completes an answer that ends
// before an event this Log appended with the leader's message-get API, and
// uses that API alone when no replica serves direct gets yet. Reads of
// events appended through other connections may lag; Append's expected
// sequence turns a decision made on such a read into a conflict.
//
// # Following
//
// Follow reads the whole log through one ordered consumer from a sequence
// the caller keeps (projections store it with their rows), and reports when
// it has caught up with the events that existed when it started.
//
// # Servers
//
// StartEmbedded runs nats-server in the process (SyncAlways on by default,
// no signal handling, no TCP port unless a loopback one is asked for);
// Connect reaches an external server or cluster. Package jstest starts
// servers and clusters for tests.
package jetstream
