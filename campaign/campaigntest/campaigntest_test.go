package campaigntest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/campaign/loadgen"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/events/memlog"
	"github.com/clubledger/ledger/rules"
)

// TestOpen opens each kind of ledger, runs a command that is accepted and
// one that is refused, and reads the campaign's stream back: signed by the
// key file's key with Keys, unsigned without; the vault is the one asked
// for.
func TestOpen(t *testing.T) {
	own := memlog.New()
	for _, tc := range []struct {
		name     string
		opts     campaigntest.Options
		inMemory bool
	}{
		{"jetstream", campaigntest.Options{}, false},
		{"jetstream-keys", campaigntest.Options{Keys: true}, false},
		{"memory", campaigntest.Options{Memory: true}, true},
		{"memory-keys", campaigntest.Options{Memory: true, Keys: true}, true},
		{"own-log", campaigntest.Options{Log: own}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := campaigntest.Open(t, tc.opts)
			if (l.Conn == nil) != tc.inMemory {
				t.Errorf("connection %v, in memory %v", l.Conn, tc.inMemory)
			}
			switch l.Vault.(type) {
			case *memlog.Vault:
				if !tc.inMemory {
					t.Errorf("a vault in memory on JetStream")
				}
			case *jetstream.Vault:
				if tc.inMemory {
					t.Errorf("a JetStream vault in memory")
				}
			default:
				t.Errorf("vault %T", l.Vault)
			}
			if tc.opts.Log != nil && l.Log != tc.opts.Log {
				t.Errorf("the ledger's log is not the test's own")
			}
			if (l.Keys != nil) != tc.opts.Keys {
				t.Errorf("keys %v, asked %v", l.Keys, tc.opts.Keys)
			}
			out := campaigntest.Do(t, l.Service, loadgen.CreateCampaign("c"))
			if len(out.Events) == 0 {
				t.Fatal("campaign.create appended nothing")
			}
			_, err := campaigntest.Try(l.Service, campaign.Request{ID: "b", Principal: campaign.Operator("umpire"), Campaign: "nosuch", Battle: "b",
				Name: rules.CmdBattleCreate, Body: campaigntest.Body(t, map[string]any{"table": map[string]int{"width": 72, "depth": 48}})})
			var r *rules.Refusal
			if !errors.As(err, &r) || r.Code != "campaign.unknown" {
				t.Errorf("a battle of a campaign nobody made: %v, want the refusal campaign.unknown", err)
			}
			evs := l.Read(t, events.Key{Campaign: "c"})
			if len(evs) != len(out.Events) {
				t.Fatalf("read %d events, the command appended %d", len(evs), len(out.Events))
			}
			for _, e := range evs {
				signed := e.Signer != "" && e.Sig != ""
				if signed != tc.opts.Keys {
					t.Errorf("event %d signed %v, keys %v", e.Version, signed, tc.opts.Keys)
				}
				if tc.opts.Keys && e.Signer != l.Keys.Signer.KeyHex() {
					t.Errorf("event %d signed by %s, not the key file's key", e.Version, e.Signer)
				}
			}
			if last, err := l.Log.LastSequence(context.Background()); err != nil || last != evs[len(evs)-1].Sequence {
				t.Errorf("the log's last sequence %d (%v), the campaign's last event %d", last, err, evs[len(evs)-1].Sequence)
			}
		})
	}
}

// TestFixedDice: two ledgers opened for the same test draw the same secret
// dice seed, so their battles' digital rolls are the same.
func TestFixedDice(t *testing.T) {
	reveal := func() string {
		l := campaigntest.Open(t, campaigntest.Options{Memory: true})
		campaigntest.Do(t, l.Service, loadgen.CreateCampaign("c"))
		g := loadgen.NewBattle("c", "b", 1)
		g.TurnLimit = 1
		for !g.Ended() {
			campaigntest.Do(t, l.Service, g.Next())
		}
		for _, e := range l.Read(t, events.Key{Campaign: "c", Battle: "b"}) {
			if e.Type == rules.EvDiceRevealed {
				return string(e.Payload)
			}
		}
		t.Fatal("the battle ended without revealing its seed")
		return ""
	}
	if a, b := reveal(), reveal(); a != b {
		t.Errorf("two ledgers of one test revealed different seeds:\n%s\n%s", a, b)
	}
}
