//go:build windows

package flock

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes an exclusive lock on the first byte of f, blocking until
// it is available. LockFileEx locks belong to the handle, so two opens in
// one process exclude each other as well as other processes.
func Lock(f *os.File) error {
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		return fmt.Errorf("LockFileEx %s: %w", f.Name(), err)
	}
	return nil
}

// Unlock releases a lock taken by Lock.
func Unlock(f *os.File) error {
	ol := new(windows.Overlapped)
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol); err != nil {
		return fmt.Errorf("UnlockFileEx %s: %w", f.Name(), err)
	}
	return nil
}
