//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package contracts

import (
	"errors"
	"os"
)

// errNoLocking is returned where no cross-process file lock is available:
// two observers merging without one would lose calls, so it is refused.
var errNoLocking = errors.New("contracts: cross-process file locking is not supported on this platform")

func lockFile(*os.File) error { return errNoLocking }

func unlockFile(*os.File) error { return errNoLocking }
