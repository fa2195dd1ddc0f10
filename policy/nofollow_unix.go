//go:build unix

package policy

import "syscall"

// noFollow refuses a link as the last component of an open.
const noFollow = syscall.O_NOFOLLOW
