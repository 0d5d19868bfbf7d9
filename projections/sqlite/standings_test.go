package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/campaign/campaigntest"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/projtest"
	"github.com/clubledger/ledger/projections/sqlite"
	"github.com/clubledger/ledger/rules"
)

// execute runs one command through the service, from the operator named
// actor, and fails the test on a refusal or an error.
func execute(t *testing.T, svc *campaign.Service, actor, camp, battle, id, name string, body any, dice ...int) campaign.Outcome {
	t.Helper()
	return campaigntest.Do(t, svc, campaign.Request{ID: id, Principal: campaign.Operator(actor), Campaign: camp, Battle: battle,
		Name: name, Body: campaigntest.Body(t, body), Dice: campaign.DiceInput{Values: dice}})
}

// project builds a projection of the whole log with batches of size.
func project(t *testing.T, log events.Log, path string, opts projections.RunOptions) *sqlite.DB {
	t.Helper()
	db := mustOpen(t, path)
	if err := projections.Run(context.Background(), log, db, opts); err != nil {
		t.Fatal(err)
	}
	return db
}

// checkStandings compares the projection's standings and rosters with the
// service's, and the roster rows after each counted battle with
// campaign.FoldStandings over the battles up to it (the roster the next
// battle's deployments are checked against).
func checkStandings(t *testing.T, db *sqlite.DB, log events.Log, svc *campaign.Service, camp string) {
	t.Helper()
	ctx := context.Background()
	want, err := svc.Standings(ctx, camp)
	if err != nil {
		t.Fatal(err)
	}
	checkCampaignStandings(t, db, want)
	got, err := db.Standings(ctx, camp)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sides) != len(want.Sides) {
		t.Fatalf("sides %+v, service %+v", got.Sides, want.Sides)
	}
	for i, w := range want.Sides {
		g := got.Sides[i]
		if g.Side != w.Side || g.Name != w.Name || g.Played != w.Played || g.Won != w.Won || g.Drawn != w.Drawn || g.Lost != w.Lost || g.Points != w.Points {
			t.Errorf("standing %+v, service %+v", g, w)
		}
	}
	var counted []campaign.BattleResult
	for _, b := range want.Battles {
		if b.Points != nil {
			counted = append(counted, b)
		}
	}
	if len(got.Battles) != len(counted) {
		t.Fatalf("battles %+v, service counts %+v", got.Battles, counted)
	}
	for i, w := range counted {
		g := got.Battles[i]
		if g.Battle != w.Battle || g.Number != w.Number || g.Name != w.Name || len(g.Sides) != len(w.Points) {
			t.Fatalf("battle %+v, service %+v", g, w)
		}
		for j, p := range w.Points {
			if g.Sides[j].Side != p.Side || g.Sides[j].Points != p.Points {
				t.Errorf("battle %s: %+v, service %+v", w.Battle, g.Sides[j], p)
			}
		}
	}
	for _, w := range want.Rosters {
		r, err := db.Roster(ctx, camp, w.Side)
		if err != nil {
			t.Fatal(err)
		}
		compareRoster(t, "now", r, w)
	}

	// The roster rows after each counted battle k equal a fold of the
	// campaign's battles up to k.
	c, err := svc.Campaign(ctx, camp)
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string][]rules.Event{}
	for _, b := range c.Battles {
		logs[b.Battle] = decodedBattle(t, log, events.Key{Campaign: camp, Battle: b.Battle})
	}
	for i, b := range c.Battles {
		prefix := c
		prefix.Battles = c.Battles[:i+1]
		st := campaign.FoldStandings(prefix, logs)
		if st.Battles[i].Points == nil {
			continue
		}
		for _, w := range st.Rosters {
			compareRoster(t, "after "+b.Battle, rosterAt(t, db, camp, w.Side, b.Number), w)
		}
	}
}

func compareRoster(t *testing.T, when string, got sqlite.RosterView, want campaign.Roster) {
	t.Helper()
	var units []campaign.RosterUnit
	for _, u := range got.Units {
		units = append(units, campaign.RosterUnit{ID: u.Unit, Name: u.Name, Type: u.Type, Markers: u.Markers, Battles: u.Battles, Last: u.Last, LastWas: u.LastWas})
	}
	if !reflect.DeepEqual(units, want.Units) {
		t.Errorf("roster of %s %s:\n%+v\nservice:\n%+v", want.Side, when, units, want.Units)
	}
	if strings.Join(got.Destroyed, ",") != strings.Join(want.Destroyed, ",") {
		t.Errorf("destroyed of %s %s: %v, service %v", want.Side, when, got.Destroyed, want.Destroyed)
	}
}

// rosterAt reads the roster rows after the battle numbered number.
func rosterAt(t *testing.T, db *sqlite.DB, camp, side string, number int) sqlite.RosterView {
	t.Helper()
	v := sqlite.RosterView{Campaign: camp, Side: side}
	rows, err := db.SQL().Query(`SELECT unit, name, type, markers, battles, last_battle, last_was FROM rosters
		WHERE campaign = ? AND number = ? AND side = ? ORDER BY unit`, camp, number, side)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u sqlite.RosterUnitView
		if err := rows.Scan(&u.Unit, &u.Name, &u.Type, &u.Markers, &u.Battles, &u.Last, &u.LastWas); err != nil {
			t.Fatal(err)
		}
		v.Units = append(v.Units, u)
	}
	drows, err := db.SQL().Query(`SELECT unit FROM roster_destroyed WHERE campaign = ? AND side = ? AND number <= ? ORDER BY number, position`, camp, side, number)
	if err != nil {
		t.Fatal(err)
	}
	defer drows.Close()
	for drows.Next() {
		var id string
		drows.Scan(&id)
		v.Destroyed = append(v.Destroyed, id)
	}
	return v
}

func decodedBattle(t *testing.T, log events.Log, key events.Key) []rules.Event {
	t.Helper()
	envs, err := log.Read(context.Background(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []rules.Event
	for i := range envs {
		payload, err := campaign.Registry().Upcast(&envs[i])
		if err != nil {
			t.Fatal(err)
		}
		ev, err := rules.DecodeEvent(envs[i].Type, payload)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// tablesHolding lists the tables of the projection with a value that
// contains s.
func tablesHolding(t *testing.T, db *sqlite.DB, s string) []string {
	t.Helper()
	var out []string
	for _, table := range sqlite.Tables {
		rows, err := db.SQL().Query(`SELECT * FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		found := false
		for rows.Next() && !found {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if strings.Contains(fmt.Sprint(v), s) || (fmt.Sprintf("%T", v) == "[]uint8" && strings.Contains(string(v.([]byte)), s)) {
					found = true
				}
			}
		}
		rows.Close()
		if found {
			out = append(out, table)
		}
	}
	return out
}

// TestStandingsEqualTheService plays the two-battle campaign of
// testdata/scenarios/f-campaign.yaml (a flank march lost in battle one)
// through a real service and checks the campaign view: standings and
// rosters equal what the service folds, after every battle too; the flank
// march's composition is nowhere in the projection before it is revealed;
// objectives, victory points and the excluded marchers are there; people
// are there without their token hashes; and projections made in batches
// of 1, 7 and 500 events are equal.
func TestStandingsEqualTheService(t *testing.T) {
	ctx := context.Background()
	l := campaigntest.Open(t, campaigntest.Options{})
	log, svc := l.Log, l.Service
	sc, err := campaign.LoadScenario("../../testdata/scenarios/f-campaign.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = sc.Play(ctx, svc, campaign.Operator("umpire"), func(r campaign.StepResult) {
		if r.Mismatch != "" {
			t.Errorf("step %d %s: %s: %v %v", r.Number, r.Step.Do, r.Mismatch, r.Refusal, r.Err)
		}
	})
	if err != nil || t.Failed() {
		t.Fatalf("play: %v", err)
	}
	const camp = "f-campaign"
	var hashes []string
	// red-player is a person of the campaign since the file's start.
	for _, p := range []map[string]string{{"player": "ump", "role": "umpire"}} {
		out := execute(t, svc, "umpire", camp, "", "add-"+p["player"], campaign.CmdPlayerAdd, p)
		hashes = append(hashes, campaign.HashToken(out.Token))
	}
	out := execute(t, svc, "umpire", camp, "", "reissue", campaign.CmdTokenReissue, map[string]string{"player": "red-player"})
	hashes = append(hashes, campaign.HashToken(out.Token))
	// And the hash of red-player's first token, recorded when the file added them.
	cevs, err := log.Read(ctx, events.Key{Campaign: camp}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cevs {
		if e.Type == campaign.EvPlayerAdded {
			var pa campaign.PlayerAdded
			if err := json.Unmarshal(e.Payload, &pa); err != nil {
				t.Fatal(err)
			}
			hashes = append(hashes, pa.TokenHash)
		}
	}

	// Before the march's orders are revealed (at the end of battle one),
	// nothing in the projection names what marched or where.
	b1 := events.Key{Campaign: camp, Battle: "b1"}
	envs, err := log.Read(ctx, b1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var revealedAt uint64
	for _, e := range envs {
		if e.Type == rules.EvFlankRevealed {
			revealedAt = e.Sequence
		}
	}
	if revealedAt == 0 {
		t.Fatal("no flank.revealed in battle one")
	}
	dir := t.TempDir()
	before := project(t, log, filepath.Join(dir, "before.db"), projections.RunOptions{Until: revealedAt - 1})
	var status, revealed string
	var brigades, entry sql.NullString
	var units sql.NullInt64
	if err := before.SQL().QueryRow(`SELECT status, revealed, brigades, entry_x, units FROM flank_marches WHERE battle = 'b1' AND march = 1`).
		Scan(&status, &revealed, &brigades, &entry, &units); err != nil {
		t.Fatal(err)
	}
	if status != sqlite.MarchLost || revealed != "" || brigades.Valid || entry.Valid || units.Valid {
		t.Errorf("the lost march before its reveal: %s %q %v %v %v", status, revealed, brigades, entry, units)
	}
	for _, secret := range []string{"rf-inf1", "rf-cav", "rf-gen"} {
		if tables := tablesHolding(t, before, secret); len(tables) > 0 {
			t.Errorf("before the reveal, %s is in %v", secret, tables)
		}
	}

	dbs := map[int]*sqlite.DB{}
	for _, size := range []int{1, 7, 500} {
		dbs[size] = project(t, log, filepath.Join(dir, fmt.Sprintf("b%d.db", size)), projections.RunOptions{BatchSize: size})
	}
	for _, size := range []int{1, 7} {
		diffs, err := dbs[size].Compare(ctx, dbs[500])
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			t.Errorf("batches of %d: %s", size, d.Detail)
		}
	}
	db := dbs[7]
	checkStandings(t, db, log, svc, camp)

	st, _ := db.Standings(ctx, camp)
	if red := st.Sides[0]; red.Side != "red" || red.Points != 8 || red.Won != 1 || red.Lost != 1 || red.Played != 2 {
		t.Errorf("red stands %+v", red)
	}
	if r := st.Battles[0].Sides; r[0].Result != sqlite.ResultWon || r[1].Result != sqlite.ResultLost {
		t.Errorf("battle one results %+v", r)
	}
	red, _ := db.Roster(ctx, camp, "red")
	if red.After != "b2" || red.Number != 2 || strings.Join(red.Destroyed, ",") != "rf-cav" {
		t.Errorf("red roster %+v", red)
	}

	if err := db.SQL().QueryRow(`SELECT status, revealed, brigades, units FROM flank_marches WHERE battle = 'b1' AND march = 1`).
		Scan(&status, &revealed, &brigades, &units); err != nil {
		t.Fatal(err)
	}
	if status != sqlite.MarchLost || revealed != rules.RevealBattleEnd || !strings.Contains(brigades.String, "rf-inf1") || units.Int64 != 2 {
		t.Errorf("the lost march after its reveal: %s %q %v %v", status, revealed, brigades, units)
	}
	var held string
	var value int
	if err := db.SQL().QueryRow(`SELECT held_by, value FROM objectives WHERE battle = 'b1' AND objective = 'hill'`).Scan(&held, &value); err != nil || held != "red" || value != 5 {
		t.Errorf("the hill: %q %d %v", held, value, err)
	}
	var vp []string
	rows, _ := db.SQL().Query(`SELECT side || ' ' || points || ' ' || unit_points || ' ' || objective_points FROM victory_points WHERE battle = 'b1' ORDER BY position`)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		vp = append(vp, s)
	}
	rows.Close()
	if strings.Join(vp, ", ") != "red 8 3 5, blue 0 0 0" {
		t.Errorf("victory points of battle one: %v", vp)
	}
	var excluded string
	db.SQL().QueryRow(`SELECT group_concat(unit, ',') FROM (SELECT unit FROM victory_excluded WHERE battle = 'b1' ORDER BY position)`).Scan(&excluded)
	if excluded != "rf-inf1,rf-cav" {
		t.Errorf("excluded from battle one's score: %q", excluded)
	}

	var players []string
	rows, _ = db.SQL().Query(`SELECT player || ':' || role || ':' || side FROM players WHERE campaign = ? ORDER BY seq`, camp)
	for rows.Next() {
		var s string
		rows.Scan(&s)
		players = append(players, s)
	}
	rows.Close()
	if strings.Join(players, " ") != "red-player:player:red ump:umpire:" {
		t.Errorf("players %v", players)
	}
	for _, h := range hashes {
		if tables := tablesHolding(t, db, h); len(tables) > 0 {
			t.Errorf("a token hash is in %v", tables)
		}
	}
}

// TestStandingsFoldAgainWhenBattlesChange: battle two ends before battle
// one, then a dispute upheld after battle one's end corrects a unit, and a
// retraction is requested and declined. After each, the projection that
// followed along equals the service and a projection built in one go.
func TestStandingsFoldAgainWhenBattlesChange(t *testing.T) {
	ctx := context.Background()
	l := campaigntest.Open(t, campaigntest.Options{})
	log, svc := l.Log, l.Service
	dir := t.TempDir()
	live := mustOpen(t, filepath.Join(dir, "live.db"))
	step := 0
	check := func(what string) {
		t.Helper()
		if err := projections.Run(ctx, log, live, projections.RunOptions{BatchSize: 3}); err != nil {
			t.Fatal(err)
		}
		checkStandings(t, live, log, svc, "c1")
		step++
		clean := project(t, log, filepath.Join(dir, fmt.Sprintf("clean%d.db", step)), projections.RunOptions{})
		diffs, err := live.Compare(ctx, clean)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffs {
			t.Errorf("%s: %s", what, d.Detail)
		}
	}
	do := func(battle, id, name string, body any, dice ...int) campaign.Outcome {
		t.Helper()
		return execute(t, svc, "umpire", "c1", battle, id, name, body, dice...)
	}
	do("", "c", campaign.CmdCreate, map[string]any{"name": "C", "sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}})
	check("created")
	for _, b := range []string{"b1", "b2"} {
		do(b, b+"-create", "battle.create", map[string]any{"table": map[string]int{"width": 72, "depth": 48}, "first_side": "red"})
		for _, side := range []struct {
			id string
			y  float64
		}{{"red", 10}, {"blue", 38}} {
			do(b, b+"-deploy-"+side.id, "army.deploy", projtest.SmallArmy(side.id, side.y))
		}
		do(b, b+"-start", "battle.start", map[string]any{})
	}
	do("b2", "b2-kill", "combat.record", map[string]any{"unit": "blue-u", "result": "destroyed"})
	do("b2", "b2-end", "battle.end", map[string]any{"reason": "over"})
	check("battle two ended first")
	do("b1", "b1-hit", "combat.record", map[string]any{"unit": "red-v", "result": "casualties", "markers": 1})
	execute(t, svc, "umpire", "c1", "b1", "r1", rules.CmdRetractRequest, map[string]any{"command_id": "b1-hit"})
	execute(t, svc, "red-player", "c1", "b1", "r1-no", rules.CmdRetractDecline, map[string]any{"request": 1, "reason": "it stands"})
	check("retraction declined")
	var rstatus, rby, aby, reason string
	if err := live.SQL().QueryRow(`SELECT status, requested_by, answered_by, reason FROM retractions WHERE battle = 'b1' AND request = 1`).
		Scan(&rstatus, &rby, &aby, &reason); err != nil || rstatus != rules.RetractStatusDeclined || rby != "umpire" || aby != "red-player" || reason != "it stands" {
		t.Errorf("retraction row: %s %s %s %q %v", rstatus, rby, aby, reason, err)
	}
	do("b1", "b1-kill", "combat.record", map[string]any{"unit": "red-u", "result": "destroyed"})
	do("b1", "b1-end", "battle.end", map[string]any{"reason": "over"})
	check("battle one ended second")
	if st, _ := live.Standings(ctx, "c1"); len(st.Battles) != 2 || st.Battles[0].Battle != "b1" {
		t.Fatalf("standings %+v", st)
	}

	// The umpire rules after the end that red-u was not destroyed but
	// has 2 markers: battle one's score stands (battle.scored is not
	// re-recorded), the rosters change from battle one on.
	var killed uint64
	envs, _ := log.Read(ctx, events.Key{Campaign: "c1", Battle: "b1"}, 0)
	for _, e := range envs {
		if e.CommandID == "b1-kill" {
			killed = e.Version
		}
	}
	raised := execute(t, svc, "blue-player", "c1", "b1", "q1", rules.CmdDisputeRaise, map[string]any{"event_version": killed, "reason": "it was only shaken"})
	check("dispute raised")
	two := 2
	do("b1", "q1-uphold", rules.CmdDisputeUphold, map[string]any{"dispute": 1, "ruling": "two markers, not destroyed",
		"corrections": []map[string]any{{"unit": "red-u", "status": "ok", "markers": &two}}})
	check("dispute upheld")
	var dstatus, by, ruledBy string
	if err := live.SQL().QueryRow(`SELECT status, raised_by, ruled_by FROM disputes WHERE battle = 'b1' AND dispute = 1`).Scan(&dstatus, &by, &ruledBy); err != nil ||
		dstatus != rules.DisputeStatusUpheld || by != "blue-player" || ruledBy != "umpire" {
		t.Errorf("dispute row: %s %s %s %v (raised by %+v)", dstatus, by, ruledBy, err, raised.Events)
	}
	if red, _ := live.Roster(ctx, "c1", "red"); len(red.Destroyed) != 0 {
		t.Errorf("red-u is still destroyed after the correction: %+v", red)
	}
}
