//go:build unix

package natsproc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/backup"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/internal/natsproc"
	"github.com/clubledger/ledger/rules"
)

var (
	streamCfg = jetstream.Config{Replicas: 3}
	vaultCfg  = jetstream.VaultConfig{Replicas: 3}
)

// node is one ledger process's worth of clients on the cluster, as the
// ledger user.
type node struct {
	nc    *nats.Conn
	log   *jetstream.Log
	vault *jetstream.Vault
	svc   *campaign.Service
}

func openNode(t *testing.T, c *natsproc.Cluster) node {
	t.Helper()
	nc, err := c.Connect(jetstream.UserLedger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	log := jstest.OpenLog(t, nc, streamCfg)
	v := jstest.OpenVault(t, nc, vaultCfg)
	return node{nc: nc, log: log, vault: v, svc: campaign.NewService(log, v, campaign.Options{Entropy: dicetest.Entropy(t)})}
}

// TestComposeCluster runs the cluster of docker-compose.yml as three real
// nats-server processes started from config/nats/ and puts it through what
// a club's deployment meets: the attacks of issue 14 refused as the ledger
// and the tools user; writers on several battles while the stream leader,
// then a follower, then two nodes are killed with kill -9 and restarted,
// every command answering or failing within a bound; every acknowledged
// command then in the log once, chains and audits passing; and a backup
// through the ledger user restored into a second such cluster.
func TestComposeCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nats-server processes")
	}
	start := time.Now()
	c := natsproc.StartT(t)
	t.Logf("cluster of %d processes ready in %s; node 1: %s %s", len(c.Nodes), time.Since(start).Round(time.Millisecond), c.Bin, strings.Join(c.Args(0), " "))
	for i, n := range c.Nodes {
		if args := c.Args(i); !slices.Contains(args, filepath.Join(c.ConfDir, n.Name+".conf")) {
			t.Fatalf("%s does not run its own config file: %q", n.Name, args)
		}
	}

	t.Run("Door", func(t *testing.T) { testDoor(t, c) })
	acked := t.Run("Failover", func(t *testing.T) { testFailover(t, c) })
	if !acked {
		return
	}
	t.Run("BackupRestoreAudit", func(t *testing.T) { testBackup(t, c) })
}

func testDoor(t *testing.T, c *natsproc.Cluster) {
	if nc, err := nats.Connect(c.URL(), nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Fatal("an anonymous client was let in")
	} else if !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("anonymous: %v", err)
	}
	n := openNode(t, c)
	ctx := context.Background()
	key := events.Key{Campaign: "door"}
	b := []events.Envelope{{ID: "door-1/0", Campaign: "door", Type: "campaign.created", Schema: 1, Time: time.Unix(0, 0).UTC(),
		Actor: "umpire", CommandID: "door-1", Audience: events.AudienceAll, Payload: []byte(`{}`)}}
	if err := events.Chain(nil, b); err != nil {
		t.Fatal(err)
	}
	if err := n.log.Append(ctx, key, 0, b); err != nil {
		t.Fatal(err)
	}
	if err := n.vault.Put(ctx, "door.seed", []byte("nobody reads this")); err != nil {
		t.Fatal(err)
	}
	attacks := jstest.Attacks(t, streamCfg, vaultCfg, "door.seed")
	la, err := jstest.Dial(t, "ledger", c.URL(), nats.UserInfo(jetstream.UserLedger, c.Password(jetstream.UserLedger)))
	if err != nil {
		t.Fatal(err)
	}
	jstest.Replay(t, la, attacks, true)
	ta, err := jstest.Dial(t, "tools", c.URL(), nats.UserInfo(jetstream.UserTools, c.Password(jetstream.UserTools)), nats.CustomInboxPrefix(jetstream.ToolsInboxPrefix))
	if err != nil {
		t.Fatal(err)
	}
	jstest.Replay(t, ta, attacks, false)
	if err := ta.Subscribe("_INBOX.>"); err != nil {
		t.Error(err)
	}
	// The tools user reads the stream.
	if m, err := ta.NC.Request("$JS.API.STREAM.MSG.GET.LEDGER", []byte(`{"seq":1}`), 5*time.Second); err != nil || !bytes.Contains(m.Data, []byte(`"seq":1`)) {
		t.Fatalf("tools: read event 1: %v", err)
	}
	f, err := jetstream.Check(ctx, jstest.JetStream(t, n.nc), streamCfg, vaultCfg)
	if err != nil || len(f) > 0 {
		t.Fatalf("after the attacks the guard finds %q (%v)", f, err)
	}
	if v, err := n.vault.Get(ctx, "door.seed"); err != nil || string(v) != "nobody reads this" {
		t.Fatalf("after the attacks the sealed value is %q %v", v, err)
	}
}

// ack is an acknowledged command and its recorded outcome.
type ack struct {
	req campaign.Request
	out campaign.Outcome
}

// attempts measures every call of the service: how long it took to answer
// or fail.
type attempts struct {
	mu      sync.Mutex
	all     []time.Duration
	failed  []time.Duration
	errs    map[string]int
	slowest string
}

func (a *attempts) note(d time.Duration, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all = append(a.all, d)
	if a.errs == nil {
		a.errs = map[string]int{}
	}
	if err != nil {
		a.failed = append(a.failed, d)
		kind := "other"
		if errors.Is(err, events.ErrUnavailable) {
			kind = "unavailable"
		}
		a.errs[kind]++
		if kind == "other" && a.errs[kind] <= 3 {
			a.slowest = err.Error()
		}
	}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// attemptBound is what a command may take to answer or fail, whatever the
// cluster is going through: the log's request timeout (1.5 s) for the one
// request that does not answer, with room for the reads before it.
const attemptBound = 4 * time.Second

// execute runs req until the service answers it, sending the same command
// id again after a fault; a refusal is final.
func execute(ctx context.Context, svc *campaign.Service, req campaign.Request, m *attempts) (campaign.Outcome, error) {
	for {
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, 2*attemptBound)
		out, err := svc.Execute(actx, req)
		cancel()
		m.note(time.Since(start), err)
		if err == nil {
			return out, nil
		}
		var r *rules.Refusal
		if errors.As(err, &r) || ctx.Err() != nil {
			return out, err
		}
		pause := time.NewTimer(time.Duration(20+rand.IntN(80)) * time.Millisecond) // a retry policy, not a synchronisation
		select {
		case <-ctx.Done():
			pause.Stop()
			return out, ctx.Err()
		case <-pause.C:
		}
	}
}

const camp = "league"

var failoverAcks struct {
	mu   sync.Mutex
	acks map[string][]ack
	all  int
}

func testFailover(t *testing.T, c *natsproc.Cluster) {
	const writers = 4
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	admin := openNode(t, c)
	var m attempts
	if _, err := execute(ctx, admin.svc, loadgen.CreateCampaign(camp), &m); err != nil {
		t.Fatal(err)
	}
	var (
		count    atomic.Int64
		mu       sync.Mutex
		acks     = map[string][]ack{}
		wg       sync.WaitGroup
		stop     = make(chan struct{})
		failures = make(chan error, writers)
	)
	for w := range writers {
		n := openNode(t, c)
		battle := fmt.Sprintf("b%d", w+1)
		gen := loadgen.NewBattle(camp, battle, uint64(w+1))
		gen.TurnLimit = 1000
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !gen.Ended() {
				select {
				case <-stop:
					return
				default:
				}
				req := gen.Next()
				out, err := execute(ctx, n.svc, req, &m)
				if err != nil {
					failures <- fmt.Errorf("writer %d: %s %s: %w", w, req.ID, req.Name, err)
					return
				}
				mu.Lock()
				acks[battle] = append(acks[battle], ack{req, out})
				mu.Unlock()
				count.Add(1)
			}
		}()
	}
	// progress waits until n more commands have been acknowledged and says
	// how long that took.
	progress := func(what string, n int64) time.Duration {
		t.Helper()
		start, from := time.Now(), count.Load()
		for count.Load() < from+n {
			if ctx.Err() != nil {
				t.Fatalf("%s: %d of %d commands acknowledged before the deadline", what, count.Load()-from, n)
			}
			select {
			case err := <-failures:
				t.Fatal(err)
			case <-time.After(10 * time.Millisecond):
			}
		}
		return time.Since(start)
	}
	leaderOf := func() int {
		t.Helper()
		var i int
		jstest.CheckFor(t, 20*time.Second, 50*time.Millisecond, func() error {
			var err error
			i, err = c.StreamLeader(ctx, jstest.JetStream(t, admin.nc), jetstream.DefaultStream)
			return err
		})
		return i
	}
	restart := func(i int) {
		t.Helper()
		if err := c.Restart(i); err != nil {
			t.Fatal(err)
		}
	}

	progress("warm-up", 40)
	leader := leaderOf()
	t.Logf("%d commands: kill -9 %s, the stream leader", count.Load(), c.Nodes[leader].Name)
	c.Kill(leader)
	t.Logf("writes resumed %s after the leader's kill", progress("after the leader's kill", 10).Round(time.Millisecond))
	restart(leader)
	progress("after the leader's restart", 20)

	leader = leaderOf()
	follower := (leader + 1) % len(c.Nodes)
	t.Logf("%d commands: kill -9 %s, a follower", count.Load(), c.Nodes[follower].Name)
	c.Kill(follower)
	t.Logf("writes went on %s after the follower's kill", progress("after the follower's kill", 10).Round(time.Millisecond))
	restart(follower)
	progress("after the follower's restart", 20)

	leader = leaderOf()
	other := (leader + 2) % len(c.Nodes)
	t.Logf("%d commands: kill -9 %s and %s, no quorum", count.Load(), c.Nodes[leader].Name, c.Nodes[other].Name)
	c.Kill(leader)
	c.Kill(other)
	before := count.Load()
	m.mu.Lock()
	failedBefore := len(m.failed)
	m.mu.Unlock()
	// Without quorum every command must fail, each within the bound.
	jstest.CheckFor(t, 20*time.Second, 20*time.Millisecond, func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if n := len(m.failed) - failedBefore; n < 2*writers {
			return fmt.Errorf("%d failed attempts since quorum was lost", n)
		}
		return nil
	})
	t.Logf("no quorum: %d commands acknowledged meanwhile (in flight when the nodes died)", count.Load()-before)
	restart(leader)
	restart(other)
	t.Logf("writes resumed %s after the two nodes' restart", progress("after quorum came back", 20).Round(time.Millisecond))
	close(stop)
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Fatal(err)
	}

	m.mu.Lock()
	t.Logf("%d commands acknowledged; %d calls of the service, %d failed (%v); every call answered or failed within: p50 %s, p99 %s, max %s; failed calls: max %s",
		count.Load(), len(m.all), len(m.failed), m.errs, quantile(m.all, 0.5).Round(time.Millisecond), quantile(m.all, 0.99).Round(time.Millisecond),
		quantile(m.all, 1).Round(time.Millisecond), quantile(m.failed, 1).Round(time.Millisecond))
	if max := quantile(m.all, 1); max > attemptBound {
		t.Errorf("a call took %s, more than %s", max, attemptBound)
	}
	if m.errs["other"] > 0 {
		t.Errorf("%d failed calls were not events.ErrUnavailable, e.g. %s", m.errs["other"], m.slowest)
	}
	m.mu.Unlock()

	// Every acknowledged command is in the log once, in order, and every
	// battle's chain and audit pass.
	check := openNode(t, c)
	total := 0
	for battle, as := range acks {
		key := events.Key{Campaign: camp, Battle: battle}
		var want []string
		for _, a := range as {
			for _, e := range a.out.Events {
				want = append(want, e.ID)
			}
		}
		// A fresh reader may be answered by a replica a moment behind the
		// leader: read until the battle's head, as the leader knows it.
		var evs []events.Envelope
		jstest.CheckFor(t, 20*time.Second, 50*time.Millisecond, func() error {
			head, err := check.log.Head(ctx, key)
			if err != nil {
				return err
			}
			if evs, err = check.log.Read(ctx, key, 0); err != nil {
				return err
			}
			if n := len(evs); n == 0 || evs[n-1].Sequence < head {
				return fmt.Errorf("%s: read %d events, not yet up to the head %d", key, n, head)
			}
			return nil
		})
		var got []string
		for _, e := range evs {
			got = append(got, e.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: the log holds %d events, the acknowledged commands %d (first difference at %d)", key, len(got), len(want), firstDiff(got, want))
		}
		if rep := audit.Verify(evs, audit.Options{Key: key}); rep.Failed() {
			t.Fatalf("%s: audit: %v", key, rep.Err())
		}
		total += len(evs)
	}
	campEvs, err := check.log.Read(ctx, events.Key{Campaign: camp}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.VerifyChain(campEvs); err != nil {
		t.Fatal(err)
	}
	total += len(campEvs)
	last, err := check.log.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The door test's one event, and the league's.
	if last != uint64(total+1) {
		t.Fatalf("the log holds %d events, the acknowledged commands and the door test %d", last, total+1)
	}
	failoverAcks.mu.Lock()
	failoverAcks.acks, failoverAcks.all = acks, int(last)
	failoverAcks.mu.Unlock()
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// testBackup backs up the cluster through the ledger user, restores the file
// into a second cluster of real processes, and audits every battle there.
func testBackup(t *testing.T, c *natsproc.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	src := openNode(t, c)
	var buf bytes.Buffer
	var sum backup.Summary
	// The cluster has just lost and regained nodes: a backup that meets a
	// leader being elected fails with ErrUnavailable and is taken again, as
	// a person would.
	jstest.CheckFor(t, 30*time.Second, 100*time.Millisecond, func() error {
		buf.Reset()
		var err error
		sum, err = backup.Write(ctx, &buf, src.log, src.vault, time.Now(), "natsproc cluster")
		if err != nil && !errors.Is(err, events.ErrUnavailable) {
			t.Fatalf("backup as the ledger user: %v", err)
		}
		return err
	})
	names, err := src.vault.Names(ctx)
	if err != nil {
		t.Fatal(err)
	}
	failoverAcks.mu.Lock()
	all := failoverAcks.all
	failoverAcks.mu.Unlock()
	if sum.Events != all || sum.Sealed != len(names) || sum.Sealed == 0 {
		t.Fatalf("backup: %d events and %d sealed values, want %d and %d", sum.Events, sum.Sealed, all, len(names))
	}
	file := filepath.Join(t.TempDir(), "league.backup")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	dst := natsproc.StartT(t)
	to := openNode(t, dst)
	// Both new streams have their leaders before the restore writes.
	jstest.CheckFor(t, 20*time.Second, 50*time.Millisecond, func() error {
		if _, err := to.log.Head(ctx, events.Key{Campaign: camp}); err != nil {
			return err
		}
		_, err := to.vault.Names(ctx)
		return err
	})
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := backup.Restore(ctx, f, to.log, to.vault, backup.RestoreOptions{})
	if err != nil {
		t.Fatalf("restore as the ledger user into a second cluster: %v", err)
	}
	if !rs.SequencesKept || rs.Events != sum.Events || rs.Sealed != sum.Sealed {
		t.Fatalf("restored %+v, backed up %+v", rs, sum)
	}
	battles := 0
	for _, key := range rs.Keys {
		evs, err := to.log.Read(ctx, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := src.log.Read(ctx, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != len(orig) || (len(evs) > 0 && !bytes.Equal(evs[len(evs)-1].Raw, orig[len(orig)-1].Raw)) {
			t.Fatalf("%s: restored %d events, the original holds %d", key, len(evs), len(orig))
		}
		if key.Battle == "" {
			continue
		}
		battles++
		if rep := audit.Verify(evs, audit.Options{Key: key}); rep.Failed() {
			t.Fatalf("%s: audit after restore: %v", key, rep.Err())
		}
	}
	for _, n := range names {
		a, err := src.vault.Get(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := to.vault.Get(ctx, n)
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("sealed value %s restored as %q, %v", n, b, err)
		}
	}
	t.Logf("backup of %d events and %d sealed values through the ledger user, restored into a second cluster, %d battles audited", sum.Events, sum.Sealed, battles)
}
