package audit

import (
	"slices"
	"sort"
	"strings"

	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/dice"
)

// Sources of a face distribution: both, or one kind of dice.
const (
	SourceAll      = "all"
	SourceDigital  = rules.SourceDigital
	SourcePhysical = rules.SourcePhysical
)

// PlayerStats sums up one player's dice and orders. A roll is charged as
// Charge says: a digital roll with a player's nonce to that player; one
// without (the umpire's or the operator's own, one entered for a player, a
// player's command sent without a nonce) to whoever entered the command,
// not to the player it was for, since whoever held the seed could compute it
// and whoever entered it chose when to spend it; physical dice to who
// entered them. The player of an order is the command's author.
type PlayerStats struct {
	Player        string `json:"player"`
	Rolls         int    `json:"rolls"`
	DigitalRolls  int    `json:"digital_rolls"`
	PhysicalRolls int    `json:"physical_rolls"`
	Dice          int    `json:"dice"`
	DigitalDice   int    `json:"digital_dice"`
	PhysicalDice  int    `json:"physical_dice"`
	// NonceRolls counts the digital rolls by ledger-dice-v2 or v3 charged
	// to this person that carried the nonce of their own device;
	// NoNonceRolls those that carried none (their own commands sent without
	// one, and every command they entered for a player; for the umpire and
	// the operator, all of theirs). Only a roll with a player's nonce is out
	// of reach of whoever holds the period's seed before the command
	// arrives (docs/dice.md).
	NonceRolls   int `json:"nonce_rolls"`
	NoNonceRolls int `json:"no_nonce_rolls"`
	// EnteredFor lists, by player, the digital rolls this person entered
	// for someone else (none with a device nonce): counted here, in Rolls
	// and NoNonceRolls and the faces, not in the player's.
	EnteredFor []Entered `json:"entered_for,omitempty"`
	// EnteredByOthers counts the digital rolls others entered for this
	// person: charged to them, not counted here.
	EnteredByOthers int `json:"entered_by_others,omitempty"`
	// Faces holds a distribution per source ("all", "digital", "physical")
	// and die size, for the sources the player used.
	Faces []FaceStats `json:"faces"`
	// Orders counts order.resolved events; Outcomes compares each outcome
	// seen with the number expected from the orders' effective ratings.
	Orders   int            `json:"orders"`
	Outcomes []OutcomeStats `json:"outcomes"`
}

// FaceStats is how often each face came up, with Pearson's chi-square
// against a fair die and the value a fair die exceeds once in a thousand
// audits (docs/dice.md section 9). Exceeds is evidence to look at, not
// proof of anything: the proof is the recomputation.
type FaceStats struct {
	Source string `json:"source"`
	Sides  int    `json:"sides"`
	Dice   int    `json:"dice"`
	// Counts[f-1] is how many dice showed face f.
	Counts      []int   `json:"counts"`
	ChiSquare   float64 `json:"chi_square"`
	Critical999 float64 `json:"critical_999"`
	Exceeds     bool    `json:"exceeds"`
	// SmallSample: fewer than 5 dice expected per face, too few for the
	// chi-square approximation to mean much.
	SmallSample bool `json:"small_sample"`
}

// OutcomeStats is one outcome of orders: how often it was observed, and
// how often expected: the sum over the orders of its exact probability
// given each order's effective rating (every face combination of the
// ruleset's order roll, 36 for 2D6, read as the rules read it).
type OutcomeStats struct {
	// Outcome is "failed", "blunder", "actions" or "success".
	Outcome  string  `json:"outcome"`
	Actions  int     `json:"actions"`
	Observed int     `json:"observed"`
	Expected float64 `json:"expected"`
}

type outcomeKey struct {
	outcome string
	actions int
}

type oddsKey struct {
	special string
	eff     int
}

type faceKey struct {
	source string
	sides  int
}

// Entered is the digital rolls one person entered for another, without a
// device nonce: whoever held the seed could compute them, and whoever
// entered them chose when to spend them.
type Entered struct {
	By    string `json:"by"`
	For   string `json:"for"`
	Rolls int    `json:"rolls"`
	Dice  int    `json:"dice"`
	// Note says it in words: "entered by anna for marie, no device nonce".
	Note string `json:"note"`
}

// Charge says to whom a roll is charged in the luck statistics (the
// audit's, and the ledger's dice chart) and for whom it was entered, given
// its event's actor and on_behalf_of. A digital roll with a player's nonce
// is the player's own (the ledger mixes a nonce only into a player's own
// command). A digital roll without one is charged to whoever entered its
// command (by), with forWho the player it was entered for, if another: the
// seed holder could compute it in advance, so it says nothing of the
// player's luck. Physical dice are charged to who entered them.
func Charge(actor, onBehalfOf string, ev *rules.DiceRolled) (by, forWho string) {
	author := actor
	if onBehalfOf != "" {
		author = onBehalfOf
	}
	switch {
	case ev.Source == rules.SourcePhysical && ev.EnteredBy != "":
		return ev.EnteredBy, ""
	case ev.Source == rules.SourcePhysical, ev.Nonce != "", actor == "":
		return author, ""
	case onBehalfOf != "" && onBehalfOf != actor:
		return actor, onBehalfOf
	}
	return actor, ""
}

// EnteredNote says in words who entered rolls for whom.
func EnteredNote(by, forWho string) string {
	return "entered by " + by + " for " + forWho + ", no device nonce"
}

type playerAcc struct {
	PlayerStats
	faces    map[faceKey][]int
	outcomes map[outcomeKey]*OutcomeStats
	entered  map[string]*Entered
}

func (a *auditor) statistics() {
	accs := map[string]*playerAcc{}
	all := &playerAcc{PlayerStats: PlayerStats{Player: "all players"}}
	get := func(id string) *playerAcc {
		p := accs[id]
		if p == nil {
			p = &playerAcc{PlayerStats: PlayerStats{Player: id}}
			accs[id] = p
		}
		return p
	}
	for _, ro := range a.rollOrder {
		player, forWho := Charge(ro.env.Actor, ro.env.OnBehalfOf, ro.ev)
		if forWho != "" {
			get(forWho).EnteredByOthers++
			get(player).enter(player, forWho, len(ro.ev.Values))
		}
		for _, p := range []*playerAcc{get(player), all} {
			p.addRoll(ro.ev)
			if ro.period != nil && ro.scheme != dice.SchemeV1 {
				if ro.ev.Nonce != "" {
					p.NonceRolls++
				} else {
					p.NoNonceRolls++
				}
			}
		}
	}
	odds := map[oddsKey]map[outcomeKey]float64{}
	for _, o := range a.orders {
		k := oddsKey{o.special, o.eff}
		probs, ok := odds[k]
		if !ok && a.rs != nil {
			probs = orderOdds(a.rs, o.special, o.eff)
			odds[k] = probs
		}
		for _, p := range []*playerAcc{get(o.actor), all} {
			p.addOrder(o, probs)
		}
	}
	ids := make([]string, 0, len(accs))
	for id := range accs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		a.rep.Players = append(a.rep.Players, accs[id].done())
	}
	a.rep.All = all.done()
}

// enter counts one roll p entered for forWho.
func (p *playerAcc) enter(by, forWho string, dice int) {
	if p.entered == nil {
		p.entered = map[string]*Entered{}
	}
	e := p.entered[forWho]
	if e == nil {
		e = &Entered{By: by, For: forWho, Note: EnteredNote(by, forWho)}
		p.entered[forWho] = e
	}
	e.Rolls++
	e.Dice += dice
}

func (p *playerAcc) addRoll(ev *rules.DiceRolled) {
	n := len(ev.Values)
	p.Rolls++
	p.Dice += n
	if ev.Source == rules.SourcePhysical {
		p.PhysicalRolls++
		p.PhysicalDice += n
	} else {
		p.DigitalRolls++
		p.DigitalDice += n
	}
	if ev.Sides < 2 || ev.Sides > 255 {
		return
	}
	if p.faces == nil {
		p.faces = map[faceKey][]int{}
	}
	for _, src := range []string{SourceAll, ev.Source} {
		k := faceKey{src, ev.Sides}
		c := p.faces[k]
		if c == nil {
			c = make([]int, ev.Sides)
			p.faces[k] = c
		}
		for _, v := range ev.Values {
			if v >= 1 && v <= ev.Sides {
				c[v-1]++
			}
		}
	}
}

func (p *playerAcc) addOrder(o order, probs map[outcomeKey]float64) {
	p.Orders++
	if p.outcomes == nil {
		p.outcomes = map[outcomeKey]*OutcomeStats{}
	}
	at := func(k outcomeKey) *OutcomeStats {
		s := p.outcomes[k]
		if s == nil {
			s = &OutcomeStats{Outcome: k.outcome, Actions: k.actions}
			p.outcomes[k] = s
		}
		return s
	}
	at(outcomeKey{o.outcome, o.actions}).Observed++
	for k, pr := range probs {
		at(k).Expected += pr
	}
}

func (p *playerAcc) done() PlayerStats {
	s := p.PlayerStats
	for _, e := range p.entered {
		s.EnteredFor = append(s.EnteredFor, *e)
	}
	slices.SortFunc(s.EnteredFor, func(a, b Entered) int { return strings.Compare(a.For, b.For) })
	s.Faces = []FaceStats{}
	for k, c := range p.faces {
		n := sum(c)
		fs := FaceStats{Source: k.source, Sides: k.sides, Dice: n, Counts: c,
			ChiSquare: dice.ChiSquare(c), Critical999: dice.ChiSquareCritical999(k.sides - 1),
			SmallSample: n < 5*k.sides}
		fs.Exceeds = fs.ChiSquare > fs.Critical999
		s.Faces = append(s.Faces, fs)
	}
	rank := map[string]int{SourceAll: 0, SourceDigital: 1, SourcePhysical: 2}
	sort.Slice(s.Faces, func(i, j int) bool {
		a, b := s.Faces[i], s.Faces[j]
		if a.Sides != b.Sides {
			return a.Sides < b.Sides
		}
		return rank[a.Source] < rank[b.Source]
	})
	s.Outcomes = []OutcomeStats{}
	for _, o := range p.outcomes {
		s.Outcomes = append(s.Outcomes, *o)
	}
	orank := map[string]int{rules.OutcomeFailed: 0, rules.OutcomeBlunder: 1, rules.OutcomeSuccess: 2, rules.OutcomeActions: 3}
	slices.SortFunc(s.Outcomes, func(a, b OutcomeStats) int {
		if ra, rb := orank[a.Outcome], orank[b.Outcome]; ra != rb {
			return ra - rb
		}
		return a.Actions - b.Actions
	})
	return s
}

// maxOddsRolls bounds the enumeration of an order roll's face combinations.
const maxOddsRolls = 1 << 16

// orderOdds returns the exact probability of each outcome of an order with
// the given special and effective rating, as the rules enumerate them
// (rules.OrderOdds: every face combination of the ruleset's order roll, 36
// for 2D6, read as Decide reads it). Nil when the roll has too many
// combinations to enumerate (the ruleset comes from the file audited, which
// may be anything) or the special is unknown.
func orderOdds(rs *rules.Ruleset, special string, eff int) map[outcomeKey]float64 {
	spec := rs.Command.OrderRoll
	if spec.Count < 1 || spec.Sides < 2 {
		return nil
	}
	total := 1
	for range spec.Count {
		total *= spec.Sides
		if total > maxOddsRolls {
			return nil
		}
	}
	odds, err := rules.OrderOdds(rs, special, eff)
	if err != nil {
		return nil
	}
	out := make(map[outcomeKey]float64, len(odds))
	for _, o := range odds {
		if o.Ways > 0 {
			out[outcomeKey{o.Outcome, o.Actions}] = o.Probability
		}
	}
	return out
}
