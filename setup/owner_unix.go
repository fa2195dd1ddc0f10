//go:build unix

package setup

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives tmp the owner of the file it replaces, when the process
// may (root editing another user's config); otherwise tmp keeps ours.
func keepOwner(tmp *os.File, old fs.FileInfo) {
	if old == nil {
		return
	}
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Getuid() && int(st.Gid) == os.Getgid() {
		return
	}
	_ = tmp.Chown(int(st.Uid), int(st.Gid)) // not permitted for most users: the mode still holds
}

// linkCount is how many hard links the file has (0 when unknown).
func linkCount(fi fs.FileInfo) uint64 {
	if fi == nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // Nlink is narrower on some systems
	}
	return 0
}
