//go:build windows

package contracts

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// LockFileEx and UnlockFileEx are not in package syscall; they are called
// from kernel32 directly.
var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const lockfileExclusiveLock = 0x2

// lockFile takes an exclusive lock on the first byte of f, blocking until
// it is available. The lock belongs to the handle, so two goroutines that
// each open the lock file exclude each other as well as other processes.
func lockFile(f *os.File) error {
	ol := new(syscall.Overlapped)
	r, _, err := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock, 0, 1, 0, uintptr(unsafe.Pointer(ol)))
	if r == 0 {
		return fmt.Errorf("LockFileEx %s: %w", f.Name(), err)
	}
	return nil
}

func unlockFile(f *os.File) error {
	ol := new(syscall.Overlapped)
	r, _, err := procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(ol)))
	if r == 0 {
		return fmt.Errorf("UnlockFileEx %s: %w", f.Name(), err)
	}
	return nil
}
