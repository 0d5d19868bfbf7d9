package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Flank marches (RULES.md F, seed 001; docs/flank-marches.md).
//
// A flank march is declared openly by its table edge only (F.1); its orders
// (which brigades march, where they enter) are sealed by the service in its
// vault and the rules see only their commitment, the SHA-256 of the sealed
// text, which holds a secret salt. The 1D6 arrival roll is made at the
// declaration (seed 001: "Затем игрок ... делает бросок 1D6"), so the
// arrival turn is public; what marches stays hidden. When the march enters
// (flank.enter), the service supplies the sealed text from the vault, the
// rules check it against the commitment and record it (flank.revealed):
// from then on its brigades are in the state, off the table until each unit
// enters. A mutual flank march on the same edge (F.10) is fought when the
// second is declared, on the sizes of both sealed orders (checked against
// their commitments; only the sizes are recorded). When the battle ends,
// the orders of marches that never arrived (lost, F.9, or late) are
// revealed too, so that the log alone says who took part.

// Command names of flank marches.
const (
	// CmdFlankDeclare declares a flank march by its edge (F.1).
	CmdFlankDeclare = "flank.declare"
	// CmdFlankChooseEntry is the opponent's choice of the entry point (F.2 roll 5, F.4).
	CmdFlankChooseEntry = "flank.choose_entry"
	// CmdFlankEnter brings one flank-marching unit onto the table (F.2-F.5).
	CmdFlankEnter = "flank.enter"
	// CmdFlankRally rallies off the table a flank marcher that left it (F.7).
	CmdFlankRally = "flank.rally"
)

// Event types of flank marches: persisted forever.
const (
	EvFlankDeclared      = "flank.declared"
	EvFlankFightResolved = "flank.fight_resolved"
	EvFlankEntryChosen   = "flank.entry_chosen"
	EvFlankRevealed      = "flank.revealed"
	EvFlankUnitEntered   = "flank.unit_entered"
	EvFlankRallied       = "flank.rallied"
)

func init() {
	for k, v := range map[string]func() Command{
		CmdFlankDeclare:     func() Command { return &DeclareFlankMarch{} },
		CmdFlankChooseEntry: func() Command { return &ChooseFlankEntry{} },
		CmdFlankEnter:       func() Command { return &EnterFlank{} },
		CmdFlankRally:       func() Command { return &RallyFlankMarcher{} },
	} {
		commandFactories[k] = v
	}
	for k, v := range map[string]eventInfo{
		EvFlankDeclared:      {1, "A flank march declared openly by its table edge only, with the commitment (SHA-256) to its sealed orders and the arrival roll: the turn it may enter, where, or lost (F.1, F.2, F.8).", func() Event { return &FlankDeclared{} }},
		EvFlankFightResolved: {1, "Two sides' flank marches met on one edge: their sizes, by how much the larger outnumbers the smaller, the mutual-flank-march table's result and each march's new arrival (F.10).", func() Event { return &FlankFightResolved{} }},
		EvFlankEntryChosen:   {1, "The opponent chose the point of the edge where a flank march arriving at the opponent's choice enters (F.4).", func() Event { return &FlankEntryChosen{} }},
		EvFlankRevealed:      {1, "A flank march's sealed orders revealed, as the exact text its commitment hashes: when it arrives (its units join off the table) or, if it never did, when the battle ends (F.1, F.9).", func() Event { return &FlankRevealed{} }},
		EvFlankUnitEntered:   {1, "A flank-marching unit came on at its march's entry point and moved at full speed (F.3, F.5).", func() Event { return &FlankUnitEntered{} }},
		EvFlankRallied:       {1, "A flank marcher that left the table was rallied off it and waits to enter again with its march (F.7).", func() Event { return &FlankRallied{} }},
	} {
		eventRegistry[k] = v
	}
}

// Entry kinds of the F.2 arrival table (flank_march.arrival.entries[].entry).
const (
	EntryOrdered        = "ordered"
	EntryOpponentChoice = "opponent_choice"
	EntryLost           = "lost"
)

// Reasons a flank march's orders are revealed.
const (
	RevealArrival   = "arrival"
	RevealBattleEnd = "battle_end"
)

// F.10 results (flank_march.mutual[].result).
const (
	MutualBothDelayed  = "both_delayed"
	MutualLoserDelayed = "loser_delayed"
	MutualLoserRetires = "loser_retires"
	MutualLoserLost    = "loser_lost"
)

var mutualResults = []string{MutualBothDelayed, MutualLoserDelayed, MutualLoserRetires, MutualLoserLost}

// F.10 measures of a force (flank_march.mutual_measure).
const (
	MeasureUnits         = "units"
	MeasureVictoryPoints = "victory_points"
)

// flankSealScheme names the format of the sealed text.
const flankSealScheme = "ledger-flank-v1"

// FlankOrders are a flank march's sealed orders (F.1): the brigades that
// march, in the order they enter (F.4), and the point of the declared edge
// where they enter when the roll says "as ordered" (F.2 rolls 1-4). Side and
// Edge are sealed too, so a sealed text cannot be passed off for another
// march.
type FlankOrders struct {
	Side     string         `json:"side"`
	Edge     geom.Edge      `json:"edge"`
	Entry    geom.Vec       `json:"entry"`
	Brigades []FlankBrigade `json:"brigades"`
}

// FlankBrigade is a brigade on a flank march: its general comes with it.
type FlankBrigade struct {
	ID      string       `json:"id"`
	Name    string       `json:"name,omitempty"`
	Order   string       `json:"order"`
	General FlankGeneral `json:"general"`
	Units   []FlankUnit  `json:"units"`
}

// FlankGeneral is a flank-marching brigade's general.
type FlankGeneral struct {
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Rating int    `json:"rating"`
}

// FlankUnit is a flank-marching unit: no position until it enters.
type FlankUnit struct {
	ID        string  `json:"id"`
	Name      string  `json:"name,omitempty"`
	Type      string  `json:"type"`
	Formation string  `json:"formation,omitempty"`
	Width     float64 `json:"width,omitempty"`
	Depth     float64 `json:"depth,omitempty"`
	Markers   int     `json:"markers,omitempty"`
}

// units lists the orders' unit ids in entry order.
func (o *FlankOrders) units() []FlankUnit {
	var out []FlankUnit
	for _, b := range o.Brigades {
		out = append(out, b.Units...)
	}
	return out
}

// sealedFlank is the sealed text: the orders and the secret salt that keeps
// a guess of the orders from matching the commitment.
type sealedFlank struct {
	Scheme string      `json:"scheme"`
	Salt   string      `json:"salt"`
	Orders FlankOrders `json:"orders"`
}

// SealFlankOrders returns the sealed text of orders with salt (hex, from a
// secure random source: the service's) and its commitment, the hex SHA-256
// of that exact text.
func SealFlankOrders(o FlankOrders, salt string) (sealed, commitment string, err error) {
	if len(salt) < 32 || strings.Trim(strings.ToLower(salt), "0123456789abcdef") != "" {
		return "", "", fmt.Errorf("flank march salt: want at least 16 random bytes in hex")
	}
	b, err := json.Marshal(sealedFlank{Scheme: flankSealScheme, Salt: strings.ToLower(salt), Orders: o})
	if err != nil {
		return "", "", fmt.Errorf("seal flank orders: %w", err)
	}
	return string(b), flankCommitment(string(b)), nil
}

func flankCommitment(sealed string) string {
	sum := sha256.Sum256([]byte(sealed))
	return hex.EncodeToString(sum[:])
}

// openSealed checks sealed against commitment and decodes its orders.
func openSealed(sealed, commitment string) (*FlankOrders, *Refusal) {
	if flankCommitment(sealed) != commitment {
		return nil, refuse("F.1", "reveal_mismatch", "the orders revealed for the flank march do not match its commitment %.12s… (their SHA-256 is %.12s…)", commitment, flankCommitment(sealed))
	}
	var sf sealedFlank
	dec := json.NewDecoder(bytes.NewReader([]byte(sealed)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf); err != nil || sf.Scheme != flankSealScheme {
		return nil, refuse("F.1", "bad_sealed_orders", "the sealed orders matching commitment %.12s… cannot be read as %s", commitment, flankSealScheme)
	}
	return &sf.Orders, nil
}

// flankSeal is embedded in the commands that need a flank march's sealed
// orders. Its fields are never read from JSON: only the service sets them,
// from its vault (FlankReveals says which).
type flankSeal struct {
	// FlankCommitment commits to the orders of a march being declared.
	FlankCommitment string `json:"-"`
	// FlankReveals maps a march's commitment to its sealed text.
	FlankReveals map[string]string `json:"-"`
}

func (f *flankSeal) flank() *flankSeal { return f }

type flankSealable interface{ flank() *flankSeal }

// WithFlankCommitment returns cmd (a flank.declare) carrying the commitment
// to its sealed orders, and without the orders themselves, which must never
// reach the rules or the log in the open.
func WithFlankCommitment(cmd Command, commitment string) Command {
	if c, ok := cmd.(*DeclareFlankMarch); ok {
		c.FlankCommitment = strings.ToLower(commitment)
		c.Orders = nil
	}
	return cmd
}

// WithFlankReveal returns cmd carrying the sealed text of the march
// committed to by commitment. Commands that reveal nothing are unchanged.
func WithFlankReveal(cmd Command, commitment, sealed string) Command {
	if c, ok := cmd.(flankSealable); ok {
		f := c.flank()
		if f.FlankReveals == nil {
			f.FlankReveals = map[string]string{}
		}
		f.FlankReveals[strings.ToLower(commitment)] = sealed
	}
	return cmd
}

// FlankOrdersToSeal returns the orders a flank.declare carries in the open,
// with the command's side and edge filled in, for the service to seal; nil
// for any other command or once sealed.
func FlankOrdersToSeal(cmd Command) *FlankOrders {
	c, ok := cmd.(*DeclareFlankMarch)
	if !ok || c.Orders == nil {
		return nil
	}
	o := *c.Orders
	o.Side, o.Edge = c.Side, geom.Edge(c.Edge)
	return &o
}

// FlankReveals lists the commitments of the marches whose sealed orders
// cmd needs if accepted in s: the march entering (flank.enter), both
// marches of a mutual flank fight (flank.declare, F.10), every march not
// yet revealed when the battle ends. The service looks each up in its vault
// and stamps it with WithFlankReveal.
func FlankReveals(s *State, cmd Command) []string {
	if s == nil || s.Ruleset == nil || s.Status != StatusInProgress {
		return nil
	}
	var out []string
	switch c := cmd.(type) {
	case *DeclareFlankMarch:
		if c.FlankCommitment == "" {
			return nil
		}
		for _, m := range s.Flank.Marches {
			if m.Side != c.Side && string(m.Edge) == c.Edge && m.fightable() {
				out = append(out, m.Commitment)
			}
		}
		if len(out) > 0 {
			out = append(out, c.FlankCommitment)
		}
	case *EnterFlank:
		if m := s.march(c.March); m != nil && m.RevealedAt == "" {
			out = append(out, m.Commitment)
		}
	case *EndPhase, *EndBattle:
		if !s.endsBattle(cmd) {
			return nil
		}
		for _, m := range s.Flank.Marches {
			if m.RevealedAt == "" {
				out = append(out, m.Commitment)
			}
		}
	}
	return out
}

// endsBattle reports whether cmd, accepted in s, ends the battle (T.5).
func (s *State) endsBattle(cmd Command) bool {
	switch c := cmd.(type) {
	case *EndBattle:
		return s.Status == StatusInProgress
	case *EndPhase:
		return s.Status == StatusInProgress && c.Side == s.Phasing && s.endsTurn() && s.TurnLimit > 0 && s.Turn >= s.TurnLimit
	}
	return false
}

// FlankBook is every flank march of the battle, in declaration order.
type FlankBook struct {
	Marches []FlankMarch `json:"marches,omitempty"`
}

// FlankMarch is one declared flank march as the state knows it. Before
// its orders are revealed it holds only what everyone may see: side, edge,
// commitment, the roll and what it means.
type FlankMarch struct {
	// N numbers the battle's marches from 1.
	N            int       `json:"n"`
	Side         string    `json:"side"`
	Edge         geom.Edge `json:"edge"`
	Commitment   string    `json:"commitment"`
	DeclaredTurn int       `json:"declared_turn"`
	Roll         int       `json:"roll"`
	// Entry is ordered, opponent_choice or lost (F.2, F.10).
	Entry string `json:"entry_kind"`
	// ArrivalTurn is the first turn in whose movement phase it may enter.
	ArrivalTurn        int  `json:"arrival_turn,omitempty"`
	ArtilleryExtraMove bool `json:"artillery_extra_move,omitempty"`
	// Fight is the F.10 result that changed the march, if any.
	Fight string `json:"fight,omitempty"`
	// ChosenEntry is the opponent's choice of entry point (F.4).
	ChosenEntry *geom.Vec `json:"chosen_entry,omitempty"`
	// RevealedAt is "", arrival or battle_end.
	RevealedAt string `json:"revealed_at,omitempty"`
	// Orders are the revealed orders (or, in a view for the march's own
	// side or the umpire, the sealed ones: State.WithSealedOrders).
	Orders *FlankOrders `json:"orders,omitempty"`
	// Waiting lists, in entry order, the revealed units not on the table:
	// not yet entered, or rallied off the table (F.7).
	Waiting []string `json:"waiting,omitempty"`
	// Entered lists the units that entered, in order.
	Entered []string `json:"entered,omitempty"`
}

func (m *FlankMarch) lost() bool { return m.Entry == EntryLost }

// complete: every unit of the march is on the table.
func (m *FlankMarch) complete() bool { return m.RevealedAt == RevealArrival && len(m.Waiting) == 0 }

// excludes: the F.8 exclusion of its edge holds (choice: from the
// declaration until the march is lost or wholly on the table).
func (m *FlankMarch) excludes() bool {
	return !m.lost() && !m.complete() && m.RevealedAt != RevealBattleEnd
}

// fightable: a march that may still meet an enemy march on its edge (F.10):
// not lost, and no unit of it has entered yet.
func (m *FlankMarch) fightable() bool {
	return !m.lost() && m.RevealedAt == "" && m.Commitment != ""
}

func (b FlankBook) clone() FlankBook {
	if b.Marches == nil {
		return b
	}
	c := FlankBook{Marches: make([]FlankMarch, len(b.Marches))}
	for i, m := range b.Marches {
		m.Waiting = slices.Clone(m.Waiting)
		m.Entered = slices.Clone(m.Entered)
		if m.ChosenEntry != nil {
			p := *m.ChosenEntry
			m.ChosenEntry = &p
		}
		c.Marches[i] = m // Orders are never mutated: shared
	}
	return c
}

func (s *State) march(n int) *FlankMarch {
	for i := range s.Flank.Marches {
		if s.Flank.Marches[i].N == n {
			return &s.Flank.Marches[i]
		}
	}
	return nil
}

// flankMarchOf returns the march a unit belongs to, or nil.
func (s *State) flankMarchOf(unit string) *FlankMarch {
	for i := range s.Flank.Marches {
		m := &s.Flank.Marches[i]
		if m.RevealedAt == RevealArrival && m.Orders != nil {
			for _, u := range m.Orders.units() {
				if u.ID == unit {
					return m
				}
			}
		}
	}
	return nil
}

// ViewFor returns a copy of s as viewer may see it (PRODUCT.md principle
// 6): the umpire sees everything; a side sees its own flank marches' orders
// but of the others only what the log says openly (edge, commitment, roll)
// until they are revealed. Use it on any state that may carry sealed orders
// (WithSealedOrders) before showing it.
func (s *State) ViewFor(side string, umpire bool) *State {
	v := s.Clone()
	if v == nil || umpire {
		return v
	}
	for i := range v.Flank.Marches {
		m := &v.Flank.Marches[i]
		if m.Side != side && m.RevealedAt == "" {
			m.Orders = nil
		}
	}
	return v
}

// WithSealedOrders returns a copy of s in which unrevealed marches carry
// their sealed orders (commitment -> sealed text, as the vault holds them),
// for the view of their own side or the umpire; texts that do not match a
// commitment are ignored. Filter it with ViewFor.
func (s *State) WithSealedOrders(sealed map[string]string) *State {
	v := s.Clone()
	if v == nil {
		return v
	}
	for i := range v.Flank.Marches {
		m := &v.Flank.Marches[i]
		if txt, ok := sealed[m.Commitment]; ok && m.RevealedAt == "" {
			if o, r := openSealed(txt, m.Commitment); r == nil {
				m.Orders = o
			}
		}
	}
	return v
}

// DeclareFlankMarch (flank.declare) declares a flank march on a table edge
// (F.1), in the command phase of the side's own turn; the arrival roll is
// made at once (F.2). Orders are given to the service, which seals them
// and removes them before the rules decide: the rules refuse a declaration
// that still carries them, so they never reach the log in the open.
type DeclareFlankMarch struct {
	Side   string       `json:"side"`
	Edge   string       `json:"edge"`
	Orders *FlankOrders `json:"orders,omitempty"`
	flankSeal
}

// CommandName implements Command.
func (*DeclareFlankMarch) CommandName() string { return CmdFlankDeclare }

// ChooseFlankEntry (flank.choose_entry) is the opponent's choice of where a
// march that arrives "at the opponent's choice" (F.2 roll 5) enters: a
// point of its edge, not in difficult terrain (F.4).
type ChooseFlankEntry struct {
	Side  string   `json:"side"`
	March int      `json:"march"`
	Entry geom.Vec `json:"entry"`
}

// CommandName implements Command.
func (*ChooseFlankEntry) CommandName() string { return CmdFlankChooseEntry }

// EnterFlank (flank.enter) brings one unit of a flank march onto the table
// in a movement phase from its arrival turn on (F.2, F.5): the unit stands
// at the entry point, its rear edge on the table edge and facing into the
// table, then moves to To (nil: it stays there) through Path, turning as
// unit.move does, at full speed: its M.3 normal move, paying for turns and
// difficult terrain as any move (twice that for artillery arriving at once,
// F.3); the move obeys K.1-K.3, M.7 and F.8 like any movement-phase move.
// The first entry reveals the march's orders, supplied by the service.
type EnterFlank struct {
	Side   string     `json:"side"`
	March  int        `json:"march"`
	Unit   string     `json:"unit"`
	To     *geom.Vec  `json:"to,omitempty"`
	Facing *float64   `json:"facing,omitempty"`
	Path   []Waypoint `json:"path,omitempty"`
	flankSeal
}

// CommandName implements Command.
func (*EnterFlank) CommandName() string { return CmdFlankEnter }

// RallyFlankMarcher (flank.rally) rallies off the table a flank marcher
// that retreated or routed off it (F.7), by the usual procedure, whose
// outcome is entered as combat.record enters a rally on the table: the unit
// then waits to enter again at its march's entry point (flank.enter).
type RallyFlankMarcher struct {
	Unit string `json:"unit"`
	Note string `json:"note,omitempty"`
}

// CommandName implements Command.
func (*RallyFlankMarcher) CommandName() string { return CmdFlankRally }

// FlankRallied is flank.rallied (F.7).
type FlankRallied struct {
	Turn  int    `json:"turn"`
	March int    `json:"march"`
	Unit  string `json:"unit"`
	Note  string `json:"note,omitempty"`
}

// EventType implements Event.
func (*FlankRallied) EventType() string { return EvFlankRallied }

// Audience implements Event.
func (*FlankRallied) Audience() string { return AudienceAll }

func decideFlankRally(s *State, c *RallyFlankMarcher) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	u := s.Units[c.Unit]
	if u == nil {
		return nil, refuse(RuleInput, "unknown_unit", "no unit %q in this battle", c.Unit)
	}
	m := s.flankMarchOf(u.ID)
	if m == nil {
		return nil, refuse("F.7", "not_flank_marcher", "unit %s is not a flank marcher: only flank marchers rally off the table", u.ID)
	}
	if u.Status != UnitOffTable || slices.Contains(m.Waiting, u.ID) {
		return nil, refuse("F.7", "not_gone_off_table", "unit %s has not retreated or routed off the table (it is %s)", u.ID, u.Status)
	}
	return []Event{&FlankRallied{Turn: s.Turn, March: m.N, Unit: u.ID, Note: c.Note}}, nil
}

// FlankDeclared is flank.declared: only what the opponent may know (F.1):
// the side, the edge, the commitment to the sealed orders, and the arrival
// roll with what it means (F.2).
type FlankDeclared struct {
	March       int       `json:"march"`
	Turn        int       `json:"turn"`
	Side        string    `json:"side"`
	Edge        geom.Edge `json:"edge"`
	Commitment  string    `json:"commitment"`
	RollCounter uint64    `json:"roll_counter"`
	Roll        int       `json:"roll"`
	Entry       string    `json:"entry_kind"`
	DelayTurns  int       `json:"delay_turns,omitempty"`
	ArrivalTurn int       `json:"arrival_turn,omitempty"`
	// ArtilleryExtraMove: artillery entering at once moves twice (F.3).
	ArtilleryExtraMove bool `json:"artillery_extra_move,omitempty"`
	// Exclusion is the F.8 distance enemies keep from the edge.
	Exclusion float64 `json:"exclusion"`
}

// EventType implements Event.
func (*FlankDeclared) EventType() string { return EvFlankDeclared }

// Audience implements Event.
func (*FlankDeclared) Audience() string { return AudienceAll }

// FlankChange is how an F.10 fight changed one march.
type FlankChange struct {
	March       int    `json:"march"`
	Side        string `json:"side"`
	Size        int    `json:"size"`
	Entry       string `json:"entry_kind"`
	ArrivalTurn int    `json:"arrival_turn,omitempty"`
}

// FlankFightResolved is flank.fight_resolved: two sides' flank marches met
// on one edge (F.10). Only the sizes are recorded (in the ruleset's
// measure); the orders they were counted from stay sealed until revealed,
// when anyone can recount them.
type FlankFightResolved struct {
	Turn    int           `json:"turn"`
	Edge    geom.Edge     `json:"edge"`
	Measure string        `json:"measure"`
	Winner  string        `json:"winner,omitempty"` // "" on equal sizes
	Loser   string        `json:"loser,omitempty"`
	Percent int           `json:"percent"` // by how much the winner outnumbers the loser
	Result  string        `json:"result"`
	Doc     string        `json:"doc,omitempty"`
	Marches []FlankChange `json:"marches"`
}

// EventType implements Event.
func (*FlankFightResolved) EventType() string { return EvFlankFightResolved }

// Audience implements Event.
func (*FlankFightResolved) Audience() string { return AudienceAll }

// FlankEntryChosen is flank.entry_chosen: the opponent's entry point (F.4).
type FlankEntryChosen struct {
	Turn  int      `json:"turn"`
	March int      `json:"march"`
	Side  string   `json:"side"` // the chooser
	Entry geom.Vec `json:"entry"`
}

// EventType implements Event.
func (*FlankEntryChosen) EventType() string { return EvFlankEntryChosen }

// Audience implements Event.
func (*FlankEntryChosen) Audience() string { return AudienceAll }

// FlankRevealed is flank.revealed: a march's sealed orders, as the exact
// text committed to, so anyone can check SHA-256(Sealed) = Commitment.
// Reason arrival: its units join the state off the table, to enter one by
// one; battle_end: it never arrived (lost or late) and takes no part (F.9).
type FlankRevealed struct {
	Turn       int         `json:"turn"`
	March      int         `json:"march"`
	Side       string      `json:"side"`
	Reason     string      `json:"reason"`
	Commitment string      `json:"commitment"`
	Sealed     string      `json:"sealed"`
	Orders     FlankOrders `json:"orders"`
	// Entry is where the march enters (arrival only): the ordered point or
	// the opponent's choice; its generals wait there.
	Entry *geom.Vec `json:"entry,omitempty"`
	// Bases are the units' bases as resolved from the ruleset, placed at
	// the entry point (arrival only).
	Bases map[string]geom.Base `json:"bases,omitempty"`
}

// EventType implements Event.
func (*FlankRevealed) EventType() string { return EvFlankRevealed }

// Audience implements Event.
func (*FlankRevealed) Audience() string { return AudienceAll }

// FlankUnitEntered is flank.unit_entered: a unit came on at the entry
// point (From) and moved to To (F.5; F.3 extra move for artillery).
type FlankUnitEntered struct {
	Turn      int        `json:"turn"`
	March     int        `json:"march"`
	Unit      string     `json:"unit"`
	Entry     geom.Vec   `json:"entry"`
	From      geom.Base  `json:"from"`
	To        geom.Base  `json:"to"`
	Path      []Waypoint `json:"path,omitempty"`
	Distance  float64    `json:"distance"`
	Allowance float64    `json:"allowance"`
	ExtraMove bool       `json:"extra_move,omitempty"`
}

// EventType implements Event.
func (*FlankUnitEntered) EventType() string { return EvFlankUnitEntered }

// Audience implements Event.
func (*FlankUnitEntered) Audience() string { return AudienceAll }

// CheckFlankOrders judges sealed orders before they are sealed (the
// service asks, so a march that could never enter is refused at its
// declaration) and again when they are revealed: the side's own brigades,
// new ids, known unit types and formations, ratings in range, the entry
// point on the edge.
func CheckFlankOrders(s *State, o *FlankOrders) *Refusal {
	if s == nil || s.Ruleset == nil {
		return refuse(RuleBattle, "no_battle", "no battle has been created yet")
	}
	rs := s.Ruleset
	if s.side(o.Side) == nil {
		return refuse(RuleInput, "unknown_side", "no side %q in this battle", o.Side)
	}
	if _, err := geom.ParseEdge(string(o.Edge)); err != nil {
		return refuse(RuleInput, "bad_edge", "%v", err)
	}
	if !o.Entry.IsFinite() || !s.Table.ContainsPoint(o.Entry) || math.Abs(s.Table.PointDistanceToEdge(o.Entry, o.Edge)) > geom.Eps {
		return refuse("F.1", "entry_not_on_edge", "entry point %s is not on the %s edge of the %gx%g table", o.Entry, o.Edge, s.Table.Width, s.Table.Depth).
			with("x", o.Entry.X, "y", o.Entry.Y)
	}
	if len(o.Brigades) == 0 {
		return refuse("F.1", "no_brigades", "a flank march needs at least one brigade")
	}
	ids := s.idsInUse()
	for _, m := range s.Flank.Marches {
		if m.Orders != nil && m.RevealedAt != "" {
			for _, b := range m.Orders.Brigades {
				ids[b.ID], ids[b.General.ID] = "brigade", "general"
				for _, u := range b.Units {
					ids[u.ID] = "unit"
				}
			}
		}
	}
	claim := func(id, what string) *Refusal {
		if !validName(id) {
			return refuse(RuleInput, "bad_id", "%s id %q: want 1-64 characters without spaces", what, id)
		}
		if prev, ok := ids[id]; ok {
			return refuse(RuleInput, "duplicate_id", "id %q is already used by a %s", id, prev)
		}
		ids[id] = what
		return nil
	}
	for _, b := range o.Brigades {
		if r := claim(b.ID, "brigade"); r != nil {
			return r
		}
		if !slices.Contains(brigadeOrders, b.Order) {
			return refuse("T.6", "bad_brigade_order", "brigade %s: order %q is not one of %s", b.ID, b.Order, strings.Join(brigadeOrders, ", "))
		}
		if r := claim(b.General.ID, "general"); r != nil {
			return r
		}
		if g := b.General.Rating; g < rs.Command.RatingMin || g > rs.Command.RatingMax {
			return refuse("C.3", "bad_rating", "general %s command rating %d: the ruleset allows %d to %d", b.General.ID, g, rs.Command.RatingMin, rs.Command.RatingMax)
		}
		if len(b.Units) == 0 {
			return refuse(RuleInput, "empty_brigade", "brigade %s has no units", b.ID)
		}
		for _, u := range b.Units {
			if r := claim(u.ID, "unit"); r != nil {
				return r
			}
			t, ok := rs.UnitTypes[u.Type]
			if !ok {
				return refuse(RuleInput, "unknown_unit_type", "unit %s: type %q is not in the ruleset", u.ID, u.Type)
			}
			if f := firstNonEmpty(u.Formation, t.DefaultFormation); !t.HasFormation(f) {
				return refuse(RuleInput, "unknown_formation", "unit %s: %s may not stand in %q", u.ID, u.Type, f)
			}
			if u.Markers < 0 || u.Width < 0 || u.Depth < 0 || !finite(u.Width) || !finite(u.Depth) {
				return refuse(RuleInput, "bad_unit", "unit %s: negative markers or base size", u.ID)
			}
		}
	}
	return nil
}

// inward is the facing, in degrees, of a unit entering from edge e.
func inward(e geom.Edge) float64 {
	switch e {
	case geom.EdgeNorth:
		return 180
	case geom.EdgeEast:
		return geom.NormDeg(-90)
	case geom.EdgeWest:
		return geom.NormDeg(90)
	}
	return 0
}

// entryBase is unit u's base standing at entry point p: rear edge on the
// table edge, centred on p, facing into the table.
func entryBase(b geom.Base, e geom.Edge, p geom.Vec) geom.Base {
	b.Facing = inward(e)
	b.Center = p.Add(geom.Heading(b.Facing).Scale(b.Depth / 2))
	return b
}

// entryPoint is where march m enters: its ordered point, or the
// opponent's choice (F.2, F.4).
func (m *FlankMarch) entryPoint() (geom.Vec, bool) {
	if m.Entry == EntryOpponentChoice {
		if m.ChosenEntry == nil {
			return geom.Vec{}, false
		}
		return *m.ChosenEntry, true
	}
	if m.Orders == nil {
		return geom.Vec{}, false
	}
	return m.Orders.Entry, true
}

// arrivalEntry returns the F.2 table row for a roll.
func (r FlankMarchRules) arrivalEntry(roll int) (ArrivalEntry, bool) {
	for _, e := range r.Arrival.Entries {
		if e.Roll == roll {
			return e, true
		}
	}
	return ArrivalEntry{}, false
}

func decideFlankDeclare(s *State, c *DeclareFlankMarch, dice Dice) ([]Event, *Refusal, error) {
	rs := s.Ruleset
	if r := s.inProgress(); r != nil {
		return nil, r, nil
	}
	if s.side(c.Side) == nil {
		return nil, refuse(RuleInput, "unknown_side", "no side %q in this battle", c.Side), nil
	}
	edge, err := geom.ParseEdge(c.Edge)
	if err != nil {
		return nil, refuse(RuleInput, "bad_edge", "%v", err), nil
	}
	if c.Side != s.Phasing || s.Phase != PhaseCommand {
		return nil, refuse("F.1", "not_own_command_phase", "a flank march is declared in the command phase of the side's own turn; it is turn %d, the %s phase of %s", s.Turn, s.Phase, s.Phasing).with("turn", s.Turn), nil
	}
	if c.Orders != nil {
		return nil, refuse("F.1", "orders_in_open", "the flank march's orders must be sealed by the service, never given to the rules (or the log) in the open"), nil
	}
	cm := strings.ToLower(c.FlankCommitment)
	if len(cm) != sha256.Size*2 || strings.Trim(cm, "0123456789abcdef") != "" {
		return nil, refuse("F.1", "no_commitment", "a flank march needs the commitment (hex SHA-256) to its sealed orders; the service supplies it"), nil
	}
	for _, m := range s.Flank.Marches {
		if m.Commitment == cm {
			return nil, refuse("F.1", "commitment_reused", "flank march %d already has commitment %.12s…", m.N, cm), nil
		}
		if m.Side == c.Side && m.Edge == edge && m.excludes() {
			return nil, refuse("F.1", "already_declared", "side %s already has flank march %d on the %s edge", c.Side, m.N, edge).with("march", m.N), nil
		}
	}
	fm := rs.FlankMarch
	counter := s.RollCounter + 1
	purpose := fmt.Sprintf("flank:%s:%s", c.Side, edge)
	got, err := roll(dice, RollRequest{Counter: counter, Purpose: purpose, Count: fm.Arrival.Dice.Count, Sides: fm.Arrival.Dice.Sides})
	if err != nil {
		return nil, nil, err
	}
	rolled := newDiceRolled(s, counter, purpose, fm.Arrival.Dice, got, CmdFlankDeclare)
	total := sum(got.Values)
	row, _ := fm.arrivalEntry(total) // Validate: every total has a row
	ev := &FlankDeclared{March: len(s.Flank.Marches) + 1, Turn: s.Turn, Side: c.Side, Edge: edge, Commitment: cm,
		RollCounter: counter, Roll: total, Entry: row.Entry, Exclusion: fm.EdgeExclusion.For(s.Measurement)}
	if row.Entry != EntryLost {
		ev.DelayTurns, ev.ArrivalTurn, ev.ArtilleryExtraMove = row.DelayTurns, s.Turn+row.DelayTurns, row.ArtilleryExtraMove
	}
	evs := []Event{rolled, ev}
	if row.Entry == EntryLost {
		return evs, nil, nil
	}
	// F.10: an enemy march on the same edge that has not entered yet.
	for i := range s.Flank.Marches {
		other := &s.Flank.Marches[i]
		if other.Side == c.Side || other.Edge != edge || !other.fightable() {
			continue
		}
		fight, r := s.flankFight(c, ev, other)
		if r != nil {
			return nil, r, nil
		}
		return append(evs, fight), nil, nil
	}
	return evs, nil, nil
}

// revealed returns the orders of the march with commitment cm supplied on
// a command, checked against the commitment.
func revealed(f *flankSeal, cm string) (*FlankOrders, string, *Refusal) {
	txt, ok := f.FlankReveals[cm]
	if !ok {
		return nil, "", refuse("F.1", "no_reveal", "the sealed orders of the flank march committed to %.12s… were not supplied for the reveal", cm)
	}
	o, r := openSealed(txt, cm)
	return o, txt, r
}

// forceSize measures a flank march's force for F.10.
func (s *State) forceSize(o *FlankOrders) int {
	n := 0
	for _, u := range o.units() {
		if s.Ruleset.FlankMarch.MutualMeasure == MeasureVictoryPoints {
			n += s.Ruleset.UnitTypes[u.Type].VictoryPoints
		} else {
			n++
		}
	}
	return n
}

// flankFight resolves F.10 between the march being declared (ev) and other.
func (s *State) flankFight(c *DeclareFlankMarch, ev *FlankDeclared, other *FlankMarch) (*FlankFightResolved, *Refusal) {
	fm := s.Ruleset.FlankMarch
	mine, _, r := revealed(&c.flankSeal, ev.Commitment)
	if r != nil {
		return nil, r
	}
	theirs, _, r := revealed(&c.flankSeal, other.Commitment)
	if r != nil {
		return nil, r
	}
	if mine.Side != ev.Side || mine.Edge != ev.Edge || theirs.Side != other.Side || theirs.Edge != other.Edge {
		return nil, refuse("F.1", "reveal_mismatch", "sealed orders name another side or edge than their flank march")
	}
	a := FlankChange{March: ev.March, Side: ev.Side, Size: s.forceSize(mine), Entry: ev.Entry, ArrivalTurn: ev.ArrivalTurn}
	b := FlankChange{March: other.N, Side: other.Side, Size: s.forceSize(theirs), Entry: other.Entry, ArrivalTurn: other.ArrivalTurn}
	win, lose := &a, &b
	if b.Size > a.Size {
		win, lose = &b, &a
	}
	pct := math.MaxInt32
	if lose.Size > 0 {
		pct = (win.Size - lose.Size) * 100 / lose.Size
	}
	measure := firstNonEmpty(fm.MutualMeasure, MeasureUnits)
	out := &FlankFightResolved{Turn: s.Turn, Edge: ev.Edge, Measure: measure, Percent: pct}
	if a.Size != b.Size {
		out.Winner, out.Loser = win.Side, lose.Side
	}
	band, ok := fm.mutualBand(pct)
	if !ok {
		return nil, refuse("F.10", "no_band", "the mutual flank march table has no row for %d%%", pct).with("percent", pct)
	}
	out.Result, out.Doc = band.Result, band.Doc
	opponentRow := ArrivalEntry{}
	for _, e := range fm.Arrival.Entries {
		if e.Entry == EntryOpponentChoice {
			opponentRow = e
			break
		}
	}
	declared := map[int]int{ev.March: ev.Turn, other.N: other.DeclaredTurn}
	switch {
	case band.Result == MutualBothDelayed:
		for _, m := range []*FlankChange{&a, &b} {
			m.ArrivalTurn++
			m.Entry = EntryOrdered
		}
	case out.Loser == "":
		// Equal sizes: no loser for the result to fall on.
	case band.Result == MutualLoserDelayed:
		lose.ArrivalTurn++
	case band.Result == MutualLoserRetires:
		lose.Entry, lose.ArrivalTurn = EntryOpponentChoice, declared[lose.March]+opponentRow.DelayTurns
	case band.Result == MutualLoserLost:
		lose.Entry, lose.ArrivalTurn = EntryLost, 0
	}
	out.Marches = []FlankChange{b, a}
	return out, nil
}

// mutualBand finds the F.10 row for a percentage.
func (r FlankMarchRules) mutualBand(pct int) (MutualBand, bool) {
	for _, b := range r.Mutual {
		if pct >= b.MinPercent && (b.MaxPercent == nil || pct <= *b.MaxPercent) {
			return b, true
		}
	}
	return MutualBand{}, false
}

func decideFlankChooseEntry(s *State, c *ChooseFlankEntry) ([]Event, *Refusal) {
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	m := s.march(c.March)
	if m == nil {
		return nil, refuse(RuleInput, "unknown_march", "no flank march %d in this battle", c.March)
	}
	if s.side(c.Side) == nil || c.Side == m.Side {
		return nil, refuse("F.4", "not_opponent", "only the opponent of %s chooses where flank march %d enters; %q may not", m.Side, m.N, c.Side)
	}
	if m.Entry != EntryOpponentChoice {
		return nil, refuse("F.4", "not_opponent_choice", "flank march %d enters %s, not at the opponent's choice", m.N, m.Entry)
	}
	if m.ChosenEntry != nil {
		return nil, refuse("F.4", "already_chosen", "the entry point of flank march %d was already chosen: %s", m.N, *m.ChosenEntry)
	}
	p := c.Entry
	if !p.IsFinite() || !s.Table.ContainsPoint(p) || math.Abs(s.Table.PointDistanceToEdge(p, m.Edge)) > geom.Eps {
		return nil, refuse("F.4", "entry_not_on_edge", "entry point %s is not on the %s edge, the flank march's flank", p, m.Edge).with("x", p.X, "y", p.Y)
	}
	if r := s.flankEntryTerrainRefusal(p); r != nil {
		return nil, r
	}
	return []Event{&FlankEntryChosen{Turn: s.Turn, March: m.N, Side: c.Side, Entry: p}}, nil
}

// flankEntryTerrainRefusal refuses an entry point the opponent chose in
// difficult (or impassable) terrain (F.4).
func (s *State) flankEntryTerrainRefusal(p geom.Vec) *Refusal {
	for _, t := range s.Terrain {
		if t.Kind.Has(geom.Difficult|geom.Impassable) && t.Outline.Contains(p) {
			return refuse("F.4", "entry_in_difficult_terrain", "the opponent may not choose an entry point in difficult terrain: %s is in %q (%s)", p, t.Name, t.Kind).
				with("x", p.X, "y", p.Y)
		}
	}
	return nil
}

// revealEvent builds flank.revealed for march m from its supplied orders.
func (s *State) flankRevealEvent(f *flankSeal, m *FlankMarch, reason string) (*FlankRevealed, *Refusal) {
	o, txt, r := revealed(f, m.Commitment)
	if r != nil {
		return nil, r
	}
	if o.Side != m.Side || o.Edge != m.Edge {
		return nil, refuse("F.1", "reveal_mismatch", "the orders revealed for flank march %d name side %s, edge %s; it was declared by %s on the %s edge", m.N, o.Side, o.Edge, m.Side, m.Edge)
	}
	ev := &FlankRevealed{Turn: s.Turn, March: m.N, Side: m.Side, Reason: reason, Commitment: m.Commitment, Sealed: txt, Orders: *o}
	if reason != RevealArrival {
		return ev, nil
	}
	if r := CheckFlankOrders(s, o); r != nil {
		r.Message = fmt.Sprintf("flank march %d cannot enter: %s", m.N, r.Message)
		return nil, r
	}
	p := o.Entry
	if m.Entry == EntryOpponentChoice && m.ChosenEntry != nil {
		p = *m.ChosenEntry
	}
	ev.Entry = &p
	ev.Bases = map[string]geom.Base{}
	for _, u := range o.units() {
		t := s.Ruleset.UnitTypes[u.Type]
		size := t.BaseFor(firstNonEmpty(u.Formation, t.DefaultFormation))
		b := geom.Base{Width: size.Width.For(s.Measurement), Depth: size.Depth.For(s.Measurement)}
		if u.Width > 0 {
			b.Width = u.Width
		}
		if u.Depth > 0 {
			b.Depth = u.Depth
		}
		ev.Bases[u.ID] = entryBase(b, m.Edge, p)
	}
	return ev, nil
}

// entryPhase is the phase flank marchers enter in (F.5): the movement
// phase, or the command phase in a ruleset without one.
func (s *State) entryPhase() string {
	if slices.Contains(s.Ruleset.Turn.Phases, PhaseMovement) {
		return PhaseMovement
	}
	return PhaseCommand
}

func decideFlankEnter(s *State, c *EnterFlank) ([]Event, *Refusal) {
	rs, meas := s.Ruleset, s.Measurement
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	m := s.march(c.March)
	if m == nil {
		return nil, refuse(RuleInput, "unknown_march", "no flank march %d in this battle", c.March)
	}
	if c.Side != m.Side {
		return nil, refuse("F.1", "not_own_march", "flank march %d is %s's; %q may not bring it on", m.N, m.Side, c.Side)
	}
	if m.lost() {
		return nil, refuse("F.2", "march_lost", "flank march %d is lost (roll %d%s): its troops take no part in the battle (F.9)", m.N, m.Roll, fightNote(m)).with("roll", m.Roll)
	}
	if ph := s.entryPhase(); s.Phase != ph {
		return nil, refuse("F.5", "not_movement_phase", "flank marchers enter in the %s phase; it is the %s phase", ph, s.Phase)
	}
	if s.Phase == PhaseMovement {
		if r := s.checkMover(c.Side); r != nil {
			return nil, r
		}
	} else if c.Side != s.Phasing {
		return nil, refuse("T.2", "not_phasing", "turn %d is %s's turn", s.Turn, s.Phasing)
	}
	if s.Turn < m.ArrivalTurn {
		return nil, refuse("F.2", "not_arrived", "flank march %d (declared turn %d, roll %d%s) arrives in turn %d; it is turn %d", m.N, m.DeclaredTurn, m.Roll, fightNote(m), m.ArrivalTurn, s.Turn).
			with("arrival_turn", m.ArrivalTurn, "turn", s.Turn, "roll", m.Roll)
	}
	if m.Entry == EntryOpponentChoice && m.ChosenEntry == nil {
		return nil, refuse("F.4", "entry_not_chosen", "flank march %d enters at a point of the %s edge its opponent chooses (flank.choose_entry); none is chosen yet", m.N, m.Edge)
	}
	var evs []Event
	ns := s
	if m.RevealedAt == "" {
		rev, r := s.flankRevealEvent(&c.flankSeal, m, RevealArrival)
		if r != nil {
			return nil, r
		}
		evs = append(evs, rev)
		ns = s.Clone()
		Apply(ns, rev)
		m = ns.march(c.March)
	}
	if !slices.Contains(m.Waiting, c.Unit) {
		if slices.Contains(m.Entered, c.Unit) {
			return nil, refuse("F.5", "already_entered", "unit %s of flank march %d is already on the table", c.Unit, m.N)
		}
		return nil, refuse("F.1", "not_in_march", "unit %q is not in flank march %d", c.Unit, m.N)
	}
	if m.Entry == EntryOpponentChoice && m.Waiting[0] != c.Unit {
		return nil, refuse("F.4", "entry_order", "at the opponent's choice the troops enter in the order of their orders: %s comes before %s", m.Waiting[0], c.Unit)
	}
	u := ns.Units[c.Unit]
	if u == nil {
		return nil, refuse("F.1", "not_in_march", "unit %q is not in flank march %d", c.Unit, m.N)
	}
	p, _ := m.entryPoint()
	from := entryBase(u.Base, m.Edge, p)
	gap := rs.Contact.Gap.For(meas)
	for _, i := range geom.Overlapping(from, ns.Terrain, geom.Impassable) {
		return nil, refuse("F.5", "entry_impassable", "unit %s cannot stand at the entry point %s: impassable terrain %q", u.ID, p, ns.Terrain[i].Name)
	}
	for _, id := range ns.sortedUnitIDs() {
		o := ns.Units[id]
		if id == u.ID || !o.active() {
			continue
		}
		d := geom.Distance(from, o.Base)
		if d <= geom.ContactTolerance || (o.Side != u.Side && d < gap-geom.Eps) {
			return nil, refuse("F.5", "entry_occupied", "the entry point %s of flank march %d is occupied by %s (%s away): the troops wait until it is clear", p, m.N, o.ID, fmtLen(d, meas)).
				with("distance", d)
		}
	}
	// Full speed (F.5): the unit's M.3 normal move; artillery arriving at
	// once moves twice that (F.3).
	allowance := normalMove(ns, u)
	extra := m.ArtilleryExtraMove && s.Turn == m.DeclaredTurn && rs.UnitTypes[u.Type].Arm == "artillery"
	if extra {
		allowance *= 2
	}
	to := from.Center
	if c.To != nil {
		to = *c.To
	}
	facing := c.Facing
	if facing != nil && !finite(*facing) {
		return nil, refuse(RuleInput, "bad_facing", "facing is not a number")
	}
	mover := *u
	mover.Base, mover.Status = from, UnitOK
	p2, r := planPath(ns, from, c.Path, to, facing)
	if r != nil {
		return nil, r
	}
	if cost := p2.cost(); cost > allowance+geom.Eps {
		what := "full speed"
		if extra {
			what = "twice its full speed (F.3: artillery arriving at once)"
		}
		return nil, refuse("F.5", "move_too_far", "%s enters at %s, %s; this move is %s%s", u.Type, what, fmtLen(allowance, meas), fmtMeasured(cost, allowance, meas), costDetail(p2, meas)).
			with("distance", cost, "allowance", allowance)
	}
	if r := checkPlan(ns, &mover, p2, checkFor(ns)); r != nil {
		return nil, r
	}
	dist := p2.cost()
	ev := &FlankUnitEntered{Turn: s.Turn, March: m.N, Unit: u.ID, Entry: p, From: from, To: p2.end, Distance: round6(dist), Allowance: round6(allowance), ExtraMove: extra}
	if len(c.Path) > 0 {
		ev.Path = slices.Clone(c.Path)
	}
	return append(evs, ev), nil
}

func fightNote(m *FlankMarch) string {
	if m.Fight != "" {
		return ", then " + m.Fight + " (F.10)"
	}
	return ""
}

// pose is one place a moving base passes through on its way (F.8): it
// slides there in a straight leg from the pose before (Turn 0), or turns
// there on the spot by Turn degrees, clockwise positive, about Pivot.
// Where names it in messages ("waypoint 1", "the destination").
type pose struct {
	Base  geom.Base
	Pivot geom.Vec
	Turn  float64
	Where string
	Step  int // the waypoint's number, 0 for none
}

// planCourse is a planned move's course: each leg's end, then its turn.
func planCourse(p movePlan) []pose {
	var out []pose
	for i, st := range p.steps {
		n := i + 1
		if i == len(p.steps)-1 {
			n = 0
		}
		out = append(out, pose{Base: st.before, Where: "at " + p.where(i), Step: n})
		if st.turn != 0 {
			out = append(out, pose{Base: st.after, Pivot: st.before.Center, Turn: st.turn, Where: "turning at " + p.where(i), Step: n})
		}
	}
	return out
}

// edgeBreach is where a course first comes nearer a flank march's edge
// than F.8 allows.
type edgeBreach struct {
	march    *FlankMarch
	distance float64 // the least distance to the edge on the course
	limit    float64 // the exclusion
	at       pose
}

// flankBreach is the F.8 check of a course: from a flank march's
// declaration on, units (and generals) of the other sides may not come
// within flank_march.edge_exclusion of its edge, neither where a move ends
// nor anywhere along it, whether a move, a march, a charge or a general's
// move. A unit already that near may stay or draw back, not come nearer:
// the limit is the exclusion or its distance at the start, whichever is
// less. Straight legs come nearest at one of their ends; a turn on the spot
// is swept exactly (geom.Table.RotatingDistanceToEdge). Forced moves (K.9
// pushes, entered retreats and routs) are not checked: docs/flank-marches.md.
func (s *State) flankBreach(side string, from geom.Base, course []pose) *edgeBreach {
	if s == nil || s.Ruleset == nil {
		return nil
	}
	excl := s.Ruleset.FlankMarch.EdgeExclusion.For(s.Measurement)
	for i := range s.Flank.Marches {
		m := &s.Flank.Marches[i]
		if m.Side == side || !m.excludes() {
			continue
		}
		limit := math.Min(excl, s.Table.DistanceToEdge(from, m.Edge))
		prev := from
		for _, p := range course {
			d := s.Table.DistanceToEdge(p.Base, m.Edge)
			if p.Turn != 0 {
				d = s.Table.RotatingDistanceToEdge(prev, p.Pivot, p.Turn, m.Edge)
			}
			if d < limit-geom.Eps {
				return &edgeBreach{march: m, distance: d, limit: excl, at: p}
			}
			prev = p.Base
		}
	}
	return nil
}

// refusal words a breach for unit (or general) who.
func (b *edgeBreach) refusal(s *State, who string) *Refusal {
	m, meas := b.march, s.Measurement
	r := refuse("F.8", "flank_edge", "%s declared a flank march on the %s edge (march %d): %s would come %s from that edge %s; enemies keep %s away, anywhere along a move",
		m.Side, m.Edge, m.N, who, fmtMeasured(b.distance, b.limit, meas), b.at.Where, fmtLen(b.limit, meas)).
		with("distance", b.distance, "exclusion", b.limit, "march", m.N)
	if b.at.Step > 0 {
		r = r.with("waypoint", b.at.Step)
	}
	return r
}

// flankCourseRefusal is F.8 for unit u moving from its base along course.
func (s *State) flankCourseRefusal(u *Unit, course []pose) *Refusal {
	if b := s.flankBreach(u.Side, u.Base, course); b != nil {
		return b.refusal(s, "unit "+u.ID)
	}
	return nil
}

// fireRefusal is the F.6 check unit.fire makes (decideFire): a unit off
// the table (a flank marcher not yet entered, or one that left the table)
// may not fire.
func (s *State) fireRefusal(unit string) *Refusal {
	u := s.Units[unit]
	if u == nil {
		return refuse(RuleInput, "unknown_unit", "no unit %q in this battle", unit)
	}
	if u.Status == UnitOffTable {
		return refuse("F.6", "off_table", "unit %s is off the table and may not fire", unit)
	}
	return nil
}

// applyFlank folds the flank-march events into s.
func applyFlank(s *State, e Event) {
	switch ev := e.(type) {
	case *FlankDeclared:
		s.Flank.Marches = append(s.Flank.Marches, FlankMarch{N: ev.March, Side: ev.Side, Edge: ev.Edge, Commitment: ev.Commitment,
			DeclaredTurn: ev.Turn, Roll: ev.Roll, Entry: ev.Entry, ArrivalTurn: ev.ArrivalTurn, ArtilleryExtraMove: ev.ArtilleryExtraMove})
	case *FlankFightResolved:
		for _, c := range ev.Marches {
			if m := s.march(c.March); m != nil {
				m.Entry, m.ArrivalTurn, m.Fight = c.Entry, c.ArrivalTurn, ev.Result
			}
		}
	case *FlankEntryChosen:
		if m := s.march(ev.March); m != nil {
			p := ev.Entry
			m.ChosenEntry = &p
		}
	case *FlankRevealed:
		m := s.march(ev.March)
		if m == nil {
			return
		}
		o := ev.Orders
		m.Orders, m.RevealedAt = &o, ev.Reason
		if ev.Reason != RevealArrival {
			return
		}
		sd := s.side(ev.Side)
		at := o.Entry
		if ev.Entry != nil {
			at = *ev.Entry
		}
		for _, b := range o.Brigades {
			br := Brigade{ID: b.ID, Name: firstNonEmpty(b.Name, b.ID), Order: b.Order,
				General: General{ID: b.General.ID, Name: b.General.Name, Rating: b.General.Rating, Position: at}}
			for _, fu := range b.Units {
				br.Units = append(br.Units, fu.ID)
				m.Waiting = append(m.Waiting, fu.ID)
				formation := fu.Formation
				if t, ok := typeOf(s, fu.Type); ok && formation == "" {
					formation = t.DefaultFormation
				}
				s.Units[fu.ID] = &Unit{ID: fu.ID, Name: firstNonEmpty(fu.Name, fu.ID), Side: ev.Side, Brigade: b.ID, Type: fu.Type,
					Formation: formation, Base: ev.Bases[fu.ID], Markers: fu.Markers, Status: UnitOffTable}
			}
			if sd != nil {
				sd.Brigades = append(sd.Brigades, br)
			}
		}
	case *FlankRallied:
		if m := s.march(ev.March); m != nil && s.Units[ev.Unit] != nil && !slices.Contains(m.Waiting, ev.Unit) {
			m.Waiting = append(m.Waiting, ev.Unit)
			m.Entered = slices.DeleteFunc(m.Entered, func(id string) bool { return id == ev.Unit })
			s.Units[ev.Unit].Status = UnitOffTable
		}
	case *FlankUnitEntered:
		m := s.march(ev.March)
		u := s.Units[ev.Unit]
		if m == nil || u == nil {
			return
		}
		m.Waiting = slices.DeleteFunc(m.Waiting, func(id string) bool { return id == ev.Unit })
		if !slices.Contains(m.Entered, ev.Unit) {
			m.Entered = append(m.Entered, ev.Unit)
		}
		u.Base, u.Status = ev.To, UnitOK
		s.followUnit(ev.Unit)
	}
}

func typeOf(s *State, t string) (UnitType, bool) {
	if s.Ruleset == nil {
		return UnitType{}, false
	}
	u, ok := s.Ruleset.UnitTypes[t]
	return u, ok
}

// describeFlank says a flank-march event in words, never more than the
// event holds.
func describeFlank(e Event) string {
	switch ev := e.(type) {
	case *FlankDeclared:
		s := fmt.Sprintf("%s declared flank march %d on the %s edge (F.1; orders sealed, commitment %.12s…): roll %d, ", ev.Side, ev.March, ev.Edge, ev.Commitment, ev.Roll)
		switch ev.Entry {
		case EntryLost:
			return s + "lost: the troops take no part in the battle (F.2, F.9)"
		case EntryOpponentChoice:
			s += fmt.Sprintf("arrives in turn %d at a point of the %s edge the opponent chooses (F.2, F.4)", ev.ArrivalTurn, ev.Edge)
		default:
			s += fmt.Sprintf("arrives in turn %d at its ordered point (F.2)", ev.ArrivalTurn)
		}
		if ev.ArtilleryExtraMove {
			s += "; artillery gets an extra move (F.3)"
		}
		return s + fmt.Sprintf("; enemies keep %g from the %s edge (F.8)", ev.Exclusion, ev.Edge)
	case *FlankFightResolved:
		var parts []string
		for _, m := range ev.Marches {
			p := fmt.Sprintf("march %d of %s (%d %s): %s", m.March, m.Side, m.Size, ev.Measure, m.Entry)
			if m.Entry != EntryLost {
				p += fmt.Sprintf(", turn %d", m.ArrivalTurn)
			}
			parts = append(parts, p)
		}
		who := "equal forces"
		if ev.Winner != "" {
			who = fmt.Sprintf("%s outnumbers %s by %d%%", ev.Winner, ev.Loser, ev.Percent)
		}
		return fmt.Sprintf("flank marches met on the %s edge (F.10): %s: %s; %s", ev.Edge, who, ev.Result, strings.Join(parts, "; "))
	case *FlankEntryChosen:
		return fmt.Sprintf("%s chose where flank march %d enters: (%.1f,%.1f) (F.4)", ev.Side, ev.March, ev.Entry.X, ev.Entry.Y)
	case *FlankRevealed:
		n, ids := 0, []string{}
		for _, u := range ev.Orders.units() {
			n++
			ids = append(ids, u.ID)
		}
		why := "arrives"
		if ev.Reason == RevealBattleEnd {
			why = "never arrived; revealed as the battle ends"
		}
		return fmt.Sprintf("flank march %d of %s %s: orders match commitment %.12s…: %s, entry (%.1f,%.1f) on the %s edge", ev.March, ev.Side, why, ev.Commitment,
			plural(n, "unit", "units")+" "+strings.Join(ids, ", "), ev.Orders.Entry.X, ev.Orders.Entry.Y, ev.Orders.Edge)
	case *FlankRallied:
		return fmt.Sprintf("%s of flank march %d rallied off the table; it enters again with its march (F.7)", ev.Unit, ev.March)
	case *FlankUnitEntered:
		s := fmt.Sprintf("%s entered from flank march %d at (%.1f,%.1f) and moved %.1f of %.1f to (%.1f,%.1f) facing %.0f (F.5)",
			ev.Unit, ev.March, ev.Entry.X, ev.Entry.Y, ev.Distance, ev.Allowance, ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.ExtraMove {
			s += "; artillery arriving at once moves twice (F.3)"
		}
		return s
	}
	return ""
}
