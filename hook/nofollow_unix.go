//go:build unix

package hook

import "syscall"

const noFollow = syscall.O_NOFOLLOW
