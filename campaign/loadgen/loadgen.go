// Package loadgen generates synthetic but valid campaigns as the commands a
// club would send: a campaign, its battles set up and deployed, then turn
// after turn of orders with physical dice, moves and phase ends. The
// commands are campaign.Requests, so they go through the whole command path
// (decode, decide, append, project) like a player's; nothing is written to
// the log behind the service's back.
//
// Each Battle is a script that the rules accept in the order Next returns
// it, whatever the other battles do: the dice are chosen to succeed and the
// units step one inch forward and back. Its command ids are stable (the
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

// Battle is the command script of one battle.
type Battle struct {
	// Campaign and ID address the battle.
	Campaign, ID string
	// TurnLimit, when above 0, ends the battle (battle.end) after that many
	// side turns; 0 plays on for ever.
	TurnLimit int

	n     int // commands generated
	step  int // position in the side turn's script
	turns int // side turns completed
	side  int // the phasing side's index in Sides
	y     map[string]float64
	rng   uint64
	ended bool
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

// Commands returns how many commands Next has returned.
func (b *Battle) Commands() int { return b.n }

// Ended reports whether the script has ended the battle; Next must not be
// called after that.
func (b *Battle) Ended() bool { return b.ended }

// Setup returns how many commands of the script set the battle up
// (battle.create, two army.deploy, battle.start) before play begins.
const Setup = 4

// Next returns the script's next command.
func (b *Battle) Next() campaign.Request {
	b.n++
	req := campaign.Request{ID: fmt.Sprintf("%s-%06d", b.ID, b.n), Principal: Actor, Campaign: b.Campaign, Battle: b.ID}
	switch b.n {
	case 1:
		req.Name = rules.CmdBattleCreate
		req.Body = mustJSON(map[string]any{"name": "Battle " + b.ID, "measurement": "in",
			"table": map[string]int{"width": 72, "depth": 48}, "first_side": Sides[0].ID})
		return req
	case 2, 3:
		req.Name = rules.CmdArmyDeploy
		req.Body = mustJSON(deploy(Sides[b.n-2].ID))
		return req
	case 4:
		req.Name, req.Body = rules.CmdBattleStart, json.RawMessage(`{}`)
		return req
	}
	side := Sides[b.side].ID
	if b.TurnLimit > 0 && b.turns >= b.TurnLimit {
		b.ended = true
		req.Name, req.Body = rules.CmdBattleEnd, mustJSON(map[string]string{"reason": "the synthetic battle is over"})
		return req
	}
	us := unitsOf(side)
	step := b.step
	b.step++
	switch step {
	case 0:
		req.Name = rules.CmdOrderGive
		req.Body = mustJSON(map[string]any{"general": side + "-g", "units": us[:], "content": map[string]string{"action": "move"}})
		req.Dice = campaign.DiceInput{Values: append([]int(nil), rolls[b.next()%uint64(len(rolls))]...)}
	case 1, 2:
		u := us[step-1]
		// One inch forward, then back on the unit's next move.
		if b.y[u] == deployY(side) {
			b.y[u]++
		} else {
			b.y[u]--
		}
		x := 30.0
		if step == 2 {
			x = 38
		}
		req.Name = rules.CmdUnitMove
		req.Body = mustJSON(map[string]any{"unit": u, "to": map[string]float64{"x": x, "y": b.y[u]}})
	default:
		req.Name, req.Body = rules.CmdPhaseEnd, mustJSON(map[string]string{"side": side})
		if step == 5 {
			b.step = 0
			b.turns++
			b.side = (b.side + 1) % len(Sides)
		}
	}
	return req
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
