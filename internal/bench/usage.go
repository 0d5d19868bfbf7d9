package bench

import (
	"runtime/metrics"
	"time"
)

// usage is what the process has used so far: its CPU time, user and
// system (rusage), of which in the kernel, the Go runtime's estimate of its
// garbage collector's CPU, and the objects and bytes allocated on the heap.
type usage struct {
	cpu, system time.Duration
	gc          float64 // seconds
	objects     uint64
	bytes       uint64
}

var usageMetrics = []string{"/cpu/classes/gc/total:cpu-seconds", "/gc/heap/allocs:objects", "/gc/heap/allocs:bytes"}

func processUsage() usage {
	s := make([]metrics.Sample, len(usageMetrics))
	for i, name := range usageMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	user, system := rusage()
	u := usage{cpu: user + system, system: system}
	if s[0].Value.Kind() == metrics.KindFloat64 {
		u.gc = s[0].Value.Float64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		u.objects = s[1].Value.Uint64()
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		u.bytes = s[2].Value.Uint64()
	}
	return u
}

// Spent is what one measured run used per event: CPU time in microseconds
// (the process's, all threads, the embedded server's included), of which
// in the kernel and in the garbage collector (the Go runtime's estimate),
// and heap allocations (objects and bytes). CPU and System are zero where
// they are not measured (not on Unix).
type Spent struct {
	CPU     float64 `json:"cpu_us_per_event"`
	Cores   float64 `json:"cores"`
	System  float64 `json:"system_us_per_event"`
	GC      float64 `json:"gc_us_per_event"`
	Objects float64 `json:"allocs_per_event"`
	Bytes   float64 `json:"alloc_bytes_per_event"`
}

// spentSince is what was used from u to now over n events taking elapsed.
func spentSince(u usage, n uint64, elapsed time.Duration) Spent {
	now := processUsage()
	used := now.cpu - u.cpu
	per := func(x float64) float64 { return x / float64(n) }
	return Spent{
		CPU:     perEvent(used, n),
		Cores:   used.Seconds() / elapsed.Seconds(),
		System:  perEvent(now.system-u.system, n),
		GC:      per((now.gc - u.gc) * 1e6),
		Objects: per(float64(now.objects - u.objects)),
		Bytes:   per(float64(now.bytes - u.bytes)),
	}
}
