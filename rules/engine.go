// Decide, Apply and Describe: the three things the engine does with the
// commands and events of every chapter (registry.go lists them).

package rules

// Decide judges cmd against s and returns the events that record what
// happened, or an error: a *Refusal when the rules do not allow the command,
// or a wrapped dice error (ErrNoDice, ErrBadRoll, the source's own) when a
// roll could not be had. It never changes s. Every roll it needs is asked of
// dice and recorded as a dice.rolled event before the event it feeds.
func Decide(s *State, cmd Command, dice Dice) ([]Event, error) {
	if s == nil {
		s = NewState()
	}
	if cmd == nil {
		return nil, refuse(RuleInput, "no_command", "no command")
	}
	if _, ok := cmd.(*CreateBattle); !ok {
		if s.Status == StatusNew || s.Ruleset == nil {
			return nil, refuse(RuleBattle, "no_battle", "no battle has been created yet")
		}
		if s.Status == StatusEnded && !IsDisputeCommand(cmd.CommandName()) {
			return nil, refuse("T.5", "battle_ended", "the battle has ended (%s)", s.EndReason)
		}
	}
	en, ok := commandIndex[cmd.CommandName()]
	if !ok {
		return nil, refuse(RuleInput, "unknown_command", "unknown command %q", cmd.CommandName())
	}
	evs, r, err := en.decide(s, cmd, dice)
	if err != nil {
		return nil, err
	}
	if r != nil {
		return nil, r
	}
	return evs, nil
}

// Apply folds one event into s. It never fails and never validates: Decide
// judged the command, the event is a fact. Events that do not fit s (as a
// fuzzer may send) change what they can and are otherwise ignored; types
// the registry does not know are ignored.
func Apply(s *State, e Event) {
	if s == nil || e == nil {
		return
	}
	if s.Units == nil {
		s.Units = map[string]*Unit{}
	}
	if en, ok := eventIndex[e.EventType()]; ok {
		en.apply(s, e)
	}
}

// Describe says in one line what an event records, for the CLI's tables,
// the event log and the timeline. Distances are in the battle's unit. An
// event the registry cannot describe is named by its type.
func Describe(e Event) string {
	if e == nil {
		return ""
	}
	if en, ok := eventIndex[e.EventType()]; ok {
		if d := en.describe(e); d != "" {
			return d
		}
	}
	return e.EventType()
}
