//go:build linux

package ask

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"path/filepath"
	"strconv"
	"syscall"
)

// On Linux askd listens on an abstract UNIX socket, not askd.sock in the
// home: Landlock (up to ABI 8) cannot mediate connecting to a pathname
// socket, but its abstract-socket scope (ABI 6) keeps every sandboxed
// process from connecting to an abstract socket bound outside its domain.
// Tests of the pathname transport (darwin's) switch this off.
var useAbstract = true

// abstractAddr is askd's abstract name for this home and user ("@" is Go's
// spelling of the leading NUL): a hash of the uid and the home's path, so
// two homes, or two users, never share one askd.
func abstractAddr(home string) string {
	h := sha256.Sum256([]byte(strconv.Itoa(syscall.Getuid()) + "\x00" + filepath.Clean(home)))
	return "@airlock-askd-" + hex.EncodeToString(h[:16])
}

// peer is the process at the other end of a UNIX socket, from the
// kernel's SO_PEERCRED (its credentials when it connected or listened).
type peer struct {
	uid, pid int
	known    bool
}

func peerOf(c net.Conn) peer {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return peer{}
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return peer{}
	}
	var p peer
	_ = raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err == nil {
			p = peer{uid: int(cred.Uid), pid: int(cred.Pid), known: true}
		}
	})
	return p
}
