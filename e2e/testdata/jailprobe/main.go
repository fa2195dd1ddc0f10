// Command jailprobe tries the escapes of issue 18 from inside the sandbox
// and prints, one line each, "name: result": "ok" when the call went
// through, else the errno's name. Every call is chosen so that getting
// through changes nothing on the host: a wrong reboot magic, the
// hostname it already has, a clock value the kernel refuses as invalid
// once past the permission checks, a node in the probe's own temp dir.
//
//	jailprobe all SECRET TMPDIR   every probe but the supervisor kill
//	jailprobe kill NAME…          SIGKILL the parent, signal 0 to every NAME
//	jailprobe tiocsti TEXT        type TEXT into the terminal on stdin
//	jailprobe linger FILE [FD]    leave a process behind, in a session of
//	                              its own, that reads stderr or FD (the
//	                              person's terminal, when it is one) after the
//	                              sandbox's supervisor has exited and
//	                              writes what it read, or the errno, to FILE
//
// With -stderr the lines go to stderr (under airlock-mcp --sandbox,
// whose stdout is the JSON-RPC stream).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

var out io.Writer = os.Stdout

func name(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return strings.ReplaceAll(err.Error(), " ", "_")
}

func errno(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func say(probe string, err error) { fmt.Fprintf(out, "%s: %s\n", probe, name(err)) }

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "-stderr" {
		out, args = os.Stderr, args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "jailprobe: all|kill|tiocsti")
		os.Exit(2)
	}
	switch args[0] {
	case "all":
		all(args[1], args[2])
	case "kill":
		kill(args[1:])
	case "linger":
		linger(args[1:])
	case "steal":
		steal(args[1:])
	case "tiocsti":
		for _, c := range []byte(args[1]) {
			_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
			if e != 0 {
				say("tiocsti", e)
				return
			}
		}
		say("tiocsti", nil)
	}
}

// kill is the supervisor probe: SIGKILL to the parent (airlock run or
// airlock-mcp), then signal 0 (the same permission check, harmless) to
// every process named one of names.
func kill(names []string) {
	err := unix.Kill(os.Getppid(), unix.SIGKILL)
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, perr := strconv.Atoi(e.Name())
		if perr != nil || pid == os.Getpid() {
			continue
		}
		comm, cerr := os.ReadFile("/proc/" + e.Name() + "/comm")
		if cerr != nil {
			continue
		}
		for _, want := range names {
			if strings.TrimSpace(string(comm)) == want && unix.Kill(pid, 0) == nil {
				n++
			}
		}
	}
	fmt.Fprintf(out, "kill-supervisor: %s reached=%d\n", name(err), n)
}

func all(secret, tmp string) {
	c := byte('x')
	_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	say("tiocsti-stdin", errno(e))
	_, _, e = unix.Syscall(unix.SYS_IOCTL, 2, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	say("tiocsti-stderr", errno(e))
	sub := [2]byte{12, 0} // TIOCL_GETSHIFTSTATE: a read
	_, _, e = unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCLINUX, uintptr(unsafe.Pointer(&sub[0])))
	say("tioclinux", errno(e))
	ldisc := int32(0) // N_TTY, the discipline a terminal has
	_, _, e = unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSETD, uintptr(unsafe.Pointer(&ldisc)))
	say("tiocsetd", errno(e))
	_, _, e = unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCCONS, 0)
	say("tioccons", errno(e))
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err == nil {
		f.Close()
	}
	say("open-dev-tty", err)

	host, _ := os.Hostname()
	say("sethostname", unix.Sethostname([]byte(host)))
	var uts unix.Utsname
	_ = unix.Uname(&uts)
	dom := uts.Domainname[:]
	if i := strings.IndexByte(string(dom), 0); i >= 0 {
		dom = dom[:i]
	}
	say("setdomainname", unix.Setdomainname(dom))
	tv := unix.Timeval{Sec: 1, Usec: 2_000_000} // invalid: EINVAL past the checks
	_, _, e = unix.Syscall(unix.SYS_SETTIMEOFDAY, uintptr(unsafe.Pointer(&tv)), 0, 0)
	say("settimeofday", errno(e))
	ts := unix.Timespec{Sec: 1, Nsec: -1} // invalid
	_, _, e = unix.Syscall(unix.SYS_CLOCK_SETTIME, unix.CLOCK_REALTIME, uintptr(unsafe.Pointer(&ts)), 0)
	say("clock_settime", errno(e))
	var tx unix.Timex // modes 0: a read the kernel allows anyone
	_, _, e = unix.Syscall(unix.SYS_CLOCK_ADJTIME, unix.CLOCK_REALTIME, uintptr(unsafe.Pointer(&tx)), 0)
	say("clock_adjtime", errno(e))
	_, _, e = unix.Syscall(unix.SYS_ADJTIMEX, uintptr(unsafe.Pointer(&tx)), 0, 0)
	say("adjtimex", errno(e))
	_, _, e = unix.Syscall6(unix.SYS_REBOOT, 1, 2, 3, 0, 0, 0) // wrong magic
	say("reboot", errno(e))
	_, _, e = unix.Syscall6(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0xdead0000, 0, 0) // no such arch
	say("kexec_load", errno(e))
	_, _, e = unix.Syscall6(unix.SYS_KEXEC_FILE_LOAD, ^uintptr(0), ^uintptr(0), 0, 0, 0xdead0000, 0)
	say("kexec_file_load", errno(e))
	_, _, e = unix.Syscall(unix.SYS_INIT_MODULE, 0, 0, 0)
	say("init_module", errno(e))
	_, _, e = unix.Syscall(unix.SYS_FINIT_MODULE, ^uintptr(0), 0, 0)
	say("finit_module", errno(e))
	mod := []byte("airlock_no_such_module\x00")
	_, _, e = unix.Syscall(unix.SYS_DELETE_MODULE, uintptr(unsafe.Pointer(&mod[0])), unix.O_NONBLOCK, 0)
	say("delete_module", errno(e))
	nowhere := []byte(tmp + "/no-such-swap\x00")
	_, _, e = unix.Syscall(unix.SYS_SWAPON, uintptr(unsafe.Pointer(&nowhere[0])), 0, 0)
	say("swapon", errno(e))
	_, _, e = unix.Syscall(unix.SYS_SWAPOFF, uintptr(unsafe.Pointer(&nowhere[0])), 0, 0)
	say("swapoff", errno(e))
	acctFile := []byte(tmp + "/no-such-dir/acct\x00")
	_, _, e = unix.Syscall(unix.SYS_ACCT, uintptr(unsafe.Pointer(&acctFile[0])), 0, 0)
	say("acct", errno(e))
	say("mknod-block", unix.Mknod(tmp+"/blk", unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))))
	say("mknod-char", unix.Mknod(tmp+"/chr", unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))))
	say("mknodat-block", unix.Mknodat(unix.AT_FDCWD, tmp+"/blk2", unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))))
	_ = os.Remove(tmp + "/fifo")
	say("mknod-fifo", unix.Mknod(tmp+"/fifo", unix.S_IFIFO|0o600, 0))
	say("chroot", unix.Chroot(tmp))
	_ = os.MkdirAll(tmp+"/mnt", 0o700)
	err = unix.Mount("none", tmp+"/mnt", "tmpfs", 0, "")
	if err == nil {
		_ = unix.Unmount(tmp+"/mnt", unix.MNT_DETACH)
	}
	say("mount", err)
	say("umount2", unix.Unmount(tmp+"/mnt", 0))
	say("pivot_root", unix.PivotRoot(tmp+"/mnt", tmp+"/mnt"))
	if runtime.GOARCH == "amd64" {
		_, _, e = unix.Syscall(172, 0, 0, 0) // iopl(0): drops nothing, asks for the check
		say("iopl", errno(e))
		_, _, e = unix.Syscall(173, 0x80, 1, 1) // ioperm
		say("ioperm", errno(e))
	}
	say("netlink-setlink", setLinkUp())
	say("ptrace-parent", errno(ptraceParent()))
	capsLine()

	say("read-secret", func() error { _, err := os.ReadFile(secret); return err }())
	var st unix.Stat_t
	if err := unix.Stat(secret, &st); err != nil {
		say("stat-secret", err)
		return
	}
	// the values it has: getting through changes nothing
	say("chmod-secret", unix.Chmod(secret, st.Mode&0o7777))
	say("chown-secret", unix.Chown(secret, int(st.Uid), int(st.Gid)))
	times := []unix.Timespec{st.Atim, st.Mtim}
	say("utimensat-secret", unix.UtimesNanoAt(unix.AT_FDCWD, secret, times, 0))
	err = unix.Setxattr(secret, "user.airlock-probe", []byte("1"), 0)
	if err == nil {
		_ = unix.Removexattr(secret, "user.airlock-probe")
	}
	say("setxattr-secret", err)
}

func ptraceParent() syscall.Errno {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_ATTACH, uintptr(os.Getppid()), 0, 0, 0, 0)
	return e
}

// setLinkUp asks route netlink to set lo up (it is up: no change).
func setLinkUp() error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	const hdr, info = unix.SizeofNlMsghdr, unix.SizeofIfInfomsg
	msg := make([]byte, hdr+info)
	h := (*unix.NlMsghdr)(unsafe.Pointer(&msg[0]))
	*h = unix.NlMsghdr{Len: hdr + info, Type: unix.RTM_NEWLINK, Flags: unix.NLM_F_REQUEST | unix.NLM_F_ACK, Seq: 1}
	ifi := (*unix.IfInfomsg)(unsafe.Pointer(&msg[hdr]))
	*ifi = unix.IfInfomsg{Family: unix.AF_UNSPEC, Index: 1, Flags: unix.IFF_UP, Change: unix.IFF_UP}
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	if n < hdr+4 {
		return errors.New("short_netlink_answer")
	}
	if rh := (*unix.NlMsghdr)(unsafe.Pointer(&buf[0])); rh.Type != unix.NLMSG_ERROR {
		return fmt.Errorf("netlink_answer_type_%d", rh.Type)
	}
	code := *(*int32)(unsafe.Pointer(&buf[hdr]))
	if code == 0 {
		return nil
	}
	return syscall.Errno(-code)
}

// capsLine prints the capability sets of this process.
func capsLine() {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		say("caps", err)
		return
	}
	var sets []string
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":\t"); ok && strings.HasPrefix(k, "Cap") {
			sets = append(sets, k+"="+v)
		}
	}
	fmt.Fprintf(out, "caps: %s\n", strings.Join(sets, ","))
}

// linger starts "steal FILE [FD]" in a session of its own, stdin /dev/null,
// stdout and stderr this process's, and returns at once.
func linger(args []string) {
	null, err := os.Open("/dev/null")
	if err != nil {
		say("linger", err)
		return
	}
	defer null.Close()
	attr := &os.ProcAttr{Files: []*os.File{null, os.Stdout, os.Stderr}, Sys: &syscall.SysProcAttr{Setsid: true}}
	p, err := os.StartProcess("/proc/self/exe", append([]string{"jailprobe", "steal"}, args...), attr)
	if err == nil {
		_ = p.Release()
	}
	say("linger", err)
}

// steal waits until its parent (linger, then what started it) is gone
// and the supervisor with it, then reads one line from stderr or FD: what the
// person types into their shell once airlock run has exited, when stderr
// is their terminal.
func steal(args []string) {
	file, fd := args[0], 2
	if len(args) > 1 {
		fd, _ = strconv.Atoi(args[1])
	}
	time.Sleep(time.Second)
	buf := make([]byte, 256)
	n, err := unix.Read(fd, buf)
	res := "read: " + name(err)
	if err == nil {
		res = "read: " + strconv.Quote(string(buf[:max(n, 0)]))
	}
	_ = os.WriteFile(file+".tmp", []byte(res+"\n"), 0o644)
	_ = os.Rename(file+".tmp", file)
}
