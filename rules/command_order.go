package rules

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clubledger/ledger/rules/geom"
)

// orderPurpose names the roll of an order: "order:<general>:<unit>+<unit>".
func orderPurpose(kind, general string, units []string) string {
	return kind + ":" + general + ":" + strings.Join(units, "+")
}

// orderPlan is an order that passed every check before the roll: who gives
// it, to whom, and the C.7 modifiers. Decide and Odds share it, so the odds
// shown can never disagree with the decision.
type orderPlan struct {
	g       commanderRef
	cinc    bool
	units   []*Unit
	mods    []Modifier
	eff     int
	special string
}

// resolve reads one roll for the plan: C.3 and C.5 for an ordinary order,
// success (roll <= effective rating) for "Follow me!" and "Steady!" (C.13,
// C.14), where 6+6 is still a blunder (C.5 reads every order roll).
func (p *orderPlan) resolve(rs *Ruleset, values []int) (outcome string, actions int) {
	cr := rs.Command
	if p.special == "" {
		return cr.Resolve(values, p.eff)
	}
	switch {
	case cr.IsBlunder(values):
		return OutcomeBlunder, 0
	case sum(values) <= p.eff:
		if p.special == SpecialFollowMe {
			return OutcomeSuccess, cr.FollowMe.Actions
		}
		return OutcomeSuccess, cr.Steady.Actions
	}
	return OutcomeFailed, 0
}

// planOrder checks order.give up to the roll (C.1, C.2, C.4, C.6-C.11,
// C.13-C.16) and computes the modifiers (C.7).
func planOrder(s *State, c *GiveOrder) (*orderPlan, *Refusal) {
	rs, m := s.Ruleset, s.Measurement
	if r := s.inProgress(); r != nil {
		return nil, r
	}
	g, ok := s.commander(c.General)
	if !ok {
		return nil, refuse("C.2", "unknown_general", "no general or commander-in-chief %q in this battle", c.General)
	}
	cinc := g.Brigade == nil
	if s.Phase != PhaseCommand || g.Side.ID != s.Phasing {
		return nil, refuse("T.2", "not_command_phase", "orders are given in the command phase of the phasing side; it is turn %d, the %s phase of %s, and %s is of %s", s.Turn, s.Phase, s.Phasing, g.ID, g.Side.ID).with("turn", s.Turn)
	}
	tb := s.TurnBook
	if tb.OrdersClosed {
		return nil, refuse("C.11", "orders_closed", "the commander-in-chief failed an order this turn: no more orders are given")
	}
	if gt := tb.peekGeneral(g.ID); gt.Done {
		switch gt.Reason {
		case "C.10":
			return nil, refuse("C.10", "general_passed", "%s gave his orders earlier this turn and the player moved on to another general: no return to him this turn", g.ID)
		case "C.13":
			return nil, refuse("C.13", "last_order_given", "%s gave \"Follow me!\", which is his last order this turn", g.ID)
		case "C.14":
			return nil, refuse("C.14", "last_order_given", "%s gave \"Steady!\", which is his last order this turn", g.ID)
		case ReasonRuling:
			return nil, refuse("C.4", "general_done", "the umpire ruled that %s gives no more orders this turn", g.ID)
		default:
			return nil, refuse("C.4", "general_failed", "%s failed an order this turn and gives no more orders", g.ID)
		}
	}
	switch c.Special {
	case "", SpecialFollowMe, SpecialSteady:
	default:
		return nil, refuse(RuleInput, "bad_special", "special order %q: want follow_me, steady or none", c.Special)
	}
	// Recipients (C.2, C.11, C.15).
	if len(c.Units) == 0 {
		return nil, refuse("C.2", "no_recipients", "an order names its recipients: no units given")
	}
	sRule := specialRule(c.Special)
	if c.Special != "" && len(c.Units) != 1 {
		return nil, refuse(sRule, "one_unit", "%q is given to one unit only; %d named", c.Special, len(c.Units)).with("units", len(c.Units))
	}
	var units []*Unit
	seen := map[string]bool{}
	for _, id := range c.Units {
		if seen[id] {
			return nil, refuse(RuleInput, "duplicate_id", "unit %s named twice", id)
		}
		seen[id] = true
		u := s.Units[id]
		if u == nil {
			return nil, refuse("C.2", "unknown_unit", "no unit %q in this battle", id)
		}
		if u.Side != g.Side.ID {
			return nil, refuse("C.2", "not_own_unit", "unit %s belongs to side %s, not to %s's side %s", id, u.Side, g.ID, g.Side.ID)
		}
		if !cinc && u.Brigade != g.Brigade.ID {
			return nil, refuse("C.2", "not_in_brigade", "%s commands brigade %s; unit %s is of brigade %s (only the commander-in-chief may order any unit, C.11)", g.ID, g.Brigade.ID, id, u.Brigade)
		}
		if !u.active() || u.Status == UnitRouted {
			return nil, refuse("T.4", "unit_inactive", "unit %s is %s and takes no orders", id, u.Status)
		}
		ut := tb.peekUnit(id)
		if ut.Failed {
			if cinc {
				return nil, refuse("C.11", "unit_failed", "unit %s already failed an order this turn: not even the commander-in-chief may order it", id)
			}
			return nil, refuse("C.4", "unit_failed", "unit %s failed an order this turn and gets no more orders", id)
		}
		if ut.Initiative {
			return nil, refuse("C.15", "acted_on_initiative", "unit %s acted on initiative this turn and may not receive a general's order", id)
		}
		units = append(units, u)
	}
	// Content (C.2, C.6, C.9, C.16). "Follow me!" needs none (C.13) and
	// "Steady!" orders nothing but the marker (C.14).
	switch c.Content.Action {
	case ActionMove, ActionCharge:
	case "":
		if c.Special == "" {
			return nil, refuse("C.2", "no_content", "an order says what to do: content action move, formation or charge")
		}
	case ActionFormation:
		for _, u := range units {
			if !rs.UnitTypes[u.Type].HasFormation(c.Content.Formation) {
				return nil, refuse("C.16", "unknown_formation", "unit %s (%s) cannot form %q (%s)", u.ID, u.Type, c.Content.Formation, strings.Join(rs.UnitTypes[u.Type].Formations, ", "))
			}
		}
	default:
		return nil, refuse("C.6", "bad_action", "order content action %q: want move, formation or charge", c.Content.Action)
	}
	if c.Content.Action == ActionCharge && c.Content.Target != "" {
		if t := s.Units[c.Content.Target]; t == nil || t.Side == g.Side.ID || !t.active() {
			return nil, refuse("C.9", "bad_target", "charge target %q is not an enemy unit on the table", c.Content.Target)
		}
	}
	for _, id := range c.OnRoad {
		if !seen[id] {
			return nil, refuse("C.7", "bad_on_road", "on_road names %q, which is not a recipient of this order", id)
		}
		if s.hasRoads() && !geom.OnRoad(s.Units[id].Base.Center, s.Terrain) {
			return nil, refuse("C.7", "not_on_road", "on_road names %s, but its centre %s is on no road of this battle's terrain", id, s.Units[id].Base.Center)
		}
	}
	// C.8: a group is of one brigade, connected within the group distance.
	if len(units) > 1 {
		if r := checkGroup(units, rs.Command.GroupDistance.For(m), m); r != nil {
			return nil, r
		}
	}
	// C.13, C.14: the unit within range of the general; Steady never takes
	// the last marker.
	if c.Special != "" {
		u := units[0]
		so := rs.Command.FollowMe
		if c.Special == SpecialSteady {
			so = rs.Command.Steady
		}
		rng := so.Range.For(m)
		if d := u.Base.DistanceToPoint(g.Position); d > rng+geom.Eps {
			return nil, refuse(sRule, "out_of_range", "%q needs the unit within %s of the general: %s is %s from %s", c.Special, fmtLen(rng, m), u.ID, fmtMeasured(d, rng, m), g.ID).
				with("distance", d, "range", rng)
		}
		if c.Special == SpecialSteady && u.Markers-so.Markers < 1 {
			return nil, refuse("C.14", "last_marker", "\"Steady!\" removes %s but never the last one: unit %s has %s", plural(so.Markers, "casualty marker", "casualty markers"), u.ID, plural(u.Markers, "marker", "markers")).
				with("markers", u.Markers)
		}
	}
	p := &orderPlan{g: g, cinc: cinc, units: units, special: c.Special}
	p.mods = orderModifiers(s, g, units, c.OnRoad)
	p.eff = g.Rating
	for _, md := range p.mods {
		p.eff += md.Value
	}
	return p, nil
}

// decideOrder judges order.give (C.1-C.14): the checks of planOrder, the
// roll and its reading (C.3, C.5, C.13, C.14), and a blunder's execution.
func decideOrder(s *State, c *GiveOrder, dice Dice) ([]Event, *Refusal, error) {
	rs := s.Ruleset
	p, r := planOrder(s, c)
	if r != nil {
		return nil, r, nil
	}
	g, cinc, units, tb := p.g, p.cinc, p.units, s.TurnBook
	// The roll (C.2).
	counter := s.RollCounter + 1
	spec := rs.Command.OrderRoll
	kind := "order"
	if c.Special != "" {
		kind = c.Special
	}
	purpose := orderPurpose(kind, g.ID, c.Units)
	rolled, err := roll(dice, RollRequest{Counter: counter, Purpose: purpose, Count: spec.Count, Sides: spec.Sides})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", CmdOrderGive, err)
	}
	evs := []Event{newDiceRolled(s, counter, purpose, spec, rolled, CmdOrderGive)}
	outcome, actions := p.resolve(rs, rolled.Values)
	res := &OrderResolved{
		Turn: s.Turn, Side: g.Side.ID, General: g.ID, CInC: cinc, Units: slices.Clone(c.Units), Content: c.Content,
		RollCounter: counter, Values: rolled.Values, Total: sum(rolled.Values), BaseRating: g.Rating,
		Modifiers: p.mods, Effective: p.eff, Outcome: outcome, Actions: actions, Special: c.Special,
	}
	if res.Modifiers == nil {
		res.Modifiers = []Modifier{}
	}
	if tb.CurrentGeneral != "" && tb.CurrentGeneral != g.ID {
		res.ClosedGeneral = tb.CurrentGeneral
	}
	if !tb.InitiativeClosed {
		res.InitiativeClosed = true
		for _, id := range slices.Sorted(maps.Keys(tb.Units)) {
			if ut := tb.Units[id]; ut != nil && ut.Initiative && ut.ActionsLeft > 0 {
				res.InitiativeForfeited = append(res.InitiativeForfeited, id)
			}
		}
	}
	if outcome == OutcomeSuccess {
		res.Attached = units[0].ID
		if c.Special == SpecialSteady {
			res.MarkersRemoved = rs.Command.Steady.Markers
		}
	}
	var blunderEvs []Event
	if outcome == OutcomeBlunder {
		bt := rs.Command.Blunder.Table
		bc := counter + 1
		bp := orderPurpose("blunder", g.ID, c.Units)
		br, err := roll(dice, RollRequest{Counter: bc, Purpose: bp, Count: bt.Dice.Count, Sides: bt.Dice.Sides})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", CmdOrderGive, err)
		}
		evs = append(evs, newDiceRolled(s, bc, bp, bt.Dice, br, CmdOrderGive))
		entry, _ := bt.Lookup(sum(br.Values)) // Validate guarantees an entry
		res.Blunder = &BlunderResult{Counter: bc, Values: br.Values, Roll: sum(br.Values), Result: entry.Result, Doc: entry.Doc}
		blunderEvs = carryOutBlunder(s, units, res.Blunder)
	}
	if outcome != OutcomeActions || c.Special != "" {
		res.GeneralDone = true
		res.OrdersClosed = cinc && outcome != OutcomeActions && outcome != OutcomeSuccess
	}
	if outcome == OutcomeFailed && rs.Command.FailedMoveActions > 0 {
		for _, u := range units {
			if slices.Contains(rs.Command.FailedMoveFormations, u.Formation) {
				res.FailedMoves = append(res.FailedMoves, u.ID)
			}
		}
		if len(res.FailedMoves) > 0 {
			res.FailedMoveActions = rs.Command.FailedMoveActions
		}
	}
	res.Summary = orderSummary(res)
	evs = append(evs, res)
	return append(evs, blunderEvs...), nil, nil
}

// checkGroup enforces C.8: one brigade, and every unit within d of another,
// the whole forming one connected group.
func checkGroup(units []*Unit, d float64, m string) *Refusal {
	for _, u := range units[1:] {
		if u.Brigade != units[0].Brigade {
			return refuse("C.8", "group_brigades", "one order for several units only within one brigade: %s is of %s, %s of %s", units[0].ID, units[0].Brigade, u.ID, u.Brigade)
		}
	}
	in := make([]bool, len(units))
	in[0] = true
	queue := []int{0}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for j := range units {
			if !in[j] && geom.Distance(units[i].Base, units[j].Base) <= d+geom.Eps {
				in[j] = true
				queue = append(queue, j)
			}
		}
	}
	for j, ok := range in {
		if !ok {
			// Report the nearest gap of the stray unit to the group.
			near := math.Inf(1)
			for i := range units {
				if in[i] {
					near = math.Min(near, geom.Distance(units[i].Base, units[j].Base))
				}
			}
			return refuse("C.8", "group_apart", "one order for several units only if each is within %s of another: %s is %s from the nearest of the group", fmtLen(d, m), units[j].ID, fmtMeasured(near, d, m)).
				with("distance", near, "limit", d)
		}
	}
	return nil
}

// orderModifiers computes the C.7 modifiers for an order. For a group each
// modifier is taken at its least favourable (house default): distance to the
// farthest unit, the enemy penalty if any unit has an enemy near, a formation
// bonus only if all units qualify.
func orderModifiers(s *State, g commanderRef, units []*Unit, onRoad []string) []Modifier {
	rs, m := s.Ruleset, s.Measurement
	cm := rs.Command.Modifiers
	var mods []Modifier
	// Distance: full steps from the general to the nearest point of the base.
	far, farID := -1.0, ""
	for _, u := range units {
		if d := u.Base.DistanceToPoint(g.Position); d > far {
			far, farID = d, u.ID
		}
	}
	step := cm.Distance.Step.For(m)
	if steps := int(math.Floor((far + geom.Eps) / step)); steps > 0 && cm.Distance.Value != 0 {
		mods = append(mods, Modifier{Rule: "C.7", Value: steps * cm.Distance.Value,
			Words: words("general %s from %s: %s of %s", fmtMeasured(far, step, m), farID, plural(steps, "full step", "full steps"), fmtLen(step, m)),
			Kind:  ModDistance, Unit: farID, Distance: round6(far), Step: step, Steps: steps})
	}
	// Enemy near.
	rng := cm.EnemyNear.Range().For(m)
	near, nearU, nearE := math.Inf(1), "", ""
	for _, u := range units {
		for _, id := range s.sortedUnitIDs() {
			e := s.Units[id]
			if !e.active() || e.Side == u.Side {
				continue
			}
			if d := geom.Distance(u.Base, e.Base); d < near {
				near, nearU, nearE = d, u.ID, e.ID
			}
		}
	}
	if near <= rng+geom.Eps && cm.EnemyNear.Value != 0 {
		variant := ""
		if cm.EnemyNear.UseVariant {
			variant = " (ЧП variant)"
		}
		mods = append(mods, Modifier{Rule: "C.7", Value: cm.EnemyNear.Value,
			Words: words("enemy %s %s from %s, within %s%s", nearE, fmtMeasured(near, rng, m), nearU, fmtLen(rng, m), variant),
			Kind:  ModEnemyNear, Unit: nearU, Enemy: nearE, Distance: round6(near), Range: rng, Variant: cm.EnemyNear.UseVariant})
	}
	all := func(fs []string, also func(*Unit) bool) bool {
		for _, u := range units {
			if !slices.Contains(fs, u.Formation) || (also != nil && !also(u)) {
				return false
			}
		}
		return true
	}
	if ac := cm.AttackColumn; ac.Value != 0 && all(ac.Formations, nil) && !slices.Contains(ac.ExcludedEras, rs.Era) {
		mods = append(mods, Modifier{Rule: "C.7", Value: ac.Value, Words: words("in %s", strings.Join(ac.Formations, "/")), Kind: ModAttackColumn, Formations: slices.Clone(ac.Formations)})
	}
	roadWhy := RoadDeclared
	declared := func(u *Unit) bool { return slices.Contains(onRoad, u.ID) }
	if s.hasRoads() {
		// The terrain decides: a unit is on a road when its centre is.
		roadWhy = RoadTerrain
		declared = func(u *Unit) bool { return geom.OnRoad(u.Base.Center, s.Terrain) }
	}
	if on := cm.ColumnOnRoad; on.Value != 0 && all(on.Formations, declared) {
		mods = append(mods, Modifier{Rule: "C.7", Value: on.Value, Words: words("in %s on a road (%s)", strings.Join(on.Formations, "/"), roadWhy),
			Kind: ModColumnOnRoad, Formations: slices.Clone(on.Formations), Road: roadWhy})
	} else if off := cm.ColumnOffRoad; off.Value != 0 && all(off.Formations, nil) {
		mods = append(mods, Modifier{Rule: "C.7", Value: off.Value, Words: words("in %s off a road", strings.Join(off.Formations, "/")),
			Kind: ModColumnOffRoad, Formations: slices.Clone(off.Formations)})
	}
	for i := range mods {
		mods[i].Reason = mods[i].Words.String()
	}
	return mods
}

func signed(v int) string {
	if v >= 0 {
		return "+" + strconv.Itoa(v)
	}
	return strconv.Itoa(v)
}

// orderSummary renders the decision for the table:
// `rating 8; C.7: general 25.3" from u1: 2 full steps of 12": -2; effective rating 6; rolled 7 (3+4): failed`.
func orderSummary(r *OrderResolved) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rating %d", r.BaseRating)
	for _, md := range r.Modifiers {
		fmt.Fprintf(&b, "; %s: %s: %s", md.Rule, md.Reason, signed(md.Value))
	}
	faces := make([]string, len(r.Values))
	for i, v := range r.Values {
		faces[i] = strconv.Itoa(v)
	}
	fmt.Fprintf(&b, "; effective rating %d; rolled %d (%s): ", r.Effective, r.Total, strings.Join(faces, "+"))
	if r.Special != "" {
		fmt.Fprintf(&b, "%s ", specialName(r.Special))
	}
	switch r.Outcome {
	case OutcomeSuccess:
		fmt.Fprintf(&b, "success (roll at most %d): %s joins %s", r.Effective, r.General, r.Attached)
		if r.Actions > 0 {
			fmt.Fprintf(&b, ", which makes %s (C.13)", plural(r.Actions, "action", "actions"))
		}
		if r.MarkersRemoved > 0 {
			fmt.Fprintf(&b, ", which removes %s (C.14)", plural(r.MarkersRemoved, "casualty marker", "casualty markers"))
		}
	case OutcomeActions:
		fmt.Fprintf(&b, "C.3: %s", plural(r.Actions, "action", "actions"))
	case OutcomeBlunder:
		b.WriteString("C.5: blunder")
		if r.Blunder != nil {
			fmt.Fprintf(&b, ", blunder table %d: %s", r.Blunder.Roll, r.Blunder.Result)
		}
	default:
		rule := "C.3"
		if r.Special != "" {
			rule = specialRule(r.Special)
		}
		fmt.Fprintf(&b, "%s: failed (roll above %d)", rule, r.Effective)
	}
	if r.OrdersClosed {
		b.WriteString("; C.11: no more orders this turn")
	} else if r.GeneralDone && r.Special != "" {
		fmt.Fprintf(&b, "; %s: it was %s's last order this turn", specialRule(r.Special), r.General)
	} else if r.GeneralDone {
		b.WriteString("; C.4: " + r.General + " gives no more orders this turn")
	}
	if len(r.FailedMoves) > 0 {
		fmt.Fprintf(&b, "; C.12: %s may still make one move", strings.Join(r.FailedMoves, ", "))
	}
	if len(r.InitiativeForfeited) > 0 {
		fmt.Fprintf(&b, "; C.15: initiative is over, %s lose the initiative action not carried out", strings.Join(r.InitiativeForfeited, ", "))
	}
	return b.String()
}

func specialName(sp string) string {
	switch sp {
	case SpecialFollowMe:
		return `"Follow me!"`
	case SpecialSteady:
		return `"Steady!"`
	}
	return sp
}

// hasRoads reports whether the battle's terrain has a road piece: then the
// terrain, not a declaration, says who is on a road (C.7).
func (s *State) hasRoads() bool {
	for _, t := range s.Terrain {
		if t.Kind.Has(geom.Road) {
			return true
		}
	}
	return false
}
