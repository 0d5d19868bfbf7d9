package main

import (
	"context"
	"strings"
	"testing"

	"github.com/clubledger/ledger/events"
)

// TestServeRebuildsWhileServing: the admin rebuilds the projection over
// HTTP while the server serves; the state is the same after, a command
// given after it is projected on the new file, and nobody else may ask.
func TestServeRebuildsWhileServing(t *testing.T) {
	ts := seed(t)
	before := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["uma"], nil), 200)
	ts.must(ts.do("POST", "/api/admin/projections/rebuild", ts.tokens["uma"], nil), 403)
	ts.must(ts.do("POST", "/api/admin/projections/rebuild", "", nil), 401)
	// A token nobody holds is unauthenticated, not a person forbidden.
	ts.must(ts.do("POST", "/api/admin/projections/rebuild", "lt_"+strings.Repeat("0f", 20), nil), 401)
	ts.must(ts.do("GET", "/api/admin/status", "not-a-token", nil), 401)
	r := ts.must(ts.do("POST", "/api/admin/projections/rebuild", testAdminToken, nil), 200)
	if r.body["rebuilt"] != true || r.body["checkpoint"].(float64) < float64(ts.lastVersion()) {
		t.Fatalf("rebuild answered %s", r.raw)
	}
	after := ts.must(ts.do("GET", "/api/campaigns/demo/battles/b1/state", ts.tokens["uma"], nil), 200)
	if string(after.raw) != string(before.raw) {
		t.Fatalf("the state changed across the rebuild:\n%s\n%s", before.raw, after.raw)
	}
	// The server goes on: a move is accepted and shows in the state read
	// from the swapped-in projection.
	ts.must(ts.command("marie", "b1", "unit.move", map[string]any{"id": "after-rebuild",
		"command": map[string]any{"unit": "33-ligne", "to": map[string]float64{"x": 24, "y": 22}}}), 201)
	v, err := ts.served.App.DB.Battle(context.Background(), events.Key{Campaign: "demo", Battle: "b1"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range v.Units {
		if u.Unit == "33-ligne" {
			found = true
			if u.Y != 22 {
				t.Fatalf("the swapped-in projection has 33-ligne at y=%v after the move", u.Y)
			}
		}
	}
	if !found || int(v.Version) != ts.lastVersion() {
		t.Fatalf("the projection after the rebuild: version %d of %d, 33-ligne found %v", v.Version, ts.lastVersion(), found)
	}
	cp, err := ts.served.App.DB.Checkpoint(context.Background())
	if last, _ := ts.served.App.Log.LastSequence(context.Background()); err != nil || cp != last {
		t.Fatalf("checkpoint %d of %d (%v)", cp, last, err)
	}
}
