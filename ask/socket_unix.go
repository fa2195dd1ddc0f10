//go:build unix

package ask

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The socket is opened with golang.org/x/sys/unix and run through an
// *os.File (which has deadlines, like a net.Conn), not with package net:
// airlock-hook links this package for the agents that cannot ask, and
// net's package initialisation is paid by every hook process, asking or
// not (cmd/airlock-hook's dependency test keeps net out).

// unsafeSocket says why the file at the socket path must not be trusted to
// answer: it must be a socket owned by this user that no one else can
// write to.
func unsafeSocket(fi os.FileInfo) string {
	if fi.Mode()&os.ModeSocket == 0 {
		return "is not a socket"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "belongs to another user"
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return "is writable by others"
	}
	return ""
}

// unixSocket makes a non-blocking, close-on-exec stream socket. ForkLock
// keeps a child started meanwhile from inheriting it.
func unixSocket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("socket: %w", err)
	}
	return fd, nil
}

// dialSocket connects to the stream socket at path by ctx's deadline.
func dialSocket(ctx context.Context, path string) (conn, error) {
	fd, err := unixSocket()
	if err != nil {
		return nil, err
	}
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), path), nil
	case errors.Is(err, unix.EAGAIN):
		// a Unix socket says EAGAIN, not EINPROGRESS, when the
		// listener's backlog is full
		unix.Close(fd)
		return nil, errors.New("connect: the listener's queue is full")
	case !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.EINTR):
		unix.Close(fd)
		return nil, fmt.Errorf("connect: %w", err)
	}
	f := os.NewFile(uintptr(fd), path)
	if d, ok := ctx.Deadline(); ok {
		_ = f.SetWriteDeadline(d)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	var soErr error
	first := true
	werr := rc.Write(func(fd uintptr) bool {
		if first { // wait until the socket is writable
			first = false
			return false
		}
		n, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			soErr = err
		} else if n != 0 {
			soErr = syscall.Errno(n)
		}
		return true
	})
	if werr == nil {
		werr = soErr
	}
	if werr != nil {
		f.Close()
		return nil, fmt.Errorf("connect: %w", werr)
	}
	_ = f.SetWriteDeadline(time.Time{})
	return f, nil
}

// fileListener accepts on a listening socket run through the runtime's
// poller (an *os.File): Accept waits without a thread, and Close wakes it.
type fileListener struct {
	f      *os.File
	unlink string // the socket file to remove on Close ("" for an abstract name)
}

func (l fileListener) Accept() (conn, error) {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var aerr error
	err = rc.Read(func(fd uintptr) bool {
		syscall.ForkLock.RLock()
		nfd, _, aerr = unix.Accept(int(fd))
		if aerr == nil {
			unix.CloseOnExec(nfd)
		}
		syscall.ForkLock.RUnlock()
		return !errors.Is(aerr, unix.EAGAIN)
	})
	if err != nil {
		return nil, err
	}
	if aerr != nil {
		return nil, fmt.Errorf("accept: %w", aerr)
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, fmt.Errorf("accept: %w", err)
	}
	return os.NewFile(uintptr(nfd), l.f.Name()), nil
}

func (l fileListener) Close() error {
	err := l.f.Close()
	if l.unlink != "" {
		_ = os.Remove(l.unlink) // as a net.UnixListener does: the socket file goes with it
	}
	return err
}

// listenUnix listens on addr: an abstract name ("@…", Linux) or a path.
func listenUnix(addr string) (listener, error) {
	fd, err := unixSocket()
	if err != nil {
		return nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: addr}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("bind: %w", err)
	}
	if err := unix.Listen(fd, 64); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listen: %w", err)
	}
	l := fileListener{f: os.NewFile(uintptr(fd), addr)}
	if !strings.HasPrefix(addr, "@") {
		l.unlink = addr
	}
	return l, nil
}

// listenPrivate listens on path with a socket only its owner can use.
func listenPrivate(path string) (listener, error) {
	fd, err := unixSocket()
	if err != nil {
		return nil, err
	}
	old := syscall.Umask(0o177)
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: path})
	syscall.Umask(old)
	if err == nil {
		err = unix.Listen(fd, 64)
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return fileListener{f: os.NewFile(uintptr(fd), path), unlink: path}, nil
}

// unsafeHome says why the directory holding the socket cannot be trusted:
// another user who can write to it can put a socket of their own there.
func unsafeHome(dir string) string {
	fi, err := os.Stat(dir)
	if err != nil {
		return "cannot be read"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "belongs to another user"
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return "is writable by others"
	}
	return ""
}
