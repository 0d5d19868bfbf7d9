package main

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
)

// TestStandings plays the two-battle campaign of
// testdata/scenarios/f-campaign.yaml (a flank march lost in battle one,
// back on its roster for battle two) through `ledger play`, then: `ledger
// standings` prints the standings and rosters, read from the projection,
// that the campaign service folds from the log
// (campaign.Service.Standings), with the projection's sequence: the log's
// last, as the CLI brings the projection up to it before any query; an
// unknown campaign is an error; and `ledger projections verify` passes, the
// campaign view's tables included.
func TestStandings(t *testing.T) {
	c := newCLI(t)
	c.ok("play", "../../testdata/scenarios/f-campaign.yaml")

	out := c.ok("standings", "f-campaign")
	for _, want := range []string{
		`f-campaign "Flank campaign": 2 battles counted`,
		"SIDE", "red   Red   2       1    0      1     8",
		"1  b1      First battle   8 (won)   0 (lost)",
		"roster of Red after b2: 3 units",
		"BATTLE", "RED", "BLUE",
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

	raw := []byte(c.ok("standings", "f-campaign", "-o", "json"))
	var got campaign.Standings
	var read struct {
		Source   string `json:"source"`
		Sequence uint64 `json:"sequence"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &read); err != nil {
		t.Fatal(err)
	}
	a, err := OpenApp(context.Background(), c.cfg, AppOptions{Entropy: c.entropy})
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.Service.Standings(context.Background(), "f-campaign")
	last, lerr := a.Log.LastSequence(context.Background())
	a.Close()
	if err != nil || lerr != nil {
		t.Fatal(err, lerr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ledger standings -o json:\n%+v\nthe service folds:\n%+v", got, want)
	}
	// Read from the projection, which the CLI brought up to the log's end.
	if read.Source != "projection" || read.Sequence != last {
		t.Errorf("ledger standings -o json: source %q, sequence %d; the log's last sequence is %d", read.Source, read.Sequence, last)
	}

	if code, _, errs := c.run("standings", "no-such-campaign"); code != exitError || !strings.Contains(errs, "no campaign no-such-campaign") {
		t.Errorf("an unknown campaign: exit %d %s", code, errs)
	}
	out = c.ok("projections", "verify")
	for _, table := range []string{"equals a rebuild", "standings", "rosters", "flank_marches", "victory_points", "players"} {
		if !strings.Contains(out, table) {
			t.Errorf("verify lacks %q:\n%s", table, out)
		}
	}
}

// TestStandingsOfANewCampaign: a campaign with no battle yet answers its
// sides at nothing and empty lists, [] rather than null, as docs/openapi.yaml
// describes them.
func TestStandingsOfANewCampaign(t *testing.T) {
	c := newCLI(t)
	c.ok("campaign", "create", "club", "--name", "Club", "--side", "a:A", "--side", "b:B")
	raw := c.ok("standings", "club", "-o", "json")
	var st map[string]any
	mustJSON(t, []byte(raw), &st)
	for _, k := range []string{"sides", "battles", "rosters"} {
		if _, ok := st[k].([]any); !ok {
			t.Errorf("%s: %v, want a list\n%s", k, st[k], raw)
		}
	}
	if sides, _ := st["sides"].([]any); len(sides) != 2 {
		t.Errorf("sides: %v, want A and B at nothing", st["sides"])
	}
	rosters, _ := st["rosters"].([]any)
	for _, r := range rosters {
		if units, ok := r.(map[string]any)["units"].([]any); !ok {
			t.Errorf("a roster's units: %v, want a list", units)
		}
	}
}
