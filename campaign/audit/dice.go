package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// The dice checks: each period's commitment, the players' seeds, the
// reveal, every roll's scheme and nonce (check 3), and each period's
// digital rolls derived again from its revealed seed.

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
