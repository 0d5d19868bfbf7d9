package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/internal/dicetest"
	"github.com/clubledger/ledger/keys"
	"github.com/clubledger/ledger/rules"
)

var firstBattleKey = events.Key{Campaign: "demo-1809", Battle: "eggmuhl"}

var firstBattle struct {
	once sync.Once
	evs  []events.Envelope
	keys *keys.Keys
	err  error
}

// playFirstBattle plays examples/first-battle.yaml (the demo: physical and
// digital dice, two players' seeds, the seed revealed at the end) into a
// real ledger once and returns a copy of the battle's stored events.
func playFirstBattle(tb testing.TB) []events.Envelope {
	tb.Helper()
	firstBattle.once.Do(func() {
		// The same dice whichever test plays it first. A real ledger: the
		// log and the sealed vault on JetStream, the service signing with
		// the key file and verifying what it reads.
		l := campaigntest.Open(tb, campaigntest.Options{Keys: true, Service: campaign.Options{Entropy: dicetest.New("first-battle")}})
		sc, err := campaign.LoadScenario("../../examples/first-battle.yaml")
		if err != nil {
			firstBattle.err = err
			return
		}
		if err := sc.Play(context.Background(), l.Service, campaign.Operator("umpire"), nil); err != nil {
			firstBattle.err = err
			return
		}
		firstBattle.evs = l.Read(tb, firstBattleKey)
		firstBattle.keys = l.Keys
	})
	if firstBattle.err != nil {
		tb.Fatalf("play the first battle: %v", firstBattle.err)
	}
	return cloneEnvs(firstBattle.evs)
}

// rollTally is one person's rolls as the log records them.
type rollTally struct {
	rolls, digital, physical, dice, digitalDice int
}

// tallyRolls counts the rolls of evs by person: a physical roll for whoever
// entered it, a digital one with a player's nonce for that player, one
// without for whoever entered the command (its actor), whoever it was for.
func tallyRolls(tb testing.TB, evs []events.Envelope) map[string]rollTally {
	tb.Helper()
	out := map[string]rollTally{}
	for _, e := range evs {
		if e.Type != rules.EvDiceRolled {
			continue
		}
		var r rules.DiceRolled
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			tb.Fatal(err)
		}
		who := e.Author()
		switch {
		case r.Source == "physical" && r.EnteredBy != "":
			who = r.EnteredBy
		case r.Source == "digital" && r.Nonce == "":
			who = e.Actor
		}
		c := out[who]
		c.rolls++
		c.dice += len(r.Values)
		if r.Source == "digital" {
			c.digital++
			c.digitalDice += len(r.Values)
		} else {
			c.physical++
		}
		out[who] = c
	}
	return out
}

// digitalRolls counts the digital rolls among evs.
func digitalRolls(tb testing.TB, evs []events.Envelope) int {
	tb.Helper()
	n := 0
	for _, e := range evs {
		if e.Type != rules.EvDiceRolled {
			continue
		}
		var r rules.DiceRolled
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			tb.Fatal(err)
		}
		if r.Source == "digital" {
			n++
		}
	}
	return n
}

func cloneEnvs(in []events.Envelope) []events.Envelope {
	out := make([]events.Envelope, len(in))
	for i, e := range in {
		e.Raw = slices.Clone(e.Raw)
		e.Payload = slices.Clone(e.Payload)
		out[i] = e
	}
	return out
}

var exportTime = time.Date(1809, 4, 22, 18, 0, 0, 0, time.UTC)

func exportBytes(tb testing.TB, evs []events.Envelope, umpire bool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := audit.WriteExport(&buf, audit.Meta{ExportedAt: exportTime, Umpire: umpire}, evs); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func readExport(tb testing.TB, b []byte) *audit.Export {
	tb.Helper()
	x, err := audit.ReadExport(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// rechain re-stamps versions, hashes and signatures after evs was edited,
// as the first battle's ledger itself would, its operator holding the key:
// the chain and the signatures are intact again, so only the other checks
// can catch the edit.
func rechain(tb testing.TB, evs []events.Envelope) []events.Envelope {
	tb.Helper()
	return rechainWith(tb, evs, firstBattleKeys(tb).Signer)
}

// rechainWith re-stamps evs signed by s (nil: unsigned), as a forger who
// holds s would.
func rechainWith(tb testing.TB, evs []events.Envelope, s *events.Signer) []events.Envelope {
	tb.Helper()
	out := cloneEnvs(evs)
	for i := range out {
		out[i].Raw = nil
	}
	if err := events.ChainSigned(nil, out, s); err != nil {
		tb.Fatal(err)
	}
	for i := range out {
		out[i].Sequence = evs[min(i, len(evs)-1)].Sequence + uint64(max(0, i-len(evs)+1))
	}
	return out
}

// firstBattleKeys returns the key file of the ledger that played the first battle.
func firstBattleKeys(tb testing.TB) *keys.Keys {
	tb.Helper()
	playFirstBattle(tb)
	return firstBattle.keys
}

// edit changes the payload of evs[i], decoded as T.
func edit[T any](tb testing.TB, e *events.Envelope, f func(*T)) {
	tb.Helper()
	var v T
	if err := json.Unmarshal(e.Payload, &v); err != nil {
		tb.Fatal(err)
	}
	f(&v)
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	e.Payload = b
}

// find returns the index of the first event of typ for which ok holds.
func find(tb testing.TB, evs []events.Envelope, typ string, ok func(events.Envelope) bool) int {
	tb.Helper()
	for i, e := range evs {
		if e.Type == typ && (ok == nil || ok(e)) {
			return i
		}
	}
	tb.Fatalf("no %s event found", typ)
	return -1
}

func rollCounter(n uint64) func(events.Envelope) bool {
	return func(e events.Envelope) bool {
		var r rules.DiceRolled
		return json.Unmarshal(e.Payload, &r) == nil && r.Counter == n
	}
}

// checkStatus asserts each named check's status; the others must pass.
func checkStatus(tb testing.TB, rep *audit.Report, want map[string]audit.Status) {
	tb.Helper()
	for _, c := range rep.Checks {
		w, ok := want[c.ID]
		if !ok {
			w = audit.Pass
		}
		if c.Status != w {
			tb.Errorf("check %s: %s, want %s; findings:\n%s", c.ID, c.Status, w, findings(c))
		}
	}
}

func findings(c audit.Check) string {
	var b bytes.Buffer
	for _, f := range c.Findings {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

// firstFailure returns the first failing finding of check id.
func firstFailure(tb testing.TB, rep *audit.Report, id string) audit.Finding {
	tb.Helper()
	c, ok := rep.Check(id)
	if !ok {
		tb.Fatalf("no check %s", id)
	}
	for _, f := range c.Findings {
		if f.Status == audit.Fail {
			return f
		}
	}
	tb.Fatalf("check %s found no failure", id)
	return audit.Finding{}
}
