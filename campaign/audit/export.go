package audit

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Format names the export format the ledger writes; it is the header
// line's "format". Any change to the layout below is a new format with a
// new name. v2 adds the ledger's keys to the header (keys, signed_from) and
// is read strictly: a field it does not define is an error.
const Format = "ledger-export-v2"

// FormatV1 is the format before signatures: still read, leniently.
const FormatV1 = "ledger-export-v1"

// maxLine bounds one line of an export file (the battle.created event,
// which carries the whole ruleset, is the longest: some tens of kB).
const maxLine = 64 << 20

// Meta is the header line of an export file.
type Meta struct {
	// Format is always Format.
	Format string `json:"format"`
	// Campaign and Battle name the battle exported.
	Campaign string `json:"campaign"`
	Battle   string `json:"battle"`
	// ExportedAt is when the export was written (supplied by the caller;
	// the package reads no clock).
	ExportedAt time.Time `json:"exported_at"`
	// Events is the number of event lines that follow the header.
	Events int `json:"events"`
	// Scheme is the dice scheme of the battle's first commitment
	// ("ledger-dice-v2", or "ledger-dice-v1" for a battle begun with it),
	// empty when the battle has none yet.
	Scheme string `json:"scheme"`
	// Head is the hex SHA-256 of the last event's stored bytes: the value a
	// player who kept a note of it (`ledger log` prints it) compares.
	Head string `json:"head"`
	// Umpire is true when events hidden from the players (audience other
	// than "all") were exported in full; otherwise they are withheld.
	Umpire bool `json:"umpire"`
	// Withheld counts the events exported as their hash only.
	Withheld int `json:"withheld"`
	// Keys are the ledger's public keys, oldest first: the first, then
	// each endorsed by the key change that names it, signed by the key
	// before. Every signed event of the file is signed by one of them.
	Keys []ExportKey `json:"keys"`
	// SignedFrom is the first log sequence the ledger signed: events
	// before it were stored by a ledger without a key.
	SignedFrom uint64 `json:"signed_from"`

	// KeyChanges are the key changes (events.KeyChangedType) of the
	// battle's campaign, in log order, from its own stream: WriteExport
	// takes them into Keys; ReadExport gives back those of the header.
	KeyChanges []events.Envelope `json:"-"`
}

// ExportKey is one of the ledger's keys in an export's header.
type ExportKey struct {
	// Key is the hex Ed25519 public key.
	Key string `json:"key"`
	// Change is the stored bytes of the key change that endorses it,
	// signed by the key before; absent for the first key.
	Change *string `json:"change,omitempty"`
}

// Line is one event line of an export. Exactly one of Raw, RawBase64 and
// Withheld is set. Version and Hash repeat what Raw holds and hashes to:
// they locate damage, and the audit trusts only Raw.
type Line struct {
	// Seq is the event's position in the whole log (not hashed).
	Seq     uint64 `json:"seq"`
	Version uint64 `json:"version"`
	// Hash is the hex SHA-256 of the stored bytes.
	Hash string `json:"hash"`
	// Raw is the stored bytes, verbatim, as a JSON string (they are UTF-8
	// JSON, so the string's UTF-8 encoding is exactly those bytes).
	Raw *string `json:"raw,omitempty"`
	// RawBase64 holds stored bytes that are not valid UTF-8 (the ledger
	// never writes such, but an export keeps whatever the log holds).
	RawBase64 string `json:"raw_base64,omitempty"`
	// Withheld marks an event hidden from the players: only its hash and
	// these few fields are exported, its content is not.
	Withheld bool   `json:"withheld,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Audience string `json:"audience,omitempty"`
}

// WriteExport writes one battle's events (the whole stream from version 1,
// each with its stored bytes Raw) as a ledger-export-v1 file. It fills
// meta's Format, Events, Head and Withheld, Campaign and Battle when empty,
// and Scheme when empty from the battle's first dice.committed. Events whose
// audience is not "all" are written as their hash only unless meta.Umpire.
func WriteExport(w io.Writer, meta Meta, evs []events.Envelope) error {
	if len(evs) == 0 {
		return errors.New("audit: export: no events")
	}
	meta.Format = Format
	meta.Events = len(evs)
	if meta.Campaign == "" {
		meta.Campaign = evs[0].Campaign
	}
	if meta.Battle == "" {
		meta.Battle = evs[0].Battle
	}
	if meta.Battle == "" {
		return fmt.Errorf("audit: export %s: a battle is exported, not a campaign stream", meta.Campaign)
	}
	meta.Withheld = 0
	lines := make([]Line, len(evs))
	for i := range evs {
		e := &evs[i]
		if len(e.Raw) == 0 {
			return fmt.Errorf("audit: export: event %s (version %d) has no stored bytes", e.ID, e.Version)
		}
		if k := e.Key(); k.Campaign != meta.Campaign || k.Battle != meta.Battle {
			return fmt.Errorf("audit: export %s/%s: event %s belongs to %s", meta.Campaign, meta.Battle, e.ID, k)
		}
		l := Line{Seq: e.Sequence, Version: e.Version, Hash: events.Hash(e.Raw)}
		switch {
		case e.Audience != events.AudienceAll && !meta.Umpire:
			l.Withheld, l.ID, l.Type, l.Audience = true, e.ID, e.Type, e.Audience
			meta.Withheld++
		case utf8.Valid(e.Raw):
			s := string(e.Raw)
			l.Raw = &s
		default:
			l.RawBase64 = base64.StdEncoding.EncodeToString(e.Raw)
		}
		lines[i] = l
		if meta.Scheme == "" && e.Type == rules.EvDiceCommitted && e.Audience == events.AudienceAll {
			var c rules.DiceCommitted
			if err := json.Unmarshal(e.Payload, &c); err == nil {
				meta.Scheme = c.Scheme
			}
		}
	}
	meta.Head = lines[len(lines)-1].Hash
	if err := exportKeys(&meta, evs); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(meta); err != nil {
		return fmt.Errorf("audit: export header: %w", err)
	}
	for i := range lines {
		if err := enc.Encode(lines[i]); err != nil {
			return fmt.Errorf("audit: export event %d: %w", lines[i].Version, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("audit: export: %w", err)
	}
	return nil
}

// exportKeys fills meta.Keys from the campaign's key changes and the keys
// that signed evs, and meta.SignedFrom, when not given, from the first
// signed event (or after the last event, when none is signed).
func exportKeys(meta *Meta, evs []events.Envelope) error {
	meta.Keys = []ExportKey{}
	have := map[string]bool{}
	add := func(k ExportKey) {
		if !have[k.Key] {
			have[k.Key] = true
			meta.Keys = append(meta.Keys, k)
		}
	}
	for i := range meta.KeyChanges {
		ch := &meta.KeyChanges[i]
		c, err := events.ParseKeyChange(ch)
		if err != nil {
			return fmt.Errorf("audit: export: %w", err)
		}
		if ch.Campaign != meta.Campaign || len(ch.Raw) == 0 {
			return fmt.Errorf("audit: export %s/%s: key change %s is not the campaign's stored event", meta.Campaign, meta.Battle, ch.ID)
		}
		add(ExportKey{Key: c.From})
		raw := string(ch.Raw)
		add(ExportKey{Key: c.To, Change: &raw})
	}
	firstSigned := uint64(0)
	for _, e := range evs {
		if e.Signer != "" {
			add(ExportKey{Key: e.Signer})
			if firstSigned == 0 {
				firstSigned = e.Sequence
			}
		}
	}
	if meta.SignedFrom == 0 {
		switch {
		case firstSigned > 0:
			meta.SignedFrom = firstSigned
		default:
			meta.SignedFrom = evs[len(evs)-1].Sequence + 1
		}
	}
	return nil
}

// Export is an export file read back.
type Export struct {
	Meta Meta
	// Events are the battle's events in file order, decoded from their
	// stored bytes (Raw) with Sequence from the line. A withheld event has
	// no Raw: only Version, ID, Type, Audience and the key. An event whose
	// bytes do not decode keeps its Raw, Sequence and the line's Version,
	// and Verify reports it.
	Events []events.Envelope
	// Hashes are the hashes the lines record, one per event.
	Hashes []string

	strict bool // a v2 file: no field the format does not define
}

// FormatError is an export file that cannot be read as ledger-export-v1.
// Line counts from 1 (the header); Version is the event the line holds,
// when known.
type FormatError struct {
	Line    int
	Version uint64
	Reason  string
	// Words are the format and values Reason is printed from, for i18n
	// to say in another language (phrase.audit.export_file, an exact
	// lookup); a decoder's own error is a value, said as it says itself.
	Words rules.Words
}

// formatError is a FormatError whose reason is printed from format and a,
// kept as its Words.
func formatError(line int, version uint64, format string, a ...any) *FormatError {
	w := rules.Words{Format: format, Args: a}
	return &FormatError{Line: line, Version: version, Reason: w.String(), Words: w}
}

// Said is the whole message's format and values (Error's words), its
// reason a part of family phrase.audit.export_file.
func (e *FormatError) Said() rules.Words {
	var reason any = e.Reason
	if e.Words.Format != "" {
		reason = e.Words
	}
	if e.Version > 0 {
		return rules.Words{Format: "audit: export line %d (event version %d): %s", Args: []any{e.Line, e.Version, reason}}
	}
	return rules.Words{Format: "audit: export line %d: %s", Args: []any{e.Line, reason}}
}

func (e *FormatError) Error() string { return e.Said().String() }

// ReadExport reads a ledger-export-v1 file. It fails with a *FormatError on
// a file that is not one (wrong header, a line that is not JSON, fewer or
// more events than the header declares); damage inside the events (a byte
// changed, a broken chain) is for Verify to find and name.
func ReadExport(r io.Reader) (*Export, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	x := &Export{}
	n := 0
	header := false
	for {
		b, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("audit: read export: %w", err)
		}
		eof := errors.Is(err, io.EOF)
		if eof && len(b) == 0 {
			break
		}
		n++ // blank lines count too, so that line numbers match an editor's
		switch {
		case len(bytes.TrimSpace(b)) == 0:
		case !header:
			if err := x.header(b); err != nil {
				return nil, err
			}
			header = true
		default:
			if err := x.line(n, b); err != nil {
				return nil, err
			}
		}
		if eof {
			break
		}
	}
	if !header {
		return nil, formatError(1, 0, "empty file: no header")
	}
	if len(x.Events) != x.Meta.Events {
		return nil, formatError(n, 0, "the header declares %d events, the file holds %d (truncated or padded)", x.Meta.Events, len(x.Events))
	}
	return x, nil
}

// readLine returns the next line without its newline, refusing lines over maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(out, []byte("\n")), err
	}
}

func (x *Export) header(b []byte) error {
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return formatError(1, 0, "the header is not JSON: %v", err)
	}
	switch probe.Format {
	case Format:
		x.strict = true
	case FormatV1:
	default:
		return formatError(1, 0, "format %q: this program reads %q and %q", probe.Format, Format, FormatV1)
	}
	var m Meta
	if err := x.decode(b, &m); errors.Is(err, errMore) {
		return formatError(1, 0, "the header: more than one JSON value on the line")
	} else if err != nil {
		return formatError(1, 0, "the header: %v", err)
	}
	for i, k := range m.Keys {
		if k.Change == nil {
			continue
		}
		ch, err := events.Decode([]byte(*k.Change))
		if err != nil {
			return formatError(1, 0, "the header's key %d: its change is not an event: %v", i+1, err)
		}
		m.KeyChanges = append(m.KeyChanges, ch)
	}
	k := events.Key{Campaign: m.Campaign, Battle: m.Battle}
	if err := k.Validate(); err != nil || m.Battle == "" {
		return formatError(1, 0, "the header names no battle (%q/%q)", m.Campaign, m.Battle)
	}
	if m.Events < 1 {
		return formatError(1, 0, "the header declares %d events", m.Events)
	}
	x.Meta = m
	return nil
}

// errMore is a line holding more than one JSON value: the ledger's own
// words, said in the reader's language by the reasons that name it.
var errMore = errors.New("more than one JSON value on the line")

// decode parses one line; a v2 file's lines may hold no field the format
// does not define (so a changed field name is named, not ignored).
func (x *Export) decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if x.strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errMore
	}
	return nil
}

func (x *Export) line(n int, b []byte) error {
	var l Line
	pos := uint64(len(x.Events) + 1)
	if err := x.decode(b, &l); errors.Is(err, errMore) {
		return formatError(n, pos, "not a JSON event line: more than one JSON value on the line")
	} else if err != nil {
		return formatError(n, pos, "not a JSON event line: %v", err)
	}
	forms := 0
	for _, set := range []bool{l.Raw != nil, l.RawBase64 != "", l.Withheld} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return formatError(n, pos, "want exactly one of raw, raw_base64 and withheld")
	}
	var e events.Envelope
	switch {
	case l.Withheld:
		e = events.Envelope{ID: l.ID, Campaign: x.Meta.Campaign, Battle: x.Meta.Battle, Version: l.Version, Type: l.Type, Audience: l.Audience}
	default:
		raw := []byte(nil)
		if l.Raw != nil {
			raw = []byte(*l.Raw)
		} else {
			var err error
			if raw, err = base64.StdEncoding.DecodeString(l.RawBase64); err != nil {
				return formatError(n, pos, "raw_base64: %v", err)
			}
		}
		if len(raw) == 0 {
			return formatError(n, pos, "empty stored bytes")
		}
		var err error
		if e, err = events.Decode(raw); err != nil {
			// Verify names it: keep the bytes and where the line says it is.
			e = events.Envelope{Version: l.Version, Raw: raw}
		} else if e.Version != l.Version {
			return formatError(n, pos, "the line says version %d, its stored bytes version %d", l.Version, e.Version)
		}
	}
	e.Sequence = l.Seq
	x.Events = append(x.Events, e)
	x.Hashes = append(x.Hashes, l.Hash)
	return nil
}

// Verify audits the export: Verify over its events, with the hashes its
// lines record, its head hash and its keys.
func (x *Export) Verify() *Report { return x.VerifyWith(Options{}) }

// VerifyWith is Verify with what the auditor brings: heads they kept
// (Heads), the fingerprint of the ledger key they trust (Trust), or the
// ledger's keys (Keys, instead of the header's).
func (x *Export) VerifyWith(opt Options) *Report {
	opt.Key = events.Key{Campaign: x.Meta.Campaign, Battle: x.Meta.Battle}
	opt.Hashes, opt.Head, opt.Export, opt.meta = x.Hashes, x.Meta.Head, true, &x.Meta
	return Verify(x.Events, opt)
}
