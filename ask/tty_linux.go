package ask

import "golang.org/x/sys/unix"

const getTermios = unix.TCGETS

func flushFD(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
