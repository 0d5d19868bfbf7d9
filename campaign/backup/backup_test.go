package backup_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/backup"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/projections/sqlite"
)

// The ledger's vault lists its names itself, as a backup needs.
var _ backup.Vault = (*jetstream.Vault)(nil)

// vault is l's vault: on JetStream, it lists its names itself.
func vault(l *campaigntest.Ledger) backup.Vault { return l.Vault.(*jetstream.Vault) }

func play(t *testing.T, svc *campaign.Service, gen *loadgen.Battle, n int) {
	t.Helper()
	for i := 0; i < n && !gen.Ended(); i++ {
		campaigntest.Do(t, svc, gen.Next())
	}
}

func build(t *testing.T, log events.Log, until uint64) *sqlite.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.db")
	if err := sqlite.Build(context.Background(), log, path, sqlite.BuildOptions{Fresh: true, Until: until}); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestBackupWhileServingAndRestore: a backup taken while two writers keep
// appending holds exactly the events up to its cut and the vault; restored
// into an empty ledger the chains verify, the events keep their sequences,
// the projection equals the original's projection at the cut, and every
// battle's audit passes. A non-empty ledger and damaged files are refused.
func TestBackupWhileServingAndRestore(t *testing.T) {
	ctx := context.Background()
	src := campaigntest.Open(t, campaigntest.Options{})
	campaigntest.Do(t, src.Service, loadgen.CreateCampaign("bk"))
	gens := []*loadgen.Battle{loadgen.NewBattle("bk", "b1", 1), loadgen.NewBattle("bk", "b2", 2)}
	gens[1].TurnLimit = 4 // one battle ends: its seed is revealed
	for _, g := range gens {
		play(t, src.Service, g, 40)
	}
	// Keep writing while the backup runs.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 2000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if gens[0].Ended() {
				return
			}
			req := gens[0].Next()
			if _, err := src.Service.Execute(ctx, req); err != nil {
				t.Errorf("%s: %v", req.ID, err)
				return
			}
		}
	}()
	var buf bytes.Buffer
	sum, err := backup.Write(ctx, &buf, src.Log, vault(src), time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), "test")
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sealed != 2 || sum.Events == 0 || uint64(sum.Events) != sum.Header.LastSequence {
		t.Fatalf("summary %+v", sum)
	}
	checked, err := backup.Check(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if checked.Events != sum.Events || checked.Streams != 3 || checked.Sealed != 2 {
		t.Fatalf("check %+v, wrote %+v", checked, sum)
	}

	// Damaged files are refused before anything is written.
	file := buf.Bytes()
	for name, bad := range map[string][]byte{
		"truncated":                  file[:len(file)-40],
		"a byte changed in an event": bytes.Replace(file, []byte(`action\":\"move`), []byte(`action\":\"mOve`), 1),
		"an event line removed": func() []byte {
			lines := bytes.SplitAfter(file, []byte("\n"))
			return bytes.Join(append(append([][]byte{}, lines[:5]...), lines[6:]...), nil)
		}(),
		"not a backup": []byte("{\"format\":\"ledger-export-v1\"}\n"),
	} {
		if bytes.Equal(bad, file) {
			t.Fatalf("%s: the damage did not apply", name)
		}
		if _, err := backup.Check(bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			var fe *backup.FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%s: %v is not a FormatError", name, err)
			}
		}
	}

	// Restore into an empty ledger.
	dst := campaigntest.Open(t, campaigntest.Options{})
	restored, err := backup.Restore(ctx, bytes.NewReader(file), dst.Log, vault(dst), backup.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !restored.SequencesKept {
		t.Fatal("restored events did not get their sequences back")
	}
	if last, _ := dst.Log.LastSequence(ctx); last != sum.Header.LastSequence {
		t.Fatalf("restored log ends at %d, the cut was %d", last, sum.Header.LastSequence)
	}
	// Refused a second time: the ledger is not empty now.
	if _, err := backup.Restore(ctx, bytes.NewReader(file), dst.Log, vault(dst), backup.RestoreOptions{}); !errors.Is(err, backup.ErrNotEmpty) {
		t.Fatalf("restore into a non-empty ledger: %v", err)
	}
	for _, key := range []events.Key{{Campaign: "bk"}, {Campaign: "bk", Battle: "b1"}, {Campaign: "bk", Battle: "b2"}} {
		orig, err := src.Log.Read(ctx, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dst.Log.Read(ctx, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := events.VerifyChain(got); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for i := range got {
			if got[i].Sequence != orig[i].Sequence || !bytes.Equal(got[i].Raw, orig[i].Raw) {
				t.Fatalf("%s event %d differs from the original", key, i)
			}
		}
		if key.Battle != "" {
			if rep := audit.Verify(got, audit.Options{Key: key}); rep.Failed() {
				t.Fatalf("%s: audit of the restored battle failed: %v", key, rep.Err())
			}
		}
	}
	// The sealed seeds came along: the restored ledger goes on playing and
	// ends battle b1 with a reveal that matches its commitment.
	for _, name := range []string{"dice.bk.b1.battle", "dice.bk.b2.battle"} {
		a, err := src.Vault.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := dst.Vault.Get(ctx, name)
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("sealed %s: %v", name, err)
		}
	}
	if diffs, err := build(t, dst.Log, 0).Compare(ctx, build(t, src.Log, sum.Header.LastSequence)); err != nil || len(diffs) > 0 {
		t.Fatalf("restored projection differs from the original's at the cut: %v %v", diffs, err)
	}
	restSvc := campaign.NewService(dst.Log, dst.Vault, campaign.Options{Entropy: dicetest.New(t.Name() + "/restored")})
	end := campaigntest.Do(t, restSvc, campaign.Request{ID: "end-after-restore", Principal: campaign.Operator("umpire"), Campaign: "bk", Battle: "b1",
		Name: "battle.end", Body: []byte(`{"reason":"restored"}`)})
	all, _ := dst.Log.Read(ctx, events.Key{Campaign: "bk", Battle: "b1"}, 0)
	if rep := audit.Verify(all, audit.Options{}); rep.Failed() || end.Events[0].Type != "dice.revealed" {
		t.Fatalf("after the reveal in the restored ledger: %v (first event %s)", rep.Err(), end.Events[0].Type)
	}
}

// TestBackupEmptyLedger: an empty ledger backs up to a file that restores.
func TestBackupEmptyLedger(t *testing.T) {
	ctx := context.Background()
	src := campaigntest.Open(t, campaigntest.Options{})
	path := filepath.Join(t.TempDir(), "empty.ledger-backup")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := backup.Write(ctx, f, src.Log, vault(src), time.Now(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if sum.Events != 0 || sum.Sealed != 0 {
		t.Fatalf("%+v", sum)
	}
	f, err = os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dst := campaigntest.Open(t, campaigntest.Options{})
	if _, err := backup.Restore(ctx, f, dst.Log, vault(dst), backup.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), `{"format":"ledger-backup-v1"`) {
		t.Fatalf("file starts %.60s", b)
	}
}
