package campaign_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/jetstream/jstest"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/rules"
)

// clNode is one ledger process's worth of clients: its own connection, log,
// vault and service.
type clNode struct {
	log   *jetstream.Log
	vault *jetstream.Vault
	svc   *campaign.Service
}

func openNode(tb testing.TB, nc *nats.Conn, replicas int) clNode {
	tb.Helper()
	log := jstest.OpenLog(tb, nc, jetstream.Config{Replicas: replicas})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := jetstream.OpenVault(ctx, jstest.JetStream(tb, nc), jetstream.VaultConfig{Replicas: replicas})
	if err != nil {
		tb.Fatal(err)
	}
	return clNode{log: log, vault: v, svc: campaign.NewService(log, v, campaign.Options{Entropy: dicetest.Entropy(tb)})}
}

// executeRetrying runs req until the service answers it, sending the SAME
// command id again after a transport error (a lost server, a timed-out
// ack): if the first attempt was applied, the service's idempotency answers
// with the recorded events and appends nothing. A refusal is final.
func executeRetrying(ctx context.Context, svc *campaign.Service, req campaign.Request) (campaign.Outcome, int, error) {
	var last error
	for attempt := 1; attempt <= 200; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		out, err := svc.Execute(actx, req)
		cancel()
		if err == nil {
			return out, attempt, nil
		}
		var r *rules.Refusal
		if errors.As(err, &r) || ctx.Err() != nil {
			return out, attempt, err
		}
		last = err
		// A pause before trying again (a retry policy, not a synchronisation).
		t := time.NewTimer(time.Duration(10+rand.IntN(40)) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return out, attempt, ctx.Err()
		case <-t.C:
		}
	}
	return campaign.Outcome{}, 200, fmt.Errorf("%s: still failing after 200 attempts: %w", req.ID, last)
}

// follow runs a live projection of log into db until ctx ends, starting
// again from its checkpoint whenever following fails (a server went away).
func follow(ctx context.Context, t *testing.T, log events.Log, db *sqlite.DB) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			err := projections.Run(ctx, log, db, projections.RunOptions{Follow: true, BatchSize: 100})
			if err != nil && ctx.Err() == nil {
				t.Logf("live projection restarts after: %v", err)
				pause := time.NewTimer(50 * time.Millisecond)
				select {
				case <-ctx.Done():
				case <-pause.C:
				}
			}
		}
	}()
	return done
}

// waitCheckpoint waits until db has applied the log up to its last event.
func waitCheckpoint(t *testing.T, log events.Log, db *sqlite.DB) uint64 {
	t.Helper()
	var last uint64
	jstest.CheckFor(t, 30*time.Second, 20*time.Millisecond, func() error {
		var err error
		if last, err = log.LastSequence(context.Background()); err != nil {
			return err
		}
		cp, err := db.Checkpoint(context.Background())
		if err != nil {
			return err
		}
		if cp != last {
			return fmt.Errorf("live projection at %d, log at %d", cp, last)
		}
		return nil
	})
	return last
}

// compareRebuild builds a fresh projection of log and compares it with live.
func compareRebuild(t *testing.T, log events.Log, live *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rebuild.db")
	// Just after a node came back, the log may answer "unavailable, try
	// again in a few seconds" (a consumer whose first event does not come
	// within the request timeout on a loaded machine: seen once here). The
	// rebuild is tried again, as its message says, for up to 30 s.
	for try, deadline := 1, time.Now().Add(30*time.Second); ; try++ {
		err := sqlite.Build(ctx, log, path, sqlite.BuildOptions{Fresh: true})
		if err == nil {
			break
		}
		if !errors.Is(err, events.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("rebuild (try %d): %v", try, err)
		}
		t.Logf("rebuild, try %d: %v; trying again", try, err)
		time.Sleep(500 * time.Millisecond)
	}
	rebuilt, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rebuilt.Close()
	diffs, err := live.Compare(ctx, rebuilt)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("live projection differs from the rebuild: %s", d.Detail)
	}
}

// acked is what a writer was told was applied.
type acked struct {
	req campaign.Request
	out campaign.Outcome
}

// checkAcked checks that key's stream holds exactly the acknowledged
// commands, each once, with the very bytes their outcome reported, in a
// chain that verifies. Extra commands (setup done elsewhere) are allowed
// only if listed in also.
func checkAcked(t *testing.T, evs []events.Envelope, acks []acked) {
	t.Helper()
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
	stored := map[string][]events.Envelope{}
	var order []string
	for _, e := range evs {
		if _, ok := stored[e.CommandID]; !ok {
			order = append(order, e.CommandID)
		} else if last := stored[e.CommandID][len(stored[e.CommandID])-1]; last.Version != e.Version-1 {
			t.Fatalf("command %s appears twice (versions %d and %d)", e.CommandID, last.Version, e.Version)
		}
		stored[e.CommandID] = append(stored[e.CommandID], e)
	}
	want := map[string]bool{}
	for _, a := range acks {
		want[a.req.ID] = true
		got := stored[a.req.ID]
		if len(got) != len(a.out.Events) {
			t.Fatalf("command %s: %d events stored, %d acknowledged", a.req.ID, len(got), len(a.out.Events))
		}
		for i := range got {
			if got[i].ID != a.out.Events[i].ID || !bytes.Equal(got[i].Raw, a.out.Events[i].Raw) {
				t.Fatalf("command %s event %d: stored %s differs from the acknowledged %s", a.req.ID, i, got[i].ID, a.out.Events[i].ID)
			}
		}
	}
	for _, id := range order {
		if !want[id] {
			t.Fatalf("command %s is stored but was never acknowledged", id)
		}
	}
}

// TestClusterNodeLossUnderLoad: three servers in this process, the stream
// and the vault at three replicas. Four writers, each a service on its own
// connection, play four battles while a live projection follows; the
// stream's leader is shut down after a third of the commands and restarted
// after two thirds. Commands failing in transport are sent again with
// their id. Afterwards every acknowledged command is stored exactly once
// with its acknowledged bytes, every chain verifies, event ids are unique,
// and a projection rebuilt from the surviving cluster equals the live one.
func TestClusterNodeLossUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test")
	}
	const (
		writers  = 4
		commands = 300 // in all, setup included
		camp     = "cl"
	)
	start := time.Now()
	c := jstest.RunCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	admin := openNode(t, c.Connect(t, 0), 3)
	create := loadgen.CreateCampaign(camp)
	createOut, _, err := executeRetrying(ctx, admin.svc, create)
	if err != nil {
		t.Fatal(err)
	}

	live, err := sqlite.Open(filepath.Join(t.TempDir(), "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	projLog := jstest.OpenLog(t, c.Connect(t, 1), jetstream.Config{Replicas: 3})
	pctx, pcancel := context.WithCancel(ctx)
	projDone := follow(pctx, t, projLog, live)
	defer func() { pcancel(); <-projDone }()

	var (
		count      atomic.Int64
		third, two = make(chan struct{}), make(chan struct{})
		onceA      sync.Once
		onceB      sync.Once
		wg         sync.WaitGroup
		mu         sync.Mutex
		acks       = map[string][]acked{} // battle -> acknowledged commands in order
		retried    atomic.Int64
		failures   = make(chan error, writers)
	)
	for w := range writers {
		node := openNode(t, c.Connect(t, w%3), 3)
		battle := fmt.Sprintf("b%d", w+1)
		gen := loadgen.NewBattle(camp, battle, uint64(w+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range commands / writers {
				req := gen.Next()
				out, attempts, err := executeRetrying(ctx, node.svc, req)
				if err != nil {
					failures <- fmt.Errorf("writer %d: %s %s: %w", w, req.ID, req.Name, err)
					return
				}
				retried.Add(int64(attempts - 1))
				mu.Lock()
				acks[battle] = append(acks[battle], acked{req: req, out: out})
				mu.Unlock()
				n := count.Add(1)
				if n >= commands/3 {
					onceA.Do(func() { close(third) })
				}
				if n >= 2*commands/3 {
					onceB.Do(func() { close(two) })
				}
			}
		}()
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()

	select {
	case <-third:
	case <-writersDone:
	}
	leader := c.StreamLeader(jetstream.DefaultStream)
	if leader < 0 {
		leader = 0
	}
	t.Logf("%d commands acknowledged: shutting down server %d, the stream leader", count.Load(), leader)
	c.Shutdown(leader)
	select {
	case <-two:
	case <-writersDone:
	}
	t.Logf("%d commands acknowledged: restarting server %d", count.Load(), leader)
	c.Restart(leader)
	<-writersDone
	close(failures)
	for err := range failures {
		t.Fatal(err)
	}
	t.Logf("%d commands acknowledged, %d transport retries; %s so far", count.Load(), retried.Load(), time.Since(start).Round(time.Millisecond))
	if got := count.Load(); got != commands {
		t.Fatalf("%d commands acknowledged, want %d", got, commands)
	}

	// A fresh reader on the server that went away and came back.
	check := openNode(t, c.Connect(t, leader), 3)
	total := 0
	for battle, as := range acks {
		key := events.Key{Campaign: camp, Battle: battle}
		want := 0
		for _, a := range as {
			want += len(a.out.Events)
		}
		total += want
		var evs []events.Envelope
		// Any replica may answer a read; the restarted one may lag a moment.
		jstest.CheckFor(t, 20*time.Second, 20*time.Millisecond, func() error {
			var err error
			if evs, err = check.log.Read(ctx, key, 0); err != nil {
				return err
			}
			if len(evs) < want {
				return fmt.Errorf("%s: %d events read, %d acknowledged", key, len(evs), want)
			}
			return nil
		})
		checkAcked(t, evs, as)
		if len(evs) != want {
			t.Fatalf("%s holds %d events, %d acknowledged", key, len(evs), want)
		}
	}
	campEvs, err := check.log.Read(ctx, events.Key{Campaign: camp}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.VerifyChain(campEvs); err != nil {
		t.Fatal(err)
	}
	total += len(campEvs)
	if len(campEvs) != 1+writers || campEvs[0].ID != createOut.Events[0].ID {
		t.Fatalf("campaign stream: %d events, want campaign.created and %d battle.added", len(campEvs), writers)
	}

	// The whole log: every event once, nothing else.
	last := waitCheckpoint(t, projLog, live)
	if last != uint64(total) {
		t.Fatalf("the log ends at sequence %d; the streams hold %d events", last, total)
	}
	ids := map[string]bool{}
	fctx, fcancel := context.WithCancel(ctx)
	err = check.log.Follow(fctx, 0, func(e events.Envelope) error {
		if ids[e.ID] {
			return fmt.Errorf("event id %s twice in the log", e.ID)
		}
		ids[e.ID] = true
		if e.Sequence >= last {
			fcancel()
		}
		return nil
	}, nil)
	fcancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if len(ids) != total {
		t.Fatalf("followed %d events, want %d", len(ids), total)
	}
	compareRebuild(t, check.log, live)
	t.Logf("%d events in %d battles verified in %s", total, len(acks), time.Since(start).Round(time.Millisecond))
}

// Concurrent writers on one battle: goroutines of this process and child
// processes (this test binary run again) give commands chosen from what
// each last saw, so that many decisions are made on a stale state.

const (
	childURLEnv      = "LEDGER_TEST_WRITER_URL"
	childNameEnv     = "LEDGER_TEST_WRITER_NAME"
	childCountEnv    = "LEDGER_TEST_WRITER_COUNT"
	childPasswordEnv = "LEDGER_TEST_WRITER_PASSWORD"
	cwCampaign       = "cw"
	cwBattle         = "b1"
)

// cwRecord is one command a writer had accepted, as a child reports it.
type cwRecord struct {
	Req      campaign.Request `json:"req"`
	Attempts int              `json:"attempts"`
}

// cwCommand chooses the next command from the state the writer last saw:
// a player's seed (valid at any moment), an order to the phasing side's
// units, a one-inch move of one of them, or the end of the phase. Many are
// refused because another writer moved the battle on; that is allowed.
func cwCommand(st *rules.State, writer string, i int, r *rand.Rand) campaign.Request {
	req := campaign.Request{ID: fmt.Sprintf("%s-%03d", writer, i), Principal: loadgen.Actor, Campaign: cwCampaign, Battle: cwBattle}
	side := st.Phasing
	k := r.IntN(10)
	switch {
	case k < 3 || side == "":
		req.Name = rules.CmdDiceAddSeed
		req.Principal = campaign.Operator(req.ID) // a seed is added by its own player
		req.Body = mustBody(map[string]string{"player": req.ID, "seed": "s-" + req.ID})
	case k < 5:
		req.Name = rules.CmdOrderGive
		req.Body = mustBody(map[string]any{"general": side + "-g", "units": []string{side + "-u1", side + "-u2"}, "content": map[string]string{"action": "move"}})
		req.Dice = campaign.DiceInput{Values: []int{1 + r.IntN(3), 1 + r.IntN(3)}}
	case k < 8:
		u := fmt.Sprintf("%s-u%d", side, 1+r.IntN(2))
		unit := st.Units[u]
		if unit == nil {
			req.Name, req.Body = rules.CmdPhaseEnd, mustBody(map[string]string{"side": side})
			break
		}
		y := unit.Base.Center.Y
		dy := 1.0
		if r.IntN(2) == 0 {
			dy = -1
		}
		req.Name = rules.CmdUnitMove
		req.Body = mustBody(map[string]any{"unit": u, "to": map[string]float64{"x": unit.Base.Center.X, "y": y + dy}})
	default:
		req.Name, req.Body = rules.CmdPhaseEnd, mustBody(map[string]string{"side": side})
	}
	return req
}

func mustBody(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// cwWrite gives n commands as writer name through svc and returns those
// accepted, with the refusals counted.
func cwWrite(ctx context.Context, svc *campaign.Service, name string, n int) ([]cwRecord, int, error) {
	key := events.Key{Campaign: cwCampaign, Battle: cwBattle}
	r := rand.New(rand.NewPCG(uint64(len(name)), uint64(name[0])<<8|uint64(name[len(name)-1])))
	var recs []cwRecord
	refused := 0
	for i := range n {
		st, _, err := svc.State(ctx, key)
		if err != nil {
			return recs, refused, err
		}
		req := cwCommand(st, name, i, r)
		out, err := svc.Execute(ctx, req)
		// Under heavy contention the service may give up after its bounded
		// retries; the caller sends the same command (same id) again, as a
		// player's client would.
		for again := 0; again < 10 && errors.Is(err, events.ErrConflict); again++ {
			out, err = svc.Execute(ctx, req)
		}
		var ref *rules.Refusal
		switch {
		case errors.As(err, &ref):
			refused++
		case err != nil:
			return recs, refused, fmt.Errorf("%s %s: %w", req.ID, req.Name, err)
		default:
			recs = append(recs, cwRecord{Req: req, Attempts: out.Attempts})
		}
	}
	return recs, refused, nil
}

// TestConcurrentWritersChild is the child process of
// TestConcurrentWritersOneBattle; it does nothing in a normal run.
func TestConcurrentWritersChild(t *testing.T) {
	url := os.Getenv(childURLEnv)
	if url == "" {
		t.Skip("run by TestConcurrentWritersOneBattle as a child process")
	}
	n, err := strconv.Atoi(os.Getenv(childCountEnv))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := jetstream.Connect(url, jetstream.ConnectOptions{Name: "child", User: jetstream.UserLedger, Password: os.Getenv(childPasswordEnv)})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	node := openNode(t, nc, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	recs, refused, err := cwWrite(ctx, node.svc, os.Getenv(childNameEnv), n)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, r := range recs {
		fmt.Print("RECORD ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("REFUSED %d\n", refused)
}

// TestConcurrentWritersOneBattle: three goroutines (each its own service
// and connection) and two child processes reaching the embedded server over
// loopback TCP give commands to one battle at once. Afterwards the chain
// verifies, every accepted command is stored once and nothing else is, and
// re-deciding every command in log order on the state folded so far gives
// exactly the stored events: no decision was appended on a stale state.
func TestConcurrentWritersOneBattle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	const perWriter = 50
	emb, err := jetstream.StartEmbedded(jetstream.EmbeddedOptions{DataDir: t.TempDir(), Listen: "127.0.0.1:0", NetworkUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Shutdown)
	url := emb.ClientURL()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inproc, err := emb.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inproc.Close)
	admin := openNode(t, inproc, 1)
	var setup []acked
	gen := loadgen.NewBattle(cwCampaign, cwBattle, 1)
	if _, err := admin.svc.Execute(ctx, loadgen.CreateCampaign(cwCampaign)); err != nil {
		t.Fatal(err)
	}
	for range loadgen.Setup {
		req := gen.Next()
		out, err := admin.svc.Execute(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		setup = append(setup, acked{req: req, out: out})
	}

	type result struct {
		name    string
		recs    []cwRecord
		refused int
		err     error
	}
	results := make(chan result, 5)
	var children []*osexec.Cmd
	var outs []*bytes.Buffer
	for i := range 2 {
		name := fmt.Sprintf("p%d", i+1)
		cmd := osexec.CommandContext(ctx, os.Args[0], "-test.run=^TestConcurrentWritersChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childURLEnv+"="+url, childNameEnv+"="+name, childCountEnv+"="+strconv.Itoa(perWriter),
			childPasswordEnv+"="+emb.Credentials().Password(jetstream.UserLedger))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, cmd)
		outs = append(outs, &out)
	}
	for i := range 3 {
		name := fmt.Sprintf("g%d", i+1)
		co := emb.ClientOptions(jetstream.UserLedger)
		co.Name = name
		nc, err := jetstream.Connect(url, co)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		node := openNode(t, nc, 1)
		go func() {
			recs, refused, err := cwWrite(ctx, node.svc, name, perWriter)
			results <- result{name: name, recs: recs, refused: refused, err: err}
		}()
	}
	var all []cwRecord
	refusals, retries := 0, 0
	for range 3 {
		r := <-results
		if r.err != nil {
			t.Fatalf("%s: %v", r.name, r.err)
		}
		all = append(all, r.recs...)
		refusals += r.refused
	}
	for i, cmd := range children {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child p%d: %v\n%s", i+1, err, outs[i])
		}
		sc := bufio.NewScanner(outs[i])
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		got := false
		for sc.Scan() {
			line := sc.Bytes()
			if rest, ok := bytes.CutPrefix(line, []byte("RECORD ")); ok {
				var r cwRecord
				if err := json.Unmarshal(rest, &r); err != nil {
					t.Fatal(err)
				}
				all = append(all, r)
			} else if rest, ok := bytes.CutPrefix(line, []byte("REFUSED ")); ok {
				n, _ := strconv.Atoi(string(rest))
				refusals += n
				got = true
			}
		}
		if !got {
			t.Fatalf("child p%d reported nothing:\n%s", i+1, outs[i])
		}
	}
	for _, r := range all {
		retries += r.Attempts - 1
	}
	t.Logf("%d commands accepted, %d refused, %d decisions made again after a conflict", len(all), refusals, retries)
	if retries == 0 {
		t.Error("no writer ever met a conflict: the test did not exercise concurrency")
	}

	key := events.Key{Campaign: cwCampaign, Battle: cwBattle}
	evs, err := admin.log.Read(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]campaign.Request{}
	for _, r := range all {
		byID[r.Req.ID] = r.Req
	}
	// Every accepted command stored once, nothing else (events compared by
	// the re-decision below).
	if err := events.VerifyChain(evs); err != nil {
		t.Fatal(err)
	}
	groups := groupByCommand(t, evs)
	if len(groups) != len(setup)+len(all) {
		t.Fatalf("%d commands stored, %d accepted", len(groups), len(setup)+len(all))
	}

	// Replay with decisions: fold the setup, then re-decide every command in
	// log order on the state folded so far.
	st := rules.NewState()
	for gi, g := range groups {
		if gi < len(setup) {
			if g[0].CommandID != setup[gi].req.ID {
				t.Fatalf("setup command %d is %s, want %s", gi, g[0].CommandID, setup[gi].req.ID)
			}
			foldAll(t, st, g)
			continue
		}
		req, ok := byID[g[0].CommandID]
		if !ok {
			t.Fatalf("command %s is stored but nobody had it accepted", g[0].CommandID)
		}
		cmd, err := rules.DecodeCommand(req.Name, req.Body)
		if err != nil {
			t.Fatal(err)
		}
		var d rules.Dice
		if len(req.Dice.Values) > 0 {
			d = &rules.FixedDice{Values: req.Dice.Values, Source: rules.SourcePhysical, EnteredBy: req.Principal.Player}
		}
		decided, err := rules.Decide(st, cmd, d)
		if err != nil {
			t.Fatalf("command %s (%s) at version %d is refused on replay: %v", req.ID, req.Name, g[0].Version, err)
		}
		if len(decided) != len(g) {
			t.Fatalf("command %s decides %d events on replay, %d stored", req.ID, len(decided), len(g))
		}
		for i, ev := range decided {
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			if ev.EventType() != g[i].Type || !bytes.Equal(b, g[i].Payload) {
				t.Fatalf("command %s event %d: replay decides %s %s, stored %s %s", req.ID, i, ev.EventType(), b, g[i].Type, g[i].Payload)
			}
		}
		foldAll(t, st, g)
	}
	fresh := campaign.NewService(admin.log, admin.vault, campaign.Options{Entropy: dicetest.New(t.Name() + "/fresh")})
	got, _, err := fresh.State(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(st)
	if !bytes.Equal(a, b) {
		t.Fatalf("a fresh service's state differs from the re-decided replay\nservice %s\nreplay  %s", a, b)
	}
}

// groupByCommand splits a stream's events into commands, checking that a
// command's events are contiguous and that no command id appears twice.
func groupByCommand(t *testing.T, evs []events.Envelope) [][]events.Envelope {
	t.Helper()
	var groups [][]events.Envelope
	seen := map[string]bool{}
	for _, e := range evs {
		if n := len(groups); n > 0 && groups[n-1][0].CommandID == e.CommandID {
			groups[n-1] = append(groups[n-1], e)
			continue
		}
		if seen[e.CommandID] {
			t.Fatalf("command %s appears twice in the stream (again at version %d)", e.CommandID, e.Version)
		}
		seen[e.CommandID] = true
		groups = append(groups, []events.Envelope{e})
	}
	return groups
}

func foldAll(t *testing.T, st *rules.State, evs []events.Envelope) {
	t.Helper()
	for i := range evs {
		payload, err := campaign.Registry().Upcast(&evs[i])
		if err != nil {
			t.Fatal(err)
		}
		ev, err := rules.DecodeEvent(evs[i].Type, payload)
		if err != nil {
			t.Fatal(err)
		}
		rules.Apply(st, ev)
	}
}

// TestTwoServicesAlternatingNeverRefuseStale: two services, each connected
// to a different node of a three-node cluster, take turns giving the
// commands of one battle, each command acknowledged before the next, and
// each legal only on the state its predecessor left (an order, then the
// moves it allows, then the phase ends). A service reads through replicas
// that may lag the other's last append by a moment; a refusal given on such
// a read would be wrong and unnoticed (it appends nothing a sequence check
// could catch). The service confirms the stream's head at its leader
// before it refuses, so none of 1,000 commands is refused.
func TestTwoServicesAlternatingNeverRefuseStale(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test")
	}
	const commands = 1000
	c := jstest.RunCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := openNode(t, c.Connect(t, 0), 3)
	b := openNode(t, c.Connect(t, 1), 3)
	if _, _, err := executeRetrying(ctx, a.svc, loadgen.CreateCampaign("alt")); err != nil {
		t.Fatal(err)
	}
	script := loadgen.NewBattle("alt", "b1", 7)
	refusals := 0
	for i := range commands {
		svc := []*campaign.Service{a.svc, b.svc}[i%2]
		req := script.Next()
		_, _, err := executeRetrying(ctx, svc, req)
		var r *rules.Refusal
		if errors.As(err, &r) {
			refusals++
			t.Errorf("command %d (%s) through node %d refused: %v", i, req.Name, i%2, r)
			continue
		}
		if err != nil {
			t.Fatalf("command %d (%s): %v", i, req.Name, err)
		}
	}
	if refusals > 0 {
		t.Fatalf("%d of %d legal commands refused on a stale read", refusals, commands)
	}
}
