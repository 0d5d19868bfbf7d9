//go:build !linux && !darwin

package main

import (
	"net"
	"runtime"
)

// On this system the local door does not ask who connects (Windows has no
// peer credentials on an AF_UNIX socket). Who may connect is only who may
// reach the socket file: on Windows the file's ACL, inherited from the data
// folder (a folder in the user's own profile is the user's, SYSTEM's and the
// administrators' only); elsewhere the socket's 0600 in a 0700 folder.
// serve says so when it opens the door.
var doorNote = "on " + runtime.GOOS + " the door does not check who connects: any process that can open the data folder may use it as its owner; keep the data folder in your own user's folder"

// peerIsOwner accepts every connection: see doorNote.
func peerIsOwner(*net.UnixConn, int) bool { return true }
