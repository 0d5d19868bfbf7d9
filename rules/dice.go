package rules

import (
	"errors"
	"fmt"
)

// Dice sources recorded on a roll (PRODUCT.md principle 4).
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
// digital source or physical dice, and who entered physical dice.
type Rolled struct {
	Values    []int  `json:"values"`
	Source    string `json:"source"`
	EnteredBy string `json:"entered_by,omitempty"`
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
func roll(dice Dice, req RollRequest) (Rolled, error) {
	if dice == nil {
		return Rolled{}, fmt.Errorf("roll %d (%s): %w", req.Counter, req.Purpose, ErrNoDice)
	}
	r, err := dice.Roll(req)
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
	r.Values = append([]int(nil), r.Values...)
	return r, nil
}
