//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ask

import "golang.org/x/sys/unix"

const getTermios = unix.TIOCGETA

// flushFD discards the terminal's input queue (TIOCFLUSH with FREAD, 1).
func flushFD(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, 1) }
