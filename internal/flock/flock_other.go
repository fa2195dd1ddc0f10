//go:build !unix && !windows

package flock

import (
	"errors"
	"os"
)

// errNoLocking is returned on platforms without a cross-process file lock;
// appending without one could fork the chain, so it is refused.
var errNoLocking = errors.New("cross-process file locking is not supported on this platform")

func Lock(*os.File) error { return errNoLocking }

func Unlock(*os.File) error { return errNoLocking }
