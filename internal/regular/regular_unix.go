//go:build unix

package regular

import "syscall"

const nonBlock = syscall.O_NONBLOCK
