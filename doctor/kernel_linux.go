//go:build linux

package doctor

import (
	"os"

	"golang.org/x/sys/unix"
)

func probeKernel() kernelFacts {
	var k kernelFacts
	// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
	// returns the highest ABI the kernel offers.
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1)
	switch {
	case errno == 0:
		k.landlockABI = int(abi)
	case errno == unix.EOPNOTSUPP:
		k.landlockWhy = "built into the kernel but disabled at boot (add landlock to the lsm= parameter)"
	case errno == unix.ENOSYS:
		k.landlockWhy = "this kernel has no Landlock (Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK)"
	default:
		k.landlockWhy = errno.Error()
	}
	if _, err := os.Stat("/proc/sys/kernel/seccomp/actions_avail"); err == nil {
		k.seccomp = true
	} else {
		k.seccompWhy = "this kernel has no seccomp filter support (CONFIG_SECCOMP_FILTER)"
	}
	return k
}
