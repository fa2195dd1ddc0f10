//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ask

import (
	"os"

	"golang.org/x/sys/unix"
)

// promptable says why f is not a terminal to prompt on: it must be a
// terminal, this process must be in its foreground process group (a
// background read would stop the process), and it must be in line mode (a
// full-screen program, such as an agent's own interface, puts it in raw
// mode; a prompt there would garble the screen and steal its keys).
func promptable(f *os.File) string {
	// SyscallConn, not Fd: Fd would put the file in blocking mode and
	// reads could no longer time out
	rc, err := f.SyscallConn()
	if err != nil {
		return "not a terminal"
	}
	why := ""
	if err := rc.Control(func(fd uintptr) { why = promptableFD(int(fd)) }); err != nil {
		return "not a terminal"
	}
	return why
}

func promptableFD(fd int) string {
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return "not a terminal"
	}
	fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || fg != unix.Getpgrp() {
		return "this process is not in the terminal's foreground"
	}
	if t.Lflag&unix.ICANON == 0 {
		return "the terminal is in raw mode (a full-screen program owns it)"
	}
	return ""
}

// flushInput discards what was typed on the terminal and not yet read.
func flushInput(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = flushFD(int(fd)) })
	}
}
