//go:build !unix

package regular

import (
	"errors"
	"os"
)

const nonBlock = 0

var errLink = errors.New("symbolic link")

// openNoFollow has no O_NOFOLLOW to lean on: it refuses a link it sees
// first (a race with whoever makes one remains; see docs/home.md).
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, errLink
	}
	return os.OpenFile(path, flag, perm)
}

func isLinkErr(_ string, err error) bool { return errors.Is(err, errLink) }

func links(os.FileInfo) uint64 { return 1 }
