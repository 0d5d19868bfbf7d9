package audit

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Trust values of a Signer: why the audit took its key for the ledger's.
const (
	TrustKeyFile      = "key file"
	TrustExportHeader = "export header"
	TrustKeyChange    = "key change"
	TrustFirstSigner  = "first signer"
	TrustImported     = "imported"
	// TrustBoundByLater is a key before the one the auditor trusts (it
	// endorsed it by a key change): its events pass only where a later
	// event signed by the trusted key, or its successor, binds them through
	// the hash chain (an export audited with --key of the key after a
	// rotation, issue 25, item 8).
	TrustBoundByLater = "bound by a later trusted signature"
)

// signatures checks check 2: every event's signature (events/sign.go) is
// by one of the ledger's keys. The keys are Options.Keys (live: the key
// file), or the export header's (the first, then each endorsed by a key
// change signed by the key before; with Options.Trust, from the trusted key
// on), or else the first signer's. Unsigned events pass only as events
// stored before the ledger signed: below the keyring's SignedFrom, and
// never after a signed event of the stream.
//
// An export's header is covered by no signature, so with a key the
// auditor trusts (Options.Trust, or a kept head of a signed event) it
// excuses nothing: an unsigned event passes only when a later event signed
// by a trusted key binds it through the hash chain (or a kept head does),
// whatever the header's signed_from says. Without such a key the events'
// author is not proven, and the report's Authorship says so.
func (a *auditor) signatures(evs []events.Envelope, decoded []*events.Envelope, hashes []string, opt Options) {
	c := a.checks[CheckSignatures]
	ring, trust := opt.Keys, map[string]string{}
	var before *events.Keyring // the header's keys before the trusted one
	if ring != nil {
		for _, k := range ring.Keys() {
			trust[k.Key] = TrustKeyFile
			if len(k.Streams) > 0 {
				trust[k.Key] = TrustImported
			}
		}
	} else if opt.meta != nil && len(opt.meta.Keys) > 0 {
		ring, before = a.headerKeyring(opt.meta, trust, opt.Trust)
	}
	verified := events.VerifySignatures(evs)
	// lastTrusted is the last event validly signed by a key of ring (the
	// trusted key and its successors): it binds, through the chain, every
	// event before it, those signed by the keys before the trusted one
	// included.
	lastTrusted := -1
	if before != nil {
		for i := range evs {
			if len(evs[i].Raw) > 0 && verified[i].Err == nil {
				if _, ok := ring.Trusts(verified[i].Key); ok {
					lastTrusted = i
				}
			}
		}
	}
	// What the auditor's trust rests on, and how far the events are bound
	// to it: lastSigned is the last event with a valid signature (the
	// chain binds every event before it to its signer), keptAt the last
	// event a kept head names (the auditor saw everything up to it).
	auth := &a.rep.Authorship
	lastSigned, keptAt := -1, -1
	for i := range evs {
		if len(evs[i].Raw) > 0 && verified[i].Err == nil {
			lastSigned = i
		}
	}
	keptKey := ""
	for _, h := range opt.Heads {
		h = strings.ToLower(strings.TrimSpace(h))
		if len(h) < 16 || !hexPrefix(h) {
			continue
		}
		for i, x := range hashes {
			if x != "" && strings.HasPrefix(x, h) {
				keptAt = max(keptAt, i)
				if len(evs[i].Raw) > 0 && verified[i].Err == nil {
					keptKey = verified[i].Key
				}
				break
			}
		}
	}
	switch {
	case opt.Keys != nil:
		auth.Anchor = AnchorKeyFile
	case opt.Trust != "":
		auth.Anchor = AnchorTrustedKey
	case keptKey != "":
		auth.Anchor = AnchorKeptHead
	}
	// strict: an export audited against a key the auditor trusts, whose
	// header's signed_from is not signed and so excuses nothing.
	strict := opt.Keys == nil && auth.Anchor != ""
	counts := map[string]int{}
	var order []string
	lastKey, signedSeen := -1, false
	for i := range evs {
		e := &evs[i]
		if len(e.Raw) == 0 {
			continue // withheld: chained by its hash only
		}
		c.Checked++
		r := EventRef{Version: e.Version, ID: e.ID, Type: e.Type, Seq: e.Sequence}
		if d := decoded[i]; d != nil {
			r = EventRef{Version: d.Version, ID: d.ID, Type: d.Type, Seq: e.Sequence}
		}
		v := verified[i]
		notSigned := func(format string, args ...any) {
			a.fail(CheckSignatures, r, "not signed by the ledger: %s", sayPart(format, args))
		}
		if errors.Is(v.Err, events.ErrUnsigned) {
			bound := i < lastSigned || i <= keptAt
			switch from := uint64(0); {
			case signedSeen:
				notSigned("it carries no signature, after signed events of the stream")
			case strict && !bound:
				notSigned("it carries no signature, and no event after it is signed by the key you trust: nothing proves who wrote it (an export's header, its signed_from included, is signed by no one and excuses nothing)")
			case ring != nil && ring.SignedFrom() > 0 && (e.Sequence == 0 || e.Sequence >= ring.SignedFrom()):
				from = ring.SignedFrom()
				notSigned("it carries no signature, and the ledger signs every event from log sequence %d on (this one is %d)", from, e.Sequence)
			default:
				a.rep.Unsigned++
				if !bound {
					auth.Unbound++
				}
			}
			continue
		}
		if v.Err != nil {
			notSigned("%v", v.Err)
			continue
		}
		if ring == nil {
			// Nothing said which key is the ledger's: the first signer is,
			// and the report shows its fingerprint to compare.
			ring = events.NewKeyring(0, events.TrustedKey{Key: v.Key})
			trust[v.Key] = TrustFirstSigner
		}
		if _, err := ring.Admit(e, v); err != nil {
			if before != nil && i < lastTrusted {
				if _, berr := before.Admit(e, v); berr == nil {
					// A key before the trusted one, bound by a later
					// event the trusted key (or its successor) signed.
					trust[v.Key] = TrustBoundByLater
					signedSeen = true
					if counts[v.Key] == 0 {
						order = append(order, v.Key)
					}
					counts[v.Key]++
					continue
				}
			}
			var ns *events.NotSignedError
			if errors.As(err, &ns) {
				var reason any = ns.Reason
				if ns.Words.Format != "" {
					reason = ns.Words // the same text, with its words
				}
				notSigned("%s", reason)
			} else {
				notSigned("%v", err)
			}
			continue
		}
		// Along the ledger's own keys (not another ledger's, trusted for
		// an imported battle), an older key never signs after a newer one.
		all := ring.Keys()
		idx := slices.IndexFunc(all, func(t events.TrustedKey) bool { return t.Key == v.Key })
		if len(all[idx].Streams) == 0 {
			if idx < lastKey {
				notSigned("it is signed by key %s after key %s had replaced it in this stream", events.Fingerprint(v.Key), events.Fingerprint(all[lastKey].Key))
				continue
			}
			lastKey = idx
		}
		signedSeen = true
		if counts[v.Key] == 0 {
			order = append(order, v.Key)
		}
		counts[v.Key]++
	}
	a.rep.Signers = []Signer{}
	for _, k := range order {
		a.rep.Signers = append(a.rep.Signers, Signer{Key: k, Fingerprint: events.Fingerprint(k), Events: counts[k], Trust: trust[k]})
	}
	if opt.Trust != "" {
		a.trusted(ring, opt.Trust)
	}
	signed := 0
	fps := make([]string, len(order))
	for i, k := range order {
		signed += counts[k]
		fps[i] = events.Fingerprint(k)
	}
	if len(order) > 0 {
		auth.Key = fps[0]
	}
	switch {
	case signed == 0 && a.rep.Unsigned > 0:
		c.summarize("none signed: %d events from before the ledger signed (their author is not proven)", a.rep.Unsigned)
	case a.rep.Unsigned > 0:
		c.summarize("%d signed by %s; %d from before signing", signed, strings.Join(fps, ", "), a.rep.Unsigned)
	default:
		c.summarize("%d signed by %s", signed, strings.Join(fps, ", "))
	}
}

// headerKeyring builds the keyring an export's header names: its first key,
// then each key endorsed by the key change (its stored bytes) signed by the
// key before. A key without a valid endorsement is not taken. With a
// trusted fingerprint, the keys before the trusted one are dropped: a key
// vouches for its successors (it signed their key change), never for the
// keys before it, which anyone could have put in the header; they are
// returned apart (before), for the events a later event signed by the
// trusted key binds through the chain.
func (a *auditor) headerKeyring(m *Meta, trust map[string]string, trustFP string) (ring, before *events.Keyring) {
	first := m.Keys[0]
	if !hexKey(first.Key) {
		a.fail(CheckSignatures, EventRef{}, "the export's header names key %q, not a hex Ed25519 public key", first.Key)
		return nil, nil
	}
	ring = events.NewKeyring(m.SignedFrom, events.TrustedKey{Key: first.Key})
	trust[first.Key] = TrustExportHeader
	prev := first.Key
	for i, k := range m.Keys[1:] {
		where := rules.Words{Format: "the export's key %d (%s)", Args: []any{i + 2, events.Fingerprint(k.Key)}}
		if k.Change == nil {
			// Not endorsed: not the ledger's, and the events it signed
			// are named as such.
			continue
		}
		ch, err := events.Decode([]byte(*k.Change))
		if err != nil {
			a.fail(CheckSignatures, EventRef{}, "%s: its key change is not an event: %v", where, err)
			continue
		}
		p, err := events.ParseKeyChange(&ch)
		switch {
		case err != nil:
			a.fail(CheckSignatures, EventRef{}, "%s: %v", where, err)
			continue
		case p.To != k.Key || p.From != prev:
			a.fail(CheckSignatures, EventRef{}, "%s: its key change goes from %s to %s, not from the key before it (%s)", where, events.Fingerprint(p.From), events.Fingerprint(p.To), events.Fingerprint(prev))
			continue
		case ch.Campaign != a.key.Campaign:
			a.fail(CheckSignatures, EventRef{}, "%s: its key change is campaign %s's, not %s's", where, ch.Campaign, a.key.Campaign)
			continue
		}
		if err := ring.Learn(&ch); err != nil {
			a.fail(CheckSignatures, EventRef{}, "%s: %v", where, err)
			continue
		}
		trust[k.Key] = TrustKeyChange
		prev = k.Key
	}
	if fp := strings.ToLower(strings.TrimSpace(trustFP)); len(fp) >= 16 {
		all := ring.Keys()
		if i := slices.IndexFunc(all, func(t events.TrustedKey) bool { return strings.HasPrefix(t.Key, fp) }); i > 0 {
			for _, t := range all[:i] {
				delete(trust, t.Key)
			}
			ring = events.NewKeyring(m.SignedFrom, all[i:]...)
			before = events.NewKeyring(m.SignedFrom, all[:i]...)
		}
	}
	return ring, before
}

// trusted checks that the key the auditor trusts is one of the ledger's.
func (a *auditor) trusted(ring *events.Keyring, fp string) {
	fp = strings.ToLower(strings.TrimSpace(fp))
	if len(fp) < 16 || !hexPrefix(fp) {
		a.fail(CheckSignatures, EventRef{}, "the trusted key %q: want its fingerprint, at least 16 hex digits", fp)
		return
	}
	if ring == nil {
		a.fail(CheckSignatures, EventRef{}, "you trust key %s, but nothing in this battle is signed", fp)
		return
	}
	var fps []string
	for _, k := range ring.Keys() {
		if strings.HasPrefix(k.Key, fp) {
			return
		}
		fps = append(fps, events.Fingerprint(k.Key))
	}
	a.fail(CheckSignatures, EventRef{}, "you trust key %s, but this battle's keys are %s: it was not signed by the ledger you trust", fp, strings.Join(fps, ", "))
}

func hexKey(s string) bool { return len(s) == 64 && hexPrefix(s) }

func hexPrefix(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }

// header checks what an export's header says against its lines, beyond
// the head: the withheld count, the scheme, and the umpire flag.
func (a *auditor) header(m *Meta, evs []events.Envelope) {
	withheld, scheme, hidden := 0, "", 0
	for _, e := range evs {
		switch {
		case len(e.Raw) == 0:
			withheld++
		case e.Audience != events.AudienceAll:
			hidden++
		case scheme == "" && e.Type == rules.EvDiceCommitted:
			var c rules.DiceCommitted
			if json.Unmarshal(e.Payload, &c) == nil {
				scheme = c.Scheme
			}
		}
	}
	if m.Withheld != withheld {
		a.fail(CheckChain, EventRef{}, "the export's header says %d events are withheld; its lines withhold %d", m.Withheld, withheld)
	}
	if m.Scheme != scheme {
		a.fail(CheckChain, EventRef{}, "the export's header says dice scheme %q; its first commitment is %q", m.Scheme, scheme)
	}
	if !m.Umpire && hidden > 0 {
		a.fail(CheckChain, EventRef{}, "the export's header says it is for the players, but %d hidden events are in it in full", hidden)
	}
	if m.Umpire && withheld > 0 {
		a.fail(CheckChain, EventRef{}, "the export's header says it is the umpire's, but %d events are withheld", withheld)
	}
}
