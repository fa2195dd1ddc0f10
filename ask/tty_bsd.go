//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ask

import "golang.org/x/sys/unix"

const getTermios = unix.TIOCGETA
