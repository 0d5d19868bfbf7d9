//go:build unix

package bench

import (
	"syscall"
	"time"
)

// rusage is the CPU time this process has used so far, on all its threads
// (the embedded server's included): in user space, and in the kernel
// (system calls: the sockets to the server, SQLite's file writes, futexes).
func rusage() (user, system time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
