package audit

import (
	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/rules"
)

// The audit's findings and summaries keep the format and values they are
// printed from (Finding.Words, Check.SummaryWords), so that i18n says them
// in the reader's language by their format, as it says refusals, never by
// reading their English back. A value made of words of its own (a part:
// rules.Words, or an error of events or the rules that keeps its format
// and values) is kept as rules.Words, which i18n says from its own family
// (phrase.audit.*: sub= in the catalogue's templates).

// SayValue is a value as i18n says it (sayValue): for the door, which
// says the log's broken chain and unsigned events from their words
// (events.ChainError and events.NotSignedError's Sentence).
func SayValue(v any) any { return sayValue(v) }

// sayArgs are a message's values as i18n says them (sayValue).
func sayArgs(args []any) []any {
	if len(args) == 0 {
		return nil
	}
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = sayValue(a)
	}
	return out
}

// sayValue is a value as i18n says it: an error that keeps its format and
// values (events.WordsError, events.SignatureError, events.NotSignedError's
// reason, rules.WordsError) and events.Words as rules.Words (sayPart), rules.Words with their own
// values so too; any other value as it is.
func sayValue(v any) any {
	var w events.Words
	switch x := v.(type) {
	case events.Words:
		w = x
	case rules.Words:
		return rules.Words{Format: x.Format, Args: sayArgs(x.Args)}
	case *rules.WordsError:
		return sayValue(x.Words)
	case *events.WordsError:
		w = x.Words
	case *events.SignatureError:
		w = x.Words
	case *events.NotSignedError:
		w = x.Words
	default:
		return v
	}
	if w.Format == "" {
		return v
	}
	return sayPart(w.Format, w.Args)
}

// sayPart is a part of a message printed from format and args, as
// rules.Words; a part that only prints one value made of words of its own
// ("%v" of an error: a key ring's reason wrapping a signature's) is that
// value's words.
func sayPart(format string, args []any) rules.Words {
	said := sayArgs(args)
	if (format == "%v" || format == "%s") && len(said) == 1 {
		if w, ok := said[0].(rules.Words); ok {
			return w
		}
	}
	return rules.Words{Format: format, Args: said}
}
