package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Options say what an audit compares the events against, beyond the events
// themselves.
type Options struct {
	// Key is the battle audited; empty: the key of the first event.
	Key events.Key
	// Hashes, when not nil, are the hashes an export records per event: an
	// event whose stored bytes hash otherwise was altered in the file. A
	// withheld event (no Raw) is chained through its recorded hash.
	Hashes []string
	// Head, when not empty, is the hash the last event must have: an
	// export's header.
	Head string
	// Export says the events come from an export file (Export.Verify):
	// every line must record its hash and the header a head.
	Export bool
	// Heads are head hashes someone kept (a note of what `ledger log` or
	// the page showed, at least 16 hex digits): each must be the hash of
	// an event of this chain, or the history was rewritten or cut since.
	Heads []string
	// Keys are the ledger's keys (live: its key file, keys.Keys.Keyring).
	// Nil: for an export, the keys its header lists; else the key of the
	// first signed event, whose fingerprint the report shows to compare.
	Keys *events.Keyring
	// Trust, when not empty, is the fingerprint (at least 16 hex digits)
	// of a ledger key the auditor trusts: it must be one of the keys.
	Trust string

	// meta is the export's header (Export.Verify).
	meta *Meta
}

// Verify audits one battle's events, the whole stream from version 1 in log
// order, and returns the report: every check with its findings, the dice
// periods and the players' statistics. It trusts nothing but each event's
// stored bytes Raw (decoded again here) and its Sequence.
func Verify(evs []events.Envelope, opt Options) *Report {
	a := newAuditor(evs, opt)
	decoded, hashes := a.chain(evs, opt)
	if opt.meta != nil {
		a.header(opt.meta, evs)
	}
	a.signatures(evs, decoded, hashes, opt)
	a.heads(hashes, opt.Heads)
	for i, d := range decoded {
		switch {
		case d != nil:
			a.event(d, evs[i].Sequence)
		case len(evs[i].Raw) == 0 && evs[i].Type == rules.EvDiceRolled:
			// A roll withheld from an export (hidden from the players)
			// takes one counter, which one the export does not say.
			a.lastCounter++
		}
	}
	a.corrections(decoded) // corrections.go
	a.finish()
	return a.rep
}

// auditor carries the state of one audit across the events.
type auditor struct {
	key    events.Key
	battle string // the dice derivation's battle id: "<campaign>/<battle>"
	rep    *Report
	checks map[string]*Check

	rs          *rules.Ruleset
	periods     map[string]*period
	periodOrder []*period
	open        *period // the latest committed period
	rolls       map[uint64]*roll
	rollOrder   []*roll
	lastCounter uint64
	// v3 is the battle's first roll derived by ledger-dice-v3: after it no
	// roll may be derived by v2, whose command id the sender chose.
	v3         *roll
	orders     []order
	seedsAdded int
	ended      *EventRef
	last       EventRef // the last event of the chain
}

type period struct {
	Period
	ref      EventRef
	schemeOK bool
	seeds    map[string]string
	snap     map[string]string // the seeds as of the latest roll; nil after a change
	first    *roll
	revealed *EventRef
	rolls    []*roll
}

type roll struct {
	ref    EventRef
	ev     *rules.DiceRolled
	actor  string
	env    *events.Envelope
	period *period
	// scheme is the derivation of a digital roll: the one it records
	// (ledger-dice-v3), else its period's.
	scheme string
	seeds  map[string]string
	cited  *EventRef
}

type order struct {
	actor   string
	special string
	eff     int
	outcome string
	actions int
}

func newAuditor(evs []events.Envelope, opt Options) *auditor {
	key := opt.Key
	if key.Campaign == "" && len(evs) > 0 {
		key = evs[0].Key()
	}
	a := &auditor{
		key: key, battle: key.String(),
		rep:     &Report{Campaign: key.Campaign, Battle: key.Battle, Events: len(evs), Periods: []Period{}, Players: []PlayerStats{}},
		checks:  map[string]*Check{},
		periods: map[string]*period{},
		rolls:   map[uint64]*roll{},
	}
	for _, id := range checkOrder {
		a.checks[id] = &Check{ID: id, Title: checkTitles[id], Status: Pass}
	}
	return a
}

func (a *auditor) add(check string, st Status, r EventRef, counter uint64, format string, args ...any) *Finding {
	c := a.checks[check]
	c.Findings = append(c.Findings, Finding{Check: check, Status: st, EventRef: r, Counter: counter, Message: fmt.Sprintf(format, args...),
		Words: rules.Words{Format: format, Args: sayArgs(args)}})
	return &c.Findings[len(c.Findings)-1]
}

func (a *auditor) fail(check string, r EventRef, format string, args ...any) *Finding {
	return a.add(check, Fail, r, 0, format, args...)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	if h == "" {
		return "(none)"
	}
	return h
}

// chain checks check 1 and returns each event decoded from its stored
// bytes (nil where there are none, or they do not decode) and each event's
// hash (a withheld one's as recorded).
func (a *auditor) chain(evs []events.Envelope, opt Options) ([]*events.Envelope, []string) {
	out := make([]*events.Envelope, len(evs))
	hashes := make([]string, len(evs))
	c := a.checks[CheckChain]
	prev, last := "", EventRef{}
	var prevVersion uint64
	for i := range evs {
		e := &evs[i]
		c.Checked++
		recorded := ""
		if opt.Hashes != nil && i < len(opt.Hashes) {
			recorded = opt.Hashes[i]
		}
		if opt.Export && recorded == "" && len(e.Raw) > 0 {
			v := e.Version
			if v == 0 {
				v = prevVersion + 1
			}
			a.fail(CheckChain, EventRef{Version: v, ID: e.ID, Type: e.Type, Seq: e.Sequence}, "the export line records no hash: a line without its hash is not what the ledger writes")
		}
		if len(e.Raw) == 0 {
			r := EventRef{Version: e.Version, ID: e.ID, Type: e.Type, Seq: e.Sequence}
			hashes[i] = recorded
			if recorded == "" {
				a.fail(CheckChain, r, "no stored bytes to hash")
			} else {
				a.rep.Withheld = append(a.rep.Withheld, r)
				if e.Version != prevVersion+1 {
					a.fail(CheckChain, r, "withheld event has version %d where %d was expected", e.Version, prevVersion+1)
				}
			}
			prev, prevVersion, last = recorded, prevVersion+1, r
			continue
		}
		h := events.Hash(e.Raw)
		hashes[i] = h
		d, err := events.Decode(e.Raw)
		if err != nil {
			v := e.Version
			if v == 0 {
				v = prevVersion + 1
			}
			r := EventRef{Version: v, Seq: e.Sequence}
			a.fail(CheckChain, r, "the stored bytes are not an event: %v", err)
			prev, prevVersion, last = h, v, r
			continue
		}
		d.Sequence = e.Sequence
		r := EventRef{Version: d.Version, ID: d.ID, Type: d.Type, Seq: d.Sequence}
		var why []any
		if recorded != "" && recorded != h {
			why = append(why, rules.Words{Format: "its stored bytes hash to %s but the export records %s: the event was altered", Args: []any{short(h), short(recorded)}})
		}
		if d.Version != prevVersion+1 {
			if i == 0 {
				why = append(why, rules.Words{Format: "the first event has version %d, not 1", Args: []any{d.Version}})
			} else {
				why = append(why, rules.Words{Format: "version %d follows %d (events missing, repeated or out of order)", Args: []any{d.Version, prevVersion}})
			}
		}
		if d.PrevHash != prev {
			if i == 0 {
				why = append(why, rules.Words{Format: "the first event carries prev_hash %s, want none", Args: []any{short(d.PrevHash)}})
			} else {
				why = append(why, rules.Words{Format: "prev_hash %s is not the hash %s of the event before it, %s: one of the two was altered", Args: []any{short(d.PrevHash), short(prev), last}})
			}
		}
		if d.Key() != a.key {
			why = append(why, rules.Words{Format: "it belongs to %s, not %s", Args: []any{d.Key(), a.key}})
		}
		if len(why) > 0 {
			a.fail(CheckChain, r, "%s", joined(why))
		}
		prev, prevVersion, last = h, d.Version, r
		out[i] = &d
	}
	a.rep.Head, a.last = prev, last
	switch {
	case opt.Export && opt.Head == "":
		a.fail(CheckChain, last, "the export's header records no head: a header without the last event's hash is not what the ledger writes")
	case opt.Head != "" && len(evs) > 0 && opt.Head != prev:
		a.fail(CheckChain, last, "the head hash %s recorded for the stream is not the last event's hash %s: events were cut off, added or the last one altered", short(opt.Head), short(prev))
	}
	if len(evs) == 0 {
		a.fail(CheckChain, EventRef{}, "no events")
	}
	c.summarize("%d events, head %s", len(evs), short(prev))
	return out, hashes
}

// heads checks check 3: every kept head is the hash of an event of the
// chain. A kept head that is not names no event; it is reported at the
// last one, where the history that should extend it ends.
func (a *auditor) heads(hashes []string, kept []string) {
	c := a.checks[CheckHeads]
	if len(kept) == 0 {
		c.summarize("none given")
		return
	}
	last := a.last
	found := 0
	for _, h := range kept {
		c.Checked++
		h = strings.ToLower(strings.TrimSpace(h))
		k := KeptHead{Hash: h}
		if len(h) < 16 || len(h) > 64 || strings.Trim(h, "0123456789abcdef") != "" {
			a.fail(CheckHeads, last, "kept head %q: want the hash's hex digits, at least 16 of them", h)
			a.rep.KeptHeads = append(a.rep.KeptHeads, k)
			continue
		}
		for i, x := range hashes {
			if x != "" && strings.HasPrefix(x, h) {
				k.Found, k.Version = true, uint64(i+1)
				break
			}
		}
		a.rep.KeptHeads = append(a.rep.KeptHeads, k)
		if !k.Found {
			a.fail(CheckHeads, last, "the kept head %s is the hash of no event of this chain (v1..v%d, head %s): since it was kept, the history was rewritten, or cut before it, or it is another battle's", short(h), len(hashes), short(a.rep.Head))
			continue
		}
		found++
	}
	parts := make([]string, 0, len(a.rep.KeptHeads))
	for _, k := range a.rep.KeptHeads {
		if k.Found {
			parts = append(parts, fmt.Sprintf("v%d", k.Version))
		} else {
			parts = append(parts, "not found")
		}
	}
	c.summarize("%d of %d kept %s in the chain (%s of %d)", found, len(kept), plural(len(kept), "head", "heads"), strings.Join(parts, ", "), len(hashes))
}

// event reads one decoded event for checks 2 to 6.
func (a *auditor) event(d *events.Envelope, seq uint64) {
	r := EventRef{Version: d.Version, ID: d.ID, Type: d.Type, Seq: seq}
	a.checks[CheckDecode].Checked++
	payload, err := campaign.Registry().Upcast(d)
	if err != nil {
		a.fail(CheckDecode, r, "%v", err)
		return
	}
	ev, err := rules.DecodeEvent(d.Type, payload)
	if err != nil {
		a.fail(CheckDecode, r, "%v", err)
		return
	}
	switch ev := ev.(type) {
	case *rules.BattleCreated:
		if a.rs != nil {
			a.fail(CheckDecode, r, "a second battle.created")
			return
		}
		if ev.Ruleset == nil {
			a.fail(CheckDecode, r, "battle.created records no ruleset: orders cannot be checked")
			return
		}
		a.rs = ev.Ruleset
	case *rules.DiceCommitted:
		a.committed(r, ev)
	case *rules.DiceSeedAdded:
		// Who typed it: the player it names, or the umpire or operator
		// who entered it for them.
		a.seedAdded(r, d.Actor, ev)
	case *rules.DiceRevealed:
		a.revealed(r, ev)
	case *rules.DiceRolled:
		a.rolled(r, d, ev)
	case *rules.OrderResolved:
		a.resolved(r, d.Author(), ev)
	case *rules.BattleEnded:
		if a.ended == nil {
			a.ended = &r
		}
	}
}

// resolved checks check 5 on one order.resolved.
func (a *auditor) resolved(r EventRef, actor string, ev *rules.OrderResolved) {
	a.checks[CheckOrders].Checked++
	values := ev.Values
	if ro := a.cite(r, ev.RollCounter, "order"); ro != nil {
		values = ro.ev.Values
		if !slices.Equal(ro.ev.Values, ev.Values) {
			f := a.add(CheckOrders, Fail, r, ev.RollCounter, "the order's roll values differ from roll %d it cites (%s)", ev.RollCounter, ro.ref)
			f.Expected, f.Recorded = ro.ev.Values, ev.Values
		}
		if a.rs != nil && (ro.ev.Count != a.rs.Command.OrderRoll.Count || ro.ev.Sides != a.rs.Command.OrderRoll.Sides) {
			a.add(CheckOrders, Fail, r, ev.RollCounter, "roll %d is %dD%d; the ruleset's order roll is %s", ev.RollCounter, ro.ev.Count, ro.ev.Sides, a.rs.Command.OrderRoll)
		}
	}
	if t := sum(ev.Values); t != ev.Total {
		a.add(CheckOrders, Fail, r, ev.RollCounter, "total %d, but the values %s add up to %d", ev.Total, Ints(ev.Values), t)
	}
	eff := ev.BaseRating
	for _, m := range ev.Modifiers {
		eff += m.Value
	}
	if eff != ev.Effective {
		a.add(CheckOrders, Fail, r, ev.RollCounter, "effective rating %d, but base %d plus modifiers %s is %d (C.7)", ev.Effective, ev.BaseRating, modifiers(ev.Modifiers), eff)
	}
	a.orders = append(a.orders, order{actor: actor, special: ev.Special, eff: ev.Effective, outcome: ev.Outcome, actions: ev.Actions})
	if a.rs == nil {
		a.add(CheckOrders, Fail, r, ev.RollCounter, "no ruleset recorded before this order (battle.created missing)")
		return
	}
	outcome, actions, err := rules.ReadOrderRoll(a.rs, ev.Special, values, ev.Effective)
	switch {
	case err != nil:
		a.add(CheckOrders, Fail, r, ev.RollCounter, "%v", err)
	case outcome != ev.Outcome || actions != ev.Actions:
		a.add(CheckOrders, Fail, r, ev.RollCounter, "%s against effective rating %d is %s; the event records %s",
			Ints(values), ev.Effective, outcomeName(outcome, actions), outcomeName(ev.Outcome, ev.Actions))
	}
	a.blunder(r, ev)
}

// blunder checks the C.5 blunder roll an order cites, if it blundered.
func (a *auditor) blunder(r EventRef, ev *rules.OrderResolved) {
	b := ev.Blunder
	switch {
	case ev.Outcome != rules.OutcomeBlunder && b != nil:
		a.add(CheckOrders, Fail, r, b.Counter, "a blunder-table roll on an order that did not blunder")
		return
	case ev.Outcome != rules.OutcomeBlunder:
		return
	case b == nil:
		a.add(CheckOrders, Fail, r, ev.RollCounter, "a blunder without its blunder-table roll (C.5)")
		return
	}
	values := b.Values
	if ro := a.cite(r, b.Counter, "blunder-table"); ro != nil {
		values = ro.ev.Values
		if !slices.Equal(ro.ev.Values, b.Values) {
			f := a.add(CheckOrders, Fail, r, b.Counter, "the blunder-table values differ from roll %d it cites (%s)", b.Counter, ro.ref)
			f.Expected, f.Recorded = ro.ev.Values, b.Values
		}
		if t := a.rs.Command.Blunder.Table.Dice; ro.ev.Count != t.Count || ro.ev.Sides != t.Sides {
			a.add(CheckOrders, Fail, r, b.Counter, "blunder roll %d is %dD%d; the ruleset's blunder table reads %s", b.Counter, ro.ev.Count, ro.ev.Sides, t)
		}
	}
	if b.Roll != sum(values) {
		a.add(CheckOrders, Fail, r, b.Counter, "blunder-table roll %d, but the values %s add up to %d", b.Roll, Ints(values), sum(values))
	}
	entry, ok := a.rs.Command.Blunder.Table.Lookup(sum(values))
	if !ok || entry.Result != b.Result {
		a.add(CheckOrders, Fail, r, b.Counter, "the blunder table reads %q for %d; the event records %q", entry.Result, sum(values), b.Result)
	}
}

// cite finds the roll a decision cites and marks it used.
func (a *auditor) cite(r EventRef, counter uint64, what string) *roll {
	ro := a.rolls[counter]
	if ro == nil {
		a.add(CheckOrders, Fail, r, counter, "cites %s roll %d, which is not in the log before it", what, counter)
		return nil
	}
	if ro.cited != nil {
		a.add(CheckOrders, Fail, r, counter, "cites %s roll %d, which %s already used", what, counter, ro.cited)
		return ro
	}
	ro.cited = &r
	return ro
}

func outcomeName(outcome string, actions int) rules.Words {
	if outcome == rules.OutcomeActions || (outcome == rules.OutcomeSuccess && actions > 0) {
		return rules.Words{Format: "%s (%d)", Args: []any{outcome, actions}}
	}
	return rules.Words{Format: "%s", Args: []any{outcome}}
}

func modifiers(ms []rules.Modifier) string {
	if len(ms) == 0 {
		return "(none)"
	}
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = fmt.Sprintf("%+d", m.Value)
	}
	return strings.Join(s, " ")
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// finish runs what needs the whole log: reveals missing, recomputation,
// uncited rolls, statistics, and each check's status and summary.
func (a *auditor) finish() {
	if a.ended != nil {
		a.rep.Ended, a.rep.EndedAt = true, a.ended.Version
	}
	for _, p := range a.periodOrder {
		if p.revealed == nil {
			if a.ended != nil {
				a.fail(CheckReveals, p.ref, "period %q was committed but never revealed, and the battle ended at %s", p.Period.Period, a.ended)
			} else {
				a.add(CheckReveals, Pending, p.ref, 0, "period %q is not revealed yet (the battle is in progress)", p.Period.Period)
			}
		}
		a.recompute(p)
		a.rep.Periods = append(a.rep.Periods, p.Period)
	}
	for _, ro := range a.rollOrder {
		if ro.cited == nil && ro.ev.Command == rules.CmdOrderGive {
			a.add(CheckOrders, Fail, ro.ref, ro.ev.Counter, "roll %d (%s) was made for an order but no decision reads it: a discarded roll", ro.ev.Counter, ro.ev.Purpose)
		}
	}
	a.statistics()
	a.summaries()
	for _, id := range checkOrder {
		c := a.checks[id]
		for _, f := range c.Findings {
			if f.Status == Fail {
				c.Status = Fail
			} else if f.Status == Pending && c.Status == Pass {
				c.Status = Pending
			}
		}
		a.rep.Checks = append(a.rep.Checks, *c)
	}
	// The author is proven when the trust has an anchor, every event is
	// bound to a trusted signature, and neither the chain, the signatures
	// nor the kept heads fail.
	auth := &a.rep.Authorship
	auth.Proven = auth.Anchor != "" && auth.Unbound == 0 &&
		a.checks[CheckChain].Status != Fail && a.checks[CheckSignatures].Status != Fail && a.checks[CheckHeads].Status != Fail
}

func (a *auditor) summaries() {
	revealed, digital, recomputed, physical := 0, 0, 0, 0
	for _, p := range a.periodOrder {
		if p.revealed != nil {
			revealed++
		}
		digital += p.DigitalRolls
		recomputed += p.Recomputed
	}
	for _, ro := range a.rollOrder {
		if ro.ev.Source == rules.SourcePhysical {
			physical++
		}
	}
	a.checks[CheckDecode].summarize("%d events decoded", a.checks[CheckDecode].Checked)
	a.checks[CheckReveals].summarize("%d %s committed, %d revealed", len(a.periodOrder), plural(len(a.periodOrder), "period", "periods"), revealed)
	a.checks[CheckRolls].summarize("%d of %d digital recomputed, %d physical", recomputed, digital, physical)
	a.checks[CheckCounters].summarize("%d rolls, counters up to %d", len(a.rollOrder), a.lastCounter)
	a.checks[CheckOrders].summarize("%d orders", len(a.orders))
	a.checks[CheckSeedTiming].summarize("%d player %s", a.seedsAdded, plural(a.seedsAdded, "seed", "seeds"))
	a.nonceSummary()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joined is parts said one after another, joined by "; ".
func joined(parts []any) rules.Words {
	return rules.Words{Format: strings.TrimSuffix(strings.Repeat("%s; ", len(parts)), "; "), Args: parts}
}
