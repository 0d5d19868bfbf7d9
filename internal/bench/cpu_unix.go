//go:build unix

package bench

import (
	"syscall"
	"time"
)

func rusage() (user, system time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// processCPU is the CPU time this process has used so far, user and
// system, on all its threads (the embedded server's included).
func processCPU() time.Duration {
	u, s := rusage()
	return u + s
}

// processSystemCPU is the part of processCPU spent in the kernel: system
// calls (the sockets to the server, SQLite's file writes, futexes).
func processSystemCPU() time.Duration {
	_, s := rusage()
	return s
}
