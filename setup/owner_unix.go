//go:build unix

package setup

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// rootOwned checks that path, and every directory above it, is owned by
// owner (root: 0) and writable by no one else (a sticky directory is
// fine, as /tmp's entries are their owner's).
func rootOwned(path string, owner int) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for p := real; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("%s: owner unknown", p)
		}
		sticky := fi.IsDir() && fi.Mode()&fs.ModeSticky != 0
		switch {
		case int(st.Uid) != owner && !(p != real && st.Uid == 0):
			return fmt.Errorf("%s is owned by uid %d, not root", p, st.Uid)
		case fi.Mode().Perm()&0o022 != 0 && !sticky:
			return fmt.Errorf("%s is writable by others (mode %04o)", p, fi.Mode().Perm())
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}
