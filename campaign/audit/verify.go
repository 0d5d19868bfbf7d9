package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
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

func (a *auditor) committed(r EventRef, ev *rules.DiceCommitted) {
	if p := a.periods[ev.Period]; p != nil {
		a.fail(CheckReveals, r, "period %q committed a second time (first at %s)", ev.Period, p.ref)
		return
	}
	p := &period{Period: Period{Period: ev.Period, Scheme: ev.Scheme, Commitment: ev.Commitment, CommittedAt: r.Version, Seeds: []PlayerSeed{}},
		ref: r, schemeOK: dice.Known(ev.Scheme), seeds: map[string]string{}}
	if ev.Period == "" {
		a.fail(CheckReveals, r, "a commitment without a period")
	}
	if !p.schemeOK {
		a.fail(CheckReveals, r, "period %q uses dice scheme %q; this audit knows %s, %s and %s only", ev.Period, ev.Scheme, dice.SchemeV1, dice.SchemeV2, dice.SchemeV3)
	}
	if len(ev.Commitment) != 64 || strings.Trim(ev.Commitment, "0123456789abcdef") != "" {
		a.fail(CheckReveals, r, "commitment %q is not a lowercase hex SHA-256", ev.Commitment)
	}
	a.periods[ev.Period] = p
	a.periodOrder = append(a.periodOrder, p)
	a.open = p
}

func (a *auditor) seedAdded(r EventRef, actor string, ev *rules.DiceSeedAdded) {
	a.seedsAdded++
	a.checks[CheckSeedTiming].Checked++
	p := a.periods[ev.Period]
	switch {
	case p == nil:
		a.fail(CheckSeedTiming, r, "player %s adds a seed to period %q, which has no commitment before it", ev.Player, ev.Period)
		return
	case p.revealed != nil:
		a.fail(CheckSeedTiming, r, "player %s adds a seed to period %q after its reveal at %s", ev.Player, ev.Period, p.revealed)
	case p.first != nil:
		a.fail(CheckSeedTiming, r, "player %s adds a seed to period %q after its first digital roll (counter %d at %s): it would change rolls already made", ev.Player, ev.Period, p.first.ev.Counter, p.first.ref)
	case p != a.open:
		a.fail(CheckSeedTiming, r, "player %s adds a seed to period %q, but the open period is %q", ev.Player, ev.Period, a.open.Period.Period)
	}
	if old, ok := p.seeds[ev.Player]; ok {
		a.fail(CheckSeedTiming, r, "player %s adds a second seed to period %q (the first was %q)", ev.Player, ev.Period, old)
	}
	p.seeds[ev.Player] = ev.Seed
	p.snap = nil
	p.Seeds = append(p.Seeds, PlayerSeed{Player: ev.Player, Seed: ev.Seed, EnteredBy: actor, Version: r.Version})
}

func (a *auditor) revealed(r EventRef, ev *rules.DiceRevealed) {
	a.checks[CheckReveals].Checked++
	p := a.periods[ev.Period]
	if p == nil {
		a.fail(CheckReveals, r, "reveals a seed for period %q, which was never committed before it", ev.Period)
		return
	}
	if p.revealed != nil {
		a.fail(CheckReveals, r, "period %q revealed a second time (first at %s)", ev.Period, p.revealed)
		return
	}
	p.revealed, p.RevealedAt, p.Seed = &r, r.Version, ev.Seed
	if ev.Commitment != p.Commitment {
		a.fail(CheckReveals, r, "the reveal names commitment %s, but period %q committed %s at %s", short(ev.Commitment), ev.Period, short(p.Commitment), p.ref)
	}
	if err := dice.Verify(ev.Seed, p.Commitment); err != nil {
		a.fail(CheckReveals, r, "the seed revealed for period %q does not match the commitment recorded at %s: %v", ev.Period, p.ref, err)
		return
	}
	p.Verified = true
}

func (a *auditor) rolled(r EventRef, env *events.Envelope, ev *rules.DiceRolled) {
	ro := &roll{ref: r, ev: ev, actor: env.Author(), env: env}
	a.rollOrder = append(a.rollOrder, ro)
	// Check 4: counters.
	a.checks[CheckCounters].Checked++
	switch first, seen := a.rolls[ev.Counter]; {
	case seen:
		a.add(CheckCounters, Fail, r, ev.Counter, "roll counter %d repeated (first at %s): a roll made again", ev.Counter, first.ref)
	case ev.Counter != a.lastCounter+1:
		if ev.Counter <= a.lastCounter {
			a.add(CheckCounters, Fail, r, ev.Counter, "roll counter %d after %d: out of order", ev.Counter, a.lastCounter)
		} else {
			a.add(CheckCounters, Fail, r, ev.Counter, "roll counter %d follows %d: %s missing (a roll skipped or removed)", ev.Counter, a.lastCounter, counterRange(a.lastCounter+1, ev.Counter-1))
		}
		a.rolls[ev.Counter] = ro
	default:
		a.rolls[ev.Counter] = ro
	}
	a.lastCounter = max(a.lastCounter, ev.Counter)
	// Check 3, the parts that need no seed.
	a.checks[CheckRolls].Checked++
	if len(ev.Values) != ev.Count {
		a.add(CheckRolls, Fail, r, ev.Counter, "roll %d records %d values for %dD%d", ev.Counter, len(ev.Values), ev.Count, ev.Sides)
	}
	for _, v := range ev.Values {
		if v < 1 || v > ev.Sides {
			a.add(CheckRolls, Fail, r, ev.Counter, "roll %d: %d is not a face of a D%d", ev.Counter, v, ev.Sides)
			break
		}
	}
	switch ev.Source {
	case rules.SourcePhysical:
		if ev.EnteredBy == "" {
			a.add(CheckRolls, Fail, r, ev.Counter, "physical roll %d does not say who entered it", ev.Counter)
		}
		if ev.CommandID != "" || ev.Nonce != "" || ev.Scheme != "" {
			a.checks[CheckNonces].Checked++
			a.add(CheckNonces, Fail, r, ev.Counter, "physical roll %d records a command id, a nonce or a scheme: only digital dice are derived", ev.Counter)
		}
		return
	case rules.SourceDigital:
	default:
		a.add(CheckRolls, Fail, r, ev.Counter, "roll %d has source %q, neither digital nor physical", ev.Counter, ev.Source)
		return
	}
	p := a.periods[ev.Period]
	switch {
	case ev.Period == "":
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d names no dice period", ev.Counter)
		return
	case p == nil:
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d is of period %q, which has no commitment before it", ev.Counter, ev.Period)
		return
	case p.revealed != nil:
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d was made after period %q's seed was revealed at %s: anyone could have known it", ev.Counter, ev.Period, p.revealed)
	case p != a.open:
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d is of period %q, but the open period is %q", ev.Counter, ev.Period, a.open.Period.Period)
	}
	if p.snap == nil {
		p.snap = make(map[string]string, len(p.seeds))
		for k, v := range p.seeds {
			p.snap[k] = v
		}
	}
	ro.period, ro.seeds = p, p.snap
	a.rollScheme(ro)
	if p.first == nil {
		p.first = ro
	}
	p.rolls = append(p.rolls, ro)
	p.DigitalRolls++
	a.nonce(ro)
}

// rollScheme sets the scheme a digital roll is derived by and checks it
// (check 3): a roll records ledger-dice-v3 or nothing (its period's
// scheme); v3 only in a v2 or v3 period (a v1 battle keeps v1 to its end);
// and once a roll of the battle is by v3, no later one is by v2, which mixed
// in the command id the sender chose: the ledger cannot pick, roll by roll,
// the scheme that suits it.
func (a *auditor) rollScheme(ro *roll) {
	ev, r, p := ro.ev, ro.ref, ro.period
	ro.scheme = p.Scheme
	switch {
	case ev.Scheme == "":
	case ev.Scheme != dice.SchemeV3:
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d records scheme %q; a roll records %s or none (its period's)", ev.Counter, ev.Scheme, dice.SchemeV3)
	case p.Scheme == dice.SchemeV1:
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d records %s, but its period %q is %s, which a battle keeps to its end", ev.Counter, ev.Scheme, p.Period.Period, p.Scheme)
	default:
		ro.scheme = ev.Scheme
	}
	switch {
	case ro.scheme == dice.SchemeV3 && a.v3 == nil:
		a.v3 = ro
	case ro.scheme == dice.SchemeV2 && a.v3 != nil:
		a.add(CheckRolls, Fail, r, ev.Counter, "digital roll %d is by %s, which mixes in the command id its sender chose, after roll %d by %s at %s: a battle's rolls do not go back", ev.Counter, dice.SchemeV2, a.v3.ev.Counter, dice.SchemeV3, a.v3.ref)
	}
}

// nonce checks check 10 on one digital roll: by ledger-dice-v2 it records
// the id of the command it settles (the event's own command id); by
// ledger-dice-v3 no command id (the sender chose it; it is not an input);
// by either a nonce only when the command is a player's own, entered by
// them; by ledger-dice-v1 neither. The statistics charge a roll without a
// player's nonce to whoever entered its command (Charge).
func (a *auditor) nonce(ro *roll) {
	ev, r := ro.ev, ro.ref
	a.checks[CheckNonces].Checked++
	if ro.scheme == dice.SchemeV3 && ev.CommandID != "" {
		a.add(CheckNonces, Fail, r, ev.Counter, "digital roll %d records command %q, but %s mixes in no command id", ev.Counter, ev.CommandID, dice.SchemeV3)
	}
	switch ro.scheme {
	case dice.SchemeV1:
		if ev.CommandID != "" || ev.Nonce != "" {
			a.add(CheckNonces, Fail, r, ev.Counter, "digital roll %d records a command id or a nonce, but its period %q is %s, which mixes in neither", ev.Counter, ro.period.Period.Period, dice.SchemeV1)
		}
	case dice.SchemeV2, dice.SchemeV3:
		switch {
		case ro.scheme == dice.SchemeV3:
		case ev.CommandID == "":
			a.add(CheckNonces, Fail, r, ev.Counter, "digital roll %d of %s period %q does not record the command it settles", ev.Counter, dice.SchemeV2, ro.period.Period.Period)
		case ev.CommandID != ro.env.CommandID:
			a.add(CheckNonces, Fail, r, ev.Counter, "digital roll %d records command %q, but its event belongs to command %q", ev.Counter, ev.CommandID, ro.env.CommandID)
		}
		if ev.Nonce == "" {
			return
		}
		if _, err := dice.ParseNonce(ev.Nonce); err != nil || strings.ToLower(ev.Nonce) != ev.Nonce {
			a.add(CheckNonces, Fail, r, ev.Counter, "digital roll %d: nonce %.80q is not %d to %d lowercase hex digits", ev.Counter, ev.Nonce, 2*dice.MinNonce, 2*dice.MaxNonce)
		}
		if ro.env.OnBehalfOf != "" {
			a.add(CheckNonces, Fail, r, ev.Counter, "digital roll %d carries a player's nonce, but %s entered the command for %s: the ledger mixes in only the nonce of a player's own command", ev.Counter, ro.env.Actor, ro.env.OnBehalfOf)
		}
	}
}

func counterRange(from, to uint64) rules.Words {
	if from == to {
		return rules.Words{Format: "roll %d", Args: []any{from}}
	}
	return rules.Words{Format: "rolls %d..%d", Args: []any{from, to}}
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

// recompute checks check 3 on a period's digital rolls: every one derived
// again from the revealed seed (docs/dice.md).
func (a *auditor) recompute(p *period) {
	if len(p.rolls) == 0 {
		return
	}
	first, last := p.rolls[0], p.rolls[len(p.rolls)-1]
	what := rules.Words{Format: "%d digital %s of period %q (counters %d..%d)", Args: []any{len(p.rolls), plural(len(p.rolls), "roll", "rolls"), p.Period.Period, first.ev.Counter, last.ev.Counter}}
	switch {
	case !p.schemeOK:
		a.fail(CheckRolls, first.ref, "%s cannot be recomputed: scheme %q is unknown to this audit", what, p.Scheme)
		return
	case p.revealed == nil && a.ended != nil:
		a.fail(CheckRolls, first.ref, "%s cannot be verified: the battle ended at %s without revealing the period's seed", what, a.ended)
		return
	case p.revealed == nil:
		a.add(CheckRolls, Pending, first.ref, 0, "%s unverifiable until the reveal", what)
		return
	case !p.Verified:
		a.fail(CheckRolls, *p.revealed, "%s cannot be verified: the seed revealed for the period does not match its commitment", what)
		return
	}
	for _, ro := range p.rolls {
		want, err := recomputeRoll(ro.scheme, p.Seed, ro.seeds, a.battle, p.Period.Period, ro.ev, ro.ev.Count, ro.ev.Sides)
		if err != nil {
			a.add(CheckRolls, Fail, ro.ref, ro.ev.Counter, "roll %d cannot be recomputed: %v", ro.ev.Counter, err)
			continue
		}
		if !slices.Equal(want, ro.ev.Values) {
			format := "digital roll %d (%dD%d, period %q, %d player %s) does not recompute from the revealed seed"
			args := []any{ro.ev.Counter, ro.ev.Count, ro.ev.Sides, p.Period.Period, len(ro.seeds), plural(len(ro.seeds), "seed", "seeds")}
			switch {
			case ro.scheme == dice.SchemeV2 && ro.ev.Nonce != "":
				format = "digital roll %d (%dD%d, period %q, %d player %s, command %s, nonce %.8s…) does not recompute from the revealed seed"
				args = append(args, ro.ev.CommandID, ro.ev.Nonce)
			case ro.scheme == dice.SchemeV2:
				format = "digital roll %d (%dD%d, period %q, %d player %s, command %s, no player's nonce) does not recompute from the revealed seed"
				args = append(args, ro.ev.CommandID)
			case ro.scheme == dice.SchemeV3 && ro.ev.Nonce != "":
				format = "digital roll %d (%dD%d, period %q, %d player %s, %s, nonce %.8s…) does not recompute from the revealed seed"
				args = append(args, dice.SchemeV3, ro.ev.Nonce)
			case ro.scheme == dice.SchemeV3:
				format = "digital roll %d (%dD%d, period %q, %d player %s, %s, no player's nonce) does not recompute from the revealed seed"
				args = append(args, dice.SchemeV3)
			}
			f := a.add(CheckRolls, Fail, ro.ref, ro.ev.Counter, format, args...)
			f.Expected, f.Recorded = want, ro.ev.Values
			continue
		}
		p.Recomputed++
	}
}

// recomputeRoll derives a digital roll again by its scheme (docs/dice.md
// section 3): seedHex is the revealed seed, battle the "<campaign>/<battle>"
// id; ev gives the counter and, by ledger-dice-v2, the command id and the
// nonce, by ledger-dice-v3 the nonce alone.
func recomputeRoll(scheme, seedHex string, players map[string]string, battle, period string, ev *rules.DiceRolled, n, sides int) ([]int, error) {
	seed, err := dice.ParseSeed(seedHex)
	if err != nil {
		return nil, fmt.Errorf("revealed seed: %w", err)
	}
	d := dice.Draw{Counter: ev.Counter}
	if scheme == dice.SchemeV2 {
		d.Command = ev.CommandID
	}
	if scheme != dice.SchemeV1 {
		if d.Nonce, err = dice.ParseNonce(ev.Nonce); err != nil {
			return nil, err
		}
	}
	return dice.Derive(scheme, dice.Input{Seed: seed, PlayerSeeds: players, Battle: battle, Period: period}, d, n, sides)
}

// nonceSummary sums up check 10: the digital rolls of ledger-dice-v2 and
// v3 with and without a player's nonce, each charged as the statistics
// charge it (Charge): a roll with a player's nonce to the player, a roll
// without one to whoever entered its command, "ump for karl" when it was
// entered for a player; and the rolls of ledger-dice-v1 periods, which mix
// none.
func (a *auditor) nonceSummary() {
	with, without := map[string]int{}, map[string]int{}
	nw, nwo, v1 := 0, 0, 0
	for _, ro := range a.rollOrder {
		if ro.period == nil {
			continue
		}
		by, forWho := Charge(ro.env.Actor, ro.env.OnBehalfOf, ro.ev)
		if forWho != "" {
			by += " for " + forWho
		}
		switch {
		case ro.scheme == dice.SchemeV1:
			v1++
		case ro.ev.Nonce != "":
			with[by]++
			nw++
		default:
			without[by]++
			nwo++
		}
	}
	by := func(m map[string]int) string {
		if len(m) == 0 {
			return ""
		}
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		parts := make([]string, len(ids))
		for i, id := range ids {
			parts[i] = fmt.Sprintf("%s %d", id, m[id])
		}
		return " (" + strings.Join(parts, ", ") + ")"
	}
	c := a.checks[CheckNonces]
	switch {
	case nw+nwo == 0 && v1 == 0:
		c.summarize("no digital rolls")
	case nw+nwo == 0:
		c.summarize("%s rolls: %d, no nonces", dice.SchemeV1, v1)
	case v1 == 0:
		c.summarize("%d with a player's nonce%s, %d without%s", nw, by(with), nwo, by(without))
	default:
		c.summarize("%d with a player's nonce%s, %d without%s; %s rolls: %d", nw, by(with), nwo, by(without), dice.SchemeV1, v1)
	}
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
