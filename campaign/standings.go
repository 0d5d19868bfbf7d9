package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// Campaign standings and rosters (docs/rules.md V.3, V.4; docs/flank-marches.md).
//
// Both are derived, never stored: they fold the campaign's battles, in the
// order of campaign.battle_added, from the battles' own streams. A battle
// counts once it has ended: its battle.scored gives each side's points
// (V.4), and its final state gives each side's roster for the next battle:
// a unit that fought keeps its casualty markers, a destroyed unit is gone,
// and the units of a flank march that never came on the table (lost, F.9,
// or late), revealed as the battle ended, are back on the roster with no
// losses (V.3). A unit first seen in a battle (deployed or flank-marching)
// joins its side's roster. No second write is needed when a battle ends,
// so nothing can be lost between two streams: the battle logs are the truth.

// Standings is a campaign's results and rosters so far.
type Standings struct {
	Campaign string         `json:"campaign"`
	Name     string         `json:"name,omitempty"`
	Sides    []SideStanding `json:"sides"`
	Battles  []BattleResult `json:"battles"`
	Rosters  []Roster       `json:"rosters"`
}

// SideStanding is one side's campaign total (V.4).
type SideStanding struct {
	Side   string `json:"side"`
	Name   string `json:"name"`
	Points int    `json:"points"`
	Played int    `json:"played"`
	Won    int    `json:"won"`
	Drawn  int    `json:"drawn"`
	Lost   int    `json:"lost"`
}

// BattleResult is one battle of the campaign.
type BattleResult struct {
	Battle string `json:"battle"`
	Name   string `json:"name,omitempty"`
	Number int    `json:"number"`
	// Status is the battle's status (ended battles count).
	Status string `json:"status"`
	// Points by side, in the campaign's side order.
	Points []SidePoints `json:"points,omitempty"`
	// Returned lists flank marchers that took no part and are back on
	// their roster with no losses (V.3).
	Returned []string `json:"returned,omitempty"`
	// Destroyed lists units that are gone from the rosters.
	Destroyed []string `json:"destroyed,omitempty"`
	// Rescores are the corrections after the battle's end that scored it
	// again (battle.rescored), each with what it changed in the campaign.
	Rescores []Rescore `json:"rescores,omitempty"`
}

// Rescore is one correction after a battle's end that scored it again
// (docs/disputes.md), and what it changed in the campaign: the battle's
// points and results, each side's standing, and the rosters for the
// battles after it. Successors are the later battles that had started
// when it was recorded: they stand as played.
type Rescore struct {
	Dispute      int    `json:"dispute"`
	EventVersion uint64 `json:"event_version"`
	// Version is the battle.rescored event's.
	Version    uint64           `json:"version"`
	Before     []SidePoints     `json:"before"`
	After      []SidePoints     `json:"after"`
	Successors []string         `json:"successors,omitempty"`
	Standings  []StandingChange `json:"standings"`
	Rosters    []RosterChange   `json:"rosters,omitempty"`
}

// StandingChange is one side's campaign standing just before a rescore and
// just after it.
type StandingChange struct {
	Side   string       `json:"side"`
	Before SideStanding `json:"before"`
	After  SideStanding `json:"after"`
}

// A unit's place on a roster (RosterChange).
const (
	RosterPresent   = "present"
	RosterDestroyed = "destroyed"
	RosterAbsent    = "absent"
)

// RosterChange is one unit whose place on its side's roster a rescore's
// corrections changed: present (with its markers) or gone.
type RosterChange struct {
	Side string `json:"side"`
	Unit string `json:"unit"`
	// Before and After are present (with its markers), destroyed or absent.
	Before        string `json:"before"`
	After         string `json:"after"`
	MarkersBefore int    `json:"markers_before"`
	MarkersAfter  int    `json:"markers_after"`
}

// SidePoints is one side's points and result in one battle.
type SidePoints struct {
	Side   string `json:"side"`
	Points int    `json:"points"`
	// Result is won, drawn or lost (V.4).
	Result string `json:"result"`
}

// Roster is a side's army as it stands for its next battle.
type Roster struct {
	Side  string       `json:"side"`
	Units []RosterUnit `json:"units"`
	// Destroyed units, gone for good.
	Destroyed []string `json:"destroyed,omitempty"`
}

// MarshalJSON writes no units as [] rather than null.
func (r Roster) MarshalJSON() ([]byte, error) {
	type plain Roster
	p := plain(r)
	if p.Units == nil {
		p.Units = []RosterUnit{}
	}
	return json.Marshal(p)
}

// RosterUnit is one unit of a side's roster.
type RosterUnit struct {
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Markers int    `json:"markers"`
	// Battles counts the battles it fought in (came on the table).
	Battles int `json:"battles"`
	// Last is the last battle it belonged to, and how: fought, or
	// returned (a flank march that took no part).
	Last    string `json:"last"`
	LastWas string `json:"last_was"`
}

// Roster returns the side's roster, or nil.
func (st *Standings) Roster(side string) *Roster {
	for i := range st.Rosters {
		if st.Rosters[i].Side == side {
			return &st.Rosters[i]
		}
	}
	return nil
}

// Unit returns a unit of the roster.
func (r *Roster) Unit(id string) (RosterUnit, bool) {
	if r == nil {
		return RosterUnit{}, false
	}
	for _, u := range r.Units {
		if u.ID == id {
			return u, true
		}
	}
	return RosterUnit{}, false
}

// Side returns a side's standing.
func (st *Standings) Side(id string) SideStanding {
	for _, s := range st.Sides {
		if s.Side == id {
			return s
		}
	}
	return SideStanding{}
}

// Results of a battle for a side (V.4): the side with strictly the most
// points won and the others lost; if the most points are shared, every
// side drew.
const (
	ResultWon   = "won"
	ResultDrawn = "drawn"
	ResultLost  = "lost"
)

// StandingsFold is a campaign's standings and rosters after some of its
// battles. Add folds the next one. FoldStandings (the service) and the
// SQLite projection, which folds one ended battle at a time, both use it,
// so they cannot disagree.
type StandingsFold struct {
	// Sides in the campaign's order, with their totals so far.
	Sides []SideStanding
	// Rosters by side, then by unit id.
	Rosters map[string]map[string]RosterUnit
}

// NewStandingsFold starts the fold of campaign c: every side at nothing,
// every roster empty.
func NewStandingsFold(c State) *StandingsFold {
	f := &StandingsFold{Rosters: map[string]map[string]RosterUnit{}}
	for _, sd := range c.Sides {
		f.Sides = append(f.Sides, SideStanding{Side: sd.ID, Name: sd.Name})
		f.Rosters[sd.ID] = map[string]RosterUnit{}
	}
	return f
}

// BattleOutcome is what one counted battle added to the fold.
type BattleOutcome struct {
	// Points and Results by side, in the fold's side order.
	Points  []int
	Results []string
	// Destroyed units by side: gone from the roster.
	Destroyed map[string][]string
	// Returned units: flank marchers back on the roster with no losses.
	Returned []string
}

// Side returns the standing of side id in the fold, or nil.
func (f *StandingsFold) Side(id string) *SideStanding {
	for i := range f.Sides {
		if f.Sides[i].Side == id {
			return &f.Sides[i]
		}
	}
	return nil
}

// Add folds battle b, st its final state. counted is false for a battle
// that has not ended with a score (it changes nothing).
func (f *StandingsFold) Add(b BattleAdded, st *rules.State) (out BattleOutcome, counted bool) {
	if st.Status != rules.StatusEnded || st.Victory.Score == nil {
		return out, false
	}
	sc := st.Victory.Score
	best, bestSide, tie := -1, "", false
	for i := range f.Sides {
		ss := &f.Sides[i]
		p := sc.Points(ss.Side)
		out.Points = append(out.Points, p)
		ss.Points += p
		ss.Played++
		switch {
		case p > best:
			best, bestSide, tie = p, ss.Side, false
		case p == best:
			tie = true
		}
	}
	for i := range f.Sides {
		ss := &f.Sides[i]
		switch {
		case tie:
			ss.Drawn++
			out.Results = append(out.Results, ResultDrawn)
		case ss.Side == bestSide:
			ss.Won++
			out.Results = append(out.Results, ResultWon)
		default:
			ss.Lost++
			out.Results = append(out.Results, ResultLost)
		}
	}
	out.Destroyed = map[string][]string{}
	// Rosters: who fought keeps his losses; the destroyed are gone.
	waiting := map[string]bool{}
	for _, m := range st.Flank.Marches {
		for _, id := range m.Waiting {
			waiting[id] = true
		}
	}
	ids := make([]string, 0, len(st.Units))
	for id := range st.Units {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		u := st.Units[id]
		if u == nil {
			continue
		}
		r := f.Rosters[u.Side]
		if r == nil {
			continue
		}
		ru, known := r[id]
		ru.ID, ru.Name, ru.Type = id, u.Name, u.Type
		switch {
		case waiting[id]:
			// Never on the table (or rallied off it): as it came.
			if !known {
				ru.Markers = u.Markers
			}
			ru.Last, ru.LastWas = b.Battle, "returned"
			out.Returned = append(out.Returned, id)
			r[id] = ru
		case u.Status == rules.UnitDestroyed:
			delete(r, id)
			out.Destroyed[u.Side] = append(out.Destroyed[u.Side], id)
		default:
			ru.Markers, ru.Battles, ru.Last, ru.LastWas = u.Markers, ru.Battles+1, b.Battle, "fought"
			r[id] = ru
		}
	}
	// Flank marches that never arrived: back with no losses (V.3).
	for _, m := range st.Flank.Marches {
		if m.RevealedAt != rules.RevealBattleEnd || m.Orders == nil || f.Rosters[m.Side] == nil {
			continue
		}
		for _, fb := range m.Orders.Brigades {
			for _, fu := range fb.Units {
				ru, known := f.Rosters[m.Side][fu.ID]
				ru.ID, ru.Type = fu.ID, fu.Type
				if ru.Name == "" {
					ru.Name = fu.Name
				}
				if ru.Name == "" {
					ru.Name = fu.ID
				}
				if !known {
					ru.Markers = fu.Markers
				}
				ru.Last, ru.LastWas = b.Battle, "returned"
				f.Rosters[m.Side][fu.ID] = ru
				out.Returned = append(out.Returned, fu.ID)
			}
		}
	}
	return out, true
}

// FoldStandings folds a campaign's battles (their events by battle id,
// in version order) into its standings, in the campaign's order of
// battles, and says for each battle scored again what that changed. It is
// pure.
func FoldStandings(c State, battles map[string][]rules.Event) Standings {
	out := foldStandings(c, battles)
	for i, b := range c.Battles {
		evs := battles[b.Battle]
		for k, e := range evs {
			rs, ok := e.(*rules.BattleRescored)
			if !ok {
				continue
			}
			out.Battles[i].Rescores = append(out.Battles[i].Rescores, rescoreOf(c, battles, b.Battle, k, rs))
		}
	}
	return out
}

// rescoreOf says what the battle.rescored at index k of battle's events
// changed: the campaign folded with the battle as it stood just before
// the ruling that rescored it, and just after the rescore.
func rescoreOf(c State, battles map[string][]rules.Event, battle string, k int, rs *rules.BattleRescored) Rescore {
	evs := battles[battle]
	ruling := int(rs.Ruling) - 1 // index of the dispute.upheld
	if ruling < 0 || ruling > k {
		ruling = k
		for j := k; j >= 0; j-- {
			if up, ok := evs[j].(*rules.DisputeUpheld); ok && up.Dispute == rs.Dispute {
				ruling = j
				break
			}
		}
	}
	with := func(n int) Standings {
		m := make(map[string][]rules.Event, len(battles))
		for id, l := range battles {
			m[id] = l
		}
		m[battle] = evs[:n]
		return foldStandings(c, m)
	}
	before, after := with(ruling), with(k+1)
	out := Rescore{Dispute: rs.Dispute, EventVersion: rs.EventVersion, Version: uint64(k + 1), Successors: rs.Successors}
	for _, b := range before.Battles {
		if b.Battle == battle {
			out.Before = b.Points
		}
	}
	for _, b := range after.Battles {
		if b.Battle == battle {
			out.After = b.Points
		}
	}
	for i, sd := range after.Sides {
		out.Standings = append(out.Standings, StandingChange{Side: sd.Side, Before: before.Sides[i], After: sd})
	}
	for i, r := range after.Rosters {
		out.Rosters = append(out.Rosters, rosterChanges(before.Rosters[i], r)...)
	}
	return out
}

// rosterChanges lists the units whose place on a roster differs.
func rosterChanges(before, after Roster) []RosterChange {
	state := func(r Roster, id string) (string, int) {
		if u, ok := r.Unit(id); ok {
			return RosterPresent, u.Markers
		}
		if slices.Contains(r.Destroyed, id) {
			return RosterDestroyed, 0
		}
		return RosterAbsent, 0
	}
	ids := map[string]bool{}
	for _, r := range []Roster{before, after} {
		for _, u := range r.Units {
			ids[u.ID] = true
		}
		for _, id := range r.Destroyed {
			ids[id] = true
		}
	}
	var out []RosterChange
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		b, mb := state(before, id)
		a, ma := state(after, id)
		if b != a || mb != ma {
			out = append(out, RosterChange{Side: after.Side, Unit: id, Before: b, After: a, MarkersBefore: mb, MarkersAfter: ma})
		}
	}
	return out
}

// foldStandings is FoldStandings without what rescores changed.
func foldStandings(c State, battles map[string][]rules.Event) Standings {
	// Lists are lists, empty rather than null, as the API describes them.
	out := Standings{Campaign: c.ID, Name: c.Name, Sides: []SideStanding{}, Battles: []BattleResult{}, Rosters: []Roster{}}
	f := NewStandingsFold(c)
	destroyed := map[string][]string{}
	for _, b := range c.Battles {
		st := rules.NewState()
		for _, e := range battles[b.Battle] {
			rules.Apply(st, e)
		}
		res := BattleResult{Battle: b.Battle, Name: b.Name, Number: b.Number, Status: st.Status}
		if st.Status == rules.StatusNew {
			res.Status = "not_created"
		}
		o, counted := f.Add(b, st)
		if counted {
			for i, sd := range f.Sides {
				res.Points = append(res.Points, SidePoints{Side: sd.Side, Points: o.Points[i], Result: o.Results[i]})
			}
			for _, sd := range f.Sides {
				for _, id := range o.Destroyed[sd.Side] {
					destroyed[sd.Side] = append(destroyed[sd.Side], id)
					res.Destroyed = append(res.Destroyed, id)
				}
			}
			res.Returned = o.Returned
		}
		out.Battles = append(out.Battles, res)
	}
	out.Sides = f.Sides
	for _, sd := range c.Sides {
		r := Roster{Side: sd.ID, Destroyed: destroyed[sd.ID]}
		for _, u := range f.Rosters[sd.ID] {
			r.Units = append(r.Units, u)
		}
		sort.Slice(r.Units, func(i, j int) bool { return r.Units[i].ID < r.Units[j].ID })
		out.Rosters = append(out.Rosters, r)
	}
	return out
}

// battleEvents reads and decodes one battle's stream, without the cache
// (and its lock): standings read other battles while a command holds its own.
func (s *Service) battleEvents(ctx context.Context, key events.Key) ([]rules.Event, error) {
	envs, err := s.log.Read(ctx, key, 0)
	if err != nil {
		return nil, fmt.Errorf("campaign: read %s: %w", key, err)
	}
	out := make([]rules.Event, 0, len(envs))
	for i := range envs {
		payload, err := Registry().Upcast(&envs[i])
		if err != nil {
			return nil, fmt.Errorf("campaign: %s: %w", key, err)
		}
		ev, err := rules.DecodeEvent(envs[i].Type, payload)
		if err != nil {
			return nil, fmt.Errorf("campaign: %s event %s: %w", key, envs[i].ID, err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// Standings folds a campaign's battles into its standings and rosters.
func (s *Service) Standings(ctx context.Context, campaign string) (Standings, error) {
	return s.standingsBefore(ctx, campaign, "")
}

// standingsBefore is the standings from the campaign's battles before
// battle (all of them when battle is "" or not in the campaign).
func (s *Service) standingsBefore(ctx context.Context, campaign, battle string) (Standings, error) {
	c, err := s.Campaign(ctx, campaign)
	if err != nil {
		return Standings{}, err
	}
	if i := slices.IndexFunc(c.Battles, func(b BattleAdded) bool { return b.Battle == battle }); i >= 0 {
		c.Battles = c.Battles[:i]
	}
	logs := map[string][]rules.Event{}
	for _, b := range c.Battles {
		evs, err := s.battleEvents(ctx, events.Key{Campaign: campaign, Battle: b.Battle})
		if err != nil {
			return Standings{}, err
		}
		logs[b.Battle] = evs
	}
	return FoldStandings(c, logs), nil
}

// rosterUnit is a unit a command brings into a battle.
type rosterUnit struct {
	id      string
	markers int
}

// checkRoster refuses a deployment or a flank march that brings back a
// unit the campaign lost, or brings one with fewer casualty markers than
// its roster carries (losses are kept from battle to battle, V.3). A unit
// the roster does not know is a new one (a reinforcement): the umpire's
// business, not refused.
func (s *Service) checkRoster(ctx context.Context, key events.Key, cmd rules.Command) error {
	var side string
	var units []rosterUnit
	switch c := cmd.(type) {
	case *rules.DeployArmy:
		side = c.Side
		for _, b := range c.Brigades {
			for _, u := range b.Units {
				units = append(units, rosterUnit{u.ID, u.Markers})
			}
		}
	case *rules.DeclareFlankMarch:
		if c.Orders == nil {
			return nil
		}
		side = c.Side
		for _, b := range c.Orders.Brigades {
			for _, u := range b.Units {
				units = append(units, rosterUnit{u.ID, u.Markers})
			}
		}
	default:
		return nil
	}
	st, err := s.standingsBefore(ctx, key.Campaign, key.Battle)
	if err != nil {
		return err
	}
	return st.checkUnits(side, units)
}

func (st *Standings) checkUnits(side string, units []rosterUnit) error {
	r := st.Roster(side)
	if r == nil {
		return nil
	}
	for _, u := range units {
		if slices.Contains(r.Destroyed, u.id) {
			return rules.Refuse("V.3", "roster.destroyed", "unit %s of %s was destroyed in an earlier battle of the campaign: it is no longer on the roster", u.id, side)
		}
		if ru, ok := r.Unit(u.id); ok && u.markers < ru.Markers {
			return rules.Refuse("V.3", "roster.losses", "unit %s carries %d casualty markers from battle %s; losses are kept: %d given", u.id, ru.Markers, ru.Last, u.markers).
				WithNumbers(map[string]float64{"markers": float64(ru.Markers), "given": float64(u.markers)})
		}
	}
	return nil
}
