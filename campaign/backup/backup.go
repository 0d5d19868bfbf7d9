// Package backup writes the whole ledger, every event of the log and every
// sealed value of the vault, to one file, and restores such a file into an
// empty ledger.
//
// # Format: ledger-backup-v1
//
// JSON Lines, one object a line:
//
//	{"format":"ledger-backup-v1","created_at":…,"last_sequence":N}      the header
//	{"event":{"seq":1,"campaign":"c","battle":"b","hash":"…","raw":"…"}} one per event, in log order
//	{"sealed":{"name":"dice.c.b.battle","value":"<base64>"}}           one per vault entry, by name
//	{"end":{"events":N,"sealed":M,"digest":"<hex sha-256>"}}            the trailer
//
// raw is the event's stored bytes verbatim (they are UTF-8 JSON, so the
// string's encoding is exactly those bytes; raw_base64 holds bytes that are
// not UTF-8); hash is their SHA-256, what the next event of the stream
// carries as prev_hash. digest is the SHA-256 of every byte of the file
// before the trailer line, so a truncated or edited file is refused before
// anything is restored.
//
// # A consistent cut
//
// Write takes the log's last sequence first and copies the events up to it,
// while the ledger keeps serving; then it copies the vault. The service
// seals a dice seed before it appends the commitment that names it, so
// every seed a copied event commits to is in the vault by the time it is
// read. Seeds sealed after the cut come along too; they are harmless (a
// sealed value is written once and a later command finds it).
//
// # Restoring
//
// Restore refuses a ledger that holds any event or sealed value. It reads the
// file twice: once to check it whole (format, digest, counts, every stream's
// hash chain), then to write the sealed values and re-append every event in
// the original log order, one append each, with its exact stored bytes.
// The chains therefore verify in the restored ledger as they did in the
// original, and in an empty stream the events get their original log
// sequences back, so projections built from the restored log equal the
// original's, sequences included.
//
// The package is pure apart from the io it is given: it works through
// events.Log and a Vault, and knows nothing of NATS.
package backup

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/clubledger/ledger/events"
)

// Format names the file format; it is the header's "format".
const Format = "ledger-backup-v1"

// maxLine bounds one line (a battle.created carries a whole ruleset).
const maxLine = 64 << 20

// Vault is the sealed-value store as a backup needs it: the events.Vault
// operations plus the list of names it holds.
type Vault interface {
	events.Vault
	// Names returns every name the vault holds, in any order.
	Names(ctx context.Context) ([]string, error)
}

// Header is the first line of a backup.
type Header struct {
	Format    string    `json:"format"`
	CreatedAt time.Time `json:"created_at"`
	// LastSequence is the log's last sequence when the backup started: the
	// cut. The file holds every event up to it.
	LastSequence uint64 `json:"last_sequence"`
	// Source describes where the backup was taken (the stream's name, the
	// server), for people; nothing reads it.
	Source string `json:"source,omitempty"`
}

// Event is one event line.
type Event struct {
	Seq       uint64 `json:"seq"`
	Campaign  string `json:"campaign"`
	Battle    string `json:"battle,omitempty"`
	Hash      string `json:"hash"`
	Raw       string `json:"raw,omitempty"`
	RawBase64 string `json:"raw_base64,omitempty"`
}

// Sealed is one vault entry.
type Sealed struct {
	Name  string `json:"name"`
	Value []byte `json:"value"`
}

// End is the trailer.
type End struct {
	Events int    `json:"events"`
	Sealed int    `json:"sealed"`
	Digest string `json:"digest"`
}

// line is any line after the header.
type line struct {
	Event  *Event  `json:"event,omitempty"`
	Sealed *Sealed `json:"sealed,omitempty"`
	End    *End    `json:"end,omitempty"`
}

// Summary says what a backup holds (or what was written or restored).
type Summary struct {
	Header  Header `json:"header"`
	Events  int    `json:"events"`
	Streams int    `json:"streams"`
	// Keys are the streams the backup holds, in the order of their first
	// event (Check and Restore).
	Keys   []events.Key `json:"keys,omitempty"`
	Sealed int          `json:"sealed"`
	Bytes  int64        `json:"bytes"`
	// SequencesKept is true when every restored event got its original log
	// sequence back (Restore only).
	SequencesKept bool `json:"sequences_kept"`
}

// hashingWriter counts and hashes what it writes.
type hashingWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (hw *hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}

// errCut stops the follower at the cut: a cancelled context would let
// events already on their way through.
var errCut = errors.New("backup: reached the cut")

// Write copies log and vault to w as a ledger-backup-v1 file: the events up
// to the log's last sequence at the start, then the vault's entries. now
// stamps the header; source describes the ledger for people.
func Write(ctx context.Context, w io.Writer, log events.Log, vault Vault, now time.Time, source string) (Summary, error) {
	last, err := log.LastSequence(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("backup: %w", err)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	hw := &hashingWriter{w: bw, h: sha256.New()}
	enc := json.NewEncoder(hw)
	enc.SetEscapeHTML(false)
	sum := Summary{Header: Header{Format: Format, CreatedAt: now.UTC(), LastSequence: last, Source: source}}
	if err := enc.Encode(sum.Header); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	streams := map[events.Key]bool{}
	if last > 0 {
		var want uint64
		err := log.Follow(ctx, 0, func(e events.Envelope) error {
			if e.Sequence > last {
				return errCut // past the cut: written after the backup began
			}
			want++
			if e.Sequence != want {
				return fmt.Errorf("backup: the log has sequence %d where %d was expected", e.Sequence, want)
			}
			l := Event{Seq: e.Sequence, Campaign: e.Campaign, Battle: e.Battle, Hash: events.Hash(e.Raw)}
			if utf8.Valid(e.Raw) {
				l.Raw = string(e.Raw)
			} else {
				l.RawBase64 = base64.StdEncoding.EncodeToString(e.Raw)
			}
			if err := enc.Encode(line{Event: &l}); err != nil {
				return fmt.Errorf("backup: %w", err)
			}
			sum.Events++
			streams[e.Key()] = true
			if e.Sequence >= last {
				return errCut
			}
			return nil
		}, nil)
		if ctx.Err() != nil {
			return sum, fmt.Errorf("backup: read the log: %w", ctx.Err())
		}
		if !errors.Is(err, errCut) {
			return sum, fmt.Errorf("backup: read the log: %w", err)
		}
	}
	sum.Streams = len(streams)
	names, err := vault.Names(ctx)
	if err != nil {
		return sum, fmt.Errorf("backup: list the vault: %w", err)
	}
	slices.Sort(names)
	for _, name := range names {
		v, err := vault.Get(ctx, name)
		if errors.Is(err, events.ErrNotFound) {
			continue // removed by an operator's tool between the list and the read
		}
		if err != nil {
			return sum, fmt.Errorf("backup: %w", err)
		}
		if err := enc.Encode(line{Sealed: &Sealed{Name: name, Value: v}}); err != nil {
			return sum, fmt.Errorf("backup: %w", err)
		}
		sum.Sealed++
	}
	end := End{Events: sum.Events, Sealed: sum.Sealed, Digest: hex.EncodeToString(hw.h.Sum(nil))}
	if err := enc.Encode(line{End: &end}); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return sum, fmt.Errorf("backup: %w", err)
	}
	sum.Bytes = hw.n
	return sum, nil
}

// FormatError is a file that is not a complete, intact backup. Line counts
// from 1 (the header).
type FormatError struct {
	Line   int
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("backup: line %d: %s", e.Line, e.Reason)
}

// reader walks a backup file line by line, hashing as it goes.
type reader struct {
	br     *bufio.Reader
	h      hash.Hash
	n      int // lines read
	bytes  int64
	header Header
}

func newReader(r io.Reader) (*reader, error) {
	rd := &reader{br: bufio.NewReaderSize(r, 256<<10), h: sha256.New()}
	b, err := rd.next()
	if err != nil {
		return nil, err
	}
	rd.h.Write(b)
	rd.h.Write([]byte{'\n'})
	if err := json.Unmarshal(b, &rd.header); err != nil {
		return nil, &FormatError{Line: 1, Reason: fmt.Sprintf("header: %v", err)}
	}
	if rd.header.Format != Format {
		return nil, &FormatError{Line: 1, Reason: fmt.Sprintf("format %q, want %q", rd.header.Format, Format)}
	}
	return rd, nil
}

// next returns the next line without its newline; io.ErrUnexpectedEOF at
// the end of the file (a complete file ends with its trailer first).
func (rd *reader) next() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := rd.br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, &FormatError{Line: rd.n + 1, Reason: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil, &FormatError{Line: rd.n + 1, Reason: "the file ends before its trailer: truncated"}
		}
		return nil, fmt.Errorf("backup: read: %w", err)
	}
	rd.n++
	rd.bytes += int64(len(buf))
	return buf[:len(buf)-1], nil
}

// item is one line after the header; end is set on the trailer, whose
// digest has been checked.
type item struct {
	event  *Event
	raw    []byte
	sealed *Sealed
	end    *End
}

func (rd *reader) item() (item, error) {
	digest := hex.EncodeToString(rd.h.Sum(nil))
	b, err := rd.next()
	if err != nil {
		return item{}, err
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return item{}, &FormatError{Line: rd.n, Reason: err.Error()}
	}
	switch {
	case l.Event != nil:
		rd.h.Write(b)
		rd.h.Write([]byte{'\n'})
		raw := []byte(l.Event.Raw)
		if l.Event.RawBase64 != "" {
			if raw, err = base64.StdEncoding.DecodeString(l.Event.RawBase64); err != nil {
				return item{}, &FormatError{Line: rd.n, Reason: fmt.Sprintf("raw_base64: %v", err)}
			}
		}
		if events.Hash(raw) != l.Event.Hash {
			return item{}, &FormatError{Line: rd.n, Reason: fmt.Sprintf("event at sequence %d: its bytes do not hash to the hash recorded beside them", l.Event.Seq)}
		}
		return item{event: l.Event, raw: raw}, nil
	case l.Sealed != nil:
		rd.h.Write(b)
		rd.h.Write([]byte{'\n'})
		return item{sealed: l.Sealed}, nil
	case l.End != nil:
		if l.End.Digest != digest {
			return item{}, &FormatError{Line: rd.n, Reason: "the digest does not match the file's content: it was altered"}
		}
		if _, err := rd.br.ReadByte(); !errors.Is(err, io.EOF) {
			return item{}, &FormatError{Line: rd.n + 1, Reason: "data after the trailer"}
		}
		return item{end: l.End}, nil
	}
	return item{}, &FormatError{Line: rd.n, Reason: "neither an event, a sealed value nor the trailer"}
}

// Check reads a whole backup and verifies it without writing anything: the
// format, the digest and the counts of its trailer, the log sequences
// (consecutive from 1 to the header's cut), each event's bytes against
// its hash, and every stream's hash chain (events.VerifyChain's rules).
func Check(r io.Reader) (Summary, error) {
	rd, err := newReader(r)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Header: rd.header}
	type tip struct {
		version uint64
		hash    string
	}
	tips := map[events.Key]tip{}
	var names []string
	for {
		it, err := rd.item()
		if err != nil {
			return sum, err
		}
		switch {
		case it.event != nil:
			l := it.event
			if sum.Sealed > 0 {
				return sum, &FormatError{Line: rd.n, Reason: "an event after the sealed values"}
			}
			if l.Seq != uint64(sum.Events)+1 {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("sequence %d where %d was expected", l.Seq, sum.Events+1)}
			}
			e, err := events.Decode(it.raw)
			if err != nil {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("sequence %d: %v", l.Seq, err)}
			}
			key := e.Key()
			if key.Campaign != l.Campaign || key.Battle != l.Battle {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("sequence %d: the line says %s/%s, the event %s", l.Seq, l.Campaign, l.Battle, key)}
			}
			if err := key.Validate(); err != nil {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("sequence %d: %v", l.Seq, err)}
			}
			t, ok := tips[key]
			if !ok {
				sum.Keys = append(sum.Keys, key)
			}
			if e.Version != t.version+1 || e.PrevHash != t.hash {
				return sum, &FormatError{Line: rd.n, Reason: (&events.ChainError{Version: e.Version, ID: e.ID,
					Reason: fmt.Sprintf("stream %s: version %d after %d, prev_hash %.12s… after %.12s…", key, e.Version, t.version, e.PrevHash, t.hash)}).Error()}
			}
			tips[key] = tip{version: e.Version, hash: l.Hash}
			sum.Events++
		case it.sealed != nil:
			if n := len(names); n > 0 && names[n-1] >= it.sealed.Name {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("sealed value %q out of order or repeated", it.sealed.Name)}
			}
			names = append(names, it.sealed.Name)
			sum.Sealed++
		case it.end != nil:
			if it.end.Events != sum.Events || it.end.Sealed != sum.Sealed {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("the trailer counts %d events and %d sealed values, the file holds %d and %d", it.end.Events, it.end.Sealed, sum.Events, sum.Sealed)}
			}
			if uint64(sum.Events) != rd.header.LastSequence {
				return sum, &FormatError{Line: rd.n, Reason: fmt.Sprintf("the header's cut is sequence %d, the file holds %d events", rd.header.LastSequence, sum.Events)}
			}
			sum.Streams = len(tips)
			sum.Bytes = rd.bytes
			return sum, nil
		}
	}
}

// ErrNotEmpty is returned by Restore for a ledger that already holds events
// or sealed values: a restore never mixes with what is there.
var ErrNotEmpty = errors.New("backup: the target ledger is not empty")

// RestoreOptions tune Restore.
type RestoreOptions struct {
	// OnEvent, if set, is called after each event is appended, with the
	// number appended so far and the total.
	OnEvent func(done, total int)
}

// Restore checks the backup read from src (Check), then writes it into an
// empty ledger: the sealed values first, then every event in the original
// log order with its exact stored bytes. src is read twice.
func Restore(ctx context.Context, src io.ReadSeeker, log events.Log, vault Vault, opts RestoreOptions) (Summary, error) {
	sum, err := Check(src)
	if err != nil {
		return sum, err
	}
	last, err := log.LastSequence(ctx)
	if err != nil {
		return sum, fmt.Errorf("backup: restore: %w", err)
	}
	names, err := vault.Names(ctx)
	if err != nil {
		return sum, fmt.Errorf("backup: restore: %w", err)
	}
	if last > 0 || len(names) > 0 {
		return sum, fmt.Errorf("%w: its log ends at sequence %d and its vault holds %d sealed values; restore into a new data folder (or an empty cluster)", ErrNotEmpty, last, len(names))
	}
	// The sealed values first: as the service does, a commitment is never
	// stored without its seed in the vault.
	if err := restorePass(ctx, src, func(it item) error {
		if it.sealed == nil {
			return nil
		}
		if err := vault.Put(ctx, it.sealed.Name, it.sealed.Value); err != nil {
			return fmt.Errorf("backup: restore sealed value %s: %w", it.sealed.Name, err)
		}
		return nil
	}); err != nil {
		return sum, err
	}
	heads := map[events.Key]uint64{}
	done := 0
	sum.SequencesKept = true
	err = restorePass(ctx, src, func(it item) error {
		if it.event == nil {
			return nil
		}
		e, err := events.Decode(it.raw)
		if err != nil {
			return err
		}
		key := e.Key()
		batch := []events.Envelope{e}
		if err := log.Append(ctx, key, heads[key], batch); err != nil {
			return fmt.Errorf("backup: restore event %s (sequence %d): %w", e.ID, it.event.Seq, err)
		}
		heads[key] = batch[0].Sequence
		if batch[0].Sequence != it.event.Seq {
			sum.SequencesKept = false
		}
		done++
		if opts.OnEvent != nil {
			opts.OnEvent(done, sum.Events)
		}
		return nil
	})
	return sum, err
}

// restorePass reads the file again from the start and hands each item to fn.
func restorePass(ctx context.Context, src io.ReadSeeker, fn func(item) error) error {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("backup: restore: %w", err)
	}
	rd, err := newReader(src)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		it, err := rd.item()
		if err != nil {
			return err
		}
		if it.end != nil {
			return nil
		}
		if err := fn(it); err != nil {
			return err
		}
	}
}
