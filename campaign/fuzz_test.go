package campaign_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events/jetstream"
	"github.com/clubledger/ledger/internal/bounded"
	"github.com/clubledger/ledger/rules"
)

// FuzzParseScenario: whatever bytes a scenario file holds, the parser
// answers with a scenario or an error, never a panic, and a scenario it
// accepts has steps that each name a command.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte("steps:\n  - do: battle.start\n"))
	f.Add([]byte("id: x\ncampaign: c\nsteps:\n  - do: order.give\n    dice: [3, 3]\n    with: {general: g, units: [u]}\n    expect: refused C.3\n"))
	f.Add([]byte("steps: []"))
	f.Add([]byte("steps:\n  - do: x\n    expect: maybe\n"))
	f.Add([]byte("\x00\xff{["))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc *campaign.Scenario
		var err error
		bounded.Check(t, bounded.For(len(b), 1<<20, 1024, 5*time.Second), "scenario parsed", func() { sc, err = campaign.ParseScenario(b) })
		if err != nil {
			return
		}
		if len(sc.Steps) == 0 {
			t.Fatal("accepted a scenario without steps")
		}
		for i, st := range sc.Steps {
			if st.Do == "" {
				t.Fatalf("step %d has no command", i+1)
			}
		}
	})
}

// FuzzDecodeCommand: any body for any command name decodes to a command or
// an error, never a panic; a decoded command, decided on a started battle,
// gives events or a refusal with a rule id, never a panic.
func FuzzDecodeCommand(f *testing.F) {
	names := rules.CommandNames()
	for i, n := range names {
		f.Add(uint8(i), []byte(`{}`))
		f.Add(uint8(i), []byte(`{"unit":"red-inf1","to":{"x":20,"y":14},"general":"red-gen","units":["red-inf1"],"content":{"action":"move"}}`))
		_ = n
	}
	f.Add(uint8(0), []byte(`{"battle":"b","table":{"width":1e308,"depth":-1}}`))
	f.Add(uint8(3), []byte(`[1,2,3]`))
	f.Add(uint8(5), []byte(`{"unit":"red-inf1","to":{"x":"NaN"}}`))
	state := rules.NewState()
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		name := names[int(which)%len(names)]
		var cmd rules.Command
		var err error
		budget := bounded.For(len(body), 1<<20, 256, 5*time.Second)
		bounded.Check(t, budget, name+" decoded", func() { cmd, err = rules.DecodeCommand(name, body) })
		if err != nil {
			return
		}
		// battle.create reads the default ruleset (about 4.5 MB of work
		// whatever the body): a fixed cost, well within a larger base.
		bounded.Check(t, bounded.For(len(body), 16<<20, 4096, 5*time.Second), name+" decided", func() { _, err = rules.Decide(state, cmd, rules.NewFixedDice(3, 3, 3, 3)) })
		var r *rules.Refusal
		if err != nil && errors.As(err, &r) && r.Rule == "" {
			t.Fatalf("%s %s: refusal without a rule: %v", name, body, err)
		}
	})
}

// TestThousandBadCommandsAppendNothing sends 1,000 malformed, unknown,
// out-of-turn or unauthorised-looking commands to a started battle: every
// one gets a clear error naming what is wrong, and the stream gains nothing.
func TestThousandBadCommandsAppendNothing(t *testing.T) {
	l := openLedger(t, jetstream.Config{})
	svc := l.service()
	started(t, svc)
	before := lastSeq(t, l.log)
	rng := rand.New(rand.NewPCG(7, 1809))
	t.Logf("seed 7/1809")
	names := append(rules.CommandNames(), campaign.CmdCreate, campaign.CmdPlayerAdd, "unit.teleport", "", "order.give ", "ORDER.GIVE")
	bodies := []string{
		`{`, `[]`, `null`, `"x"`, `{"unit":}`, `{"unknown_field":1}`,
		`{"unit":"nobody","to":{"x":1,"y":1}}`,
		`{"unit":"red-inf1","to":{"x":20,"y":99}}`,  // off the table
		`{"unit":"blue-inf1","to":{"x":20,"y":30}}`, // not the phasing side, no actions
		`{"general":"nobody","units":["red-inf1"],"content":{"action":"move"}}`,
		`{"general":"blue-gen","units":["blue-inf1"],"content":{"action":"move"}}`, // out of turn
		`{"general":"red-gen","units":[],"content":{"action":"move"}}`,
		`{"general":"red-gen","units":["red-inf1"],"content":{"action":"dance"}}`,
		`{"side":"blue"}`, `{"reason":""}`, `{"player":"","seed":""}`,
		`{"campaign":"c1","name":"again","sides":[{"id":"a"},{"id":"b"}]}`,
	}
	for i := 0; i < 1000; i++ {
		name := names[rng.IntN(len(names))]
		b := bodies[rng.IntN(len(bodies))]
		req := campaign.Request{ID: fmt.Sprintf("bad-%d", i), Principal: campaign.Operator("mallory"), Campaign: "c1", Battle: "b1", Name: name, Body: json.RawMessage(b)}
		switch rng.IntN(6) {
		case 0:
			req.Dice = campaign.DiceInput{Values: []int{0, 9}}
		case 1:
			req.ID = "bad id with spaces"
		case 2:
			req.Battle = "no such battle!"
		case 3:
			if strings.HasPrefix(name, "campaign.") || strings.HasPrefix(name, "player.") {
				req.Battle = ""
			}
		}
		out, err := svc.Execute(context.Background(), req)
		if err == nil {
			// Some random pick may be valid (a phase.end of the phasing
			// side, say): that is not malformed; undo nothing, just note it.
			t.Fatalf("command %d (%s %s) was accepted: %d events", i, name, b, len(out.Events))
		}
		if msg := err.Error(); len(msg) < 10 {
			t.Fatalf("command %d: unclear error %q", i, msg)
		}
	}
	if after := lastSeq(t, l.log); after != before {
		t.Fatalf("1,000 bad commands appended %d events", after-before)
	}
}
