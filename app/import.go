package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clubledger/ledger/campaign/audit"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Imported is what an import added to the log.
type Imported struct {
	Battle string `json:"battle"`
	Events int    `json:"events"`
	Head   string `json:"head"`
	// Campaign says whether this ledger has the battle's campaign: without
	// it the battle is here for review only (in no standings).
	Campaign bool `json:"campaign_present"`
}

// ImportOptions are the trust anchors of an import: the fingerprints of
// the exporting ledger's key, as its club publishes them (at least 16 hex
// digits). This ledger's own keys are anchors too.
type ImportOptions struct {
	Trust []string
}

// ImportFailed is an export that fails its audit or a check of the file
// (Audit: `ledger import` exit 4), or a battle this ledger already has
// (exit 1): nothing was appended.
type ImportFailed struct {
	Reason string
	Audit  bool
	// Words are the format and values Reason is printed from, said in
	// the reader's language by the door (detail.import_refused,
	// detail.import_exists: Catalogue.Detail, an exact lookup).
	Words rules.Words
}

// importFailed is an ImportFailed (of the audit's kind when isAudit)
// whose reason is printed from format and a, kept as its Words.
func importFailed(isAudit bool, format string, a ...any) *ImportFailed {
	w := rules.Words{Format: format, Args: a}
	return &ImportFailed{Reason: w.String(), Audit: isAudit, Words: w}
}

func (e *ImportFailed) Error() string { return e.Reason }

// ImportBatch is the most events one append of an import sends:
// nats-server's largest atomic batch (its default max_batch_size).
const ImportBatch = 1000

// Import appends a battle exported from another ledger (an export made
// with every event, ledger export --umpire) to this ledger's log, for
// review, after auditing the whole file against a trust anchor (this
// ledger's own keys, or a key opt names): all or nothing, the operator's.
// An export's header is signed by no one: it excuses no unsigned event,
// and its keys prove nothing by themselves. The exporting ledger's keys,
// proven against the anchor, are trusted for this battle only
// (Options.TrustImported keeps that in the key file). The battle's
// campaign is not imported.
// ImportMaxBytes bounds an export file given to Import: 64 MiB, more
// than ten times a 2,000-event battle's export. The file is read whole
// into memory to be audited before anything is appended, so the bound is
// the import's memory too (a few times the file).
const ImportMaxBytes = 64 << 20

// Import reads an export file from r (at most ImportMaxBytes) and imports
// it (ImportExport): the door reads the file itself, so that the CLI
// beside a running server and the HTTP API import the same way. A file
// that cannot be read as an export is an ImportFailed of the audit kind:
// nothing is appended.
func (s *Session) Import(ctx context.Context, r io.Reader, opt ImportOptions) (Imported, error) {
	if err := s.operatorOnly(ctx, "importing a battle"); err != nil {
		return Imported{}, err
	}
	lr := &io.LimitedReader{R: r, N: ImportMaxBytes + 1}
	x, err := audit.ReadExport(lr)
	if lr.N <= 0 {
		return Imported{}, importFailed(true, "the file is over %d bytes, more than any export this ledger takes; nothing imported", ImportMaxBytes)
	}
	if err != nil {
		var fe *audit.FormatError
		if errors.As(err, &fe) {
			// The file's words (phrase.audit.export_line), said in the
			// reader's language by the door.
			return Imported{}, importFailed(true, "%s; nothing imported", fe.Said())
		}
		return Imported{}, s.fail(err, noVars)
	}
	return s.ImportExport(ctx, x, opt)
}

// ImportExport imports an export already read.
func (s *Session) ImportExport(ctx context.Context, x *audit.Export, opt ImportOptions) (Imported, error) {
	if err := s.operatorOnly(ctx, "importing a battle"); err != nil {
		return Imported{}, err
	}
	ring, keep := s.l.opts.Keys, s.l.opts.TrustImported
	if ring == nil || keep == nil {
		return Imported{}, s.fail(notFound("this ledger has no keys to audit an import against"), noVars)
	}
	key := events.Key{Campaign: x.Meta.Campaign, Battle: x.Meta.Battle}
	if err := key.Validate(); err != nil || key.Battle == "" {
		return Imported{}, importFailed(true, "the export names %q/%q, not a battle", x.Meta.Campaign, x.Meta.Battle)
	}
	if x.Meta.Withheld > 0 {
		return Imported{}, importFailed(true, "%d events are withheld (exported as their hash only); import needs an export made with --umpire", x.Meta.Withheld)
	}
	rep, failed := importAudit(x, ring, opt.Trust)
	if failed != nil {
		return Imported{}, failed
	}
	log := s.l.opts.Log
	have, err := log.Read(ctx, key, 0)
	if err != nil {
		return Imported{}, s.fail(err, noVars)
	}
	if len(have) > 0 {
		return Imported{}, importFailed(false, "this ledger already has battle %s (%d events); nothing imported", key, len(have))
	}
	// The battle is signed by the ledger it comes from: its keys, proven
	// against the anchor, are trusted for this battle only.
	for _, sg := range rep.Signers {
		if t, ok := ring.Trusts(sg.Key); ok && len(t.Streams) == 0 {
			continue // one of this ledger's own keys
		}
		if err := keep(sg.Key, key); err != nil {
			return Imported{}, s.fail(err, noVars)
		}
		ring.Add(events.TrustedKey{Key: sg.Key, Streams: []events.Key{key}})
	}
	// One atomic batch (all or none), or batches of the most JetStream
	// takes at once for a longer battle: the whole file passed its audit
	// already, and each batch expects the one before it.
	var expected uint64
	for start := 0; start < len(x.Events); start += ImportBatch {
		batch := make([]events.Envelope, min(ImportBatch, len(x.Events)-start))
		copy(batch, x.Events[start:])
		for i := range batch {
			batch[i].Sequence = 0
		}
		if err := log.Append(ctx, key, expected, batch); err != nil {
			return Imported{}, s.fail(fmt.Errorf("import: events %d to %d: %w", batch[0].Version, batch[len(batch)-1].Version, err), noVars)
		}
		expected = batch[len(batch)-1].Sequence
	}
	// Read back and audit what this ledger now holds.
	got, err := log.Read(ctx, key, 0)
	if err != nil {
		return Imported{}, s.fail(err, noVars)
	}
	if rep := audit.Verify(got, audit.Options{Key: key, Head: x.Meta.Head, Keys: ring}); rep.Failed() {
		return Imported{}, importFailed(true, "the imported battle fails its audit: %s", auditWords(rep))
	}
	if p := s.l.opts.Projected; p != nil && len(got) > 0 {
		if err := p(ctx, got[len(got)-1].Sequence); err != nil {
			return Imported{}, s.fail(err, noVars)
		}
	}
	camp, err := s.l.opts.Service.Campaign(ctx, key.Campaign)
	if err != nil {
		return Imported{}, s.fail(err, noVars)
	}
	return Imported{Battle: key.String(), Events: len(got), Head: x.Meta.Head, Campaign: camp.Exists()}, nil
}

// importAudit audits x against each trust anchor in turn, the keys named
// first, then this ledger's own: the first that proves who wrote every
// event passes; otherwise the import fails with the first failure and
// what to do, kept as words (detail.import_audit; an audit's failure,
// phrase.audit.failed).
func importAudit(x *audit.Export, ring *events.Keyring, named []string) (*audit.Report, *ImportFailed) {
	var anchors []string
	for _, fp := range named {
		if fp = strings.TrimSpace(fp); fp != "" {
			// A key written wrong is said so, not taken for a file that
			// fails its audit.
			if !isHeadHash(strings.ToLower(fp)) {
				return nil, importFailed(true, "the audit fails, nothing imported: %s", rules.Words{Format: "the key %.80q given with --key is not a key's fingerprint: 16 to 64 hexadecimal digits, as the exporting ledger's audit or page shows it", Args: []any{fp}})
			}
			anchors = append(anchors, fp)
		}
	}
	for _, k := range ring.Keys() {
		if len(k.Streams) == 0 {
			anchors = append(anchors, events.Fingerprint(k.Key))
		}
	}
	var first rules.Words
	failedAudit := false // first is an audit's failure (phrase.audit.failed)
	for _, fp := range anchors {
		rep := x.VerifyWith(audit.Options{Trust: fp})
		var why rules.Words
		switch {
		case rep.Failed():
			why = auditWords(rep)
		case !rep.Authorship.Proven:
			why = rules.Words{Format: "who wrote its events is not proven by key %s (%d events bound to no signature of it)", Args: []any{fp, rep.Authorship.Unbound}}
		default:
			return rep, nil
		}
		if first.Format == "" {
			first, failedAudit = why, rep.Failed()
		}
	}
	if first.Format == "" {
		first = rules.Words{Format: "this ledger has no key to audit it against"}
	}
	hint := rules.Words{Format: "name the key of the ledger it comes from with --key FINGERPRINT"}
	if len(named) > 0 {
		hint = rules.Words{Format: "no key named with --key nor any of this ledger's own proves it"}
	}
	if failedAudit {
		// %v, not %s: the same English, another format, whose value is
		// said from phrase.audit.failed (an exact lookup by format).
		return nil, importFailed(true, "the audit fails, nothing imported: %v (%s)", first, hint)
	}
	return nil, importFailed(true, "the audit fails, nothing imported: %s (%s)", first, hint)
}

// auditWords are a failed audit's words (audit.Error.Said).
func auditWords(rep *audit.Report) rules.Words {
	var ae *audit.Error
	if err := rep.Err(); errors.As(err, &ae) {
		return ae.Said()
	}
	return rules.Words{Format: "%s", Args: []any{fmt.Sprint(rep.Err())}}
}
