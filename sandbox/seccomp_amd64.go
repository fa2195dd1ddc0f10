//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// The x86-64 syscalls the arm64 table has no number for.
var archDenied = []uintptr{unix.SYS_IOPERM, unix.SYS_IOPL} // raw I/O port access

var archMetadata = []uintptr{unix.SYS_CHMOD, unix.SYS_CHOWN, unix.SYS_LCHOWN,
	unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_FUTIMESAT}

// mknodCalls are the syscalls that make device nodes, with where their
// mode argument is.
var mknodCalls = []mknodCall{{unix.SYS_MKNOD, seccompArg1}, {unix.SYS_MKNODAT, seccompArg2}}
