package rules

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules/dice"
)

// Dice sources recorded on a roll (docs/principles.md principle 4).
const (
	SourceDigital  = "digital"
	SourcePhysical = "physical"
)

// RollRequest asks the dice source for one roll. Counter numbers the rolls of
// a battle from 1 without gaps; Purpose says what the roll decides
// ("order:<general>:<unit>+<unit>", "blunder:<general>:<units>").
type RollRequest struct {
	Counter uint64 `json:"counter"`
	Purpose string `json:"purpose"`
	Count   int    `json:"count"`
	Sides   int    `json:"sides"`
}

// Rolled is the answer of a dice source: the faces, whether they came from a
// digital source or physical dice, and who entered physical dice. A digital
// roll also says what it mixed in besides the seed and the counter: by
// ledger-dice-v3 (Scheme) the nonce of the player whose own command it is,
// if any; by ledger-dice-v2 the id of the command it settles too
// (docs/dice.md).
type Rolled struct {
	Values    []int  `json:"values"`
	Source    string `json:"source"`
	EnteredBy string `json:"entered_by,omitempty"`
	Scheme    string `json:"scheme,omitempty"`
	CommandID string `json:"command_id,omitempty"`
	Nonce     string `json:"nonce,omitempty"`
}

// Dice is where Decide gets its rolls: the engine never invents a value. The
// service passes a digital source (committed seed) or the values a player
// entered.
type Dice interface {
	Roll(RollRequest) (Rolled, error)
}

// ErrNoDice is returned (wrapped) when a command needs a roll and Decide was
// given no dice source.
var ErrNoDice = errors.New("no dice source")

// ErrBadRoll is returned (wrapped) when a dice source answers with values that
// do not fit the request.
var ErrBadRoll = errors.New("dice source answered an impossible roll")

// FixedDice hands out the given faces in order, for tests and for physical
// dice entered in advance. It is not safe for concurrent use.
type FixedDice struct {
	Values    []int
	Source    string // SourceDigital when empty
	EnteredBy string
	// Requests records every request served, for assertions.
	Requests []RollRequest
	next     int
}

// NewFixedDice returns a FixedDice that yields vals one face at a time.
func NewFixedDice(vals ...int) *FixedDice { return &FixedDice{Values: vals} }

// Roll returns the next req.Count faces, or an error if they are used up.
func (d *FixedDice) Roll(req RollRequest) (Rolled, error) {
	if d.next+req.Count > len(d.Values) {
		return Rolled{}, fmt.Errorf("fixed dice: %d faces wanted for %q, %d left", req.Count, req.Purpose, len(d.Values)-d.next)
	}
	vals := append([]int(nil), d.Values[d.next:d.next+req.Count]...)
	d.next += req.Count
	d.Requests = append(d.Requests, req)
	src := d.Source
	if src == "" {
		src = SourceDigital
	}
	return Rolled{Values: vals, Source: src, EnteredBy: d.EnteredBy}, nil
}

// roll asks dice for one roll and checks the answer fits the request.
func roll(src Dice, req RollRequest) (Rolled, error) {
	if src == nil {
		return Rolled{}, fmt.Errorf("roll %d (%s): %w", req.Counter, req.Purpose, ErrNoDice)
	}
	r, err := src.Roll(req)
	if err != nil {
		return Rolled{}, fmt.Errorf("roll %d (%s): %w", req.Counter, req.Purpose, err)
	}
	if len(r.Values) != req.Count {
		return Rolled{}, fmt.Errorf("roll %d (%s): %d values for %dD%d: %w", req.Counter, req.Purpose, len(r.Values), req.Count, req.Sides, ErrBadRoll)
	}
	for _, v := range r.Values {
		if v < 1 || v > req.Sides {
			return Rolled{}, fmt.Errorf("roll %d (%s): %d is not a face of a D%d: %w", req.Counter, req.Purpose, v, req.Sides, ErrBadRoll)
		}
	}
	if r.Source != SourceDigital && r.Source != SourcePhysical {
		return Rolled{}, fmt.Errorf("roll %d (%s): source %q is neither %q nor %q: %w", req.Counter, req.Purpose, r.Source, SourceDigital, SourcePhysical, ErrBadRoll)
	}
	if r.Source == SourcePhysical && r.EnteredBy == "" {
		return Rolled{}, fmt.Errorf("roll %d (%s): physical dice without entered_by: %w", req.Counter, req.Purpose, ErrBadRoll)
	}
	if r.Source == SourcePhysical && (r.CommandID != "" || r.Nonce != "" || r.Scheme != "") {
		return Rolled{}, fmt.Errorf("roll %d (%s): physical dice mix no command id or nonce: %w", req.Counter, req.Purpose, ErrBadRoll)
	}
	if r.Scheme != "" && (r.Scheme != dice.SchemeV3 || r.CommandID != "") {
		return Rolled{}, fmt.Errorf("roll %d (%s): a roll records scheme %s only, and with it no command id: %w", req.Counter, req.Purpose, dice.SchemeV3, ErrBadRoll)
	}
	if r.Nonce != "" && ((r.CommandID == "" && r.Scheme == "") || !lowerHex(r.Nonce) || len(r.Nonce)%2 != 0 || len(r.Nonce) < minNonceHex || len(r.Nonce) > maxNonceHex) {
		return Rolled{}, fmt.Errorf("roll %d (%s): nonce %.80q is not %d to %d lowercase hex digits of a roll by %s: %w", req.Counter, req.Purpose, r.Nonce, minNonceHex, maxNonceHex, dice.SchemeV3, ErrBadRoll)
	}
	r.Values = append([]int(nil), r.Values...)
	return r, nil
}

// EvDiceRolled is one roll: persisted forever, never renamed or reused.
const EvDiceRolled = "dice.rolled"

// DiceRolled is dice.rolled: one roll, recorded before the decision it feeds.
type DiceRolled struct {
	Counter   uint64 `json:"counter"`
	Purpose   string `json:"purpose"`
	Count     int    `json:"count"`
	Sides     int    `json:"sides"`
	Values    []int  `json:"values"`
	Source    string `json:"source"`
	EnteredBy string `json:"entered_by,omitempty"`
	// Command is the command whose decision the roll feeds ("order.give").
	Command string `json:"command"`
	Turn    int    `json:"turn"`
	// Period is the dice seed period a digital roll derives from.
	Period string `json:"period,omitempty"`
	// Scheme is the derivation of a digital roll when it is not its
	// period's: "ledger-dice-v3", recorded on every roll made by it (a
	// battle begun under ledger-dice-v2 rolls by v3 from the first roll
	// this program makes in it). Empty: the scheme its period's
	// commitment records (v1 or v2, the rolls made before v3).
	Scheme string `json:"scheme,omitempty"`
	// CommandID is the id of the command the roll settles, mixed into a
	// digital roll by ledger-dice-v2 (empty by v1 and v3: the sender
	// chooses it freely, so v3 mixes in nothing of it; the event's own
	// command_id still names the command).
	CommandID string `json:"command_id,omitempty"`
	// Nonce is the fresh randomness (hex) the device of the player whose
	// own command it is sent with it, mixed into a v2 or v3 roll. Empty:
	// the roll carried no player's nonce (the umpire's or the operator's
	// own command, one entered for a player, or a player's command sent
	// without one), and whoever holds the period's seed could compute it
	// in advance; the audit charges such rolls to whoever entered them.
	Nonce string `json:"nonce,omitempty"`
}

// EventType implements Event.
func (*DiceRolled) EventType() string { return EvDiceRolled }

// Audience implements Event.
func (*DiceRolled) Audience() string { return AudienceAll }

// RollRecord is a roll read against a number: which roll (its dice.rolled
// counter), its faces and total.
type RollRecord struct {
	Counter uint64 `json:"counter"`
	Values  []int  `json:"values"`
	Total   int    `json:"total"`
}

func rollTotal(r *RollRecord) int {
	if r == nil {
		return 0
	}
	return r.Total
}

// Dice seed periods (docs/principles.md principle 4, docs/dice.md): the secret seed
// of the ledger's digital dice is committed when its period starts and
// revealed when it ends. The ruleset's dice.seed_period says whether one
// seed serves the whole battle or each turn has its own.
const (
	SeedPeriodBattle = "battle"
	SeedPeriodTurn   = "turn"
)

// Event types of the dice seed's life.
const (
	EvDiceCommitted = "dice.committed"
	EvDiceSeedAdded = "dice.seed_added"
	EvDiceRevealed  = "dice.revealed"
)

// CmdDiceAddSeed is the command by which a player adds a seed of their own
// to the current period's digital dice, before its first roll.
const CmdDiceAddSeed = "dice.add_seed"

// DiceBook is the state of the digital dice: the current period, its
// commitment and the players' seeds, and every period so far.
type DiceBook struct {
	Scheme string `json:"scheme,omitempty"`
	// Period is the current period: "battle", or the turn number.
	Period      string            `json:"period,omitempty"`
	Commitment  string            `json:"commitment,omitempty"`
	PlayerSeeds map[string]string `json:"player_seeds,omitempty"`
	// Rolled is set by the period's first digital roll: from then on no
	// player may add a seed.
	Rolled bool `json:"rolled,omitempty"`
	// Periods lists every committed period in order, with its reveal.
	Periods []DicePeriod `json:"periods,omitempty"`
}

// DicePeriod is one committed period of the digital dice.
type DicePeriod struct {
	Period     string `json:"period"`
	Commitment string `json:"commitment"`
	// Revealed is the secret seed, once the period has ended.
	Revealed string `json:"revealed,omitempty"`
}

func (b DiceBook) clone() DiceBook {
	c := b
	if b.PlayerSeeds != nil {
		c.PlayerSeeds = make(map[string]string, len(b.PlayerSeeds))
		for k, v := range b.PlayerSeeds {
			c.PlayerSeeds[k] = v
		}
	}
	c.Periods = append([]DicePeriod(nil), b.Periods...)
	return c
}

// DiceCommitted records the commitment (hex SHA-256) to a period's secret
// seed, before any roll of that period.
type DiceCommitted struct {
	Period     string `json:"period"`
	Scheme     string `json:"scheme"`
	Commitment string `json:"commitment"`
}

// EventType implements Event.
func (*DiceCommitted) EventType() string { return EvDiceCommitted }

// Audience implements Event.
func (*DiceCommitted) Audience() string { return AudienceAll }

// DiceSeedAdded records a player's own seed, mixed into every digital roll
// of the period.
type DiceSeedAdded struct {
	Period string `json:"period"`
	Player string `json:"player"`
	Seed   string `json:"seed"`
}

// EventType implements Event.
func (*DiceSeedAdded) EventType() string { return EvDiceSeedAdded }

// Audience implements Event.
func (*DiceSeedAdded) Audience() string { return AudienceAll }

// DiceRevealed reveals a period's secret seed once the period is over, so
// that anyone can recompute its rolls (docs/dice.md).
type DiceRevealed struct {
	Period     string `json:"period"`
	Seed       string `json:"seed"`
	Commitment string `json:"commitment"`
}

// EventType implements Event.
func (*DiceRevealed) EventType() string { return EvDiceRevealed }

// Audience implements Event.
func (*DiceRevealed) Audience() string { return AudienceAll }

// AddDiceSeed (dice.add_seed) adds a player's seed to the current period.
type AddDiceSeed struct {
	Player string `json:"player"`
	Seed   string `json:"seed"`
}

// CommandName implements Command.
func (*AddDiceSeed) CommandName() string { return CmdDiceAddSeed }

// sealing is embedded in the commands that may start or end a dice period.
// Its fields are never read from JSON: only the service sets them, from the
// sealed vault (DicePeriods says which it must supply).
type sealing struct {
	// DiceCommitment commits to the next period's secret seed.
	DiceCommitment string `json:"-"`
	// DiceReveal is the ending period's secret seed, hex.
	DiceReveal string `json:"-"`
	// flankSeal carries flank marches' sealed orders to reveal when the
	// battle ends (flank.go).
	flankSeal
}

func (s *sealing) setCommitment(c string) { s.DiceCommitment = c }

func (s *sealing) setReveal(r string) { s.DiceReveal = r }

type sealable interface {
	setCommitment(string)
	setReveal(string)
}

// WithDiceCommitment returns cmd carrying the commitment to the next
// period's seed. Commands that start no period are returned unchanged.
func WithDiceCommitment(cmd Command, commitment string) Command {
	if c, ok := cmd.(sealable); ok {
		c.setCommitment(commitment)
	}
	return cmd
}

// WithDiceReveal returns cmd carrying the ending period's secret seed.
func WithDiceReveal(cmd Command, seed string) Command {
	if c, ok := cmd.(sealable); ok {
		c.setReveal(seed)
	}
	return cmd
}

// DicePeriods says which dice periods cmd would start and end if accepted
// in s: the service then supplies the commitment to next and the seed of
// reveal. Empty strings: none.
func DicePeriods(s *State, cmd Command) (next, reveal string) {
	if s == nil || s.Ruleset == nil {
		return "", ""
	}
	switch c := cmd.(type) {
	case *StartBattle:
		if s.Status == StatusDeployed {
			return s.periodOfTurn(1), ""
		}
	case *EndPhase:
		if s.Status != StatusInProgress || (c.Side != s.Phasing && !(s.Phase == PhaseMovement && c.Side == s.mover())) || !s.endsTurn() {
			return "", ""
		}
		if s.TurnLimit > 0 && s.Turn >= s.TurnLimit {
			return "", s.openPeriod()
		}
		if s.Ruleset.Dice.SeedPeriod == SeedPeriodTurn {
			return s.periodOfTurn(s.Turn + 1), s.openPeriod()
		}
	case *EndBattle:
		if s.Status != StatusEnded {
			return "", s.openPeriod()
		}
	}
	return "", ""
}

// periodOfTurn names the period that turn falls in.
func (s *State) periodOfTurn(turn int) string {
	if s.Ruleset.Dice.SeedPeriod == SeedPeriodTurn {
		return strconv.Itoa(turn)
	}
	return SeedPeriodBattle
}

// openPeriod is the current period if it is committed and not yet revealed.
func (s *State) openPeriod() string {
	if n := len(s.Dice.Periods); n > 0 && s.Dice.Periods[n-1].Revealed == "" {
		return s.Dice.Periods[n-1].Period
	}
	return ""
}

// endsTurn reports whether ending the current phase ends the turn.
func (s *State) endsTurn() bool {
	phases := s.Ruleset.Turn.Phases
	return len(phases) == 0 || s.Phase == phases[len(phases)-1]
}

// commitEvent records the commitment a command carries for period.
func commitEvent(s *State, period string, sl sealing) (Event, *Refusal) {
	if sl.DiceCommitment == "" {
		return nil, refuse("dice", "no_commitment", "dice period %s starts, but no commitment to its seed was supplied", period)
	}
	if len(sl.DiceCommitment) != 64 || strings.Trim(strings.ToLower(sl.DiceCommitment), "0123456789abcdef") != "" {
		return nil, refuse("dice", "bad_commitment", "commitment %q is not a hex SHA-256", sl.DiceCommitment)
	}
	return &DiceCommitted{Period: period, Scheme: s.Ruleset.Dice.Scheme, Commitment: strings.ToLower(sl.DiceCommitment)}, nil
}

// revealEvent reveals the open period's seed, checked against its commitment.
func revealEvent(s *State, sl sealing) (Event, *Refusal) {
	period := s.openPeriod()
	if period == "" {
		return nil, nil
	}
	p := s.Dice.Periods[len(s.Dice.Periods)-1]
	if sl.DiceReveal == "" {
		return nil, refuse("dice", "no_reveal", "dice period %s ends, but its seed was not supplied for the reveal", period)
	}
	if err := dice.Verify(sl.DiceReveal, p.Commitment); err != nil {
		return nil, refuse("dice", "reveal_mismatch", "the seed revealed for period %s does not match its commitment %.12s…: %v", period, p.Commitment, err)
	}
	return &DiceRevealed{Period: period, Seed: strings.ToLower(sl.DiceReveal), Commitment: p.Commitment}, nil
}

func decideAddSeed(s *State, c *AddDiceSeed) ([]Event, *Refusal) {
	if !validName(c.Player) {
		return nil, refuse(RuleInput, "bad_player", "player %q: want 1-64 characters without spaces", c.Player)
	}
	seed := strings.TrimSpace(c.Seed)
	if seed == "" || len(seed) > 256 {
		return nil, refuse(RuleInput, "bad_seed", "a player's seed is 1 to 256 characters; %d given", len(seed)).with("length", len(seed))
	}
	period := s.openPeriod()
	if period == "" {
		return nil, refuse("dice", "no_period", "no dice period is open: seeds are added after the battle starts and before the period's first roll")
	}
	if s.Dice.Rolled {
		return nil, refuse("dice", "period_rolled", "dice period %s has already rolled: a seed may only be added before its first roll", period)
	}
	if _, ok := s.Dice.PlayerSeeds[c.Player]; ok {
		return nil, refuse("dice", "seed_given", "player %s has already added a seed for period %s", c.Player, period)
	}
	return []Event{&DiceSeedAdded{Period: period, Player: c.Player, Seed: seed}}, nil
}

// newDiceRolled records one roll; a digital roll names its seed period.
func newDiceRolled(s *State, counter uint64, purpose string, spec DiceSpec, r Rolled, command string) *DiceRolled {
	e := &DiceRolled{Counter: counter, Purpose: purpose, Count: spec.Count, Sides: spec.Sides, Values: r.Values,
		Source: r.Source, EnteredBy: r.EnteredBy, Command: command, Turn: s.Turn}
	if r.Source == SourceDigital {
		e.Period, e.Scheme, e.CommandID, e.Nonce = s.Dice.Period, r.Scheme, r.CommandID, r.Nonce
	}
	return e
}

// applyDice folds the dice events into the book.
func applyDice(s *State, e Event) {
	b := &s.Dice
	switch ev := e.(type) {
	case *DiceCommitted:
		b.Scheme, b.Period, b.Commitment = ev.Scheme, ev.Period, ev.Commitment
		b.PlayerSeeds, b.Rolled = nil, false
		b.Periods = append(b.Periods, DicePeriod{Period: ev.Period, Commitment: ev.Commitment})
	case *DiceSeedAdded:
		if b.PlayerSeeds == nil {
			b.PlayerSeeds = map[string]string{}
		}
		b.PlayerSeeds[ev.Player] = ev.Seed
	case *DiceRevealed:
		for i := range b.Periods {
			if b.Periods[i].Period == ev.Period {
				b.Periods[i].Revealed = ev.Seed
			}
		}
	case *DiceRolled:
		s.RollCounter = ev.Counter
		if ev.Source == SourceDigital {
			b.Rolled = true
		}
	}
}

// A player's nonce as a roll records it: 16 to 64 lowercase hex digits.
const (
	minNonceHex = 2 * dice.MinNonce
	maxNonceHex = 2 * dice.MaxNonce
)

// lowerHex reports whether s is lowercase hexadecimal digits only.
func lowerHex(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }

// PurposeWords says in words what a roll was for, from its purpose
// (DiceRolled.Purpose, the key the roll is made for: "order:friant:33-ligne"
// is friant's order to 33-ligne), for the log and its translations
// (phrase.purpose in i18n). A purpose of no known shape is said as it is.
func PurposeWords(purpose string) Words {
	kind, rest, _ := strings.Cut(purpose, ":")
	switch kind {
	case "order", "blunder":
		if general, units, ok := strings.Cut(rest, ":"); ok && general != "" && units != "" {
			us := strings.ReplaceAll(units, "+", ", ")
			if kind == "order" {
				return words("%s's order to %s", general, us)
			}
			return words("%s's blunder roll for %s", general, us)
		}
	case ResultRetreat:
		if rest != "" {
			return words("the retreat distance of %s", rest)
		}
	case ResultRout:
		if rest != "" {
			return words("the rout distance of %s", rest)
		}
	case "flank":
		if side, edge, ok := strings.Cut(rest, ":"); ok && side != "" && edge != "" {
			return words("%s's flank march by the %s edge", side, edge)
		}
	case "formation_test":
		if rest != "" {
			return words("%s's formation test", rest)
		}
	case "march_initiative":
		if rest != "" {
			return words("brigade %s's march initiative", rest)
		}
	case "order_initiative":
		if rest != "" {
			return words("brigade %s's order initiative", rest)
		}
	}
	return words("%s", purpose)
}

// describeDice says a dice event in words.
func describeDice(e Event) string {
	switch ev := e.(type) {
	case *DiceRolled:
		vals := make([]string, len(ev.Values))
		for i, v := range ev.Values {
			vals[i] = fmt.Sprint(v)
		}
		src := ev.Source
		if ev.EnteredBy != "" {
			src += " by " + ev.EnteredBy
		}
		if ev.Nonce != "" {
			src += ", player's nonce " + ev.Nonce[:min(len(ev.Nonce), 8)] + "…"
		}
		return fmt.Sprintf("roll #%d %dD%d = %s (%s) for %s", ev.Counter, ev.Count, ev.Sides, strings.Join(vals, "+"), src, PurposeWords(ev.Purpose))
	case *DiceCommitted:
		return fmt.Sprintf("dice period %s committed: %s %.16s…", ev.Period, ev.Scheme, ev.Commitment)
	case *DiceSeedAdded:
		return fmt.Sprintf("player %s added a seed to dice period %s: %q", ev.Player, ev.Period, ev.Seed)
	case *DiceRevealed:
		return fmt.Sprintf("dice period %s revealed: seed %.16s… matches its commitment", ev.Period, ev.Seed)
	}
	return ""
}
