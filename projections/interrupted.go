package projections

import "fmt"

// Interrupted is a rebuild stopped part way by its caller (Ctrl-C, a
// client that went away, a server shutting down): the file it was
// building keeps what it applied, up to log sequence At, and the next
// rebuild resumes it from there. It unwraps to the context's error
// (context.Canceled) and to the build's.
type Interrupted struct {
	// At is the log sequence the kept file reached.
	At uint64
	// Cause is the context's error, Err the build's.
	Cause, Err error
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("rebuild interrupted at log sequence %d; run it again to resume: %v", e.At, e.Err)
}

// Unwrap gives the context's error and the build's.
func (e *Interrupted) Unwrap() []error { return []error{e.Cause, e.Err} }
