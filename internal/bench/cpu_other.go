//go:build !unix

package bench

import "time"

// rusage is not measured here: the figures that need it are left out.
func rusage() (user, system time.Duration) { return 0, 0 }
