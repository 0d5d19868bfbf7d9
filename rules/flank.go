package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// Flank marches (docs/rules.md F, seed 001; docs/flank-marches.md).
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

// ViewFor returns a copy of s as viewer may see it (docs/principles.md principle
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
