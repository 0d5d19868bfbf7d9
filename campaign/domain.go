package campaign

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Campaign command names: commands addressed to a campaign's own stream.
const (
	CmdCreate = "campaign.create"
)

// Campaign event types, persisted forever.
const (
	EvCreated     = "campaign.created"
	EvBattleAdded = "campaign.battle_added"
)

// IsCampaignCommand reports whether a command addresses a campaign's own
// stream (campaign.create, player.add, player.reissue_token) rather than a
// battle.
func IsCampaignCommand(name string) bool {
	return name == CmdCreate || name == CmdPlayerAdd || name == CmdTokenReissue
}

// Side is one side of a campaign: its armies fight every battle of it.
type Side struct {
	ID     string `json:"id" yaml:"id"`
	Name   string `json:"name" yaml:"name"`
	Nation string `json:"nation,omitempty" yaml:"nation,omitempty"`
}

// Create is the command that opens a campaign.
type Create struct {
	Campaign string `json:"campaign"`
	Name     string `json:"name"`
	// Era is "napoleonic" (default) or "awi": in the American War of
	// Independence attack columns did not exist (docs/rules.md C.7).
	Era string `json:"era,omitempty"`
	// Ruleset is a YAML overlay on the default ruleset, applied to every
	// battle of the campaign.
	Ruleset string `json:"ruleset,omitempty"`
	Sides   []Side `json:"sides"`
}

// Created records a new campaign.
type Created struct {
	Campaign string `json:"campaign"`
	Name     string `json:"name"`
	Era      string `json:"era"`
	Ruleset  string `json:"ruleset,omitempty"`
	Sides    []Side `json:"sides"`
}

// BattleAdded records that a battle belongs to the campaign, in order.
type BattleAdded struct {
	Battle string `json:"battle"`
	Name   string `json:"name"`
	Number int    `json:"number"`
}

// State is a campaign as its own stream describes it.
type State struct {
	ID      string        `json:"id"`
	Name    string        `json:"name"`
	Era     string        `json:"era"`
	Ruleset string        `json:"ruleset,omitempty"`
	Sides   []Side        `json:"sides"`
	Battles []BattleAdded `json:"battles"`
	Players []Player      `json:"players,omitempty"`
}

// Exists reports whether the campaign was created.
func (s *State) Exists() bool { return s.ID != "" }

// HasBattle reports whether battle was added to the campaign.
func (s *State) HasBattle(battle string) bool {
	for _, b := range s.Battles {
		if b.Battle == battle {
			return true
		}
	}
	return false
}

// ApplyCampaign folds one campaign-stream event into s. Unknown types are
// ignored so that newer programs' events do not break an older reader.
func ApplyCampaign(s *State, e events.Envelope, payload json.RawMessage) error {
	switch e.Type {
	case EvCreated:
		var c Created
		if err := json.Unmarshal(payload, &c); err != nil {
			return fmt.Errorf("campaign: %s: %w", e.ID, err)
		}
		*s = State{ID: c.Campaign, Name: c.Name, Era: c.Era, Ruleset: c.Ruleset, Sides: c.Sides}
	case EvBattleAdded:
		var b BattleAdded
		if err := json.Unmarshal(payload, &b); err != nil {
			return fmt.Errorf("campaign: %s: %w", e.ID, err)
		}
		s.Battles = append(s.Battles, b)
	case EvPlayerAdded, EvTokenReissued:
		return applyPlayers(s, e, payload)
	}
	return nil
}

// decideCreate validates a campaign.create command against the campaign's state.
func decideCreate(s *State, c Create) (Created, error) {
	if s.Exists() {
		return Created{}, rules.Refuse("campaign", "campaign.exists", "campaign %q already exists", c.Campaign)
	}
	if !events.ValidID(c.Campaign) {
		return Created{}, rules.Refuse("campaign", "campaign.bad_id", "campaign id %q: want lower-case letters, digits, '-' or '_'", c.Campaign)
	}
	era := c.Era
	if era == "" {
		era = "napoleonic"
	}
	if era != "napoleonic" && era != "awi" {
		return Created{}, rules.Refuse("C.7", "campaign.bad_era", "era %q: want napoleonic or awi", c.Era)
	}
	if len(c.Sides) != 2 {
		return Created{}, rules.Refuse("T.1", "campaign.sides", "a campaign has two sides; %d given", len(c.Sides)).WithNumbers(map[string]float64{"sides": float64(len(c.Sides))})
	}
	seen := map[string]bool{}
	for _, sd := range c.Sides {
		if !events.ValidID(sd.ID) || seen[sd.ID] {
			return Created{}, rules.Refuse("T.1", "campaign.side_id", "side id %q is invalid or repeated", sd.ID)
		}
		seen[sd.ID] = true
	}
	if c.Ruleset != "" {
		if err := checkOverlay(c.Ruleset); err != nil {
			return Created{}, err
		}
		if _, err := rules.LoadRuleset(rules.DefaultRuleset(), []byte(c.Ruleset)); err != nil {
			return Created{}, rules.Refuse("ruleset", "campaign.ruleset", "campaign ruleset overlay: %v", err)
		}
	}
	return Created{Campaign: c.Campaign, Name: c.Name, Era: era, Ruleset: c.Ruleset, Sides: append([]Side(nil), c.Sides...)}, nil
}

// Describe says in one line what a campaign-stream event records.
func Describe(e events.Envelope, payload json.RawMessage) string {
	switch e.Type {
	case EvCreated:
		var c Created
		if err := json.Unmarshal(payload, &c); err != nil {
			return err.Error()
		}
		names := make([]string, len(c.Sides))
		for i, s := range c.Sides {
			names[i] = s.Name
		}
		return fmt.Sprintf("campaign %q created (%s era): %s", c.Name, c.Era, strings.Join(names, " vs "))
	case EvBattleAdded:
		var b BattleAdded
		if err := json.Unmarshal(payload, &b); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("battle %d of the campaign: %s %q", b.Number, b.Battle, b.Name)
	case EvPlayerAdded:
		var p PlayerAdded
		if err := json.Unmarshal(payload, &p); err != nil {
			return err.Error()
		}
		if p.Side != "" {
			return fmt.Sprintf("%s joined as %s of %s (token %.8s…)", p.Player, p.Role, p.Side, p.TokenHash)
		}
		return fmt.Sprintf("%s joined as %s (token %.8s…)", p.Player, p.Role, p.TokenHash)
	case EvTokenReissued:
		var r TokenReissued
		if err := json.Unmarshal(payload, &r); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%s was given a new token (%.8s…); the old one no longer works", r.Player, r.TokenHash)
	case events.KeyChangedType:
		c, err := events.ParseKeyChange(&e)
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("the ledger's signing key changed from %s to %s (signed by the old key)", events.Fingerprint(c.From), events.Fingerprint(c.To))
	}
	return e.Type
}
