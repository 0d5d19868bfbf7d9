// Package projtest fills an event log with synthetic but valid battles, for
// the projection's tests, crash tests and benchmarks. Every battle event is
// decided by rules.Decide on the battle's folded state and applied with
// rules.Apply, exactly as the campaign service does, so the log folds
// through the rules engine like a real one; only the service's round trips
// (one read and one publish per command) are skipped, which makes a
// million-event log quick to write.
package projtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// FillOptions shape the synthetic campaign.
type FillOptions struct {
	// Events is how many events to write at least; the fill stops after the
	// command that reaches it. Required.
	Events int
	// Campaign is the campaign id (default "synth").
	Campaign string
	// Open is how many battles are being played at once, their events
	// interleaved in the log (default 4).
	Open int
	// Turns is how many turns a battle lasts before the umpire ends it
	// (default 40, about 360 events a battle). Ended battles leave the
	// projector's memory, so the number of open battles, not the length
	// of the log, bounds what it holds.
	Turns int
	// Chunk is about how many events go in one atomic append (default 250).
	Chunk int
	// Start stamps the first command; each next command is a second later
	// (default 1809-04-22 09:00 UTC). Fixed stamps make fills repeatable.
	Start time.Time
	// Signer, when set, signs every event, as the ledger does.
	Signer *events.Signer
}

// Stats says what Fill wrote.
type Stats struct {
	Events   int
	Battles  int
	Commands int
	// Last is the log sequence of the last event written.
	Last uint64
}

// Fill appends a campaign and its battles to log until opts.Events events
// have been written.
func Fill(ctx context.Context, log events.Log, opts FillOptions) (Stats, error) {
	if opts.Events <= 0 {
		return Stats{}, fmt.Errorf("projtest: fill needs a number of events")
	}
	if opts.Campaign == "" {
		opts.Campaign = "synth"
	}
	if opts.Open <= 0 {
		opts.Open = 4
	}
	if opts.Turns <= 0 {
		opts.Turns = 40
	}
	if opts.Chunk <= 0 {
		opts.Chunk = 250
	}
	if opts.Start.IsZero() {
		opts.Start = time.Date(1809, 4, 22, 9, 0, 0, 0, time.UTC)
	}
	f := &filler{log: log, opts: opts, clock: opts.Start}
	f.camp = &stream{key: events.Key{Campaign: opts.Campaign}}
	if err := f.campaignEvent("create", campaign.EvCreated, campaign.Created{
		Campaign: opts.Campaign, Name: "Synthetic campaign", Era: "napoleonic",
		Sides: []campaign.Side{{ID: "red", Name: "Red", Nation: "france"}, {ID: "blue", Name: "Blue", Nation: "austria"}},
	}); err != nil {
		return f.stats, err
	}
	var open []*battle
	for f.stats.Events < opts.Events {
		for len(open) < opts.Open {
			b, err := f.newBattle(ctx)
			if err != nil {
				return f.stats, err
			}
			open = append(open, b)
		}
		// Each open battle plays about one chunk of commands in turn, so
		// that batches of the log mix battles as a club night would.
		next := open[:0]
		for _, b := range open {
			if err := f.play(ctx, b, opts.Chunk); err != nil {
				return f.stats, err
			}
			if b.state.Status != rules.StatusEnded {
				next = append(next, b)
			}
			if f.stats.Events >= opts.Events {
				break
			}
		}
		open = next
	}
	// Flush what is pending: every stream's events end in the log.
	if err := f.flush(ctx, f.camp); err != nil {
		return f.stats, err
	}
	for _, b := range open {
		if err := f.flush(ctx, &b.stream); err != nil {
			return f.stats, err
		}
	}
	return f.stats, nil
}

type filler struct {
	log   events.Log
	opts  FillOptions
	clock time.Time
	stats Stats
	camp  *stream
	// created is the first battle's battle.created, reused by the others.
	created *rules.BattleCreated
}

// stream is one stream's last stored event and its events not yet appended.
type stream struct {
	key     events.Key
	last    *events.Envelope
	pending []events.Envelope
}

type battle struct {
	stream
	state *rules.State
	cmds  int
	turn  int // turns completed
	step  int // position in the turn's script
}

func (f *filler) newBattle(ctx context.Context) (*battle, error) {
	n := f.stats.Battles + 1
	f.stats.Battles = n
	b := &battle{stream: stream{key: events.Key{Campaign: f.opts.Campaign, Battle: fmt.Sprintf("b%05d", n)}}, state: rules.NewState()}
	if err := f.campaignEvent(fmt.Sprintf("%s-create", b.key.Battle), campaign.EvBattleAdded,
		campaign.BattleAdded{Battle: b.key.Battle, Name: fmt.Sprintf("Battle %d", n), Number: n}); err != nil {
		return nil, err
	}
	// The campaign's battle.added goes first, as the service does it.
	if err := f.flush(ctx, f.camp); err != nil {
		return nil, err
	}
	setup := []struct {
		name string
		body any
	}{
		{rules.CmdBattleCreate, map[string]any{"battle": b.key.Battle, "campaign": b.key.Campaign, "name": fmt.Sprintf("Battle %d", n),
			"measurement": "in", "table": map[string]int{"width": 72, "depth": 48}, "first_side": "red",
			"sides": []map[string]string{{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}}}},
		{rules.CmdArmyDeploy, deploy("red", 10)},
		{rules.CmdArmyDeploy, deploy("blue", 38)},
		{rules.CmdBattleStart, map[string]any{}},
	}
	for i, s := range setup {
		if i == 0 && f.created != nil {
			// Deciding battle.create parses the ruleset, which costs more
			// than a hundred other commands: the first battle's decision
			// serves every later one, with this battle's ids.
			c := *f.created
			c.Battle, c.Name = b.key.Battle, fmt.Sprintf("Battle %d", n)
			if err := f.record(b, []rules.Event{&c}); err != nil {
				return nil, err
			}
			continue
		}
		if err := f.command(b, s.name, s.body, nil); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func deploy(side string, y float64) map[string]any {
	return map[string]any{"side": side,
		"c_in_c": map[string]any{"id": side + "-c", "name": side + " C-in-C", "rating": 9, "position": map[string]float64{"x": 36, "y": y - 6}},
		"brigades": []map[string]any{{"id": side + "-b", "name": side + " brigade", "order": "attack",
			"general": map[string]any{"id": side + "-g", "name": side + " general", "rating": 8, "position": map[string]float64{"x": 20, "y": y}},
			"units": []map[string]any{
				{"id": side + "-u1", "type": "infantry", "position": map[string]float64{"x": 30, "y": y}},
				{"id": side + "-u2", "type": "light_cavalry", "position": map[string]float64{"x": 38, "y": y}},
			}}}}
}

// play runs commands of b until about chunk events are pending.
func (f *filler) play(ctx context.Context, b *battle, chunk int) error {
	for len(b.pending) < chunk && b.state.Status != rules.StatusEnded && f.stats.Events < f.opts.Events {
		if err := f.nextCommand(b); err != nil {
			return err
		}
	}
	return f.flush(ctx, &b.stream)
}

// nextCommand plays one command of the turn's script: an order to the
// phasing side's brigade (physical dice 1+1, so it always succeeds), a
// move of each unit back or forth by an inch, and the three phase ends.
func (f *filler) nextCommand(b *battle) error {
	s := b.state
	side := s.Phasing
	if b.turn >= f.opts.Turns {
		return f.command(b, rules.CmdBattleEnd, map[string]any{"reason": "the synthetic battle is over"}, nil)
	}
	step := b.step
	b.step++
	switch step {
	case 0:
		return f.command(b, rules.CmdOrderGive, map[string]any{"general": side + "-g", "units": []string{side + "-u1", side + "-u2"},
			"content": map[string]string{"action": "move"}}, []int{1, 1})
	case 1, 2:
		unit := fmt.Sprintf("%s-u%d", side, step)
		u := s.Units[unit]
		dy := 1.0
		if (s.Turn/2)%2 == 1 {
			dy = -1
		}
		return f.command(b, rules.CmdUnitMove, map[string]any{"unit": unit,
			"to": map[string]float64{"x": u.Base.Center.X, "y": u.Base.Center.Y + dy}}, nil)
	default:
		if step == 5 {
			b.step = 0
			b.turn++
		}
		return f.command(b, rules.CmdPhaseEnd, map[string]string{"side": side}, nil)
	}
}

// command decides one command on b's state, applies its events and queues
// them for appending.
func (f *filler) command(b *battle, name string, body any, dice []int) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	cmd, err := rules.DecodeCommand(name, raw)
	if err != nil {
		return fmt.Errorf("projtest: %s %s: %w", b.key, name, err)
	}
	// The service supplies dice seeds from its vault; here a seed derived
	// from the battle and period stands in, committed and revealed alike.
	next, reveal := rules.DicePeriods(b.state, cmd)
	if next != "" {
		cmd = rules.WithDiceCommitment(cmd, commitment(b.key, next))
	}
	if reveal != "" {
		cmd = rules.WithDiceReveal(cmd, seed(b.key, reveal))
	}
	var d rules.Dice
	if dice != nil {
		d = &rules.FixedDice{Values: dice, Source: rules.SourcePhysical, EnteredBy: "umpire"}
	}
	evs, err := rules.Decide(b.state, cmd, d)
	if err != nil {
		return fmt.Errorf("projtest: %s %s (turn %d): %w", b.key, name, b.state.Turn, err)
	}
	if c, ok := evs[0].(*rules.BattleCreated); ok && f.created == nil {
		f.created = c
	}
	return f.record(b, evs)
}

// record applies a command's events to b's state and queues them.
func (f *filler) record(b *battle, evs []rules.Event) error {
	b.cmds++
	f.stats.Commands++
	id := fmt.Sprintf("c%06d", b.cmds)
	f.clock = f.clock.Add(time.Second)
	for i, e := range evs {
		rules.Apply(b.state, e)
		payload, err := json.Marshal(e)
		if err != nil {
			return err
		}
		info, ok := campaign.Registry().Lookup(e.EventType())
		if !ok {
			return fmt.Errorf("projtest: event type %s is not registered", e.EventType())
		}
		b.pending = append(b.pending, events.Envelope{
			ID: fmt.Sprintf("%s/%s/%d", b.key, id, i), Campaign: b.key.Campaign, Battle: b.key.Battle,
			Type: e.EventType(), Schema: info.Schema, Time: f.clock, Actor: "umpire", CommandID: id,
			Audience: e.Audience(), Payload: payload,
		})
	}
	f.stats.Events += len(evs)
	return nil
}

func (f *filler) campaignEvent(id, typ string, payload any) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	info, _ := campaign.Registry().Lookup(typ)
	f.clock = f.clock.Add(time.Second)
	f.camp.pending = append(f.camp.pending, events.Envelope{
		ID: fmt.Sprintf("%s/%s/0", f.camp.key, id), Campaign: f.camp.key.Campaign, Type: typ, Schema: info.Schema,
		Time: f.clock, Actor: "umpire", CommandID: id, Audience: events.AudienceAll, Payload: raw,
	})
	f.stats.Events++
	f.stats.Commands++
	return nil
}

// flush appends s's pending events, chained after its last one.
func (f *filler) flush(ctx context.Context, s *stream) error {
	if len(s.pending) == 0 {
		return nil
	}
	if err := events.ChainSigned(s.last, s.pending, f.opts.Signer); err != nil {
		return err
	}
	var expected uint64
	if s.last != nil {
		expected = s.last.Sequence
	}
	if err := f.log.Append(ctx, s.key, expected, s.pending); err != nil {
		return fmt.Errorf("projtest: append %s: %w", s.key, err)
	}
	last := s.pending[len(s.pending)-1]
	s.last = &last
	f.stats.Last = max(f.stats.Last, last.Sequence)
	s.pending = nil
	return nil
}

// seed is the stand-in secret seed of a battle's dice period, hex.
func seed(key events.Key, period string) string {
	sum := sha256.Sum256([]byte("projtest seed " + key.String() + " " + period))
	return hex.EncodeToString(sum[:])
}

// commitment is the SHA-256 of the seed's bytes, as rules/dice commits it.
func commitment(key events.Key, period string) string {
	raw, _ := hex.DecodeString(seed(key, period))
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// SmallArmy is the body of army.deploy for side on a 72 by 48 table, for
// tests that play a battle or two through the service: a commander-in-chief
// (id side-c) behind one brigade (side-b, general side-g, on attack orders)
// of an infantry unit (side-u) and a light cavalry unit (side-v), in a line
// at depth y.
func SmallArmy(side string, y float64) map[string]any {
	return map[string]any{"side": side,
		"c_in_c": map[string]any{"id": side + "-c", "rating": 9, "position": map[string]float64{"x": 36, "y": y - 6}},
		"brigades": []map[string]any{{"id": side + "-b", "order": "attack",
			"general": map[string]any{"id": side + "-g", "rating": 8, "position": map[string]float64{"x": 20, "y": y}},
			"units": []map[string]any{
				{"id": side + "-u", "type": "infantry", "position": map[string]float64{"x": 30, "y": y}},
				{"id": side + "-v", "type": "light_cavalry", "position": map[string]float64{"x": 40, "y": y}},
			}}}}
}
