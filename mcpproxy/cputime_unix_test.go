//go:build unix

package mcpproxy

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time this process has used, user and system: on a
// machine shared with other work it measures what a benchmark costs, where
// the wall clock also counts the time it waited for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
