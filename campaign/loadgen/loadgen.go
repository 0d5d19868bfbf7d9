// Package loadgen generates synthetic but valid campaigns as the commands a
// club would send: a campaign and its people, its battles set up and
// deployed, then turn after turn of orders with physical dice, moves and
// phase ends, and with a Mix (LeagueMix for a league's tables) the
// players' dice seeds, orders rolled by the ledger's digital dice, fire
// and casualties. The
// commands are campaign.Requests, so they go through the whole command path
// (decode, decide, append, project) like a player's; nothing is written to
// the log behind the service's back.
//
// Each Battle is a script that the rules accept in the order Next returns
// it, whatever the other battles do and whatever the digital dice say: the
// dice thrown at the table are chosen to succeed, the units step one inch
// forward and back, and the outcome of a digital order steers the rest of
// the turn (Observe). Its command ids are stable (the
// same Battle always generates the same requests), so a command that failed
// in transport can be sent again with its id and the service's idempotency
// settles whether it was applied.
//
// Used by the cluster and concurrency tests, `ledger bench` and the
// benchmarks; the package is pure (no I/O, no clock).
package loadgen

import (
	"encoding/json"
	"fmt"

	"github.com/clubledger/ledger/campaign"
	"github.com/clubledger/ledger/rules"
)

// Sides are the two sides of every generated campaign.
var Sides = []campaign.Side{{ID: "red", Name: "Red", Nation: "france"}, {ID: "blue", Name: "Blue", Nation: "austria"}}

// Actor gives every generated command: the operator.
var Actor = campaign.Operator("loadgen")

// CreateCampaign is the command that creates campaign id with Sides.
func CreateCampaign(id string) campaign.Request {
	return campaign.Request{ID: "create-" + id, Principal: Actor, Campaign: id, Name: campaign.CmdCreate,
		Body: mustJSON(map[string]any{"name": "Synthetic " + id, "sides": Sides})}
}

// rolls are physical two-dice order rolls that every order of the script
// passes (the general's rating is 8, the C.7 modifiers of this deployment
// leave it there): a mix of faces, never the 6+6 blunder.
var rolls = [][]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {2, 3}, {3, 2}, {1, 4}, {4, 1}, {3, 3}, {2, 4}, {4, 2}, {1, 5}, {5, 1}}

// Umpire is the umpire People adds to a campaign: the person who sets a
// battle up, starts and ends it.
const Umpire = "umpire"

// Player is the player People adds for side: the person who gives that
// side's commands at the table.
func Player(side string) string { return "player-" + side }

// People are the commands (by the operator) that add a campaign's people:
// the umpire and one player per side. Each answer carries the person's
// token, shown once.
func People(camp string) []campaign.Request {
	out := []campaign.Request{{ID: "people-" + Umpire, Principal: Actor, Campaign: camp, Name: campaign.CmdPlayerAdd,
		Body: mustJSON(map[string]string{"player": Umpire, "name": "Umpire", "role": campaign.RoleUmpire})}}
	for _, s := range Sides {
		out = append(out, campaign.Request{ID: "people-" + Player(s.ID), Principal: Actor, Campaign: camp, Name: campaign.CmdPlayerAdd,
			Body: mustJSON(map[string]string{"player": Player(s.ID), "name": s.Name + " player", "role": campaign.RolePlayer, "side": s.ID})})
	}
	return out
}

// Mix says what a script plays besides the orders with physical dice, the
// moves and the phase ends of every side turn. The zero Mix plays only
// those.
type Mix struct {
	// Seeds: after battle.start each side's player adds a dice seed of
	// their own (dice.add_seed), as players do before the first digital
	// roll.
	Seeds bool
	// Combat: in each combat phase the phasing side's first unit fires at
	// the enemy's first unit (unit.fire), and every other side turn the
	// enemy's player enters a casualty marker against it (combat.record).
	Combat bool
	// Digital: every Digital-th order is rolled by the ledger's digital
	// dice instead of dice thrown at the table (0: none). Its outcome is
	// then the dice's: the script must be told of the order's events
	// (Observe) before the next command. After a failed order the side's
	// units do not move that turn; after a blunder (its units moved by the
	// blunder table, off the script's line) the umpire ends the battle.
	Digital int
}

// LeagueMix is the mix of a league's tables (`ledger bench --league`):
// players' own dice seeds, one order in three rolled digitally, fire and
// casualties in the combat phase.
var LeagueMix = Mix{Seeds: true, Combat: true, Digital: 3}

// Battle is the command script of one battle.
type Battle struct {
	// Campaign and ID address the battle.
	Campaign, ID string
	// TurnLimit, when above 0, ends the battle (battle.end) after that many
	// side turns; 0 plays on for ever (unless a blunder ends it: Mix).
	TurnLimit int
	// Mix is what the script plays besides orders, moves and phase ends.
	Mix Mix

	n      int // commands generated
	step   int // position in the side turn's plan
	plan   []string
	turns  int // side turns completed
	orders int // orders given
	side   int // the phasing side's index in Sides
	y      map[string]float64
	rng    uint64
	ended  bool
	by     string // the side of the last command, "" for the umpire

	awaiting  string // the id of a digital order whose events Observe has not seen
	stayPut   bool   // this side turn's order failed: no moves
	blundered bool   // an order blundered: the umpire ends the battle
}

// unitsOf are the two units each side deploys.
func unitsOf(side string) [2]string { return [2]string{side + "-u1", side + "-u2"} }

// deployY is where a side's line stands (inches from the table's near edge).
func deployY(side string) float64 {
	if side == "red" {
		return 10
	}
	return 38
}

// NewBattle returns the script of battle id in campaign camp; seed varies
// the dice (the same seed gives the same requests).
func NewBattle(camp, id string, seed uint64) *Battle {
	b := &Battle{Campaign: camp, ID: id, y: map[string]float64{}, rng: seed*0x9E3779B97F4A7C15 + 1}
	for _, s := range Sides {
		for _, u := range unitsOf(s.ID) {
			b.y[u] = deployY(s.ID)
		}
	}
	return b
}

// NewLeagueBattle is NewBattle with the LeagueMix.
func NewLeagueBattle(camp, id string, seed uint64) *Battle {
	b := NewBattle(camp, id, seed)
	b.Mix = LeagueMix
	return b
}

// Commands returns how many commands Next has returned.
func (b *Battle) Commands() int { return b.n }

// Ended reports whether the script has ended the battle; Next must not be
// called after that.
func (b *Battle) Ended() bool { return b.ended }

// Side is the side whose player gives the command Next returned last, or
// "" for the umpire's (battle.create, battle.start, battle.end). Through
// the door, that person's token sends it; the requests themselves carry
// the operator (Actor).
func (b *Battle) Side() string { return b.by }

// Setup returns how many commands of the script set the battle up
// (battle.create, two army.deploy, battle.start) before play begins.
const Setup = 4

// Step kinds of a side turn's plan.
const (
	stepOrder     = "order"
	stepMove1     = "move1"
	stepMove2     = "move2"
	stepPhaseEnd  = "phase.end"
	stepPhaseLast = "phase.end.last"
	stepFire      = "fire"
	stepCasualty  = "casualty"
)

// planTurn is the phasing side's turn: an order, its two units' moves, the
// end of the command and movement phases, the combat phase's fire and
// casualties (Mix.Combat), the end of the combat phase.
func (b *Battle) planTurn() []string {
	p := []string{stepOrder, stepMove1, stepMove2, stepPhaseEnd, stepPhaseEnd}
	if b.Mix.Combat {
		p = append(p, stepFire)
		if b.turns%2 == 0 {
			p = append(p, stepCasualty)
		}
	}
	return append(p, stepPhaseLast)
}

// Next returns the script's next command.
func (b *Battle) Next() campaign.Request {
	if b.awaiting != "" {
		panic(fmt.Sprintf("loadgen: Next before Observe was told of digital order %s's events", b.awaiting))
	}
	b.n++
	b.by = ""
	req := campaign.Request{ID: fmt.Sprintf("%s-%06d", b.ID, b.n), Principal: Actor, Campaign: b.Campaign, Battle: b.ID}
	switch b.n {
	case 1:
		req.Name = rules.CmdBattleCreate
		req.Body = mustJSON(map[string]any{"name": "Battle " + b.ID, "measurement": "in",
			"table": map[string]int{"width": 72, "depth": 48}, "first_side": Sides[0].ID})
		return req
	case 2, 3:
		b.by = Sides[b.n-2].ID
		req.Name = rules.CmdArmyDeploy
		req.Body = mustJSON(deploy(b.by))
		return req
	case 4:
		req.Name, req.Body = rules.CmdBattleStart, json.RawMessage(`{}`)
		return req
	}
	if b.Mix.Seeds && b.n <= Setup+len(Sides) {
		b.by = Sides[b.n-Setup-1].ID
		req.Name = rules.CmdDiceAddSeed
		req.Body = mustJSON(map[string]string{"player": Player(b.by), "seed": fmt.Sprintf("%s seed %d of %s", b.by, b.next()%1000000, b.ID)})
		return req
	}
	side := Sides[b.side].ID
	enemy := Sides[(b.side+1)%len(Sides)].ID
	if b.blundered || (b.TurnLimit > 0 && b.turns >= b.TurnLimit) {
		b.ended = true
		reason := "the synthetic battle is over"
		if b.blundered {
			reason = "a blunder took the units off the script's line"
		}
		req.Name, req.Body = rules.CmdBattleEnd, mustJSON(map[string]string{"reason": reason})
		return req
	}
	if b.plan == nil {
		b.plan = b.planTurn()
	}
	us := unitsOf(side)
	step := b.plan[b.step]
	b.step++
	if b.stayPut {
		for step == stepMove1 || step == stepMove2 {
			step = b.plan[b.step]
			b.step++
		}
	}
	b.by = side
	switch step {
	case stepOrder:
		b.orders++
		req.Name = rules.CmdOrderGive
		req.Body = mustJSON(map[string]any{"general": side + "-g", "units": us[:], "content": map[string]string{"action": "move"}})
		if b.Mix.Digital > 0 && b.orders%b.Mix.Digital == 0 {
			b.awaiting = req.ID
		} else {
			req.Dice = campaign.DiceInput{Values: append([]int(nil), rolls[b.next()%uint64(len(rolls))]...)}
		}
	case stepMove1, stepMove2:
		i := 0
		if step == stepMove2 {
			i = 1
		}
		u := us[i]
		// One inch forward, then back on the unit's next move.
		if b.y[u] == deployY(side) {
			b.y[u]++
		} else {
			b.y[u]--
		}
		x := 30.0
		if i == 1 {
			x = 38
		}
		req.Name = rules.CmdUnitMove
		req.Body = mustJSON(map[string]any{"unit": u, "to": map[string]float64{"x": x, "y": b.y[u]}})
	case stepFire:
		req.Name = rules.CmdUnitFire
		req.Body = mustJSON(map[string]string{"unit": us[0], "target": unitsOf(enemy)[0]})
	case stepCasualty:
		// The side that takes the loss enters it.
		b.by = enemy
		req.Name = rules.CmdCombatRecord
		req.Body = mustJSON(map[string]any{"unit": unitsOf(enemy)[0], "result": rules.ResultCasualties, "markers": 1})
	default:
		req.Name, req.Body = rules.CmdPhaseEnd, mustJSON(map[string]string{"side": side})
		if step == stepPhaseLast {
			b.step, b.plan, b.stayPut = 0, nil, false
			b.turns++
			b.side = (b.side + 1) % len(Sides)
		}
	}
	return req
}

// Observe tells the script of one event the command Next returned last
// recorded (its type and payload, as stored). It must be told of a digital
// order's order.resolved before Next is called again; other events are
// ignored, so passing every event of every command is fine.
func (b *Battle) Observe(typ string, payload json.RawMessage) error {
	if typ != rules.EvOrderResolved || b.awaiting == "" {
		return nil
	}
	var r rules.OrderResolved
	if err := json.Unmarshal(payload, &r); err != nil {
		return fmt.Errorf("loadgen: %s: %s: %w", b.awaiting, typ, err)
	}
	b.awaiting = ""
	switch r.Outcome {
	case rules.OutcomeActions:
	case rules.OutcomeBlunder:
		b.blundered = true
	default:
		b.stayPut = true
	}
	return nil
}

// next is xorshift64*: deterministic, no math/rand.
func (b *Battle) next() uint64 {
	x := b.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	b.rng = x
	return x * 2685821657736338717
}

// deploy is one side's army: a C-in-C, a brigade general and two units in
// a line across the table.
func deploy(side string) map[string]any {
	y := deployY(side)
	face := 0.0
	if side != "red" {
		face = 180
	}
	return map[string]any{"side": side,
		"c_in_c": map[string]any{"id": side + "-c", "name": side + " C-in-C", "rating": 9, "position": map[string]float64{"x": 36, "y": y - 6*sign(face)}},
		"brigades": []map[string]any{{"id": side + "-b", "name": side + " brigade", "order": "attack",
			"general": map[string]any{"id": side + "-g", "name": side + " general", "rating": 8, "position": map[string]float64{"x": 34, "y": y - 2*sign(face)}},
			"units": []map[string]any{
				{"id": side + "-u1", "type": "infantry", "position": map[string]float64{"x": 30, "y": y}, "facing": face},
				{"id": side + "-u2", "type": "light_cavalry", "position": map[string]float64{"x": 38, "y": y}, "facing": face},
			}}}}
}

func sign(face float64) float64 {
	if face == 0 {
		return 1
	}
	return -1
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("loadgen: %v", err))
	}
	return b
}
