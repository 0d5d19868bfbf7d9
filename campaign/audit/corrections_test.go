package audit_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// playDisputes plays a dispute scenario into a real ledger and returns its
// battle's stored events.
func playDisputes(t *testing.T, file, camp string) []events.Envelope {
	t.Helper()
	l := campaigntest.Open(t, campaigntest.Options{Keys: true})
	sc, err := campaign.LoadScenario("../../testdata/scenarios/" + file)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Play(context.Background(), l.Service, campaign.Operator("umpire"), func(r campaign.StepResult) {
		if r.Mismatch != "" {
			t.Errorf("step %d %s: %s: %v %v", r.Number, r.Step.Do, r.Mismatch, r.Refusal, r.Err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return l.Read(t, events.Key{Campaign: camp, Battle: "b1"})
}

// TestCorrectionsAudited: the audit checks every correction of
// d-order.yaml and d-score.yaml (orders resolved again, units put back, a
// rescore) against the rules; the export carries the whole trail and
// verifies on its own; a flipped byte in a correction is caught by the
// chain, and a correction rewritten and re-chained, by this check.
func TestCorrectionsAudited(t *testing.T) {
	for _, tc := range []struct{ file, camp, forge string }{
		{"d-order.yaml", "d-order", rules.EvOrderCorrected},
		{"d-score.yaml", "d-score", rules.EvBattleRescored},
	} {
		t.Run(tc.camp, func(t *testing.T) {
			evs := playDisputes(t, tc.file, tc.camp)
			n := 0
			for _, e := range evs {
				if rules.IsCorrectionEvent(e.Type) {
					n++
				}
			}
			// d-order's battle goes on: its dice seed is not revealed yet.
			base := map[string]audit.Status{}
			if tc.camp == "d-order" {
				base[audit.CheckReveals] = audit.Pending
			}
			rep := audit.Verify(evs, audit.Options{})
			checkStatus(t, rep, base)
			c, ok := rep.Check(audit.CheckCorrections)
			if !ok || c.Checked != n || n == 0 || !strings.Contains(c.Summary, "recomputed") {
				t.Fatalf("corrections check %+v, %d corrections in the log", c, n)
			}
			// The export carries every event of the trail and verifies alone.
			file := exportBytes(t, evs, false)
			x := readExport(t, file)
			if len(x.Events) != len(evs) {
				t.Fatalf("export holds %d events of %d", len(x.Events), len(evs))
			}
			checkStatus(t, x.Verify(), base)
			// A flipped byte in a correction's line is caught, naming it.
			i := find(t, evs, tc.forge, nil)
			lines := bytes.SplitAfter(file, []byte("\n"))
			off := len(bytes.Join(lines[:i+1], nil)) + bytes.Index(lines[i+1], []byte(`"raw":"`)) + 20
			bad := slices.Clone(file)
			bad[off] ^= 0x01
			if bx, err := audit.ReadExport(bytes.NewReader(bad)); err == nil {
				fails := bx.Verify().Failures()
				if len(fails) == 0 || fails[0].Check != audit.CheckChain || fails[0].Version != uint64(i+1) {
					t.Errorf("flipped byte in %s: failures %v", tc.forge, fails)
				}
			}
			// Rewritten and re-chained: the chain holds, the correction does not.
			forged := cloneEnvs(evs)
			switch tc.forge {
			case rules.EvOrderCorrected:
				edit(t, &forged[i], func(o *rules.OrderCorrected) { o.Resolved.Actions += 2 })
			case rules.EvBattleRescored:
				edit(t, &forged[i], func(o *rules.BattleRescored) {
					o.Score.Sides = slices.Clone(o.Score.Sides)
					o.Score.Sides[0].Points += 10
				})
			}
			rep = audit.Verify(rechain(t, forged), audit.Options{})
			want := map[string]audit.Status{audit.CheckCorrections: audit.Fail}
			for k, v := range base {
				want[k] = v
			}
			checkStatus(t, rep, want)
			if f := firstFailure(t, rep, audit.CheckCorrections); f.Version != uint64(i+1) {
				t.Errorf("forged %s: finding %s", tc.forge, f)
			}
		})
	}
}

// TestCorrectionPointers: a correction that points at another event than
// its dispute's, or whose ruling counts fewer corrections, is named.
func TestCorrectionPointers(t *testing.T) {
	evs := playDisputes(t, "d-combat.yaml", "d-combat")
	i := find(t, evs, rules.EvUnitCorrected, nil)
	forged := cloneEnvs(evs)
	edit(t, &forged[i], func(u *rules.UnitCorrected) { u.EventVersion++ })
	rep := audit.Verify(rechain(t, forged), audit.Options{})
	if f := firstFailure(t, rep, audit.CheckCorrections); !strings.Contains(f.Message, "was raised on event") {
		t.Errorf("wrong event: %s", f)
	}
	forged = cloneEnvs(evs)
	up := find(t, forged, rules.EvDisputeUpheld, nil)
	edit(t, &forged[up], func(u *rules.DisputeUpheld) { u.Corrections = 2 })
	rep = audit.Verify(rechain(t, forged), audit.Options{})
	if f := firstFailure(t, rep, audit.CheckCorrections); !strings.Contains(f.Message, "counts 2 correction events; 1 follow") {
		t.Errorf("count: %s", f)
	}
}
