//go:build darwin

package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// doorNote is what serve says of its local door on this system: nothing
// on macOS, where every connection's peer is checked.
const doorNote = ""

// peerIsOwner says whether the process at the other end of c runs as uid
// or as root (LOCAL_PEERCRED, macOS's peer credentials).
func peerIsOwner(c *net.UnixConn, uid int) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Xucred
	var cerr error
	_ = raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED) })
	return cerr == nil && cred != nil && (int(cred.Uid) == uid || cred.Uid == 0)
}
