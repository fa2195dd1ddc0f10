//go:build !linux

package ask

import "net"

// Elsewhere askd listens on askd.sock in the home (mode 0600, in a home
// only its owner can write): macOS and Windows have no abstract sockets.
var useAbstract = false

func abstractAddr(string) string { return "" }

// peer is the process at the other end; not read on these systems, where
// the socket's mode and the home's owner keep other users out.
type peer struct {
	uid, pid int
	known    bool
}

func peerOf(net.Conn) peer { return peer{} }
