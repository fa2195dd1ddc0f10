//go:build !unix && !windows

package audit

import (
	"errors"
	"os"
)

// errNoLocking is returned on platforms without a cross-process file lock;
// appending without one could fork the chain, so it is refused.
var errNoLocking = errors.New("audit: cross-process file locking is not supported on this platform")

func lockFile(*os.File) error { return errNoLocking }

func unlockFile(*os.File) error { return errNoLocking }
