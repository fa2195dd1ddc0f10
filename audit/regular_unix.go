//go:build unix

package audit

import "syscall"

const nonBlock = syscall.O_NONBLOCK
