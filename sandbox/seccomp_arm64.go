//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// arm64 has only the *at forms.
var archDenied []uintptr

var archMetadata []uintptr

var mknodCalls = []mknodCall{{unix.SYS_MKNODAT, seccompArg2}}
