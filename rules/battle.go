// The battle's life cycle and turn sequence (docs/rules.md T.1-T.7): its
// set-up (create, deploy, start), phases and turns, and its end. Decisions:
// battle_decide.go.

package rules

import (
	"fmt"

	"github.com/clubledger/ledger/rules/geom"
)

// Command names of the battle's life cycle (T.1, T.5).
const (
	CmdBattleCreate = "battle.create"
	CmdArmyDeploy   = "army.deploy"
	CmdBattleStart  = "battle.start"
	CmdPhaseEnd     = "phase.end"
	CmdBattleEnd    = "battle.end"
)

// Event type names of the battle's life cycle: persisted forever, never
// renamed or reused.
const (
	EvBattleCreated = "battle.created"
	EvArmyDeployed  = "army.deployed"
	EvBattleStarted = "battle.started"
	EvTurnStarted   = "turn.started"
	EvPhaseEnded    = "phase.ended"
	EvPhaseStarted  = "phase.started"
	EvBattleEnded   = "battle.ended"
)

// SideSpec names a side at battle.create.
type SideSpec struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Nation string `json:"nation,omitempty"`
	Player string `json:"player,omitempty"`
}

// CreateBattle (battle.create) opens a battle: measurement system, table,
// sides, who starts (T.1), the turn limit and an optional ruleset overlay
// (YAML text over the default ruleset).
type CreateBattle struct {
	Battle      string     `json:"battle"`
	Campaign    string     `json:"campaign,omitempty"`
	Name        string     `json:"name,omitempty"`
	Measurement string     `json:"measurement,omitempty"` // "in" or "cm"; the ruleset's default when empty
	Table       geom.Table `json:"table"`
	Sides       []SideSpec `json:"sides"`
	FirstSide   string     `json:"first_side"`
	TurnLimit   int        `json:"turn_limit,omitempty"`
	Ruleset     string     `json:"ruleset,omitempty"`
	// Terrain is the table's terrain pieces: name, kind (comma-separated
	// flags: impassable, difficult, road, blocks-sight) and outline.
	Terrain []geom.Terrain `json:"terrain,omitempty"`
	// Objectives are the scenario's objectives and their values (V.2).
	Objectives []Objective `json:"objectives,omitempty"`
}

// CommandName implements Command.
func (*CreateBattle) CommandName() string { return CmdBattleCreate }

// CommanderSpec is the C-in-C at deployment.
type CommanderSpec struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Rating   int      `json:"rating"`
	Position geom.Vec `json:"position"`
	Gifted   bool     `json:"gifted,omitempty"`
}

// GeneralSpec is a brigade's general at deployment.
type GeneralSpec struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Rating   int      `json:"rating"`
	Position geom.Vec `json:"position"`
}

// UnitSpec is a unit at deployment. Position is the centre of its base;
// Width and Depth default to the ruleset's base for its type and formation;
// Formation defaults to the type's default formation.
type UnitSpec struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Formation string   `json:"formation,omitempty"`
	Position  geom.Vec `json:"position"`
	Facing    float64  `json:"facing"`
	Width     float64  `json:"width,omitempty"`
	Depth     float64  `json:"depth,omitempty"`
	Markers   int      `json:"markers,omitempty"`
}

// BrigadeSpec is a brigade at deployment.
type BrigadeSpec struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Order   string      `json:"order"`
	General GeneralSpec `json:"general"`
	Units   []UnitSpec  `json:"units"`
}

// DeployArmy (army.deploy) places one side's C-in-C, brigades and units.
type DeployArmy struct {
	Side     string        `json:"side"`
	CInC     CommanderSpec `json:"c_in_c"`
	Brigades []BrigadeSpec `json:"brigades"`
}

// CommandName implements Command.
func (*DeployArmy) CommandName() string { return CmdArmyDeploy }

// StartBattle (battle.start) begins turn 1 once every side is deployed.
type StartBattle struct {
	sealing
}

// CommandName implements Command.
func (*StartBattle) CommandName() string { return CmdBattleStart }

// EndPhase (phase.end) closes the current phase; Side must be the phasing side.
type EndPhase struct {
	Side string `json:"side"`
	sealing
}

// CommandName implements Command.
func (*EndPhase) CommandName() string { return CmdPhaseEnd }

// EndBattle (battle.end) ends the battle by the umpire's or both players' word (T.5).
type EndBattle struct {
	Reason string `json:"reason"`
	sealing
}

// CommandName implements Command.
func (*EndBattle) CommandName() string { return CmdBattleEnd }

// BattleCreated is battle.created.
type BattleCreated struct {
	Battle      string     `json:"battle"`
	Campaign    string     `json:"campaign,omitempty"`
	Name        string     `json:"name,omitempty"`
	Measurement string     `json:"measurement"`
	Table       geom.Table `json:"table"`
	Sides       []SideSpec `json:"sides"`
	FirstSide   string     `json:"first_side"`
	TurnLimit   int        `json:"turn_limit,omitempty"`
	// Terrain is the table's terrain pieces.
	Terrain []geom.Terrain `json:"terrain,omitempty"`
	// Objectives are the scenario's objectives and their values (V.2).
	Objectives []Objective `json:"objectives,omitempty"`
	// Ruleset is the full resolved ruleset, default plus overlay: replay uses it.
	Ruleset *Ruleset `json:"ruleset"`
	// Overlay is the campaign's overlay text as given, for the record.
	Overlay string `json:"overlay,omitempty"`
}

// EventType implements Event.
func (*BattleCreated) EventType() string { return EvBattleCreated }

// Audience implements Event.
func (*BattleCreated) Audience() string { return AudienceAll }

// DeployedUnit is a unit as deployed: its base fully resolved.
type DeployedUnit struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Formation string    `json:"formation"`
	Base      geom.Base `json:"base"`
	Markers   int       `json:"markers,omitempty"`
}

// DeployedBrigade is a brigade as deployed.
type DeployedBrigade struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Order   string         `json:"order"`
	General General        `json:"general"`
	Units   []DeployedUnit `json:"units"`
}

// ArmyDeployed is army.deployed.
type ArmyDeployed struct {
	Side     string            `json:"side"`
	CInC     Commander         `json:"c_in_c"`
	Brigades []DeployedBrigade `json:"brigades"`
}

// EventType implements Event.
func (*ArmyDeployed) EventType() string { return EvArmyDeployed }

// Audience implements Event.
func (*ArmyDeployed) Audience() string { return AudienceAll }

// BattleStarted is battle.started.
type BattleStarted struct {
	FirstSide string `json:"first_side"`
}

// EventType implements Event.
func (*BattleStarted) EventType() string { return EvBattleStarted }

// Audience implements Event.
func (*BattleStarted) Audience() string { return AudienceAll }

// TurnStarted is turn.started.
type TurnStarted struct {
	Turn  int    `json:"turn"`
	Side  string `json:"side"`
	Phase string `json:"phase"`
}

// EventType implements Event.
func (*TurnStarted) EventType() string { return EvTurnStarted }

// Audience implements Event.
func (*TurnStarted) Audience() string { return AudienceAll }

// PhaseEnded is phase.ended.
type PhaseEnded struct {
	Turn  int    `json:"turn"`
	Side  string `json:"side"`
	Phase string `json:"phase"`
}

// EventType implements Event.
func (*PhaseEnded) EventType() string { return EvPhaseEnded }

// Audience implements Event.
func (*PhaseEnded) Audience() string { return AudienceAll }

// PhaseStarted is phase.started.
type PhaseStarted struct {
	Turn  int    `json:"turn"`
	Side  string `json:"side"`
	Phase string `json:"phase"`
}

// EventType implements Event.
func (*PhaseStarted) EventType() string { return EvPhaseStarted }

// Audience implements Event.
func (*PhaseStarted) Audience() string { return AudienceAll }

// BattleEnded is battle.ended.
type BattleEnded struct {
	Turn   int    `json:"turn"`
	Reason string `json:"reason"`
	// TurnLimit: ended by the scenario's turn limit (T.1, T.5).
	TurnLimit bool `json:"turn_limit,omitempty"`
}

// EventType implements Event.
func (*BattleEnded) EventType() string { return EvBattleEnded }

// Audience implements Event.
func (*BattleEnded) Audience() string { return AudienceAll }

// applyBattle folds the events of the battle's life cycle.
func applyBattle(s *State, e Event) {
	switch ev := e.(type) {
	case *BattleCreated:
		s.Battle, s.Campaign, s.Name = ev.Battle, ev.Campaign, ev.Name
		s.Measurement, s.Table = ev.Measurement, ev.Table
		s.Ruleset = ev.Ruleset
		s.Terrain = ev.Terrain
		s.Victory.Objectives = ev.Objectives
		s.FirstSide, s.TurnLimit = ev.FirstSide, ev.TurnLimit
		s.Sides = nil
		for _, sd := range ev.Sides {
			s.Sides = append(s.Sides, Side{ID: sd.ID, Name: sd.Name, Nation: sd.Nation, Player: sd.Player})
		}
		s.Status = StatusSetup
	case *ArmyDeployed:
		sd := s.side(ev.Side)
		if sd == nil {
			return
		}
		ci := ev.CInC
		sd.CInC = &ci
		sd.Brigades = nil
		for _, b := range ev.Brigades {
			br := Brigade{ID: b.ID, Name: b.Name, Order: b.Order, General: b.General}
			for _, u := range b.Units {
				br.Units = append(br.Units, u.ID)
				s.Units[u.ID] = &Unit{ID: u.ID, Name: u.Name, Side: ev.Side, Brigade: b.ID, Type: u.Type,
					Formation: u.Formation, Base: u.Base, Markers: u.Markers, Status: UnitOK}
			}
			sd.Brigades = append(sd.Brigades, br)
		}
		sd.Deployed = true
		all := len(s.Sides) > 0
		for _, x := range s.Sides {
			all = all && x.Deployed
		}
		if all && s.Status == StatusSetup {
			s.Status = StatusDeployed
		}
	case *BattleStarted:
		s.Status = StatusInProgress
		if ev.FirstSide != "" {
			s.FirstSide = ev.FirstSide
		}
	case *TurnStarted:
		s.Turn, s.Phasing, s.Phase = ev.Turn, ev.Side, ev.Phase
		s.TurnBook = TurnBook{}
	case *PhaseEnded:
		// The next event (phase.started, turn.started or battle.ended) says what follows.
	case *PhaseStarted:
		s.Phase = ev.Phase
	case *BattleEnded:
		s.Status = StatusEnded
		s.EndReason = ev.Reason
	}
}

// describeBattle says the events of the battle's life cycle in words.
func describeBattle(e Event) string {
	switch ev := e.(type) {
	case *BattleCreated:
		return fmt.Sprintf("battle %q created: %gx%g %s table, %d sides, %s first, turn limit %d, ruleset %s v%d",
			firstNonEmpty(ev.Name, ev.Battle), ev.Table.Width, ev.Table.Depth, ev.Measurement, len(ev.Sides), ev.FirstSide, ev.TurnLimit, ev.Ruleset.Name, ev.Ruleset.Version)
	case *ArmyDeployed:
		units := 0
		for _, b := range ev.Brigades {
			units += len(b.Units)
		}
		return fmt.Sprintf("%s deployed: C-in-C %s (rating %d), %s, %s", ev.Side, ev.CInC.ID, ev.CInC.Rating, plural(len(ev.Brigades), "brigade", "brigades"), plural(units, "unit", "units"))
	case *BattleStarted:
		return fmt.Sprintf("battle started; %s has the first turn", ev.FirstSide)
	case *TurnStarted:
		return fmt.Sprintf("turn %d: the %s phase of %s", ev.Turn, ev.Phase, ev.Side)
	case *PhaseEnded:
		return fmt.Sprintf("turn %d: the %s phase of %s ended", ev.Turn, ev.Phase, ev.Side)
	case *PhaseStarted:
		return fmt.Sprintf("turn %d: the %s phase of %s", ev.Turn, ev.Phase, ev.Side)
	case *BattleEnded:
		return fmt.Sprintf("battle ended in turn %d: %s", ev.Turn, ev.Reason)
	}
	return ""
}
