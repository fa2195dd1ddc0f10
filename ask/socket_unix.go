//go:build unix

package ask

import (
	"net"
	"os"
	"syscall"
)

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

// listenPrivate listens on path with a socket only its owner can use.
func listenPrivate(path string) (net.Listener, error) {
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
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
