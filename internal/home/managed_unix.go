//go:build unix

package home

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

func checkManaged(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeError{Path: path, Why: "is the managed policy and is a symbolic link: Airlock does not follow one there",
			Fix: "replace the link with the file (as root)"}
	}
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is the managed policy and is not a regular file but " + kind(fi), Fix: "replace it with the policy file (as root)"}
	}
	for p, info := path, fi; ; {
		st, _ := info.Sys().(*syscall.Stat_t)
		if st == nil {
			return nil
		}
		what := "holds the managed policy"
		if p == path {
			what = "is the managed policy"
		}
		if st.Uid != 0 {
			return &UnsafeError{Path: p, Why: what + " and is owned by " + (checker{uid: -1}).who(int(st.Uid)) + ", not root: its owner can change or remove what the organisation set",
				Fix: "as root: chown root " + quote(p)}
		}
		// a sticky directory others can write is fine above an entry root
		// owns: only root can rename that entry away (as the home's check)
		if st.Mode&0o022 != 0 && (p == path || st.Mode&syscall.S_ISVTX == 0) {
			return &UnsafeError{Path: p, Why: what + " and is writable by others than root (mode " + mode(info, st) + ")",
				Fix: "as root: chmod go-w " + quote(p)}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		var err error
		p = parent
		if info, err = defaultChecker().lstat(p); err != nil {
			return &UnsafeError{Path: p, Why: "holds the managed policy and cannot be checked: " + err.Error(), Fix: "check the directory (as root)"}
		}
	}
}
