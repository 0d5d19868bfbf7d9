//go:build !unix

package bench

import "time"

// processCPU is not measured here: the figures that need it are left out.
func processCPU() time.Duration { return 0 }

// processSystemCPU is not measured here either.
func processSystemCPU() time.Duration { return 0 }
