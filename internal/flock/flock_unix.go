//go:build unix

// Package flock takes exclusive cross-process locks on open files: the
// audit log, pins and footprints each serialise their writers with one.
package flock

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes an exclusive lock on f, blocking until it is available.
// flock locks belong to the open file description, so two opens in one
// process exclude each other as well as other processes.
func Lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("flock %s: %w", f.Name(), err)
		}
	}
}

// Unlock releases a lock taken by Lock.
func Unlock(f *os.File) error {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}
