// Package campaign holds campaigns (sides, battles in order, standings) and
// the Service that runs a command: load the stream's state, decide with the
// pure rules engine, append the resulting events with the expected position,
// and on a conflict load again and decide again, a bounded number of times.
//
// The service is where everything non-deterministic is stamped on a command:
// the time, the actor, event ids, and the dice (digital from the committed
// seed, or physical values entered by a player). The rules engine only sees
// values.
package campaign
