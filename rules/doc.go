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
// The package is pure (docs/architecture.md; TestPurity): standard library,
// go.yaml.in/yaml/v3, go-json-experiment/json/v1 (encoding/json's
// semantics, faster), rules/geom and rules/dice only; no clock, no randomness, no goroutines, no I/O. Dice come
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
// Rule ids (C.3, K.2, T.1...) are those of docs/rules.md (a copy of the
// club's digest). A Refusal carries the rule, a stable code, a message
// readable at the table with the numbers ("C.17: infantry moves 6\" per
// action, 6.0\" in 1 action; this move is 6.1\": refused") and the same
// numbers for programs. Refusals that are not about a numbered rule cite
// RuleInput (malformed command) or RuleBattle (the battle's life cycle).
//
// The files follow the chapters of docs/rules.md. Each chapter keeps its
// commands, its events, its decisions and how its events apply and read
// together, split by concern where a file would pass about 500 lines:
//
//	battle*.go    the battle's life cycle and turn sequence (T)
//	command*.go   the command phase (C): orders and their odds, initiative,
//	              blunders, what every action checks
//	movement*.go  moves, formation changes and generals (C.16, C.17, M.1-M.10,
//	              K.1-K.3): paths, stopping 1" short (C.9), the formation test
//	march*.go     tactical marches (M.11-M.15)
//	charge*.go    charges (K.4-K.10)
//	combat.go     combat outcomes entered at the table (T.4, M.17)
//	flank*.go     flank marches (F), F.8's edge in flank_edge.go
//	victory.go    victory points and objectives (V)
//	dispute*.go   retractions, disputes and corrections
//	dice.go       rolls and the digital dice's seed periods
//
// registry.go registers every command and event in one table: its name, how
// it decodes, the decision or the apply and describe of its chapter.
// engine.go holds Decide, Apply and Describe, which look them up; state.go
// the State; ruleset.go and ruleset_validate.go the ruleset and its checks,
// table by table; refusal.go and common.go what every chapter shares.
// docs/rules-coverage.md maps each rule to its code and tests.
package rules
