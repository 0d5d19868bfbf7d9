package jetstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/eventstest"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
)

func TestConformanceEmbedded(t *testing.T) {
	for _, single := range []bool{true, false} {
		name := "BatchOfOne"
		if single {
			name = "SinglePublish"
		}
		t.Run(name, func(t *testing.T) {
			l := jstest.OpenLog(t, jstest.RunServer(t), jetstream.Config{})
			jetstream.SetSinglePublish(l, single)
			eventstest.Run(t, func(*testing.T) events.Log { return l })
		})
	}
}

// TestCluster runs everything that needs a three-node cluster on one, to
// start it once: the conformance suite and the vault on Replicas 3, then the
// loss of the stream leader in the middle of appends.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster tests skipped in short mode")
	}
	c := jstest.RunCluster(t, 3)
	nc := c.Connect(t, -1)
	l := jstest.OpenLog(t, nc, jetstream.Config{Replicas: 3})
	info, err := jstest.JetStream(t, nc).Stream(ctxT(t), "LEDGER")
	if err != nil {
		t.Fatal(err)
	}
	if got := info.CachedInfo().Config.Replicas; got != 3 {
		t.Fatalf("stream has %d replicas, want 3", got)
	}
	t.Run("Conformance", func(t *testing.T) {
		eventstest.Run(t, func(*testing.T) events.Log { return l })
	})
	t.Run("Vault", func(t *testing.T) {
		testVault(t, jstest.OpenVault(t, nc, jetstream.VaultConfig{Replicas: 3}))
	})
	t.Run("BackToBack", func(t *testing.T) { testBackToBack(t, l) })
	t.Run("StreamLeaderLost", func(t *testing.T) { testLeaderLost(t, c) })
}

// testBackToBack appends, on several streams at once, one command right
// after the other's acknowledgement, single events and atomic batches of
// two in turn, each expecting the sequence the last acknowledgement gave.
// None of them may be refused: a replicated stream's leader can still be
// applying the last write to a subject when the next arrives (answering
// 10164, "wrong last sequence" without a number), and the log must not
// report that as a conflict, since nothing else was written.
func testBackToBack(t *testing.T, l *jetstream.Log) {
	const writers, each = 8, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			key := events.Key{Campaign: "backtoback", Battle: fmt.Sprintf("b%d", w)}
			var last *events.Envelope
			for i := range each {
				cmd := fmt.Sprintf("b2b-%d-%d", w, i)
				b := []events.Envelope{event(key, cmd, 0)}
				if i%2 == 1 {
					b = append(b, event(key, cmd, 1))
				}
				if err := events.Chain(last, b); err != nil {
					errs <- err
					return
				}
				var expected uint64
				if last != nil {
					expected = last.Sequence
				}
				if err := l.Append(ctxT(t), key, expected, b); err != nil {
					errs <- fmt.Errorf("writer %d, command %d of %d: %w", w, i+1, each, err)
					return
				}
				last = &b[len(b)-1]
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testLeaderLost appends 300 single-event commands, one writer, while the
// stream leader is shut down (after 100) and restarted (after 200). Every
// attempt is retried until the stream shows it stored; at the end the stream
// holds each command exactly once, at the sequence its acknowledgement
// gave, and every server holds the whole stream.
func testLeaderLost(t *testing.T, c *jstest.Cluster) {
	const total = 300
	leader := c.WaitStreamLeader("LEDGER")
	nc := c.Connect(t, (leader+1)%c.Size())
	l := jstest.OpenLog(t, nc, jetstream.Config{Replicas: 3})
	key := events.Key{Campaign: "failover", Battle: "b1"}

	var last *events.Envelope
	acked := map[string]uint64{} // event id -> sequence its append was acknowledged at
	var failures, duplicates int
	deadline := time.Now().Add(45 * time.Second)
	stopped := make(chan struct{})
	for i := range total {
		switch i {
		case 100:
			// Shut the leader down while the next appends are in flight.
			go func() {
				defer close(stopped)
				c.Shutdown(leader)
			}()
		case 200:
			<-stopped
			if now := c.WaitStreamLeader("LEDGER"); now == leader {
				t.Fatalf("server %d still leads the stream after its shutdown", leader)
			}
			c.Restart(leader)
		}
		cmd := fmt.Sprintf("failover-%d", i)
		for attempt := 0; ; attempt++ {
			if time.Now().After(deadline) {
				t.Fatalf("command %d not stored after %d attempts", i, attempt)
			}
			b := []events.Envelope{event(key, cmd, 0)}
			if err := events.Chain(last, b); err != nil {
				t.Fatal(err)
			}
			var expected uint64
			if last != nil {
				expected = last.Sequence
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err := l.Append(ctx, key, expected, b)
			cancel()
			if err == nil {
				acked[b[0].ID] = b[0].Sequence
				e := b[0]
				last = &e
				break
			}
			failures++
			if errors.Is(err, events.ErrDuplicate) {
				duplicates++
			}
			// Whatever the error, the stream says whether the command is in.
			if e, ok := lastStored(l, key); ok && e.CommandID == cmd {
				last = &e
				break
			}
		}
	}
	t.Logf("%d appends, %d failed attempts retried (%d reported as duplicates)", total, failures, duplicates)

	ctx := ctxT(t)
	got, err := l.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != total {
		t.Fatalf("stream holds %d events, want %d", len(got), total)
	}
	if err := events.VerifyChain(got); err != nil {
		t.Fatal(err)
	}
	for i, e := range got {
		if want := fmt.Sprintf("failover-%d/0", i); e.ID != want {
			t.Fatalf("event %d is %s, want %s", i, e.ID, want)
		}
		if seq, ok := acked[e.ID]; ok && seq != e.Sequence {
			t.Fatalf("%s acknowledged at %d but stored at %d", e.ID, seq, e.Sequence)
		}
	}
	if len(acked) < total/2 {
		t.Fatalf("only %d of %d appends acknowledged directly", len(acked), total)
	}

	// The restarted server catches up: every server holds the same stream.
	lastSeq, err := l.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	jstest.CheckFor(t, 20*time.Second, 50*time.Millisecond, func() error {
		for i := range c.Size() {
			st, err := streamState(c.Server(i), "LEDGER")
			if err != nil {
				return fmt.Errorf("server %d: %w", i, err)
			}
			if st.LastSeq != lastSeq || st.Msgs != lastSeq {
				return fmt.Errorf("server %d holds %d messages up to %d, want %d", i, st.Msgs, st.LastSeq, lastSeq)
			}
		}
		return nil
	})
}

// lastStored returns the last event of key's stream, if it can be read.
func lastStored(l *jetstream.Log, key events.Key) (events.Envelope, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	evs, err := l.Read(ctx, key, 0)
	if err != nil || len(evs) == 0 {
		return events.Envelope{}, false
	}
	return evs[len(evs)-1], true
}

// streamState is stream's state as server s holds it (leader or not).
func streamState(s *server.Server, stream string) (server.StreamState, error) {
	info, err := s.Jsz(&server.JSzOptions{Accounts: true, Streams: true})
	if err != nil {
		return server.StreamState{}, err
	}
	for _, a := range info.AccountDetails {
		for _, sd := range a.Streams {
			if sd.Name == stream {
				return sd.State, nil
			}
		}
	}
	return server.StreamState{}, fmt.Errorf("no stream %s", stream)
}

// TestAppendOnly checks the stream's own refusals, beneath the users'
// permissions: on a server without any (a bare nats-server), the LEDGER
// stream still refuses to purge or delete a message (API errors 10110 and
// 10057), and an update that would lift those refusals (10052), so nothing
// is lost.
func TestAppendOnly(t *testing.T) {
	nc := bareServer(t)
	l := jstest.OpenLog(t, nc, jetstream.Config{})
	key := events.Key{Campaign: "c1", Battle: "b1"}
	last := appendN(t, l, key, nil, 3, "cmd")
	ctx := ctxT(t)
	s, err := jstest.JetStream(t, nc).Stream(ctx, "LEDGER")
	if err != nil {
		t.Fatal(err)
	}
	checkCode := func(what string, err error, code natsjs.ErrorCode) {
		t.Helper()
		var apiErr *natsjs.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode != code {
			t.Fatalf("%s: got %v, want API error %d", what, err, code)
		}
	}
	checkCode("purge", s.Purge(ctx), 10110)
	checkCode("purge subject", s.Purge(ctx, natsjs.WithPurgeSubject(jetstream.Subject(key))), 10110)
	// nats.go's DeleteMsg flattens the API error into text: ask the API.
	for _, req := range []string{fmt.Sprintf(`{"seq":%d}`, last.Sequence), `{"seq":1,"no_erase":false}`} {
		resp, err := nc.Request("$JS.API.STREAM.MSG.DELETE.LEDGER", []byte(req), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Error   *natsjs.APIError `json:"error"`
			Success bool             `json:"success"`
		}
		if err := json.Unmarshal(resp.Data, &r); err != nil {
			t.Fatal(err)
		}
		if r.Error == nil {
			t.Fatalf("delete %s: %s", req, resp.Data)
		}
		checkCode("delete "+req, r.Error, 10057)
	}
	if err := s.DeleteMsg(ctx, last.Sequence); err == nil {
		t.Fatal("DeleteMsg succeeded")
	}
	cfg := s.CachedInfo().Config
	cfg.DenyPurge, cfg.DenyDelete = false, false
	_, err = jstest.JetStream(t, nc).UpdateStream(ctx, cfg)
	checkCode("lift deny_delete and deny_purge", err, 10052)

	evs, err := l.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events left, want 3", len(evs))
	}
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
}

// TestStreamConfig checks what Open asks of the server: the stream as the
// server reports it; that opening again changes nothing (the ledger's user
// may not update it); and that Provision, the administrator's, brings a
// changed setting up to date.
func TestStreamConfig(t *testing.T) {
	e := jstest.RunEmbedded(t)
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	jstest.OpenLog(t, nc, jetstream.Config{})
	jstest.OpenLog(t, nc, jetstream.Config{DuplicateWindow: time.Minute})
	want := func(dup time.Duration) {
		t.Helper()
		s, err := jstest.JetStream(t, nc).Stream(ctxT(t), "LEDGER")
		if err != nil {
			t.Fatal(err)
		}
		c := s.CachedInfo().Config
		if len(c.Subjects) != 1 || c.Subjects[0] != "ledger.>" || c.Storage != natsjs.FileStorage ||
			c.Retention != natsjs.LimitsPolicy || c.MaxMsgs != -1 || c.MaxBytes != -1 || c.MaxAge != 0 ||
			c.MaxMsgsPerSubject != -1 || !c.DenyDelete || !c.DenyPurge || !c.AllowAtomicPublish ||
			!c.AllowDirect || c.Replicas != 1 || c.Duplicates != dup {
			t.Fatalf("stream config %+v", c)
		}
	}
	want(2 * time.Minute)
	changes, err := e.Provision(ctxT(t), jetstream.Config{DuplicateWindow: time.Minute}, jetstream.VaultConfig{})
	if err != nil || len(changes) != 2 || !strings.Contains(changes[0], "updated the configuration of stream LEDGER") {
		t.Fatalf("provision: %q %v", changes, err)
	}
	want(time.Minute)
	for _, bad := range []jetstream.Config{{Stream: "A.B"}, {Stream: "A B"}, {Replicas: 7}, {Replicas: -1}, {DuplicateWindow: -time.Second}} {
		if _, err := jetstream.Open(ctxT(t), jstest.JetStream(t, nc), bad); err == nil {
			t.Fatalf("Open(%+v) accepted", bad)
		}
	}
}

func TestSubject(t *testing.T) {
	for _, c := range []struct {
		key  events.Key
		want string
	}{
		{events.Key{Campaign: "autumn-1809"}, "ledger.campaign.autumn-1809"},
		{events.Key{Campaign: "autumn-1809", Battle: "aspern"}, "ledger.battle.autumn-1809.aspern"},
	} {
		if got := jetstream.Subject(c.key); got != c.want {
			t.Errorf("Subject(%v) = %q, want %q", c.key, got, c.want)
		}
	}
}

// TestReadFromLeader checks the path Read takes when the replica that
// answered lags behind what this Log appended: the rest comes from the
// stream leader, and a Log that believes it appended more than is stored
// still reads exactly what is stored.
func TestReadFromLeader(t *testing.T) {
	nc := jstest.RunServer(t)
	l := jstest.OpenLog(t, nc, jetstream.Config{})
	key := events.Key{Campaign: "c1", Battle: "b1"}
	other := events.Key{Campaign: "c1"}
	var lk, lo *events.Envelope
	for i := range 5 {
		lk = appendN(t, l, key, lk, 1, fmt.Sprintf("k%d", i))
		lo = appendN(t, l, other, lo, 1, fmt.Sprintf("o%d", i))
	}
	ctx := ctxT(t)
	direct, err := l.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	leader, err := jetstream.ReadLeader(ctx, l, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(direct) != 5 || len(leader) != 5 {
		t.Fatalf("direct read %d events, leader read %d, want 5", len(direct), len(leader))
	}
	for i := range direct {
		if direct[i].ID != leader[i].ID || direct[i].Sequence != leader[i].Sequence || string(direct[i].Raw) != string(leader[i].Raw) {
			t.Fatalf("event %d: direct %s@%d, leader %s@%d", i, direct[i].ID, direct[i].Sequence, leader[i].ID, leader[i].Sequence)
		}
	}
	after, err := jetstream.ReadLeader(ctx, l, key, direct[2].Sequence)
	if err != nil || len(after) != 2 || after[0].ID != direct[3].ID {
		t.Fatalf("leader read after %d: %v %v", direct[2].Sequence, after, err)
	}
	jetstream.NoteAcked(l, key, lk.Sequence+100)
	again, err := l.Read(ctx, key, direct[1].Sequence)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 3 || again[0].ID != direct[2].ID || again[2].ID != direct[4].ID {
		t.Fatalf("read with a lagging replica: %d events", len(again))
	}
}

// TestFollowCancelled pins down what Follow returns when its context ends:
// ctx.Err(), so that callers can tell a stop from a failure.
func TestFollowCancelled(t *testing.T) {
	l := jstest.NewLog(t)
	key := events.Key{Campaign: "c1"}
	appendN(t, l, key, nil, 2, "cmd")
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan events.Envelope, 10)
	done := make(chan error, 1)
	go func() {
		done <- l.Follow(ctx, 0, func(e events.Envelope) error { got <- e; return nil }, nil)
	}()
	for i := range 2 {
		select {
		case e := <-got:
			if e.Sequence != uint64(i+1) || e.CommandID != fmt.Sprintf("cmd-%d", i) {
				t.Fatalf("event %d: %s at %d", i, e.ID, e.Sequence)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("follow delivered nothing")
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("follow returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("follow did not return")
	}
}
