package jetstream

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clubledger/ledger/events"
)

// StoreWatch watches the embedded NATS server's store: a full disk or a
// failed write (nats-server keeps a stream's first write error and stores
// nothing more in it until the stream is loaded again) is a named fault
// (events.StoreFault), logged once, refused at the gate and reported by
// /readyz; once the disk has room and takes a synced write again, the
// watch restarts JetStream in process, which loads the streams again
// without their kept errors, and commands are accepted with no restart of
// the ledger. A ledger on an external NATS server has no watch: its
// servers' disks are theirs (docs/deploy.md).
type StoreWatch struct {
	emb    *Embedded
	dir    string // the data folder: its disk is the store's
	logger *slog.Logger
	// Restarted, when set, is told JetStream was restarted: the
	// followers of the log follow again at once (their consumers went
	// with it). Set it before Run.
	Restarted func()

	mu      sync.Mutex
	fault   *events.StoreFault
	since   time.Time
	nextTry time.Time
	backoff time.Duration
}

// StoreWatchEvery is how often a serving ledger looks at its store: a
// freed disk takes commands again within it (plus a restart of JetStream,
// a few milliseconds).
const StoreWatchEvery = time.Second

// minFreeForWrites is the free space the store needs before the watch
// tries it again: a stream's message block is at most 8 MiB, and SQLite's
// projection writes beside it. Below it the disk counts as full.
const minFreeForWrites = 8 << 20

// NewStoreWatch watches emb's store, on the disk of the data folder dir;
// logger hears of a fault and of its mending (nil: nobody).
func NewStoreWatch(emb *Embedded, dir string, logger *slog.Logger) *StoreWatch {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &StoreWatch{emb: emb, dir: dir, logger: logger}
}

// Current is the last check's fault, nil when there is none (or no watch).
func (w *StoreWatch) Current() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fault == nil {
		return nil
	}
	return w.fault
}

// Run checks the store every StoreWatchEvery until ctx ends.
func (w *StoreWatch) Run(ctx context.Context) {
	t := time.NewTicker(StoreWatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.Check()
		}
	}
}

// Check looks at the store now and returns its fault, nil when it writes:
// a new fault is logged once in words; a fault on a disk that has room
// and takes a synced write again is mended by restarting JetStream.
func (w *StoreWatch) Check() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.emb.StoreFault()
	if err == nil {
		w.mended("")
		return nil
	}
	free, size, known := diskSpace(w.dir)
	f := &events.StoreFault{Full: known && free < minFreeForWrites || strings.Contains(err.Error(), "no space left"),
		Free: free, Size: size, Cause: err.Error()}
	if w.fault == nil {
		w.since = time.Now()
		w.logger.Error("the data folder's store cannot write: " + f.Error())
	}
	w.fault = f
	if time.Now().Before(w.nextTry) || (known && free < minFreeForWrites) {
		return f
	}
	if perr := probeWrite(w.dir); perr != nil {
		// A probe is cheap: tried again at the next look.
		f.Cause += "; a test write in the data folder failed too: " + perr.Error()
		return f
	}
	if rerr := w.emb.RestartJetStream(); rerr != nil {
		w.logger.Warn("the data folder's disk writes again, but JetStream could not be restarted in process: restart the ledger", "err", rerr)
		w.later()
		return f
	}
	if w.Restarted != nil {
		w.Restarted()
	}
	if err := w.emb.StoreFault(); err != nil {
		f.Cause = err.Error()
		w.later()
		return f
	}
	w.mended(" (JetStream restarted in process)")
	return nil
}

// mended clears a fault, saying so in the log. The lock is held.
func (w *StoreWatch) mended(how string) {
	if w.fault != nil {
		w.logger.Info("the data folder's store writes again"+how+": commands are accepted", "after", time.Since(w.since).Round(time.Millisecond))
	}
	w.fault, w.backoff, w.nextTry = nil, 0, time.Time{}
}

// later puts off the next restart of JetStream after one that did not
// mend the store, twice as long each time, from 1 s to 30 s. The lock is
// held.
func (w *StoreWatch) later() {
	w.backoff = min(max(2*w.backoff, time.Second), 30*time.Second)
	w.nextTry = time.Now().Add(w.backoff)
}

// probeWrite writes, syncs and removes a small file in dir: whether the
// disk takes a write that reaches it.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".ledger-probe-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(make([]byte, 64<<10)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
