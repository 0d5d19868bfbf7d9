//go:build unix

package jetstream

import "golang.org/x/sys/unix"

// diskSpace says how many bytes the disk holding dir has free for this
// process, and in all; ok is false when it cannot tell.
func diskSpace(dir string) (free, size uint64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), true
}
