package sandbox

// Landlock through go-landlock's syscall package: its per-thread
// LandlockCreateRuleset, LandlockAddPathBeneathRule, LandlockAddNetPortRule
// and LandlockRestrictSelf, and its constants. Its high-level API is not
// used: it restricts every thread of the process (through libcap's psx,
// whose C part would wrap pthread_create in a cgo build), and the launcher
// restricts only the one locked thread that forks or execs the command.
// The binaries are built CGO_ENABLED=0 (a test checks they are static),
// so psx enters them only as its pure-Go fallback, which nothing calls.
// go-landlock does not export its ABI table: this file keeps its own.
//
// ABI table (what each version adds): 1 files, 2 refer (rename/link across
// directories), 3 truncate, 4 TCP bind/connect ports, 5 ioctl on devices,
// 6 scoping of signals and abstract UNIX sockets, 7 audit logging,
// 8 thread sync, 9 connect to pathname UNIX sockets, 10 UDP.

import (
	"fmt"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

const (
	llExec       = llsys.AccessFSExecute
	llWrite      = llsys.AccessFSWriteFile
	llRead       = llsys.AccessFSReadFile
	llReadDir    = llsys.AccessFSReadDir
	llRefer      = llsys.AccessFSRefer
	llTruncate   = llsys.AccessFSTruncate
	llIoctlDev   = llsys.AccessFSIoctlDev
	llResolveUnx = llsys.AccessFSResolveUnix

	llV1All = llsys.AccessFSMakeSym<<1 - 1 // execute … make_sym

	// Rights that apply to a file (the kernel refuses directory rights on
	// a rule for a file).
	llFileRights = llExec | llWrite | llRead | llTruncate | llIoctlDev | llResolveUnx

	llNetBindTCP    = llsys.AccessNetBindTCP
	llNetConnectTCP = llsys.AccessNetConnectTCP
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
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
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
		r.scoped = llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
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

// newRuleset creates the ruleset. The attribute struct is go-landlock's
// newest; an older kernel accepts it whole as long as the fields it does
// not know are zero, which they are at that kernel's ABI.
func newRuleset(abi int, r abiRights) (*ruleset, error) {
	attr := llsys.RulesetAttr{HandledAccessFS: r.fs, HandledAccessNet: r.net, Scoped: r.scoped}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock_create_ruleset (ABI %d): %w", abi, err)
	}
	return &ruleset{fd: fd, rights: r}, nil
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
	if err := llsys.LandlockAddPathBeneathRule(rs.fd, &llsys.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule %s: %w", path, err)
	}
	return nil
}

func (rs *ruleset) allowConnect(port int) error {
	if err := llsys.LandlockAddNetPortRule(rs.fd, &llsys.NetPortAttr{AllowedAccess: llNetConnectTCP, Port: uint64(port)}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule tcp connect %d: %w", port, err)
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
	// per thread: no FlagRestrictSelfTSync
	if err := llsys.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
