package events

import "fmt"

// Words are the format and values a message of this package is printed
// from (fmt.Sprintf(Format, Args...)): an error's reason keeps them beside
// its text, so that the reader's language can say it again from them
// (the audit and the door hand them to i18n as rules.Words), never by
// reading the English back.
type Words struct {
	Format string
	Args   []any
}

func (w Words) String() string { return fmt.Sprintf(w.Format, w.Args...) }

// WordsError is an error printed from its Words. The errors among its
// values are wrapped (errors.Is and errors.As see them).
type WordsError struct{ Words Words }

func (e *WordsError) Error() string { return e.Words.String() }

func (e *WordsError) Unwrap() []error {
	var out []error
	for _, a := range e.Words.Args {
		if err, ok := a.(error); ok {
			out = append(out, err)
		}
	}
	return out
}

// wordsError is a WordsError printed from format and args.
func wordsError(format string, args ...any) error {
	return &WordsError{Words: Words{Format: format, Args: args}}
}
