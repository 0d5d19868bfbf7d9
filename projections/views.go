package projections

import "errors"

// ErrNotFound is returned by a read model's queries for a campaign or
// battle it does not hold.
var ErrNotFound = errors.New("projections: not found")

// BattleView is a battle as the projection holds it.
type BattleView struct {
	Campaign    string        `json:"campaign"`
	Battle      string        `json:"battle"`
	Name        string        `json:"name"`
	Status      string        `json:"status"`
	Turn        int           `json:"turn"`
	PhasingSide string        `json:"phasing_side"`
	Phase       string        `json:"phase"`
	Measurement string        `json:"measurement"`
	TableWidth  float64       `json:"table_width"`
	TableDepth  float64       `json:"table_depth"`
	Version     uint64        `json:"version"`
	Units       []UnitView    `json:"units"`
	Generals    []GeneralView `json:"generals"`
}

// UnitView is one unit row.
type UnitView struct {
	Unit      string  `json:"unit"`
	Side      string  `json:"side"`
	Brigade   string  `json:"brigade"`
	Name      string  `json:"name"`
	Type      string  `json:"type"`
	Formation string  `json:"formation"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Facing    float64 `json:"facing"`
	Width     float64 `json:"width"`
	Depth     float64 `json:"depth"`
	Markers   int     `json:"markers"`
	Status    string  `json:"status"`
}

// GeneralView is one general row (C-in-C with an empty brigade).
type GeneralView struct {
	General    string  `json:"general"`
	Side       string  `json:"side"`
	Brigade    string  `json:"brigade"`
	Name       string  `json:"name"`
	Rating     int     `json:"rating"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	AttachedTo string  `json:"attached_to,omitempty"`
}

// CampaignView is a campaign and its battles.
type CampaignView struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Era     string           `json:"era"`
	Sides   []SideView       `json:"sides"`
	Battles []CampaignBattle `json:"battles"`
}

// SideView is a side of a campaign.
type SideView struct {
	Side   string `json:"side"`
	Name   string `json:"name"`
	Nation string `json:"nation,omitempty"`
}

// CampaignBattle is one battle of a campaign with where it stands.
type CampaignBattle struct {
	Number int    `json:"number"`
	Battle string `json:"battle"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Turn   int    `json:"turn"`
}

// CampaignListed is one campaign of the list of all campaigns.
type CampaignListed struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Era     string `json:"era"`
	Battles int    `json:"battles"`
}
