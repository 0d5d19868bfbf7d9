package jetstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
)

// DefaultRequestTimeout bounds every request the log and the vault send to
// the server (an append, one page of a read, a head, a stream info), unless
// the caller's context ends sooner. A server that does not answer within it
// (no quorum, a leader being elected, a lost connection) makes the call
// fail with events.ErrUnavailable instead of hanging. 1.5 s is far above a
// healthy answer (well under 10 ms on loopback, a few ms on a LAN with
// fsync) and keeps a failed append within 2 s. Config.RequestTimeout
// changes it.
const DefaultRequestTimeout = 1500 * time.Millisecond

// DefaultOpenWait bounds how long Open and OpenVault retry a server that
// does not answer yet (a cluster electing its leaders right after a start)
// before they give up with events.ErrUnavailable: a CLI started with no
// quorum answers within a few seconds.
const DefaultOpenWait = 4 * time.Second

// JetStream API error codes that mean the store cannot answer now.
var unavailableCodes = map[natsjs.ErrorCode]string{
	10008: "the JetStream cluster is not available (no quorum, or a leader being elected)",                 // JSClusterNotAvailErr
	10005: "no JetStream servers to place the stream on",                                                   // JSClusterNoPeersErrF
	10009: "the server asked is not the JetStream leader",                                                  // JSClusterNotLeaderErr
	10023: "the server has insufficient resources (no space left)",                                         // JSInsufficientResourcesErr
	10047: "the server has no storage left",                                                                // JSStorageResourcesExceededErr
	10028: "the server has no memory left",                                                                 // JSMemoryResourcesExceededErr
	10077: "the server failed to store the message",                                                        // JSStreamStoreFailedF
	10118: "the stream is offline",                                                                         // JSStreamOfflineErr
	10176: "the atomic batch was not completed (a leader changed or a server stopped)",                     // JSAtomicPublishIncompleteBatchErr
	10076: "JetStream is not enabled on the server (it may have stopped it: disk full?)",                   // JSNotEnabledErr
	10039: "JetStream is not enabled for the account",                                                      // JSNotEnabledForAccountErr
	10158: "an earlier attempt with the same message id is being stored right now (try again in a moment)", // JSStreamDuplicateMessageConflict
	10210: "the server has too many atomic batches in flight",                                              // atomic publish too many inflight
	10211: "the server has too many batches in flight",                                                     // batch publish too many inflight
}

// unavailable wraps err as events.ErrUnavailable, with what happened in
// words, when it is a way the server fails to answer; otherwise it returns
// err unchanged. An error that already is ErrUnavailable stays as it is.
func unavailable(err error) error {
	if err == nil || errors.Is(err, events.ErrUnavailable) {
		return err
	}
	if why := unavailableWhy(err); why != "" {
		return fmt.Errorf("%w: %s (%v)", events.ErrUnavailable, why, err)
	}
	return err
}

// unavailableWhy says in words how err means the server did not answer, or
// "" if it does not.
func unavailableWhy(err error) string {
	var apiErr *natsjs.APIError
	if errors.As(err, &apiErr) {
		if why, ok := unavailableCodes[apiErr.ErrorCode]; ok {
			return why
		}
		return ""
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return "the server did not answer in time (no quorum, a leader being elected, or the connection lost; try again in a few seconds)"
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, natsjs.ErrNoStreamResponse):
		return "no server answered for the stream (no leader, or the servers are down)"
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrDisconnected),
		errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrConnectionDraining),
		errors.Is(err, nats.ErrNoServers), errors.Is(err, nats.ErrStaleConnection):
		return "the connection to the NATS server is down"
	}
	return ""
}

// bounded returns ctx limited to d from now, unless it already ends sooner.
func bounded(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
