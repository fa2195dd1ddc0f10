//go:build linux && (amd64 || arm64)

package sandbox

// The seccomp filter: a hand-built classic BPF program, no libseccomp.
// Default allow; the syscalls below answer EPERM. A coding agent has no
// use for them, and each is a known way around Landlock or out of the
// process: ptrace and process_vm_* read another process's memory,
// io_uring opens files and sockets without the syscalls seccomp sees,
// namespaces and mounts rebuild the file-system view, bpf, perf, keyrings,
// userfaultfd and modules are kernel attack surface. A foreign
// architecture (a 32-bit syscall table) or the x32 bit kills the process:
// the numbers below would mean other syscalls there.
//
// The host's own state is refused too, for a root command whose
// capabilities were dropped and any other: the hostname, the clock,
// reboot, kexec, modules, swap, process accounting, chroot, raw I/O
// ports, device nodes (mknod of a block or character device; FIFOs,
// sockets and files stay allowed) and the terminal's input queue
// (ioctl TIOCSTI, which types into the terminal as if the person had,
// and TIOCLINUX, which does the same on a virtual console), its line
// discipline (TIOCSETD) and the console (TIOCCONS). With
// Options.RefuseMetadata (the paranoid profile) the metadata syscalls
// (chmod, chown, utimes, extended attributes) are refused for the whole
// run: Landlock does not mediate them, and seccomp cannot see paths.

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

var seccompArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}

var seccompDenied = []uintptr{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_USERFAULTFD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSCONFIG, unix.SYS_FSPICK, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_MOUNT_SETATTR,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_OPEN_BY_HANDLE_AT, // opens by inode handle, past every path rule
	// another process's descriptors and memory, past ptrace's refusal
	unix.SYS_PIDFD_GETFD, unix.SYS_KCMP, unix.SYS_PROCESS_MADVISE,
	// the host's state
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT,
	unix.SYS_CHROOT, unix.SYS_VHANGUP, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	unix.SYS_FANOTIFY_INIT, unix.SYS_SYSLOG,
}

// seccompMetadata are the metadata syscalls refused under
// Options.RefuseMetadata.
var seccompMetadata = append([]uintptr{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIMENSAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}, archMetadata...)

// Terminal ioctls refused whatever the descriptor (the request is the
// ioctl's second argument, an unsigned int, so its low word is the whole
// of it): TIOCSTI and TIOCLINUX type into a terminal; TIOCSETD attaches a
// line discipline, kernel code no command needs and a known way up
// (n_hdlc, n_gsm: local privilege escalations), and on a shared terminal
// breaks it past airlock run's end; TIOCCONS takes the console's output.
var seccompIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCSETD, unix.TIOCCONS}

// Offsets into struct seccomp_data (little-endian: the low word of an
// argument is at its start).
const (
	seccompNr   = 0
	seccompArg0 = 16
	seccompArg1 = 24
	seccompArg2 = 32

	sIFMT  = 0o170000
	sIFCHR = 0o020000
	sIFBLK = 0o060000

	x32Bit = 0x40000000

	// CLONE_NEW* flags of clone(2): a new namespace is unshare by
	// another name.
	cloneNewMask = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retKill  = unix.SECCOMP_RET_KILL_PROCESS
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	// clone3 passes its flags in memory a filter cannot read: ENOSYS
	// makes glibc fall back to clone(2), whose flags it can.
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

func bpfStmt(code uint16, k uint32) unix.SockFilter {
	return unix.SockFilter{Code: code, K: k}
}

func bpfJump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

const (
	ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jge    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	jset   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	andK   = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	retK   = unix.BPF_RET | unix.BPF_K
	archAt = 4
)

// mknodCall is a syscall that makes nodes and the offset of its mode.
type mknodCall struct {
	nr     uintptr
	modeAt uint32
}

// seccompFilter is what a filter refuses beyond the fixed list.
type seccompFilter struct {
	metadata bool // the metadata syscalls (Options.RefuseMetadata)
}

// seccompProgram builds the filter for this architecture.
func seccompProgram(f seccompFilter) ([]unix.SockFilter, error) {
	arch, ok := seccompArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	p := []unix.SockFilter{
		bpfStmt(ldAbs, archAt),
		bpfJump(jeq, arch, 1, 0),
		bpfStmt(retK, retKill),
		bpfStmt(ldAbs, seccompNr),
	}
	if runtime.GOARCH == "amd64" {
		p = append(p, bpfJump(jge, x32Bit, 0, 1), bpfStmt(retK, retKill))
	}
	denied := append(seccompDenied[:len(seccompDenied):len(seccompDenied)], archDenied...)
	if f.metadata {
		denied = append(denied, seccompMetadata...)
	}
	for _, nr := range denied {
		p = append(p, bpfJump(jeq, uint32(nr), 0, 1), bpfStmt(retK, retEPERM))
	}

	// ioctl: refuse the requests that type into a terminal.
	p = append(p, bpfJump(jeq, unix.SYS_IOCTL, 0, uint8(len(seccompIoctls)+3)),
		bpfStmt(ldAbs, seccompArg1))
	for i, req := range seccompIoctls {
		p = append(p, bpfJump(jeq, req, uint8(len(seccompIoctls)-i), 0))
	}
	p = append(p, bpfStmt(retK, retAllow), bpfStmt(retK, retEPERM))

	// mknod, mknodat: no block or character device nodes.
	for _, m := range mknodCalls {
		p = append(p, bpfJump(jeq, uint32(m.nr), 0, 6),
			bpfStmt(ldAbs, m.modeAt),
			bpfStmt(andK, sIFMT),
			bpfJump(jeq, sIFCHR, 1, 0),
			bpfJump(jeq, sIFBLK, 0, 1),
			bpfStmt(retK, retEPERM),
			bpfStmt(retK, retAllow))
	}
	p = append(p, bpfJump(jeq, unix.SYS_CLONE3, 0, 1), bpfStmt(retK, retENOSYS))

	// clone: refuse the namespace flags.
	p = append(p, bpfJump(jeq, unix.SYS_CLONE, 0, 4),
		bpfStmt(ldAbs, seccompArg0),
		bpfJump(jset, cloneNewMask, 0, 1),
		bpfStmt(retK, retEPERM),
		bpfStmt(retK, retAllow))

	// personality: only the query and the plain Linux persona (no
	// ADDR_NO_RANDOMIZE, no READ_IMPLIES_EXEC).
	p = append(p, bpfJump(jeq, unix.SYS_PERSONALITY, 0, 5),
		bpfStmt(ldAbs, seccompArg0),
		bpfJump(jeq, 0xffffffff, 2, 0),
		bpfJump(jeq, 0, 1, 0),
		bpfStmt(retK, retEPERM),
		bpfStmt(retK, retAllow))

	// socket: UNIX, INET, INET6 (not MPTCP) and route netlink (glibc's getaddrinfo
	// asks it for interface addresses); no raw or packet INET sockets, and
	// no other family (AF_PACKET sniffs, AF_VSOCK reaches the host of a VM).
	p = append(p, bpfJump(jeq, unix.SYS_SOCKET, 0, 17),
		bpfStmt(ldAbs, seccompArg0), // 0: family
		bpfJump(jeq, unix.AF_UNIX, 14, 0),
		bpfJump(jeq, unix.AF_INET, 3, 0),
		bpfJump(jeq, unix.AF_INET6, 2, 0),
		bpfJump(jeq, unix.AF_NETLINK, 8, 0),
		bpfStmt(retK, retEPERM),
		bpfStmt(ldAbs, seccompArg1), // 6: type, with SOCK_NONBLOCK|SOCK_CLOEXEC
		bpfStmt(andK, 0xf),
		bpfJump(jeq, unix.SOCK_RAW, 1, 0),
		bpfJump(jeq, unix.SOCK_PACKET, 0, 1),
		bpfStmt(retK, retEPERM),
		// 11: no MPTCP: Landlock's TCP port rules do not cover it.
		bpfStmt(ldAbs, seccompArg2),
		bpfJump(jeq, unix.IPPROTO_MPTCP, 2, 3),
		bpfStmt(ldAbs, seccompArg2), // 13: netlink protocol
		bpfJump(jeq, unix.NETLINK_ROUTE, 1, 0),
		bpfStmt(retK, retEPERM),
		bpfStmt(retK, retAllow)) // 16
	p = append(p, bpfStmt(retK, retAllow))
	return p, nil
}

// installSeccomp loads the filter on the calling thread; the exec that
// follows passes it on. no_new_privs is already set by then, or set here.
func installSeccomp(f seccompFilter) error {
	prog, err := seccompProgram(f)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER): %w", errno)
	}
	return nil
}

func seccompAvailable() (bool, string) {
	if _, ok := seccompArch[runtime.GOARCH]; !ok {
		return false, "no filter for " + runtime.GOARCH
	}
	// PR_GET_SECCOMP fails with EINVAL when the kernel has no seccomp.
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return false, "the kernel has no seccomp: " + err.Error()
	}
	return true, ""
}
