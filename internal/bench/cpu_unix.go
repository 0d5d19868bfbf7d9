//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used so far, user and
// system, on all its threads (the embedded server's included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
