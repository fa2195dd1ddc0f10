package sandbox

// Landlock through its three syscalls, straight from golang.org/x/sys/unix.
// go-landlock would need its psx package to restrict every thread of a Go
// process, which under cgo wraps pthread_create for the whole binary; the
// launcher child needs none of that: it restricts the one locked thread
// that calls execve, and a new program starts with that thread's domain.
//
// ABI table (what each version adds): 1 files, 2 refer (rename/link across
// directories), 3 truncate, 4 TCP bind/connect ports, 5 ioctl on devices,
// 6 scoping of signals and abstract UNIX sockets, 7 audit logging,
// 8 thread sync, 9 connect to pathname UNIX sockets, 10 UDP.

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	llExec       = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWrite      = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llRead       = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir    = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llRefer      = unix.LANDLOCK_ACCESS_FS_REFER
	llTruncate   = unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llIoctlDev   = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llResolveUnx = unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX

	llV1All = 1<<13 - 1 // execute … make_sym

	// Rights that apply to a file (the kernel refuses directory rights on
	// a rule for a file).
	llFileRights = llExec | llWrite | llRead | llTruncate | llIoctlDev | llResolveUnx

	llNetBindTCP    = unix.LANDLOCK_ACCESS_NET_BIND_TCP
	llNetConnectTCP = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP

	llRuleNetPort = 2 // LANDLOCK_RULE_NET_PORT
)

// llNames names the file-system rights for the banner, in bit order.
var llNames = []string{"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym",
	"refer", "truncate", "ioctl_dev", "resolve_unix"}

// maxKnownABI is the newest ABI this file knows the rights of; a newer
// kernel is used at this level.
const maxKnownABI = 9

// kernelABI asks the kernel which Landlock ABI it offers (0: none, or
// Landlock disabled at boot).
func kernelABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// abiRights is what a ruleset at an ABI handles. UDP (ABI 10) is left
// unhandled on purpose: DNS needs it, and it is listed as a gap.
type abiRights struct {
	fs, net, scoped uint64
}

func rightsFor(abi int) abiRights {
	var r abiRights
	if abi >= 1 {
		r.fs = llV1All
	}
	if abi >= 2 {
		r.fs |= llRefer
	}
	if abi >= 3 {
		r.fs |= llTruncate
	}
	if abi >= 4 {
		r.net = llNetBindTCP | llNetConnectTCP
	}
	if abi >= 5 {
		r.fs |= llIoctlDev
	}
	if abi >= 6 {
		r.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	if abi >= 9 {
		r.fs |= llResolveUnx
	}
	return r
}

func rightNames(fs uint64) []string {
	var out []string
	for i, n := range llNames {
		if fs&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// ruleset is a Landlock ruleset under construction in the parent; its fd
// is handed to the launcher child, which enforces it.
type ruleset struct {
	fd     int
	rights abiRights
}

type llRulesetAttr struct {
	fs, net, scoped uint64
}

type llNetPortAttr struct {
	access uint64
	port   uint64
}

func newRuleset(abi int, r abiRights) (*ruleset, error) {
	attr := llRulesetAttr(r)
	size := unsafe.Sizeof(attr)
	switch {
	case abi < 4:
		size = 8 // the struct grew with the ABI; older kernels want the old size
	case abi < 6:
		size = 16
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset (ABI %d): %w", abi, errno)
	}
	return &ruleset{fd: int(fd), rights: r}, nil
}

// addPath grants access beneath path. follow is false for entries found
// by the walk: a symlink swapped in since must not carry the grant
// elsewhere, so the path must still be the kind of thing the walk saw.
func (rs *ruleset) addPath(path string, access uint64, follow, wantDir bool) error {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if st.Mode&unix.S_IFMT == unix.S_IFLNK || (!follow && isDir != wantDir) {
		return fmt.Errorf("%s changed while it was being walked", path)
	}
	access &= rs.rights.fs
	if !isDir {
		access &= llFileRights
	}
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}

func (rs *ruleset) allowConnect(port int) error {
	attr := llNetPortAttr{access: llNetConnectTCP, port: uint64(port)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs.fd), llRuleNetPort,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule tcp connect %d: %w", port, errno)
	}
	return nil
}

func (rs *ruleset) close() {
	if rs != nil && rs.fd >= 0 {
		unix.Close(rs.fd)
		rs.fd = -1
	}
}

// restrictSelf enforces the ruleset fd on the calling thread (the one
// that will exec). no_new_privs is what lets an unprivileged process do
// it, and what keeps a setuid binary from shedding it.
func restrictSelf(fd int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
