package audit_test

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

var bigKey = events.Key{Campaign: "big", Battle: "b1"}

var big struct {
	once sync.Once
	evs  []events.Envelope
}

// bigBattle plays, once, a battle of at least 1,000 events through the real
// service: seeds rotating per turn (a commitment and a reveal every turn),
// both players adding a seed each turn, every unit ordered with digital
// dice, some refusals, and the battle ended (the last seed revealed).
func bigBattle(tb testing.TB) []events.Envelope {
	tb.Helper()
	big.once.Do(func() { big.evs = playBig(tb, 1000) })
	if len(big.evs) < 1000 {
		tb.Fatalf("the big battle has %d events", len(big.evs))
	}
	return cloneEnvs(big.evs)
}

func playBig(tb testing.TB, minEvents int) []events.Envelope {
	l := campaigntest.Open(tb, campaigntest.Options{Keys: true})
	n, count := 0, 0
	exec := func(actor, name, battle string, body any) error {
		tb.Helper()
		n++
		out, err := campaigntest.Try(l.Service, campaign.Request{
			ID: fmt.Sprintf("c%d", n), Principal: campaign.Operator(actor), Campaign: bigKey.Campaign, Battle: battle, Name: name, Body: campaigntest.Body(tb, body)})
		var r *rules.Refusal
		if err != nil && !errors.As(err, &r) {
			tb.Fatalf("%s: %v", name, err)
		}
		if battle != "" {
			count += len(out.Events)
		}
		return err
	}
	must := func(actor, name, battle string, body any) {
		tb.Helper()
		if err := exec(actor, name, battle, body); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
	}
	must("umpire", campaign.CmdCreate, "", map[string]any{"name": "Big", "sides": []map[string]string{
		{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	must("umpire", rules.CmdBattleCreate, "b1", map[string]any{"name": "B1", "measurement": "in",
		"table": map[string]float64{"width": 72, "depth": 48}, "first_side": "red", "ruleset": "dice:\n  seed_period: turn\n"})
	for _, side := range []struct {
		id   string
		y    float64
		face float64
	}{{"red", 10, 0}, {"blue", 38, 180}} {
		var units []map[string]any
		for i := range 4 {
			units = append(units, map[string]any{"id": fmt.Sprintf("%s-inf%d", side.id, i), "type": "infantry",
				"position": map[string]float64{"x": 12 + 8*float64(i), "y": side.y}, "facing": side.face})
		}
		must("umpire", rules.CmdArmyDeploy, "b1", map[string]any{
			"side":   side.id,
			"c_in_c": map[string]any{"id": side.id + "-cinc", "name": "C", "rating": 9, "position": map[string]float64{"x": 24, "y": side.y - 4}},
			"brigades": []map[string]any{{
				"id": side.id + "-1", "name": "First", "order": "attack",
				"general": map[string]any{"id": side.id + "-gen", "name": "G", "rating": 8, "position": map[string]float64{"x": 24, "y": side.y - 2}},
				"units":   units,
			}},
		})
	}
	must("umpire", rules.CmdBattleStart, "b1", map[string]any{})
	for turn := 1; count < minEvents; turn++ {
		side := map[bool]string{true: "red", false: "blue"}[turn%2 == 1]
		for _, p := range []string{"red", "blue"} {
			must("p-"+p, rules.CmdDiceAddSeed, "b1", map[string]any{"player": "p-" + p, "seed": fmt.Sprintf("%s turn %d", p, turn)})
		}
		for i := range 4 {
			unit := fmt.Sprintf("%s-inf%d", side, i)
			for _, g := range []string{side + "-gen", side + "-cinc"} {
				if exec("p-"+side, rules.CmdOrderGive, "b1", map[string]any{"general": g, "units": []string{unit},
					"content": map[string]string{"action": "move"}}) == nil {
					break
				}
			}
		}
		for range 3 {
			must("p-"+side, rules.CmdPhaseEnd, "b1", map[string]any{"side": side})
		}
	}
	must("umpire", rules.CmdBattleEnd, "b1", map[string]any{"reason": "enough"})
	return l.Read(tb, bigKey)
}

func TestBigBattlePasses(t *testing.T) {
	evs := bigBattle(t)
	rep := readExport(t, exportBytes(t, evs, false)).Verify()
	checkStatus(t, rep, nil)
	if len(rep.Periods) < 10 || rep.All.DigitalRolls < 100 {
		t.Errorf("%d periods, %d digital rolls", len(rep.Periods), rep.All.DigitalRolls)
	}
	for _, p := range rep.Periods {
		if !p.Verified || p.Recomputed != p.DigitalRolls || (p.DigitalRolls > 0 && len(p.Seeds) != 2) {
			t.Errorf("period %+v", p)
		}
	}
	t.Logf("%d events, %d periods, %d rolls (%d dice), %d orders", len(evs), len(rep.Periods), rep.All.Rolls, rep.All.Dice, rep.All.Orders)
}

// BenchmarkAuditExport reads and audits an exported battle of 1,000+
// events: parse, every hash, every digital roll recomputed, statistics.
func BenchmarkAuditExport(b *testing.B) {
	evs := bigBattle(b)
	file := exportBytes(b, evs, false)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		x, err := audit.ReadExport(bytes.NewReader(file))
		if err != nil {
			b.Fatal(err)
		}
		if rep := x.Verify(); rep.Failed() {
			b.Fatal(rep.Err())
		}
	}
	b.ReportMetric(float64(len(evs)), "events")
}
