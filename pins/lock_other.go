//go:build !unix && !windows

package pins

import (
	"errors"
	"os"
)

// errNoLocking is returned on platforms without a cross-process file lock:
// two proxies writing pins.json without one could lose a hold.
var errNoLocking = errors.New("pins: cross-process file locking is not supported on this platform")

func lockFile(*os.File) error { return errNoLocking }

func unlockFile(*os.File) error { return errNoLocking }
