package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
)

// numPendingHeader is set by the server on each message of a direct batch
// get: how many matching messages follow it.
const numPendingHeader = "Nats-Num-Pending"

// Direct gets (AllowDirect) are answered by any replica that is nearly
// caught up, so their answer may miss the newest messages. The stream's
// message-get API ($JS.API.STREAM.MSG.GET) is answered by the leader only:
// slower (one message per request) but never behind an acknowledgement.
// nats.go's Stream.GetMsg switches to direct gets when the stream allows
// them, hence this small client of the leader API.

type leaderGetRequest struct {
	Seq     uint64 `json:"seq,omitempty"`
	LastFor string `json:"last_by_subj,omitempty"`
	NextFor string `json:"next_by_subj,omitempty"`
}

type leaderGetResponse struct {
	Error   *natsjs.APIError `json:"error,omitempty"`
	Message *struct {
		Subject  string `json:"subject"`
		Sequence uint64 `json:"seq"`
		Header   []byte `json:"hdrs,omitempty"`
		Data     []byte `json:"data,omitempty"`
	} `json:"message,omitempty"`
}

// errNoMessage is the leader's "no message found".
var errNoMessage = errors.New("no message found")

// leaderGet asks stream's leader for one message: the first at or after
// req.Seq on req.NextFor, or the last on req.LastFor.
func leaderGet(ctx context.Context, js natsjs.JetStream, stream string, req leaderGetRequest) (seq uint64, hdr nats.Header, data []byte, err error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, nil, nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
		defer cancel()
	}
	msg, err := js.Conn().RequestWithContext(ctx, apiSubject(js, "STREAM.MSG.GET."+stream), body)
	if err != nil {
		return 0, nil, nil, err
	}
	var resp leaderGetResponse
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return 0, nil, nil, fmt.Errorf("message get: %w", err)
	}
	if resp.Error != nil {
		if resp.Error.ErrorCode == codeMessageNotFound {
			return 0, nil, nil, errNoMessage
		}
		return 0, nil, nil, resp.Error
	}
	if resp.Message == nil {
		return 0, nil, nil, errors.New("message get: empty answer")
	}
	if len(resp.Message.Header) > 0 {
		if hdr, err = nats.DecodeHeadersMsg(resp.Message.Header); err != nil {
			return 0, nil, nil, fmt.Errorf("message get: %w", err)
		}
	}
	return resp.Message.Sequence, hdr, resp.Message.Data, nil
}

// apiSubject prefixes a JetStream API subject the way the client is set up
// (API prefix, domain, or the default $JS.API.).
func apiSubject(js natsjs.JetStream, subj string) string {
	o := js.Options()
	switch {
	case o.APIPrefix != "":
		return strings.TrimSuffix(o.APIPrefix, ".") + "." + subj
	case o.Domain != "":
		return "$JS." + o.Domain + ".API." + subj
	default:
		return natsjs.DefaultAPIPrefix + subj
	}
}

// readLeader reads key's events after sequence after from the stream
// leader, one request per event.
func (l *Log) readLeader(ctx context.Context, key events.Key, subj string, after uint64) ([]events.Envelope, error) {
	var out []events.Envelope
	for next := after + 1; ; {
		rctx, cancel := bounded(ctx, l.timeout)
		seq, _, data, err := leaderGet(rctx, l.js, l.name, leaderGetRequest{Seq: next, NextFor: subj})
		cancel()
		if errors.Is(err, errNoMessage) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		e, err := decodeAt(key, data, seq)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		next = seq + 1
	}
}
