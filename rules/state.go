package rules

import (
	"maps"
	"slices"

	"github.com/clubledger/ledger/rules/geom"
)

// Battle status values.
const (
	StatusNew        = ""            // before battle.created
	StatusSetup      = "setup"       // created, armies being deployed
	StatusDeployed   = "deployed"    // every side deployed, not started
	StatusInProgress = "in_progress" // started
	StatusEnded      = "ended"
)

// Brigade orders (T.6).
const (
	OrderAttack  = "attack"
	OrderSupport = "support"
	OrderMove    = "move"
	OrderDefend  = "defend"
	OrderReserve = "reserve"
)

var brigadeOrders = []string{OrderAttack, OrderSupport, OrderMove, OrderDefend, OrderReserve}

// Unit status values (T.4).
const (
	UnitOK         = "ok"
	UnitDisordered = "disordered"
	UnitRetreating = "retreating"
	UnitRouted     = "routed"
	UnitDestroyed  = "destroyed"
	UnitOffTable   = "off_table"
)

var unitStatuses = []string{UnitOK, UnitDisordered, UnitRetreating, UnitRouted, UnitDestroyed, UnitOffTable}

// State is one battle as the rules see it: built only by Apply from a
// battle's events, starting at NewState. Every field is exported and
// JSON-serialisable; maps encode with sorted keys.
type State struct {
	Battle      string     `json:"battle"`
	Campaign    string     `json:"campaign,omitempty"`
	Name        string     `json:"name,omitempty"`
	Status      string     `json:"status"`
	Measurement string     `json:"measurement,omitempty"` // "in" or "cm"
	Table       geom.Table `json:"table"`
	Ruleset     *Ruleset   `json:"ruleset,omitempty"` // in force, as recorded in battle.created; never mutated
	Sides       []Side     `json:"sides,omitempty"`   // in battle.create order
	FirstSide   string     `json:"first_side,omitempty"`
	TurnLimit   int        `json:"turn_limit,omitempty"` // 0: none (T.1)
	// Terrain is the battle's terrain pieces, as recorded in battle.created;
	// never mutated.
	Terrain []geom.Terrain `json:"terrain,omitempty"`
	// Units by id.
	Units map[string]*Unit `json:"units,omitempty"`

	Turn    int    `json:"turn"`              // from 1 once started (T.1)
	Phasing string `json:"phasing,omitempty"` // side id whose turn it is
	Phase   string `json:"phase,omitempty"`   // current phase (T.2-T.4)
	// TurnBook is the bookkeeping of the current turn, reset at turn.started.
	TurnBook TurnBook `json:"turn_book"`
	// RollCounter is the counter of the last dice.rolled event (0: none yet).
	RollCounter uint64 `json:"roll_counter"`
	// Dice is the digital dice's seed periods and players' seeds.
	Dice      DiceBook `json:"dice"`
	EndReason string   `json:"end_reason,omitempty"`
	// Flank is the battle's flank marches (F, flank.go); Victory its
	// objectives and score (V, victory.go).
	Flank   FlankBook   `json:"flank,omitzero"`
	Victory VictoryBook `json:"victory,omitzero"`
	// Disputes is the battle's retraction requests and disputes (dispute.go).
	Disputes DisputeBook `json:"disputes,omitzero"`
}

// Side is one army of the battle.
type Side struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Nation   string     `json:"nation,omitempty"`
	Player   string     `json:"player,omitempty"`
	Deployed bool       `json:"deployed"`
	CInC     *Commander `json:"c_in_c,omitempty"`
	Brigades []Brigade  `json:"brigades,omitempty"`
}

// Commander is the commander-in-chief of a side (C.11, M.15).
type Commander struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Rating   int      `json:"rating"`
	Position geom.Vec `json:"position"`
	Gifted   bool     `json:"gifted,omitempty"`
	// AttachedTo is the unit he joined by "Follow me!" or "Steady!" (C.13,
	// C.14): he stands at its centre and moves with it.
	AttachedTo string `json:"attached_to,omitempty"`
}

// General commands one brigade.
type General struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Rating   int      `json:"rating"`
	Position geom.Vec `json:"position"`
	// AttachedTo is the unit he joined by "Follow me!" or "Steady!" (C.13,
	// C.14): he stands at its centre and moves with it.
	AttachedTo string `json:"attached_to,omitempty"`
}

// Brigade is a general and his units, under a brigade order (T.6).
type Brigade struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Order   string   `json:"order"`
	General General  `json:"general"`
	Units   []string `json:"units"` // unit ids in deployment order
}

// Unit is one unit on (or off) the table.
type Unit struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Side      string    `json:"side"`
	Brigade   string    `json:"brigade"`
	Type      string    `json:"type"`
	Formation string    `json:"formation"`
	Base      geom.Base `json:"base"`
	Markers   int       `json:"markers"` // casualty markers
	Status    string    `json:"status"`
	// DisorderedTurn and DisorderedPhase say when the unit became
	// disordered (M.8: it may re-form in the movement phase that follows).
	DisorderedTurn  int    `json:"disordered_turn,omitempty"`
	DisorderedPhase string `json:"disordered_phase,omitempty"`
}

// TurnBook is what the command phase remembers within one turn.
type TurnBook struct {
	// Units by id: orders and actions this turn.
	Units map[string]*UnitTurn `json:"units,omitempty"`
	// Generals by id (C-in-C included): who has given orders and who is done.
	Generals map[string]*GeneralTurn `json:"generals,omitempty"`
	// CurrentGeneral gave the last order (C.10: moving on closes him).
	CurrentGeneral string `json:"current_general,omitempty"`
	// OrdersClosed: the C-in-C failed, nobody gives orders (C.11).
	OrdersClosed bool `json:"orders_closed,omitempty"`
	// InitiativeClosed: a general's order was given this turn, so no more
	// initiative orders (C.1, C.15).
	InitiativeClosed bool `json:"initiative_closed,omitempty"`
	// Mover is the side moving in the movement phase once the phasing side
	// handed it over (M.1); empty: the phasing side.
	Mover string `json:"mover,omitempty"`
	// MovedSides lists the sides that have handed the movement phase on.
	MovedSides []string `json:"moved_sides,omitempty"`
	// Marches: brigades granted a tactical march this turn (M.11, M.15),
	// by "allowance" or "initiative".
	Marches map[string]string `json:"marches,omitempty"`
	// MarchTries: brigades whose brigadier tried the march initiative (M.15).
	MarchTries map[string]bool `json:"march_tries,omitempty"`
	// OrderTries: brigades whose brigadier tried an order change (M.15).
	OrderTries map[string]bool `json:"order_tries,omitempty"`
}

// UnitTurn is one unit's orders and actions this turn.
type UnitTurn struct {
	Orders         int  `json:"orders"`          // orders resolved for it
	ActionsGranted int  `json:"actions_granted"` // C.3 total
	ActionsLeft    int  `json:"actions_left"`
	MoveActions    int  `json:"move_actions"`           // move actions used (C.17 caps)
	Failed         bool `json:"failed,omitempty"`       // C.4
	Blundered      bool `json:"blundered,omitempty"`    // C.5
	FailedMoves    int  `json:"failed_moves,omitempty"` // C.12 moves left after a failure
	// Initiative: the unit acted on initiative (C.15); InitiativeAction is
	// the one action it declared (move, formation or charge).
	Initiative       bool   `json:"initiative,omitempty"`
	InitiativeAction string `json:"initiative_action,omitempty"`
	// InitiativeFormation is the formation an initiative formation change declared, if any.
	InitiativeFormation string `json:"initiative_formation,omitempty"`
	// Declined: the unit declined initiative and waits for its general (C.15).
	Declined bool `json:"declined,omitempty"`
	// MayCharge: an order this turn said "charge" (C.9), or "Follow me!" (C.13).
	MayCharge bool `json:"may_charge,omitempty"`
	// Reforms counts formation changes this turn (C.16).
	Reforms int `json:"reforms,omitempty"`
	// Charged is the target of the unit's charge this turn.
	Charged string `json:"charged,omitempty"`
	// Fired: the unit fired this turn (M.5, entered as unit.fired).
	Fired bool `json:"fired,omitempty"`
	// MovementUsed is the fraction of its M.3 normal move the unit has used
	// in this movement phase (moves and M.4 formation changes); nothing is
	// carried into the next turn (M.6).
	MovementUsed float64 `json:"movement_used,omitempty"`
	// NormalMoved: a normal move in the movement phase (M.14).
	NormalMoved bool `json:"normal_moved,omitempty"`
	// Marched is the tactical-march distance used this turn (M.12);
	// MarchEnded: it came within the stop distance of an enemy (M.13).
	Marched    float64 `json:"marched,omitempty"`
	MarchEnded bool    `json:"march_ended,omitempty"`
}

// GeneralTurn is one general's orders this turn.
type GeneralTurn struct {
	Orders int    `json:"orders"`
	Done   bool   `json:"done,omitempty"`
	Reason string `json:"reason,omitempty"` // rule that closed him: C.4, C.10, C.13, C.14
	// Moved is the distance he moved on his own this movement phase (M.2).
	Moved float64 `json:"moved,omitempty"`
}

// active reports whether a unit is on the table and can act or be measured
// to (T.4: a destroyed unit cannot move).
func (u *Unit) active() bool {
	return u != nil && u.Status != UnitDestroyed && u.Status != UnitOffTable
}

// NewState returns the empty state every battle starts from.
func NewState() *State {
	return &State{Units: map[string]*Unit{}}
}

// Clone returns a deep copy of s; the Ruleset, never mutated, is shared.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	c := *s
	c.Sides = make([]Side, len(s.Sides))
	for i, sd := range s.Sides {
		c.Sides[i] = sd
		if sd.CInC != nil {
			ci := *sd.CInC
			c.Sides[i].CInC = &ci
		}
		c.Sides[i].Brigades = make([]Brigade, len(sd.Brigades))
		for j, b := range sd.Brigades {
			b.Units = slices.Clone(b.Units)
			c.Sides[i].Brigades[j] = b
		}
		if sd.Brigades == nil {
			c.Sides[i].Brigades = nil
		}
	}
	if s.Sides == nil {
		c.Sides = nil
	}
	if s.Units != nil {
		c.Units = make(map[string]*Unit, len(s.Units))
		for k, u := range s.Units {
			if u != nil {
				uc := *u
				c.Units[k] = &uc
			} else {
				c.Units[k] = nil
			}
		}
	}
	c.Terrain = slices.Clone(s.Terrain)
	c.TurnBook = s.TurnBook.clone()
	c.Dice = s.Dice.clone()
	c.Flank, c.Victory = s.Flank.clone(), s.Victory.clone()
	c.Disputes = s.Disputes.clone()
	return &c
}

func (t TurnBook) clone() TurnBook {
	c := t
	c.MovedSides = slices.Clone(t.MovedSides)
	c.Marches = maps.Clone(t.Marches)
	c.MarchTries = maps.Clone(t.MarchTries)
	c.OrderTries = maps.Clone(t.OrderTries)
	if t.Units != nil {
		c.Units = make(map[string]*UnitTurn, len(t.Units))
		for k, u := range t.Units {
			if u != nil {
				uc := *u
				c.Units[k] = &uc
			} else {
				c.Units[k] = nil
			}
		}
	}
	if t.Generals != nil {
		c.Generals = make(map[string]*GeneralTurn, len(t.Generals))
		for k, g := range t.Generals {
			if g != nil {
				gc := *g
				c.Generals[k] = &gc
			} else {
				c.Generals[k] = nil
			}
		}
	}
	return c
}

// side returns the side with id, or nil.
func (s *State) side(id string) *Side {
	for i := range s.Sides {
		if s.Sides[i].ID == id {
			return &s.Sides[i]
		}
	}
	return nil
}

// commanderOf describes who holds a general's id: his side, his brigade (nil
// for the C-in-C), his rating and position.
type commanderRef struct {
	Side     *Side
	Brigade  *Brigade // nil: the C-in-C
	ID, Name string
	Rating   int
	Position geom.Vec
}

func (s *State) commander(id string) (commanderRef, bool) {
	for i := range s.Sides {
		sd := &s.Sides[i]
		if sd.CInC != nil && sd.CInC.ID == id {
			return commanderRef{Side: sd, ID: id, Name: sd.CInC.Name, Rating: sd.CInC.Rating, Position: sd.CInC.Position}, true
		}
		for j := range sd.Brigades {
			b := &sd.Brigades[j]
			if b.General.ID == id {
				return commanderRef{Side: sd, Brigade: b, ID: id, Name: b.General.Name, Rating: b.General.Rating, Position: b.General.Position}, true
			}
		}
	}
	return commanderRef{}, false
}

// sortedUnitIDs returns the ids of s.Units in order.
func (s *State) sortedUnitIDs() []string {
	return slices.Sorted(maps.Keys(s.Units))
}

func (t *TurnBook) unit(id string) *UnitTurn {
	if t.Units == nil {
		t.Units = map[string]*UnitTurn{}
	}
	u := t.Units[id]
	if u == nil {
		u = &UnitTurn{}
		t.Units[id] = u
	}
	return u
}

func (t *TurnBook) general(id string) *GeneralTurn {
	if t.Generals == nil {
		t.Generals = map[string]*GeneralTurn{}
	}
	g := t.Generals[id]
	if g == nil {
		g = &GeneralTurn{}
		t.Generals[id] = g
	}
	return g
}

// peekUnit returns the unit's turn record without creating one.
func (t TurnBook) peekUnit(id string) UnitTurn {
	if u := t.Units[id]; u != nil {
		return *u
	}
	return UnitTurn{}
}

func (t TurnBook) peekGeneral(id string) GeneralTurn {
	if g := t.Generals[id]; g != nil {
		return *g
	}
	return GeneralTurn{}
}

// followUnit moves every general attached to unit id to its centre: an
// attached general moves with his unit (C.13, C.14).
func (s *State) followUnit(id string) {
	u := s.Units[id]
	if u == nil {
		return
	}
	for i := range s.Sides {
		sd := &s.Sides[i]
		if sd.CInC != nil && sd.CInC.AttachedTo == id {
			sd.CInC.Position = u.Base.Center
		}
		for j := range sd.Brigades {
			if g := &sd.Brigades[j].General; g.AttachedTo == id {
				g.Position = u.Base.Center
			}
		}
	}
}

// attach joins general id to unit (C.13, C.14): he leaves any unit he was
// with and stands at the unit's centre.
func (s *State) attach(general, unit string) {
	u := s.Units[unit]
	if u == nil {
		return
	}
	for i := range s.Sides {
		sd := &s.Sides[i]
		if sd.CInC != nil && sd.CInC.ID == general {
			sd.CInC.AttachedTo, sd.CInC.Position = unit, u.Base.Center
		}
		for j := range sd.Brigades {
			if g := &sd.Brigades[j].General; g.ID == general {
				g.AttachedTo, g.Position = unit, u.Base.Center
			}
		}
	}
}

// detachFrom releases every general attached to unit id (it is destroyed
// or left the table): he stays where he stands.
func (s *State) detachFrom(id string) {
	for i := range s.Sides {
		sd := &s.Sides[i]
		if sd.CInC != nil && sd.CInC.AttachedTo == id {
			sd.CInC.AttachedTo = ""
		}
		for j := range sd.Brigades {
			if g := &sd.Brigades[j].General; g.AttachedTo == id {
				g.AttachedTo = ""
			}
		}
	}
}

// generalPtrs returns the mutable general (C-in-C or brigadier) with id:
// his attachment and position.
func (s *State) generalPtrs(id string) (attached *string, pos *geom.Vec) {
	for i := range s.Sides {
		sd := &s.Sides[i]
		if sd.CInC != nil && sd.CInC.ID == id {
			return &sd.CInC.AttachedTo, &sd.CInC.Position
		}
		for j := range sd.Brigades {
			if g := &sd.Brigades[j].General; g.ID == id {
				return &g.AttachedTo, &g.Position
			}
		}
	}
	return nil, nil
}

// brigade returns the brigade with id and its side, or nil.
func (s *State) brigade(id string) (*Brigade, *Side) {
	for i := range s.Sides {
		for j := range s.Sides[i].Brigades {
			if s.Sides[i].Brigades[j].ID == id {
				return &s.Sides[i].Brigades[j], &s.Sides[i]
			}
		}
	}
	return nil, nil
}
