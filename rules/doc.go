// Package rules is the battle domain of the campaign ledger: the ruleset,
// the battle State, the Commands players give, the Events that record what
// happened, and the two functions that everything else builds on:
//
//	Decide(state, command, dice) -> events, or a *Refusal citing a rule
//	Apply(state, event)          -> the next state; never fails
//
// A battle's state is NewState() folded with Apply over the battle's events,
// from battle.created on. The service loads that state, calls Decide, appends
// the events and applies them; a projection or a reviewer replays the same
// events and gets the same state (the replay invariant, tested).
//
// The package is pure (STYLE.md): standard library, go.yaml.in/yaml/v3 and
// rules/geom only; no clock, no randomness, no goroutines, no I/O. Dice come
// in through the Dice interface: Decide asks for each roll with a battle-wide
// counter and a purpose, and records the answer as a dice.rolled event before
// the event it feeds, so a replay reads the rolls and never rolls again.
//
// Every number of the rule texts lives in the ruleset (rulesets/default.yaml,
// embedded), not in Go: C.17 move distances, the C.3 result table, the C.7
// modifiers, the 1" gap of K.2, and the house defaults that fill what the
// texts leave unpublished. A campaign overrides them with a YAML overlay at
// battle.create; the resolved ruleset is recorded in battle.created, so a
// battle is always replayed under the rules it was played with. The file's
// fields are documented in docs/ruleset.md.
//
// Rule ids (C.3, K.2, T.1...) are those of docs/rules.md (a copy of the club's digest). A Refusal carries
// the rule, a stable code, a message readable at the table with the numbers
// ("C.17: infantry moves 6\" per action; 1 action allows 6.0\", this move is
// 6.1\": refused") and the same numbers for programs. Refusals that are not
// about a numbered rule cite RuleInput (malformed command) or RuleBattle
// (the battle's life cycle).
//
// Implemented so far: battle set-up and deployment, the turn and phase
// sequence (T.1-T.5) and the whole command phase C.1-C.17 except the
// generals' own movement (C.1 step 3): initiative (initiative.take,
// initiative.decline), generals' orders and "Follow me!"/"Steady!"
// (order.give, with Odds for the exact chances), blunders carried out by the
// engine, and the actions: unit.move, unit.reform, unit.charge (into contact
// only along a straight path the engine verifies; otherwise pending for the
// charge rules K.4-K.10); terrain (impassable, difficult, road,
// blocks-sight) recorded at battle.create; every move as a path of legs and
// turns on the spot, priced with turns and difficult terrain and judged
// against K.1-K.3, M.7 and M.10 (path.go); the movement phase M.1-M.17: the
// phasing side first and movement.hand_over, generals moving, joining and
// leaving units, tactical marches (march.declare, unit.march, brigade.order
// with the brigadier's initiative), re-forming the disordered, the formation
// test, and under the movement_table option the M.3 normal move and M.4
// formation changes; and the combat outcomes entered at the table (T.4:
// unit.fire, combat.record with M.17 retreats). docs/rules-coverage.md maps
// each rule to its code and tests.
package rules
