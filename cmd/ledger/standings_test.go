package main

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
)

// TestStandingsFromTheProjection plays the two-battle campaign of
// testdata/scenarios/f-campaign.yaml (a flank march lost in battle one,
// back on its roster for battle two) through `ledger play`, then: `ledger
// standings` prints, from the projection, the standings and rosters the
// campaign service folds from the log (campaign.Service.Standings); an
// unknown campaign is an error; and `ledger projections verify` passes, the
// campaign view's tables included.
func TestStandingsFromTheProjection(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../testdata/scenarios/f-campaign.yaml")

	out := c.ok("standings", "f-campaign")
	for _, want := range []string{
		`f-campaign "Flank campaign": 2 battles counted`,
		"SIDE", "red   Red   2       1    0      1     8",
		"1  b1      First battle   8 (won)   0 (lost)",
		"roster of red after b2: 3 units",
		"rf-inf1  rf-inf1  infantry  0        1        b2 (fought)",
		"destroyed, gone for good: rf-cav",
		"destroyed, gone for good: b1-inf1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("standings lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}

	var got standingsOutput
	if err := json.Unmarshal([]byte(c.ok("standings", "f-campaign", "-o", "json")), &got); err != nil {
		t.Fatal(err)
	}
	app, err := OpenApp(context.Background(), c.cfg, AppOptions{Entropy: c.entropy})
	if err != nil {
		t.Fatal(err)
	}
	want, err := app.Service.Standings(context.Background(), "f-campaign")
	app.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sides) != len(want.Sides) || len(got.Rosters) != len(want.Rosters) {
		t.Fatalf("projection %+v\nservice %+v", got, want)
	}
	for i, w := range want.Sides {
		g := got.Sides[i]
		if g.Side != w.Side || g.Played != w.Played || g.Won != w.Won || g.Drawn != w.Drawn || g.Lost != w.Lost || g.Points != w.Points {
			t.Errorf("side %+v, service %+v", g, w)
		}
	}
	for i, b := range want.Battles {
		if i >= len(got.Battles) || got.Battles[i].Battle != b.Battle {
			t.Fatalf("battles %+v, service %+v", got.Battles, want.Battles)
		}
		for j, p := range b.Points {
			if s := got.Battles[i].Sides[j]; s.Side != p.Side || s.Points != p.Points {
				t.Errorf("battle %s: %+v, service %+v", b.Battle, s, p)
			}
		}
	}
	for i, w := range want.Rosters {
		g := got.Rosters[i]
		var units []campaign.RosterUnit
		for _, u := range g.Units {
			units = append(units, campaign.RosterUnit{ID: u.Unit, Name: u.Name, Type: u.Type, Markers: u.Markers, Battles: u.Battles, Last: u.Last, LastWas: u.LastWas})
		}
		if g.Side != w.Side || !reflect.DeepEqual(units, w.Units) || strings.Join(g.Destroyed, ",") != strings.Join(w.Destroyed, ",") {
			t.Errorf("roster %+v\nservice %+v", g, w)
		}
	}

	if code, _, errs := c.run("standings", "no-such-campaign"); code == 0 || !strings.Contains(errs, "not found") {
		t.Errorf("an unknown campaign: exit %d %s", code, errs)
	}
	out = c.ok("projections", "verify")
	for _, table := range []string{"equals a rebuild", "standings", "rosters", "flank_marches", "victory_points", "players"} {
		if !strings.Contains(out, table) {
			t.Errorf("verify lacks %q:\n%s", table, out)
		}
	}
}
