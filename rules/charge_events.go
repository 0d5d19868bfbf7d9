package rules

import (
	"fmt"

	"github.com/clubledger/ledger/rules/geom"
)

// EvChargePushedBack is the event type of K.9's push: persisted, never
// renamed.
const EvChargePushedBack = "charge.pushed_back"

func init() {
	eventRegistry[EvChargePushedBack] = eventInfo{1, "An enemy unit a charger ended touching, other than its target, moved back the gap (1\") if the room behind it allowed, else as far as the room allowed (K.9).", func() Event { return &ChargePushedBack{} }}
}

// ChargePushedBack is charge.pushed_back: a charge (the charge.declared just
// before it) ended touching Unit, an enemy it did not charge, which moved
// From -> To, Distance in the battle's unit: the whole gap when Full, else
// as far back as the room behind it allowed (K.9).
type ChargePushedBack struct {
	Turn     int       `json:"turn"`
	Unit     string    `json:"unit"`
	Charger  string    `json:"charger"`
	Target   string    `json:"target"`
	From     geom.Base `json:"from"`
	To       geom.Base `json:"to"`
	Distance float64   `json:"distance"`
	Full     bool      `json:"full,omitempty"`
}

// EventType implements Event.
func (*ChargePushedBack) EventType() string { return EvChargePushedBack }

// Audience implements Event.
func (*ChargePushedBack) Audience() string { return AudienceAll }

// applyCharge applies the charge events of this file.
func applyCharge(s *State, e Event) {
	if ev, ok := e.(*ChargePushedBack); ok {
		if u := s.Units[ev.Unit]; u != nil {
			u.Base = ev.To
			s.followUnit(ev.Unit)
		}
	}
}

// describeCharge describes the charge events, or returns "".
func describeCharge(e Event) string {
	switch ev := e.(type) {
	case *ChargePushedBack:
		how := "as far as the room allows"
		if ev.Full {
			how = "the full gap"
		}
		return fmt.Sprintf("%s, touched by %s's charge on %s, moved back %.2f (%s, K.9): (%.1f,%.1f) -> (%.1f,%.1f)",
			ev.Unit, ev.Charger, ev.Target, ev.Distance, how, ev.From.Center.X, ev.From.Center.Y, ev.To.Center.X, ev.To.Center.Y)
	case *ChargeDeclared:
		if !ev.Contact || len(ev.Path) == 0 {
			return "" // pending, or recorded before the charge rules: describe.go
		}
		s := fmt.Sprintf("%s charged the %s of %s using %s (C.9, K.4-K.8): %.2f from its leader point (reach %.1f); path %.1f",
			ev.Unit, arcName(ev.Side), ev.Target, plural(ev.ActionsUsed, "action", "actions"), ev.Measured, ev.Reach, ev.Distance)
		if n := len(ev.Path); n > 2 {
			s += fmt.Sprintf(" bending %.0f° at (%.1f,%.1f)", geom.BendDeg(ev.Path[0], ev.Path[1], ev.Path[n-1]), ev.Path[1].X, ev.Path[1].Y)
		}
		if ev.TurnDegrees != 0 {
			where := "on the way"
			switch {
			case ev.TurnAt == 0:
				where = "at the start"
			case ev.TurnAt == len(ev.Path)-1:
				where = "on contact"
			}
			s += fmt.Sprintf(", turning %.0f° %s", ev.TurnDegrees, where)
		}
		s += fmt.Sprintf("; ends (%.1f,%.1f) facing %.0f", ev.To.Center.X, ev.To.Center.Y, ev.To.Facing)
		if ev.Slide != 0 {
			s += fmt.Sprintf(", slid %.2f from the middle", ev.Slide)
		}
		if len(ev.Crossed) > 0 {
			s += fmt.Sprintf("; crossed %v", ev.Crossed)
		}
		if len(ev.Pushed) > 0 {
			s += fmt.Sprintf("; pushed back %v", ev.Pushed)
		}
		return s
	}
	return ""
}
