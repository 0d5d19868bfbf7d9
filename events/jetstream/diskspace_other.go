//go:build !unix

package jetstream

// diskSpace cannot tell free space on this system: the store watch then
// names a failed write by what the store said, without the disk's figures.
func diskSpace(string) (free, size uint64, ok bool) { return 0, 0, false }
