package projections

import (
	"errors"
	"fmt"

	"github.com/clubledger/ledger/campaign"
)

// ErrNotFound is returned by a read model's queries for a campaign or
// battle it does not hold.
var ErrNotFound = errors.New("projections: not found")

// ErrDamaged is a projection file that cannot be read (a damaged page, a
// damaged header): it is only a projection of the log, and is rebuilt from
// it. The door names it in words (app.Classify), not as an internal error.
var ErrDamaged = errors.New("projections: the projection file is damaged")

// ErrStorage is a projection whose file cannot be written now: its disk is
// full or failed a write. Nothing was applied; the same batch applies once
// the disk takes writes again, so a follower waits and tries again rather
// than stopping.
var ErrStorage = errors.New("projections: the projection's disk cannot take writes now (full, or a write failed)")

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

// Standings are a campaign's standings and rosters as the projection holds
// them: campaign.Standings, as the service folds them from the log, read
// from the projection's rows with its checkpoint in one read transaction.
type Standings struct {
	campaign.Standings
	// Sequence is the projection's checkpoint when the rows were read: the
	// log sequence up to which they hold every event.
	Sequence uint64
	// Corrected are the counted battles with a dispute upheld with
	// corrections: the only ones a correction after their end can have
	// scored again (battle.rescored). What a rescore changed in the
	// campaign (campaign.BattleResult.Rescores) is not held: it folds the
	// campaign with the battle as it stood before the ruling, which only
	// the log has.
	Corrected []string
}

// Stopped is a stream (a battle, or a campaign's own events) whose
// projection stopped at an event the ledger did not write: not signed by
// its key, or not following the stream's last event (a replay, a forged
// chain). The event and every later one of the stream are not applied;
// the rest of the log goes on. The log cannot be edited, so the stream
// stays stopped: the audit names the event (ledger audit), and if the
// ledger's key file was wrong, a rebuild with the right one projects it
// again.
type Stopped struct {
	Campaign string `json:"campaign"`
	Battle   string `json:"battle,omitempty"`
	// Sequence, Version, EventID and Type name the event it stopped at.
	Sequence uint64 `json:"sequence"`
	Version  uint64 `json:"version"`
	EventID  string `json:"event_id"`
	Type     string `json:"type"`
	// Reason says why, in words.
	Reason string `json:"reason"`
	// Skipped counts the stream's later events not applied.
	Skipped int `json:"skipped"`
}

// Error says what stopped and what to do.
func (s Stopped) Error() string {
	what := "campaign " + s.Campaign
	if s.Battle != "" {
		what = "battle " + s.Campaign + "/" + s.Battle
	}
	later := ""
	if s.Skipped > 0 {
		later = fmt.Sprintf("; %d later %s not applied", s.Skipped, plural(s.Skipped, "event", "events"))
	}
	return fmt.Sprintf("the projection of %s stopped at v%d (%s, %s, log sequence %d): %s%s. The log cannot be edited: `ledger audit` names the event; if the ledger's key file is wrong, fix it and run `ledger projections rebuild`",
		what, s.Version, s.EventID, s.Type, s.Sequence, s.Reason, later)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
