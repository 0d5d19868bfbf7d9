package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clubledger/ledger/app"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/projections/sqlite"
)

// TestProjectionRebuildThroughTheDoor: the CLI on a folder it owns
// rebuilds and verifies through the door (app.Session), as a server does.
// A rebuild through the door interrupted part way says so and keeps its
// file; a person's token is refused (exit 7, forbidden) without touching
// it; `ledger projections rebuild` then resumes it from its checkpoint and
// says so, and verify lists every table. Through a running server's door
// the same commands refuse the person, and answer the operator with the
// same fields (resumed_from, events, rows); over HTTP a person is 403.
func TestProjectionRebuildThroughTheDoor(t *testing.T) {
	op := newCLI(t)
	op.ok("play", "../../examples/first-battle.yaml")
	op.ok("campaign", "create", "club", "--name", "Club", "--side", "a:A", "--side", "b:B")
	var added struct {
		Token string `json:"token"`
	}
	mustJSON(t, []byte(op.ok("-o", "json", "player", "add", "club", "marie", "--role", "player", "--side", "a")), &added)
	aside := sqlite.AsidePath(op.cfg.DBPath())

	// A rebuild through the door, cancelled after its second batch.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := OpenApp(ctx, op.cfg, AppOptions{Entropy: op.entropy})
	if err != nil {
		t.Fatal(err)
	}
	last, err := a.Log.LastSequence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Ledger.As(operatorCaller("", "en")).RebuildProjection(ctx, app.RebuildOptions{Fresh: true, Batch: 5,
		Progress: func(p projections.Progress) {
			if p.Sequence >= 10 {
				cancel()
			}
		}})
	a.Close()
	if err == nil {
		t.Fatal("the interrupted rebuild succeeded")
	}
	cp, cerr := sqlite.FileCheckpoint(context.Background(), aside)
	if cerr != nil {
		t.Fatalf("the interrupted rebuild's file: %v", cerr)
	}
	if cp < 10 || cp >= last {
		t.Fatalf("the interrupted rebuild's file is at log sequence %d of %d", cp, last)
	}
	var cause error = err
	var ae *app.Error
	if errors.As(err, &ae) {
		cause = errors.Unwrap(ae)
	}
	if want := fmt.Sprintf("rebuild interrupted at log sequence %d; run it again to resume", cp); cause == nil || !strings.Contains(cause.Error(), want) {
		t.Fatalf("the interrupted rebuild said %v, want %q", err, want)
	}

	// A person's token: refused by the door, the file left as it was.
	p := &testCLI{t: t, cfg: op.cfg, entropy: op.entropy}
	p.cfg.Token = added.Token
	for cmd, what := range map[string]string{"rebuild": "rebuilding the projection is the operator's", "verify": "verifying the projection is the operator's"} {
		if code, _, errs := p.run("projections", cmd); code != exitForbidden || !strings.Contains(errs, what) {
			t.Errorf("marie's token: projections %s on the folder: exit %d, want %d\n%s", cmd, code, exitForbidden, errs)
		}
	}
	if again, err := sqlite.FileCheckpoint(context.Background(), aside); err != nil || again != cp {
		t.Fatalf("after the refusals the interrupted file is at %d (%v), was %d", again, err, cp)
	}

	// The operator's rebuild resumes it.
	code, out, errs := op.run("-o", "json", "projections", "rebuild", "--batch", "7")
	if code != 0 {
		t.Fatalf("rebuild: exit %d\n%s\n%s", code, out, errs)
	}
	if want := fmt.Sprintf("resuming the interrupted rebuild in %s from log sequence %d", aside, cp); !strings.Contains(errs, want) {
		t.Errorf("rebuild's standard error lacks %q:\n%s", want, errs)
	}
	var r app.Rebuilt
	mustJSON(t, []byte(out), &r)
	if !r.Rebuilt || r.ResumedFrom != cp || r.Checkpoint < last || r.Events == 0 || r.Events > last-cp+2 || r.Path != op.cfg.DBPath() {
		t.Errorf("the resumed rebuild answered %+v (resumed from %d, log at %d)", r, cp, last)
	}
	if _, err := os.Stat(aside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rebuild file is still there after the swap: %v", err)
	}
	var v app.Verified
	mustJSON(t, []byte(op.ok("-o", "json", "projections", "verify")), &v)
	if len(v.Differences) != 0 || v.Tables != len(sqlite.Tables) || len(v.Rows) != v.Tables || v.Checkpoint < last {
		t.Errorf("verify after the resumed rebuild: %+v", v)
	}

	// Through a running server's door: the same commands, the same refusal.
	ts := seed(t)
	c := &testCLI{t: t, cfg: ts.cfg}
	c.cfg.Token = ts.tokens["marie"]
	for cmd, what := range map[string]string{"rebuild": "rebuilding the projection is the operator's", "verify": "verifying the projection is the operator's"} {
		if code, _, errs := c.run("projections", cmd); code != exitForbidden || !strings.Contains(errs, what) {
			t.Errorf("marie's token: projections %s through the server's door: exit %d, want %d\n%s", cmd, code, exitForbidden, errs)
		}
		ts.must(ts.do("POST", "/api/admin/projections/"+cmd, ts.tokens["marie"], nil), 403)
	}
	c.cfg.Token = ""
	code, out, errs = c.run("-o", "json", "projections", "rebuild", "--fresh", "--batch", "3")
	if code != 0 {
		t.Fatalf("rebuild through the server's door: exit %d\n%s\n%s", code, out, errs)
	}
	r = app.Rebuilt{}
	mustJSON(t, []byte(out), &r)
	if !r.Rebuilt || r.ResumedFrom != 0 || r.Events == 0 || r.Checkpoint == 0 {
		t.Errorf("the server's rebuild answered %+v", r)
	}
	v = app.Verified{}
	mustJSON(t, []byte(c.ok("-o", "json", "projections", "verify")), &v)
	if len(v.Differences) != 0 || len(v.Rows) != len(sqlite.Tables) {
		t.Errorf("the server's verify answered %+v", v)
	}
	ts.must(ts.do("POST", "/api/admin/projections/rebuild?fresh=maybe", testAdminToken, nil), 400)
	ts.must(ts.do("POST", "/api/admin/projections/rebuild?batch=-1", testAdminToken, nil), 400)
}

// TestProjectionOneOperationAtATime: while a rebuild runs, a second rebuild
// or a verification through the door is refused (409, conflict, words in
// both languages) and changes nothing, so two builds never write one aside
// file; the first then finishes and the projection equals the log. A batch
// past projections.MaxBatchSize, or below 0, is refused before anything is
// built, with the limit named (the CLI's exit 2 for a usage error is the
// flag parser's; the door's refusal is exit 1).
func TestProjectionOneOperationAtATime(t *testing.T) {
	op := newCLI(t)
	op.ok("play", "../../examples/first-battle.yaml")
	ctx := context.Background()
	a, err := OpenApp(ctx, op.cfg, AppOptions{Entropy: op.entropy})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	door := a.Ledger.As(operatorCaller("", "en"))
	ru := a.Ledger.As(operatorCaller("", "ru"))
	var second, verify, secondRu error
	asked := false
	r, err := door.RebuildProjection(ctx, app.RebuildOptions{Fresh: true, Batch: 5,
		Progress: func(p projections.Progress) {
			if asked {
				return
			}
			asked = true
			_, second = door.RebuildProjection(ctx, app.RebuildOptions{Batch: 7})
			_, verify = door.VerifyProjection(ctx, app.VerifyOptions{})
			_, secondRu = ru.RebuildProjection(ctx, app.RebuildOptions{})
		}})
	if err != nil || !r.Rebuilt {
		t.Fatalf("the first rebuild: %+v, %v", r, err)
	}
	for what, err := range map[string]error{"a second rebuild": second, "a verification": verify} {
		var ae *app.Error
		if !errors.As(err, &ae) || ae.Kind != app.KindConflict || ae.Code != "projection_busy" || !strings.Contains(ae.Message, "already running") {
			t.Errorf("%s while a rebuild runs: %v, want 409 projection_busy", what, err)
		}
	}
	if secondRu == nil || !strings.Contains(secondRu.Error(), "уже идёт") {
		t.Errorf("a second rebuild in Russian: %v", secondRu)
	}
	v, err := door.VerifyProjection(ctx, app.VerifyOptions{})
	if err != nil || len(v.Differences) != 0 {
		t.Fatalf("after the rebuild: %+v, %v", v, err)
	}
	for _, batch := range []int{-5, projections.MaxBatchSize + 1, 99999999} {
		_, err := door.RebuildProjection(ctx, app.RebuildOptions{Batch: batch})
		var ae *app.Error
		if !errors.As(err, &ae) || ae.Kind != app.KindInvalid || !strings.Contains(ae.Message, fmt.Sprintf("want 1 to %d events", projections.MaxBatchSize)) {
			t.Errorf("--batch %d: %v, want refused with the limit", batch, err)
		}
	}
	if _, err := os.Stat(sqlite.AsidePath(op.cfg.DBPath())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused rebuild left an aside file: %v", err)
	}
}
