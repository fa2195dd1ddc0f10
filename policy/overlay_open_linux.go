//go:build linux

package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentairlock/airlock/internal/regular"
	"golang.org/x/sys/unix"
)

// openOverlay opens real, a resolved path beneath the resolved repository
// root, with the kernel holding it there (openat2 RESOLVE_BENEATH): a
// directory of the repository swapped for a link after the path was
// resolved cannot lead the open outside. Non-blocking, never following
// the last component, and only a regular file is returned. A kernel
// without openat2 (before 5.6, or a seccomp filter refusing it) gets the
// portable open.
func openOverlay(realRoot, real string) (*os.File, error) {
	rel, err := filepath.Rel(realRoot, real)
	if err != nil {
		return nil, err
	}
	dir, err := unix.Open(realRoot, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: realRoot, Err: err}
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		return regular.Open(real, os.O_RDONLY|noFollow, 0)
	case errors.Is(err, unix.EXDEV):
		return nil, &os.PathError{Op: "open", Path: real, Err: ErrOverlayOutside}
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	f := os.NewFile(uintptr(fd), real)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", real, regular.ErrNotRegular, st.Mode().Type())
	}
	return f, nil
}
