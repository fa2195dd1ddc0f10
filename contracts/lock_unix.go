//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package contracts

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, blocking until it is available.
// flock belongs to the open file description, so two goroutines that
// each open the lock file exclude each other as well as other processes.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("flock %s: %w", f.Name(), err)
		}
	}
}

func unlockFile(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}
