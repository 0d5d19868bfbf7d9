package app

import (
	"context"
	"sort"
	"sync"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/projections"
	"github.com/clubledger/ledger/rules"
	"github.com/clubledger/ledger/rules/geom"
)

// Board is a battle at one moment as the map draws it: the fields of the
// projection's battle view (GET .../state) plus the sides, the terrain (when
// the rules model it) and the event it stands after.
type Board struct {
	Campaign    string  `json:"campaign"`
	Battle      string  `json:"battle"`
	Name        string  `json:"name"`
	Status      string  `json:"status"`
	Turn        int     `json:"turn"`
	PhasingSide string  `json:"phasing_side"`
	Phase       string  `json:"phase"`
	Measurement string  `json:"measurement"`
	TableWidth  float64 `json:"table_width"`
	TableDepth  float64 `json:"table_depth"`
	// Version is the event the board stands after (0: before the first);
	// Last is the battle's last event.
	Version  uint64         `json:"version"`
	Last     uint64         `json:"last"`
	Sides    []BoardSide    `json:"sides"`
	Units    []BoardUnit    `json:"units"`
	Generals []BoardGeneral `json:"generals"`
	Terrain  []geom.Terrain `json:"terrain"`
	// FlankMarches are the battle's flank marches as the caller may see
	// them (docs/principles.md principle 6): everyone sees a march's edge and arrival
	// roll; only its own side and the umpire see its orders before the rules
	// reveal them.
	FlankMarches []rules.FlankMarch `json:"flank_marches"`
	// FlankZones are the edges the flank marches keep enemies from now
	// (F.8), each with its strip, for the page to shade.
	FlankZones []rules.EdgeZone `json:"flank_zones"`
	// Disputes and Retractions are the battle's disputes and retraction
	// requests (docs/disputes.md).
	Disputes    []rules.Dispute        `json:"disputes"`
	Retractions []rules.RetractRequest `json:"retractions"`
	// Head is the hash of the battle's event at Version: the value a
	// player keeps, to check later that the history they saw is still the
	// ledger's (`ledger audit --head`); the page warns when it is not.
	Head string `json:"head"`
	// Ended says the battle is over (status ended): nothing is live.
	Ended bool `json:"ended"`
	// Event is the event at Version, described, when the caller may read it.
	Event *EventView `json:"event,omitempty"`
}

// BoardSide is one side of the battle.
type BoardSide struct {
	Side     string `json:"side"`
	Name     string `json:"name"`
	Nation   string `json:"nation,omitempty"`
	Deployed bool   `json:"deployed"`
}

// BoardUnit is one unit: the centre of its base, its facing (degrees
// clockwise from north), its base's width and depth.
type BoardUnit struct {
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
	// ActionsLeft are the unit's actions left this turn (C.3).
	ActionsLeft int `json:"actions_left"`
	// Reach is how far it reaches by the ruleset (C.17 per action, K.4
	// charge range), for the page's range rings; absent for a unit that
	// cannot move.
	Reach *rules.Reach `json:"reach,omitempty"`
}

// BoardGeneral is a general or (Brigade empty, CInC true) a C-in-C.
type BoardGeneral struct {
	General string `json:"general"`
	Side    string `json:"side"`
	Brigade string `json:"brigade"`
	// BrigadeName is the name the army list gave his brigade.
	BrigadeName string  `json:"brigade_name,omitempty"`
	Name        string  `json:"name"`
	Rating      int     `json:"rating"`
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	CInC        bool    `json:"c_in_c,omitempty"`
	AttachedTo  string  `json:"attached_to,omitempty"`
}

// board draws s, the state after event version of last.
func board(key events.Key, s *rules.State, version, last uint64) Board {
	b := Board{Campaign: key.Campaign, Battle: key.Battle, Name: s.Name, Status: s.Status, Turn: s.Turn,
		PhasingSide: s.Phasing, Phase: s.Phase, Measurement: s.Measurement, TableWidth: s.Table.Width, TableDepth: s.Table.Depth,
		Version: version, Last: last, Sides: []BoardSide{}, Units: []BoardUnit{}, Generals: []BoardGeneral{}, Terrain: []geom.Terrain{},
		FlankMarches: append([]rules.FlankMarch{}, s.Flank.Marches...), FlankZones: append([]rules.EdgeZone{}, s.FlankZones()...), Disputes: append([]rules.Dispute{}, s.Disputes.Disputes...),
		Retractions: append([]rules.RetractRequest{}, s.Disputes.Retracts...), Ended: s.Status == rules.StatusEnded}
	b.Terrain = append(b.Terrain, s.Terrain...)
	for _, sd := range s.Sides {
		b.Sides = append(b.Sides, BoardSide{Side: sd.ID, Name: sd.Name, Nation: sd.Nation, Deployed: sd.Deployed})
		if c := sd.CInC; c != nil {
			b.Generals = append(b.Generals, BoardGeneral{General: c.ID, Side: sd.ID, Name: c.Name, Rating: c.Rating,
				X: c.Position.X, Y: c.Position.Y, CInC: true, AttachedTo: c.AttachedTo})
		}
		for _, br := range sd.Brigades {
			g := br.General
			b.Generals = append(b.Generals, BoardGeneral{General: g.ID, Side: sd.ID, Brigade: br.ID, BrigadeName: br.Name, Name: g.Name, Rating: g.Rating,
				X: g.Position.X, Y: g.Position.Y, AttachedTo: g.AttachedTo})
		}
	}
	for _, u := range s.Units {
		if u == nil {
			continue
		}
		bu := BoardUnit{Unit: u.ID, Side: u.Side, Brigade: u.Brigade, Name: u.Name, Type: u.Type,
			Formation: u.Formation, X: u.Base.Center.X, Y: u.Base.Center.Y, Facing: u.Base.Facing,
			Width: u.Base.Width, Depth: u.Base.Depth, Markers: u.Markers, Status: u.Status,
			ActionsLeft: actionsLeft(s, u.ID)}
		if r, ok := s.ReachOf(u.ID); ok {
			bu.Reach = &r
		}
		b.Units = append(b.Units, bu)
	}
	// The projection's order: by side, brigade, unit.
	sort.Slice(b.Units, func(i, j int) bool {
		x, y := b.Units[i], b.Units[j]
		if x.Side != y.Side {
			return x.Side < y.Side
		}
		if x.Brigade != y.Brigade {
			return x.Brigade < y.Brigade
		}
		return x.Unit < y.Unit
	})
	return b
}

// timelines keeps one projections.Timeline per battle that has been
// replayed, brought up to date from the log on each use. It is bounded by
// the events it holds in all (Options.TimelineEvents): past the bound the
// battles used longest ago are dropped (and read again from the log when
// next asked for), so a league's battles touched once, or one very long
// battle, cannot grow the server without end (issue 24, item 10).
type timelines struct {
	mu    sync.Mutex
	m     map[events.Key]*timeline
	limit int    // the most events held in all; 0: DefaultTimelineEvents
	clock uint64 // counts uses, to find the battle used longest ago
}

type timeline struct {
	mu   sync.RWMutex // Append excludes At
	tl   *projections.Timeline
	used uint64 // timelines.clock at its last use (under timelines.mu)
	held uint64 // events it held at its last use (under timelines.mu)
}

// DefaultTimelineEvents is Options.TimelineEvents's default: a few hundred
// battles of a club's length, or one battle of 200,000 events.
const DefaultTimelineEvents = 200000

// get returns key's timeline with every event the log holds now.
func (t *timelines) get(ctx context.Context, log events.Log, key events.Key) (*timeline, error) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[events.Key]*timeline{}
	}
	tl, ok := t.m[key]
	if !ok {
		tl = &timeline{tl: projections.NewTimeline(key, campaign.Registry(), projections.TimelineOptions{})}
		t.m[key] = tl
	}
	t.clock++
	tl.used = t.clock
	t.mu.Unlock()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var after uint64
	if n := tl.tl.Len(); n > 0 {
		e, _, err := tl.tl.Event(n)
		if err != nil {
			return nil, err
		}
		after = e.Sequence
	}
	evs, err := log.Read(ctx, key, after)
	if err != nil {
		return nil, err
	}
	if len(evs) > 0 {
		if err := tl.tl.Append(evs...); err != nil {
			return nil, err
		}
	}
	t.mu.Lock()
	tl.held = tl.tl.Len()
	t.trim(key)
	t.mu.Unlock()
	return tl, nil
}

// trim drops the battles used longest ago until the events held in all
// are within the limit; keep, the battle just asked for, stays. The
// caller holds t.mu.
func (t *timelines) trim(keep events.Key) {
	limit := uint64(t.limit)
	if limit == 0 {
		limit = DefaultTimelineEvents
	}
	var total uint64
	for _, tl := range t.m {
		total += tl.held
	}
	for total > limit && len(t.m) > 1 {
		var oldest events.Key
		var at uint64
		for k, tl := range t.m {
			if k != keep && (at == 0 || tl.used < at) {
				oldest, at = k, tl.used
			}
		}
		total -= t.m[oldest].held
		delete(t.m, oldest)
	}
}

// size says how many battles and events the timelines hold.
func (t *timelines) size() (battles int, evs uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tl := range t.m {
		evs += tl.held
	}
	return len(t.m), evs
}

// actionsLeft is a unit's actions left this turn.
func actionsLeft(s *rules.State, unit string) int {
	if ut := s.TurnBook.Units[unit]; ut != nil {
		return ut.ActionsLeft
	}
	return 0
}
