//go:build unix

package regular

import (
	"errors"
	"os"
	"syscall"
)

const nonBlock = syscall.O_NONBLOCK

func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
}

// isLinkErr: O_NOFOLLOW on a link fails with ELOOP (EMLINK on FreeBSD).
func isLinkErr(path string, err error) bool {
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		fi, lerr := os.Lstat(path)
		return lerr == nil && fi.Mode()&os.ModeSymlink != 0
	}
	return false
}

func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
