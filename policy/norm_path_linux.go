package policy

import (
	"path"
	"strconv"

	"golang.org/x/sys/unix"
)

// resolveFast answers for a clean absolute path in one system call when no
// link is on its way, which is almost every path a call names: openat2
// with RESOLVE_NO_SYMLINKS fails with ELOOP at the first symbolic link it
// meets, before it looks up anything after it. So success, or "does not
// exist" / "not a directory", means the existing prefix holds no link and
// the path is its own resolution, exactly what the walk would return.
// Only ELOOP (a link, or a loop) or an openat2 the kernel or a seccomp
// filter refuses goes on to resolveProc.
func resolveFast(p string) (string, bool) {
	if p == "" || p[0] != '/' || path.Clean(p) != p {
		// ".." after a link means something else to the kernel than to
		// path.Clean; leave unclean input to the walk
		return "", false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	switch err {
	case nil:
		_ = unix.Close(fd)
		return p, true
	case unix.ENOENT, unix.ENOTDIR:
		return p, true
	}
	return resolveProc(p)
}

// resolveProc asks the kernel for the real path of the longest existing
// prefix: open it with O_PATH (which follows every link on the way) and
// read the descriptor's name back from /proc. Three system calls instead
// of one Lstat per component.
//
// It declines (ok=false) whenever the answer could differ from the
// portable walk: a dangling symlink at the end of the existing prefix
// (a write through it would create the link's target), no /proc, or any
// error other than "does not exist". p is clean and absolute.
func resolveProc(p string) (string, bool) {
	cur, rest := p, ""
	for tries := 0; tries < 8; tries++ {
		fd, err := unix.Open(cur, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == nil {
			var buf [unix.PathMax]byte
			n, rerr := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf[:])
			_ = unix.Close(fd)
			if rerr != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
				return "", false
			}
			return path.Clean(string(buf[:n]) + rest), true
		}
		if err != unix.ENOENT && err != unix.ENOTDIR {
			return "", false
		}
		var st unix.Stat_t
		if unix.Lstat(cur, &st) == nil {
			// it exists but cannot be opened: a dangling link, or a
			// link loop; the portable walk knows what to do with it
			return "", false
		}
		if cur == "/" {
			return "", false
		}
		dir, base := path.Split(cur)
		rest = "/" + base + rest
		cur = path.Clean(dir)
	}
	return "", false
}
