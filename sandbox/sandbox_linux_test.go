package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/agentairlock/airlock/policy"
	"golang.org/x/sys/unix"
)

// The test binary is its own sandboxed target: the launcher child is this
// binary (MaybeChild), and the command it execs is this binary again with
// AIRLOCK_SANDBOX_PROBE set, which tries one thing and prints "ok" or the
// errno it got.
func TestMain(m *testing.M) {
	MaybeChild()
	if h := os.Getenv("AIRLOCK_EGRESS_KILL_HOME"); h != "" {
		os.Exit(egressKillHelper(h))
	}
	if os.Getenv("AIRLOCK_SANDBOX_PROBE") == "1" {
		os.Exit(probe(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func probe(args []string) int {
	say := func(err error) int {
		var errno syscall.Errno
		switch {
		case err == nil:
			fmt.Println("ok")
		case errors.As(err, &errno):
			fmt.Println(unix.ErrnoName(errno))
		default:
			fmt.Println(err)
		}
		return 0
	}
	switch args[0] {
	case "read":
		_, err := os.ReadFile(args[1])
		return say(err)
	case "write":
		return say(os.WriteFile(args[1], []byte("x"), 0o600))
	case "open-rw":
		f, err := os.OpenFile(args[1], os.O_RDWR, 0)
		if err == nil {
			f.Close()
		}
		return say(err)
	case "ptrace":
		_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_ATTACH, uintptr(os.Getppid()), 0, 0, 0, 0)
		return say(errnoErr(e))
	case "unshare":
		return say(unix.Unshare(unix.CLONE_NEWUSER))
	case "io_uring":
		var params [120]byte
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e == 0 {
			unix.Close(int(fd))
		}
		return say(errnoErr(e))
	case "packet":
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0)
		if err == nil {
			unix.Close(fd)
		}
		return say(err)
	case "raw":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
		if err == nil {
			unix.Close(fd)
		}
		return say(err)
	case "mptcp":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err == nil {
			unix.Close(fd)
		}
		return say(err)
	case "connect":
		c, err := net.Dial("tcp", args[1])
		if err == nil {
			c.Close()
		}
		return say(err)
	case "tiocsti":
		c := byte('x')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		return say(errnoErr(e))
	case "reboot":
		// a wrong magic: past the filter and the capability check the
		// kernel answers EINVAL and reboots nothing
		_, _, e := unix.Syscall6(unix.SYS_REBOOT, 1, 2, 3, 0, 0, 0)
		return say(errnoErr(e))
	case "sethostname":
		name, _ := os.Hostname()
		return say(unix.Sethostname([]byte(name)))
	case "mknod-blk":
		return say(unix.Mknod(args[1], unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))))
	case "mknod-fifo":
		return say(unix.Mknod(args[1], unix.S_IFIFO|0o600, 0))
	case "chmod":
		return say(unix.Chmod(args[1], 0o644))
	case "rename":
		return say(unix.Rename(args[1], args[2]))
	case "caps":
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return say(err)
		}
		var caps []string
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":\t"); ok && strings.HasPrefix(k, "Cap") {
				caps = append(caps, k+"="+v)
			}
		}
		fmt.Println(strings.Join(caps, " "))
		return 0
	case "kill-supervisor":
		// the supervisor by SIGKILL, then every process of its name by
		// signal 0: the same permission check without harming
		// processes that are not this test's
		err := unix.Kill(os.Getppid(), unix.SIGKILL)
		fmt.Println(errName(err), reachable(args[1:]))
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[1])
		return n
	case "wait-term":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		fmt.Println("ready")
		<-ch
		fmt.Println("got SIGTERM")
		return 42
	}
	fmt.Println("unknown probe", args[0])
	return 2
}

// errName is err's errno name, "ok" for nil.
func errName(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// reachable counts the processes named one of names (their comm) that
// signal 0 reaches from here, this process aside.
func reachable(names []string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		for _, want := range names {
			if name == want && unix.Kill(pid, 0) == nil {
				n++
			}
		}
	}
	return n
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// requireLandlock fails the test on a kernel without Landlock, unless
// AIRLOCK_KERNEL_TESTS=optional: CI has ABI 7, and a sandbox test that
// skips there proves nothing.
func requireLandlock(t *testing.T, abi int) {
	t.Helper()
	if k := kernelABI(); k < abi {
		if os.Getenv("AIRLOCK_KERNEL_TESTS") == "optional" {
			t.Skipf("kernel offers Landlock ABI %d, test needs %d (AIRLOCK_KERNEL_TESTS=optional)", k, abi)
		}
		t.Fatalf("kernel offers Landlock ABI %d, test needs %d; set AIRLOCK_KERNEL_TESTS=optional to skip", k, abi)
	}
}

// fixture is a fake user: a home with secrets, a workspace, a temp dir.
type fixture struct {
	root, home, ws, tmp, outside string
	exe                          string // this test binary, copied where the sandbox lets it run
	pol                          *policy.Policy
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "home", "proj"),
		tmp: filepath.Join(root, "tmp"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{f.home + "/.ssh", f.home + "/.aws", f.ws + "/.git", f.ws + "/src", f.tmp, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		f.home + "/.ssh/id_rsa":      "PRIVATE KEY",
		f.home + "/.aws/credentials": "AKIA",
		f.home + "/.netrc":           "machine x password y",
		f.home + "/.profile":         "# profile",
		f.ws + "/README.md":          "workspace file",
		f.ws + "/src/main.go":        "package main",
		f.ws + "/.env":               "TOKEN=1",
		f.outside + "/note":          "outside",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.home+"/.ssh/id_rsa", f.ws+"/key-link"); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f.exe = filepath.Join(f.tmp, "probe")
	if err := os.WriteFile(f.exe, self, 0o700); err != nil {
		t.Fatal(err)
	}
	vars := policy.Vars{Workspace: f.ws, Home: f.home, Tmp: f.tmp, User: "dev", AirlockHome: f.home + "/.airlock"}
	f.pol, err = policy.LoadProfile("default", vars)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) options(t *testing.T, args ...string) Options {
	return Options{
		Argv:   append([]string{f.exe}, args...),
		Dir:    f.ws,
		Env:    []string{"AIRLOCK_SANDBOX_PROBE=1", "HOME=" + f.home, "PATH=/usr/bin:/bin"},
		Policy: f.pol,
	}
}

// run runs one probe under the sandbox, launched both ways (a restricted
// thread, without the mount namespace, which needs the other way; the
// re-executed launcher child, in the namespace where the kernel allows
// it), and returns its output and exit status; the two launches must
// agree.
func (f *fixture) run(t *testing.T, o Options) (string, int) {
	t.Helper()
	thread := o
	thread.NoMountNS = true
	out, status := f.runOnce(t, thread)
	o.ReExec = true
	out2, status2 := f.runOnce(t, o)
	if out != out2 || status != status2 {
		t.Errorf("the launches disagree: thread %q (%d), re-exec %q (%d)", out, status, out2, status2)
	}
	return out, status
}

func (f *fixture) runOnce(t *testing.T, o Options) (string, int) {
	t.Helper()
	plan, err := Prepare(o)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer plan.Close()
	var out, errb bytes.Buffer
	plan.opt.Stdout, plan.opt.Stderr, plan.opt.Stdin = &out, &errb, strings.NewReader("")
	status, err := plan.Run()
	if err != nil {
		t.Fatalf("Run: %v (stderr %q)", err, errb.String())
	}
	return strings.TrimSpace(out.String()), status
}

func TestSandboxKeepsSecretsAndBoundsWrites(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"workspace file readable", []string{"read", f.ws + "/README.md"}, "ok"},
		{"nested workspace file readable", []string{"read", f.ws + "/src/main.go"}, "ok"},
		{"ssh key refused", []string{"read", f.home + "/.ssh/id_rsa"}, "EACCES"},
		{"ssh key through a workspace symlink refused", []string{"read", f.ws + "/key-link"}, "EACCES"},
		{"ssh key through /proc/self/root refused", []string{"read", "/proc/self/root" + f.home + "/.ssh/id_rsa"}, "EACCES"},
		{"aws credentials refused", []string{"read", f.home + "/.aws/credentials"}, "EACCES"},
		{"netrc refused", []string{"read", f.home + "/.netrc"}, "EACCES"},
		{"workspace .env refused", []string{"read", f.ws + "/.env"}, "EACCES"},
		{"home file readable", []string{"read", f.home + "/.profile"}, "ok"},
		{"system file readable", []string{"read", "/etc/hostname"}, "ok"},
		{"shadow refused", []string{"read", "/etc/shadow"}, "EACCES"},
		{"write in workspace", []string{"write", f.ws + "/src/new.txt"}, "ok"},
		{"write in temp", []string{"write", f.tmp + "/scratch"}, "ok"},
		{"write outside refused", []string{"write", f.outside + "/x"}, "EACCES"},
		{"write to home refused", []string{"write", f.home + "/.bashrc"}, "EACCES"},
		{"read outside the roots refused", []string{"read", f.outside + "/note"}, "EACCES"},
		{"/dev/tty refused", []string{"open-rw", "/dev/tty"}, "EACCES"},
		{"/dev/null usable", []string{"open-rw", "/dev/null"}, "ok"},
	}
	if _, err := os.Stat("/etc/hostname"); err != nil {
		cases[9].args[1] = "/etc/passwd"
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, status := f.run(t, f.options(t, c.args...))
			if got != c.want || status != 0 {
				t.Errorf("%v under the sandbox: got %q (status %d), want %q", c.args, got, status, c.want)
			}
		})
	}
}

func TestSeccompRefusesEscapeSyscalls(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	for _, op := range [][]string{{"ptrace"}, {"unshare"}, {"io_uring"}, {"packet"}, {"raw"}, {"mptcp"},
		{"tiocsti"}, {"reboot"}, {"sethostname"}, {"mknod-blk", f.tmp + "/blk"}} {
		t.Run(op[0], func(t *testing.T) {
			got, _ := f.run(t, f.options(t, op...))
			if got != "EPERM" {
				t.Errorf("%s under the sandbox: got %q, want EPERM", op[0], got)
			}
		})
	}
}

// A FIFO is not a device: mknod makes it.
func TestSeccompLetsMknodMakeAFIFO(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	o := f.options(t, "mknod-fifo", f.tmp+"/fifo")
	if got, _ := f.runOnce(t, o); got != "ok" {
		t.Errorf("mknod of a FIFO in the temp dir: got %q, want ok", got)
	}
}

// The command holds no capability, root or not; as root the bounding set
// is empty too.
func TestSandboxCommandHoldsNoCapability(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	got, _ := f.run(t, f.options(t, "caps"))
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(got, set+"=0000000000000000") {
			t.Errorf("%s not empty under the sandbox: %s", set, got)
		}
	}
	if os.Geteuid() == 0 && !strings.Contains(got, "CapBnd=0000000000000000") {
		t.Errorf("a root command kept a bounding set: %s", got)
	}
}

// Under the paranoid profile chmod is refused everywhere, a denied file
// included; otherwise it is a gap the banner names.
func TestSeccompRefusesMetadataUnderParanoid(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	o := f.options(t, "chmod", f.ws+"/README.md")
	o.RefuseMetadata = true
	if got, _ := f.run(t, o); got != "EPERM" {
		t.Errorf("chmod under RefuseMetadata: got %q, want EPERM", got)
	}
	o = f.options(t, "exit", "0")
	o.NoMountNS = true
	plan, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	if b := plan.Report().Banner(); !strings.Contains(b, metadataGap) {
		t.Errorf("the banner without RefuseMetadata does not name the metadata gap:\n%s", b)
	}
}

// Where the kernel allows a user namespace, the denied entries are
// read-only mounts: chmod of the secret fails EROFS, in the workspace it
// works, and the banner says so. CI's kernel allows it: a test that
// found no namespace would prove nothing, so it fails.
func TestSandboxDeniedEntriesAreReadOnlyMounts(t *testing.T) {
	requireLandlock(t, 1)
	if ok, why := usernsAvailable(); !ok {
		t.Fatalf("no user namespace on this machine (%s): the read-only mounts cannot be tested", why)
	}
	f := newFixture(t)
	o := f.options(t, "chmod", f.home+"/.ssh/id_rsa")
	o.ReExec = true
	if got, _ := f.runOnce(t, o); got != "EROFS" {
		t.Errorf("chmod of the denied ~/.ssh/id_rsa: got %q, want EROFS", got)
	}
	o = f.options(t, "chmod", f.ws+"/.env")
	if got, _ := f.runOnce(t, o); got != "EROFS" {
		t.Errorf("chmod of the denied workspace .env: got %q, want EROFS", got)
	}
	o = f.options(t, "chmod", f.ws+"/README.md")
	if got, _ := f.runOnce(t, o); got != "ok" {
		t.Errorf("chmod of a workspace file: got %q, want ok", got)
	}
	if st, err := os.Stat(f.home + "/.ssh/id_rsa"); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the secret's mode: %v, %v; want 0600", st.Mode(), err)
	}
	plan, err := Prepare(f.options(t, "exit", "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	r := plan.Report()
	if r.ReadOnlyMounts == 0 || !strings.Contains(r.Banner(), "read-only mounts in a mount namespace") ||
		!strings.Contains(r.Banner(), hardLinkMetadataGap) || strings.Contains(r.Banner(), metadataGap) {
		t.Errorf("the banner with the namespace does not say what it keeps and leaves:\n%s", r.Banner())
	}
}

func TestSandboxRefusesConnectOutsideTheProxyPort(t *testing.T) {
	requireLandlock(t, 4)
	f := newFixture(t)
	allowed, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	port := allowed.Addr().(*net.TCPAddr).Port

	o := f.options(t, "connect", other.Addr().String())
	o.EgressPort = port
	if got, _ := f.run(t, o); got != "EACCES" {
		t.Errorf("connect to a loopback port that is not the proxy's: got %q, want EACCES", got)
	}
	o = f.options(t, "connect", allowed.Addr().String())
	o.EgressPort = port
	if got, _ := f.run(t, o); got != "ok" {
		t.Errorf("connect to the proxy's port: got %q, want ok", got)
	}
	o = f.options(t, "connect", allowed.Addr().String())
	if got, _ := f.run(t, o); got != "EACCES" {
		t.Errorf("connect with no proxy: got %q, want EACCES", got)
	}
}

func TestSandboxPassesExitStatus(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	if _, status := f.run(t, f.options(t, "exit", "7")); status != 7 {
		t.Errorf("exit status through the sandbox: got %d, want 7", status)
	}
}

func TestSandboxPassesSIGTERM(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t)
	plan, err := Prepare(f.options(t, "wait-term"))
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	pr, pw := io.Pipe()
	plan.opt.Stdout, plan.opt.Stderr, plan.opt.Stdin = pw, os.Stderr, strings.NewReader("")
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		s, err := plan.Run()
		pw.Close()
		done <- result{s, err}
	}()
	if l := <-lines; l != "ready" {
		t.Fatalf("probe said %q, want ready", l)
	}
	// Run listens for SIGTERM while the child lives, so this process
	// survives it and the child gets it.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.status != 42 {
		t.Errorf("after SIGTERM: status %d, err %v; want 42 (the child's SIGTERM handler)", r.status, r.err)
	}
}

func TestBannerNamesGapsOfAnOlderABI(t *testing.T) {
	requireLandlock(t, 3)
	f := newFixture(t)
	o := f.options(t, "exit", "0")
	o.MaxABI = 3
	plan, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	r := plan.Report()
	banner := r.Banner()
	if r.ABI != 3 {
		t.Errorf("ABI in force %d, want 3", r.ABI)
	}
	for _, want := range []string{
		"Landlock ABI 3",
		"network:  NOT restricted: Landlock network rules need ABI 4",
		"no network rules: TCP connect and bind are open (ABI 4)",
		"ioctl on devices is not mediated (ABI 5)",
		"not scoped (ABI 6)",
		"mmap(PROT_EXEC)",
	} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner at ABI 3 does not say %q:\n%s", want, banner)
		}
	}
}

func TestRequireABIRefuses(t *testing.T) {
	f := newFixture(t)
	o := f.options(t, "exit", "0")
	o.RequireABI = kernelABI() + 1
	if _, err := Prepare(o); !errors.Is(err, ErrKernelTooOld) {
		t.Errorf("RequireABI above the kernel's: err %v, want ErrKernelTooOld", err)
	}
}

func TestWalkLeavesDeniedEntriesOut(t *testing.T) {
	f := newFixture(t)
	w := &walker{deny: f.pol.KernelPaths(), budget: defaultWalkBudget, roots: map[string]bool{f.home: true, f.ws: true}}
	w.root(f.home, levelRO)
	granted := map[string]grant{}
	for _, g := range w.grants {
		granted[g.path] = g
	}
	for _, p := range []string{f.home + "/.ssh", f.home + "/.ssh/id_rsa", f.home + "/.aws", f.home + "/.netrc", f.ws} {
		if g, ok := granted[p]; ok {
			t.Errorf("%s granted (%+v): it is denied or another root's", p, g)
		}
	}
	if g, ok := granted[f.home+"/.profile"]; !ok || g.level != levelRO {
		t.Errorf("~/.profile not granted read-only: %+v", g)
	}
	if g := granted[f.home]; !g.dirOnly {
		t.Errorf("home holds denied entries, so it must be granted as a directory only: %+v", g)
	}
}

func TestWalkBudgetIsAGap(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(f.outside, strconv.Itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w := &walker{deny: f.pol.KernelPaths(), budget: 10, roots: map[string]bool{}}
	w.root(f.outside, levelRW)
	if len(w.grants) != 0 {
		t.Errorf("a root over budget granted %d rules, want none", len(w.grants))
	}
	if len(w.gaps) != 1 || !strings.Contains(w.gaps[0], "more than 10 entries") {
		t.Errorf("gaps %q, want one naming the budget", w.gaps)
	}
}
