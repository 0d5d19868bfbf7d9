package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
)

// This file holds the operator's two operations on a live projection,
// whole: a rebuild aside that resumes and swaps in, and a verification
// against a scratch rebuild. The door (app.Admin, wired in cmd/ledger)
// calls them, the same for the CLI on a folder it owns and for a server.

// RebuildOptions tune Rebuild.
type RebuildOptions struct {
	// Fresh discards an interrupted rebuild's file instead of resuming it
	// from its checkpoint.
	Fresh bool
	// BatchSize is the most events applied in one transaction (default
	// DefaultBuildBatch).
	BatchSize int
	// OnResume, when set, is told the file an interrupted rebuild left and
	// the log sequence it resumes from, before the build starts.
	OnResume func(path string, seq uint64)
	// OnProgress is told the build's progress (projections.Run's).
	OnProgress func(projections.Progress)
	// Projecting says a projector runs on the live DB in this process
	// (ledger serve): the swap then catches the built file up to the live
	// checkpoint under the projector's lock (SwapWhileProjecting).
	Projecting bool
}

// Rebuilt says what Rebuild did.
type Rebuilt struct {
	// Path is the live file, Aside the file it was built in.
	Path, Aside string
	// ResumedFrom is the checkpoint of the interrupted rebuild's file it
	// went on from; 0 when it built from the first event.
	ResumedFrom uint64
	// Checkpoint is the swapped-in file's.
	Checkpoint uint64
	// Events is how many events this run applied, in Seconds.
	Events  uint64
	Seconds float64
}

// EventsPerSecond is the run's rate (0 when it took no time).
func (r Rebuilt) EventsPerSecond() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Events) / r.Seconds
}

// Rebuild builds live's projection from the log aside (AsidePath), going on
// from an interrupted rebuild's file unless opt.Fresh, and swaps it in:
// Swap, or SwapWhileProjecting when a projector runs on live in this
// process. An interrupted build keeps its file and says so
// (projections.Interrupted, with the log sequence it reached); a swap another
// process prevents (ErrInUse) keeps the built file for the next rebuild.
// While it runs, another Rebuild or Verify of live is refused with
// projections.ErrBusy: two builds into the same aside file, one resuming
// what the other is writing, would swap in a projection that is not the
// log's.
func Rebuild(ctx context.Context, log events.Log, live *DB, opt RebuildOptions) (Rebuilt, error) {
	if !live.operating.TryLock() {
		return Rebuilt{}, projections.ErrBusy
	}
	defer live.operating.Unlock()
	start := time.Now()
	res := Rebuilt{Path: live.Path(), Aside: AsidePath(live.Path())}
	if !opt.Fresh {
		if _, err := os.Stat(res.Aside); err == nil {
			cp, err := FileCheckpoint(ctx, res.Aside)
			if err != nil {
				return res, err
			}
			res.ResumedFrom, res.Checkpoint = cp, cp
			if opt.OnResume != nil {
				opt.OnResume(res.Aside, cp)
			}
		}
	}
	err := Build(ctx, log, res.Aside, BuildOptions{
		Registry: live.Registry(), Keys: live.Keys(), Fresh: opt.Fresh, BatchSize: opt.BatchSize,
		OnProgress: func(p projections.Progress) {
			res.Events, res.Checkpoint = p.Applied, p.Sequence
			if opt.OnProgress != nil {
				opt.OnProgress(p)
			}
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return res, &projections.Interrupted{At: res.Checkpoint, Cause: ctx.Err(), Err: err}
		}
		return res, err
	}
	if opt.Projecting {
		err = live.SwapWhileProjecting(ctx, res.Aside, log)
	} else {
		err = live.Swap(ctx, res.Aside)
	}
	if errors.Is(err, ErrInUse) {
		return res, fmt.Errorf("%w; another process has the projection open: stop it and run this again: the rebuilt projection is kept in %s and the next rebuild swaps it in", err, res.Aside)
	}
	if err != nil {
		return res, err
	}
	// Swapped in: an interruption now changes nothing of what was done.
	if res.Checkpoint, err = live.Checkpoint(context.WithoutCancel(ctx)); err != nil {
		return res, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// FileCheckpoint reads the checkpoint of a projection file no process
// uses (an interrupted rebuild's).
func FileCheckpoint(ctx context.Context, path string) (uint64, error) {
	db, err := Open(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.Checkpoint(ctx)
}

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// OnProgress is told the scratch build's progress.
	OnProgress func(projections.Progress)
	// Projecting says a projector keeps live up to date in this process;
	// without it Verify first brings live to the log's end itself.
	Projecting bool
}

// TableCompared is one table of a verification: its rows in the live
// file and in the rebuild, and whether the two hold the same rows.
type TableCompared struct {
	Table   string `json:"table"`
	Rows    int    `json:"rows"`
	Rebuilt int    `json:"rebuilt_rows"`
	Same    bool   `json:"same"`
}

// Verification is how a live projection compares with a rebuild from the
// log up to its checkpoint, table by table (in Tables' order).
type Verification struct {
	Checkpoint uint64
	Tables     []TableCompared
}

// Differences names the tables that differ (empty, not nil, when none).
func (v Verification) Differences() []string {
	out := []string{}
	for _, t := range v.Tables {
		if !t.Same {
			out = append(out, t.Table)
		}
	}
	return out
}

// Verify brings live to the log's end (unless a projector does), builds
// the log into a scratch file in a temporary folder up to live's
// checkpoint, and compares the two with Digest, table by table.
func Verify(ctx context.Context, log events.Log, live *DB, opt VerifyOptions) (Verification, error) {
	if !live.operating.TryLock() {
		return Verification{}, projections.ErrBusy
	}
	defer live.operating.Unlock()
	if !opt.Projecting {
		if err := projections.Run(ctx, log, live, projections.RunOptions{}); err != nil {
			return Verification{}, err
		}
	}
	cp, err := live.Checkpoint(ctx)
	if err != nil {
		return Verification{}, err
	}
	dir, err := os.MkdirTemp("", "ledger-verify-")
	if err != nil {
		return Verification{}, fmt.Errorf("verify: scratch folder: %w", err)
	}
	defer os.RemoveAll(dir)
	scratch := filepath.Join(dir, "rebuild.db")
	if err := Build(ctx, log, scratch, BuildOptions{Registry: live.Registry(), Keys: live.Keys(), Fresh: true, Until: cp, OnProgress: opt.OnProgress}); err != nil {
		return Verification{}, err
	}
	rebuilt, err := OpenWith(scratch, Options{Registry: live.Registry(), Keys: live.Keys()})
	if err != nil {
		return Verification{}, err
	}
	defer rebuilt.Close()
	got, err := live.Digest(ctx)
	if err != nil {
		return Verification{}, err
	}
	want, err := rebuilt.Digest(ctx)
	if err != nil {
		return Verification{}, err
	}
	v := Verification{Checkpoint: cp, Tables: make([]TableCompared, 0, len(got))}
	for i := range got {
		v.Tables = append(v.Tables, TableCompared{Table: got[i].Table, Rows: got[i].Rows, Rebuilt: want[i].Rows, Same: got[i].Hash == want[i].Hash})
	}
	return v, nil
}
