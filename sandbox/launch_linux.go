package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The main goroutine keeps the main thread for the life of the process,
// so no other goroutine ever runs on it: the goroutine that restricts its
// thread and forks the command (startOnRestrictedThread) always has a
// thread of its own, which the runtime ends when that goroutine returns
// locked. The main thread is the one the runtime parks instead of ending,
// and the thread-group leader is what a process-wide signal or
// /proc/PID/... names: had it carried the command's Landlock domain, the
// command would be inside the same domain as its supervisor and could
// kill it (signal scoping compares domains).
func init() { runtime.LockOSThread() }

// childArg is the hidden first argument of the launcher child.
const childArg = "__airlock-sandbox-child"

// rulesetChildFD is where the child finds the ruleset (ExtraFiles[0]).
const rulesetChildFD = 3

// childSpec is what the parent tells the child, as argv[2].
type childSpec struct {
	Landlock bool      `json:"landlock"`
	Seccomp  bool      `json:"seccomp"`
	Metadata bool      `json:"refuse_metadata,omitempty"` // seccomp refuses chmod, chown, utimes, xattrs
	Caps     capsState `json:"-"`                         // read again by the launcher child
	UserNS   bool      `json:"userns,omitempty"`          // in a user and mount namespace: the denied entries read-only
	Path     string    `json:"path,omitempty"`            // the command, found by the parent
}

// plan is a prepared launch: the ruleset is built and the report known.
type plan struct {
	opt     Options
	roBinds []string // the denied entries the walk left out, made read-only mounts under spec.UserNS
	rs      *ruleset
	report  Report
	spec    childSpec
}

// System trees granted read and execute without a walk: they hold the
// programs and libraries every command needs and no user secrets. /etc is
// walked (shadow, sudoers and SSH host keys live there).
var systemRO = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/opt", "/nix/store"}

// Read-only, no execute, not walked: the kernel's views.
var kernelRO = []string{"/proc", "/sys"}

// The harmless devices. /dev/tty is missing on purpose: it is the
// approval channel, and a child that can open it can answer for the user.
var devices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"}

// Probe reports what the kernel offers, without walking anything: for
// doctor.
func Probe() Report {
	k := kernelABI()
	r := Report{KernelABI: k, ABI: min(k, maxKnownABI)}
	r.Seccomp, r.SeccompWhy = seccompAvailable()
	r.Capabilities, _ = capsLine(readCaps())
	r.Rights = rightNames(rightsFor(r.ABI).fs)
	r.Network = networkLine(r.ABI, 0, false)
	r.Scoped = r.ABI >= 6
	r.Gaps = abiGaps(r.ABI, 0)
	switch ok, why := usernsAvailable(); {
	case r.ABI == 0:
		r.Gaps = append(r.Gaps, metadataGap)
	case ok:
		r.Gaps = append(r.Gaps, hardLinkMetadataGap)
	default:
		r.Gaps = append(r.Gaps, metadataGap+"; no user namespace here: "+why)
	}
	return r
}

// Prepare walks the allowed trees and builds the ruleset. It refuses
// (ErrKernelTooOld) when RequireABI is more than the kernel offers.
func Prepare(o Options) (*plan, error) {
	if err := o.settle(); err != nil {
		return nil, err
	}
	p := &plan{opt: o}
	r := &p.report
	if !o.NoMountNS {
		go usernsAvailable() // the probe runs while the trees are walked
	}
	r.KernelABI = kernelABI()
	abi := min(r.KernelABI, maxKnownABI)
	if o.MaxABI > 0 {
		abi = min(abi, o.MaxABI)
	}
	if o.RequireABI > 0 && abi < o.RequireABI {
		return nil, fmt.Errorf("%w: Landlock ABI %d required, this kernel offers %d", ErrKernelTooOld, o.RequireABI, abi)
	}
	r.ABI = abi
	r.Egress = o.EgressPort > 0
	if o.NoSeccomp {
		r.SeccompWhy = "turned off by the caller"
	} else {
		r.Seccomp, r.SeccompWhy = seccompAvailable()
	}
	p.spec.Seccomp = r.Seccomp
	p.spec.Metadata = r.Seccomp && (o.RefuseMetadata || o.Policy.Profile == "paranoid")
	r.MetadataRefused = p.spec.Metadata
	p.spec.Caps = readCaps()
	var capGap string
	r.Capabilities, capGap = capsLine(p.spec.Caps)
	r.Network = networkLine(abi, o.EgressPort, o.AllowNetwork)
	lingerGap := ""
	if f, ok := o.Stdin.(*os.File); ok && isTerminal(f) {
		r.Terminal = terminalRelayed
		if !foreground(f) {
			r.Terminal = terminalShared
			lingerGap = terminalSharedGap
		}
	}
	r.Gaps = abiGaps(abi, o.EgressPort)
	if lingerGap != "" {
		r.Gaps = append(r.Gaps, lingerGap)
	}
	if capGap != "" {
		r.Gaps = append([]string{capGap}, r.Gaps...)
	}
	if abi == 0 {
		if !p.spec.Metadata {
			r.Gaps = append(r.Gaps, metadataGap)
		}
		r.Gaps = append([]string{"Landlock is not available: the command can read, write and connect wherever its user can"}, r.Gaps...)
		return p, nil
	}
	rights := rightsFor(abi)
	if o.AllowNetwork {
		rights.net = 0
	}
	rs, err := newRuleset(abi, rights)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p.rs = rs
	p.spec.Landlock = true
	r.Rights = rightNames(rs.rights.fs)
	r.Scoped = rs.rights.scoped != 0
	if err := p.addRules(); err != nil {
		rs.close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if rs.rights.net != 0 && o.EgressPort > 0 && !o.AllowNetwork {
		if err := rs.allowConnect(o.EgressPort); err != nil {
			rs.close()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	p.metadata()
	return p, nil
}

// metadata decides how the denied entries' metadata is kept: read-only
// mounts in a namespace of the command's own where the kernel allows it
// (mountns_linux.go), else a gap (the paranoid profile's seccomp refusal
// aside).
func (p *plan) metadata() {
	r := &p.report
	if len(p.roBinds) == 0 {
		return // nothing denied inside the allowed trees
	}
	ok, why := false, "turned off by the caller"
	switch {
	case !launcherChild.Load():
		why = "this program has no launcher child (sandbox.MaybeChild)"
	case !p.opt.NoMountNS:
		ok, why = usernsAvailable()
	}
	if !ok {
		if !p.spec.Metadata {
			r.Gaps = append(r.Gaps, metadataGap+"; the command is not in a namespace of its own: "+why)
		}
		r.Gaps = append(r.Gaps, renameGap)
		p.roBinds = nil
		return
	}
	p.spec.UserNS = true
	if len(p.roBinds) > maxROBinds {
		r.Gaps = append(r.Gaps, fmt.Sprintf("%d denied entries beyond the first %d are not read-only mounts: their metadata can be changed",
			len(p.roBinds)-maxROBinds, maxROBinds))
		p.roBinds = p.roBinds[:maxROBinds]
	}
	r.ReadOnlyMounts = len(p.roBinds)
	r.Gaps = append(r.Gaps, hardLinkMetadataGap)
}

// addRules walks the roots and adds one rule per grant.
func (p *plan) addRules() error {
	o, rs, r := p.opt, p.rs, &p.report
	vars := o.Policy.Vars
	w := &walker{deny: o.Policy.KernelPaths(), budget: o.WalkBudget, roots: map[string]bool{}}

	type root struct {
		path  string
		level level
	}
	var walked []root
	addRoot := func(path string, lv level) {
		if path == "" || path == "/" {
			return
		}
		clean, err := filepath.EvalSymlinks(path)
		if err != nil {
			return
		}
		if clean == "/" || w.roots[clean] {
			return
		}
		w.roots[clean] = true
		walked = append(walked, root{clean, lv})
	}
	if o.Roots != nil {
		for _, rt := range o.Roots {
			lv := levelRO
			if rt.Write {
				lv = levelRW
			}
			addRoot(rt.Path, lv)
		}
	} else {
		ws := vars.Workspace
		if ws == "" && o.Dir != vars.Home && o.Dir != "/" {
			ws = o.Dir // no repository: the directory the command runs in
		}
		addRoot(ws, levelRW)
		addRoot(vars.Tmp, levelRW)
		addRoot(vars.Home, levelRO)
	}
	addRoot("/etc", levelRO)

	var lines []string
	add := func(path string, access uint64, follow, dir bool) error {
		if err := rs.addPath(path, access, follow, dir); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%x %s", access&rs.rights.fs, path))
		return nil
	}
	roRights := uint64(llExec | llRead | llReadDir)
	for _, d := range systemRO {
		if _, err := os.Stat(d); err == nil {
			if err := add(d, roRights, true, true); err != nil {
				return err
			}
			r.Roots = append(r.Roots, d+" (ro)")
		}
	}
	for _, d := range kernelRO {
		if _, err := os.Stat(d); err == nil {
			if err := add(d, llRead|llReadDir, true, true); err != nil {
				return err
			}
		}
	}
	for _, d := range devices {
		if _, err := os.Stat(d); err == nil {
			if err := add(d, llRead|llWrite|llTruncate, true, false); err != nil {
				return err
			}
		}
	}
	dirOnly := rs.rights.fs &^ (llFileRights &^ llResolveUnx) // list, make, remove, refer
	for _, rt := range walked {
		w.root(rt.path, rt.level)
		r.Roots = append(r.Roots, tildePath(rt.path, vars.Home)+" ("+rt.level.String()+")")
	}
	for _, g := range w.grants {
		access := roRights
		if g.level == levelRW {
			access = rs.rights.fs
		}
		if g.dirOnly {
			access &= dirOnly
			if g.level == levelRO {
				access = llReadDir
			}
		}
		if err := add(g.path, access, false, g.dir); err != nil {
			// Changed under the walk: not granted, and said so.
			r.Gaps = append(r.Gaps, fmt.Sprintf("%s was not granted: %v", g.path, err))
		}
	}
	w.finish(vars.Home)
	p.roBinds = w.skipped
	r.Gaps = append(r.Gaps, w.gaps...)
	r.Rules = len(lines)
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	r.RulesDigest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return nil
}

func networkLine(abi, egressPort int, allow bool) string {
	switch {
	case allow:
		return "not restricted (asked for)"
	case abi < 4:
		return "NOT restricted: Landlock network rules need ABI 4 (Linux 6.7)"
	case egressPort > 0:
		return fmt.Sprintf("TCP connect only to port %d (the egress proxy); TCP bind refused", egressPort)
	}
	return networkRefused
}

// abiGaps lists what Landlock at abi does not mediate.
func abiGaps(abi, egressPort int) []string {
	var g []string
	if abi >= 1 && abi < 2 {
		g = append(g, "renaming or linking files between directories is refused altogether (refer needs ABI 2)")
	}
	if abi >= 1 && abi < 3 {
		g = append(g, "truncating a readable file is not mediated (ABI 3)")
	}
	if abi < 4 {
		g = append(g, "no network rules: TCP connect and bind are open (ABI 4)")
	} else if egressPort > 0 {
		g = append(g, fmt.Sprintf("port rules carry no address: TCP port %d is open on every host, not only the proxy", egressPort))
	}
	if abi < 5 {
		g = append(g, "ioctl on devices is not mediated (ABI 5)")
	}
	if abi < 6 {
		g = append(g, "signals to and abstract UNIX sockets of processes outside the sandbox are not scoped (ABI 6)")
	}
	if abi < 9 {
		g = append(g, "connect to pathname UNIX sockets (docker.sock, an SSH agent) is not mediated (ABI 9)")
	}
	g = append(g, "system trees (/usr, /bin, /lib*, /opt, /nix/store) are granted whole, not walked: a secret placed there is readable",
		"UDP is not restricted (DNS needs it): UDP can leave the machine",
		"mmap(PROT_EXEC) of a readable file is not mediated: execute is enforced on execve only",
		"files opened before the sandbox started (inherited descriptors) keep their access; a terminal among them is not passed on",
		"a hard link to a secret inside an allowed tree is readable: rules follow paths, not inodes")
	return g
}

// Report is what the prepared sandbox enforces.
func (p *plan) Report() Report { return p.report }

// Close releases the ruleset.
func (p *plan) Close() error {
	p.rs.close()
	return nil
}

// Run launches the command, passes SIGINT, SIGTERM and SIGHUP on, waits
// and returns its exit status (128+signal when a signal ended it).
//
// By default the restrictions are applied to one locked OS thread of this
// process, which then forks the command and dies with its goroutine: the
// child inherits that thread's Landlock domain, no_new_privs and seccomp
// filter, the rest of the process stays unconfined, and the launch costs
// one fork and exec. Options.ReExec uses the launcher child instead
// (MaybeChild): a re-executed /proc/self/exe that restricts itself and
// execs, which pays this binary's start-up once more.
func (p *plan) Run() (int, error) {
	o := p.opt
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM, unix.SIGHUP)
	defer signal.Stop(sigs)
	// stdin a terminal: the command gets a session and a pty of its own
	relay, interactive := p.openRelay()
	cmd, err := p.start(relay, relay != nil)
	if err != nil {
		if relay != nil {
			relay.stop()
		}
		// as a shell does: 127 when there is no such command, or it is
		// there and what it needs to start is not (its #! interpreter,
		// its ELF loader: the exec fails ENOENT), 126 when it is there
		// and cannot be run (not executable, a directory, outside what
		// the sandbox lets run)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return 127, err
		}
		return 126, err
	}
	if relay != nil {
		if err := relay.start(); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			relay.stop()
			return 126, fmt.Errorf("relay the terminal: %w", err)
		}
		o.handoff.set(relay)
	}
	done := make(chan struct{})
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		stopped := false
		for {
			select {
			case s := <-sigs:
				// A terminal the command shares sends SIGINT to its
				// whole foreground group, command included: passing it
				// on too would deliver it twice. On a relayed pty the
				// person's Ctrl-C is a key the pty turns into the
				// command's SIGINT; a SIGINT here came from kill.
				if s == unix.SIGINT && interactive {
					continue
				}
				if relay != nil && s != unix.SIGINT {
					relay.release() // who stops airlock run may kill it next
				}
				if relay != nil && relay.in < 0 {
					// output only: the command no longer shares the
					// terminal's foreground group, which the person's
					// Ctrl-C (or a kill of that group) reached whole
					_ = unix.Kill(-cmd.Process.Pid, s.(unix.Signal))
				} else {
					_ = cmd.Process.Signal(s)
				}
				if !stopped && o.Stopped != nil {
					stopped = true
					o.Stopped(s)
				}
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	if relay != nil {
		o.handoff.set(nil)
		relay.stop()
	}
	close(done)
	<-forwarded // a Stopped call in progress finishes first
	if cmd.ProcessState == nil {
		return 0, err
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}

// openRelay opens the command's pty when stdin is a terminal. interactive
// says the command shares the terminal instead (stdin a terminal, and no
// pty could be had: said on stderr).
func (p *plan) openRelay() (relay *termRelay, interactive bool) {
	o := p.opt
	in, ok := o.Stdin.(*os.File)
	if !ok || !isTerminal(in) {
		// stdin is not a terminal: a terminal among stdout and stderr
		// is still the person's, and a command holding it could leave a
		// process behind that reads what is typed into their shell after
		// airlock run exits. It writes to a pty instead, relayed out.
		for _, w := range []io.Writer{o.Stdout, o.Stderr} {
			if f, ok := w.(*os.File); ok && isTerminal(f) {
				relay, err := openRelay(nil, f)
				if err != nil {
					fmt.Fprintf(o.Stderr, "airlock run: no pty for the command's output (%v): it writes to your terminal\n", err)
					return nil, false
				}
				return relay, false
			}
		}
		return nil, false
	}
	if !foreground(in) {
		// in the background a change of the terminal's mode would stop
		// airlock run (SIGTTOU): the command shares it, as it always did
		return nil, true
	}
	out := in
	for _, w := range []io.Writer{o.Stdout, o.Stderr} {
		if f, ok := w.(*os.File); ok && isTerminal(f) {
			out = f
			break
		}
	}
	relay, err := openRelay(in, out)
	if err != nil {
		fmt.Fprintf(o.Stderr, "airlock run: no pty for the command (%v): it shares your terminal\n", err)
		return nil, true
	}
	return relay, false
}

// Start launches the command as Run does, without passing signals and
// without waiting: for a caller that owns the command's pipes and signals
// (airlock-mcp --sandbox), which calls Wait on the returned command. Give
// Options.Stdin and Stdout as *os.File (os.Pipe) to hand the child the
// descriptors themselves. The command gets a session of its own, without
// a controlling terminal.
func (p *plan) Start() (*exec.Cmd, error) { return p.start(nil, true) }

// start launches the command, in a session of its own when setsid, with
// relay's pty as its controlling terminal and in place of every standard
// descriptor that is a terminal.
func (p *plan) start(relay *termRelay, setsid bool) (*exec.Cmd, error) {
	cmd, path, err := p.command()
	if err != nil {
		return nil, err
	}
	if p.spec.UserNS {
		cmd.SysProcAttr = usernsAttr()
	}
	if setsid {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setsid = true
	}
	ctty := -1 // the child's descriptor that is the pty
	if relay != nil {
		if relay.in >= 0 {
			cmd.Stdin, ctty = relay.slave, 0
		}
		if f, ok := cmd.Stdout.(*os.File); ok && isTerminal(f) {
			cmd.Stdout = relay.slave
			if ctty < 0 {
				ctty = 1
			}
		}
		if f, ok := cmd.Stderr.(*os.File); ok && isTerminal(f) {
			cmd.Stderr = relay.slave
			if ctty < 0 {
				ctty = 2
			}
		}
		if ctty >= 0 {
			cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, ctty
		}
	} else if setsid {
		// Start (airlock-mcp --sandbox): a terminal on stdout or stderr
		// (the server's log, on the person's terminal) reaches the
		// command through a pipe, not as the terminal itself
		cmd.Stdout, cmd.Stderr = offTerminal(cmd.Stdout), offTerminal(cmd.Stderr)
		if cmd.WaitDelay == 0 {
			cmd.WaitDelay = time.Second // a process left behind holding the pipe does not hold up Wait
		}
	}
	cloexecTerminals()
	if p.reexec() {
		err = startChild(cmd, path)
	} else {
		err = p.startOnRestrictedThread(cmd)
	}
	for _, f := range cmd.ExtraFiles {
		f.Close() // the child has its copy
	}
	if err != nil {
		return nil, fmt.Errorf("start the sandbox: %w", err)
	}
	return cmd, nil
}

// terminalWriter hides an *os.File from exec.Cmd, which then copies
// through a pipe of its own.
type terminalWriter struct{ io.Writer }

// offTerminal is w, or w behind a pipe when w is a terminal.
func offTerminal(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		return terminalWriter{f}
	}
	return w
}

// cloexecTerminals marks close-on-exec every terminal among this
// process's descriptors past stderr that it inherited open across exec
// (a shell's or an IDE's leaked descriptor): exec would hand it to the
// command, which could read the person's terminal, and go on reading it
// from a process left behind once airlock run has exited. Other
// inherited descriptors (a jobserver's pipe, a file given with 3<) pass
// on, and the gap list says so.
func cloexecTerminals() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue
		}
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
		}
	}
}

// command is the exec.Cmd for either launch.
func (p *plan) command() (cmd *exec.Cmd, path string, err error) {
	o := p.opt
	cmd = &exec.Cmd{Env: o.Env, Dir: o.Dir, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr}
	// found as the child would, either way: the launcher child execs
	// this path, and a command that is not there is said the same way
	path, err = lookPath(o.Argv[0], o.Env)
	if err != nil {
		return nil, "", err
	}
	if !p.reexec() {
		cmd.Path, cmd.Args = path, o.Argv
		return cmd, path, nil
	}
	spec := p.spec
	spec.Path = path
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return nil, "", err
	}
	cmd.Path = "/proc/self/exe"
	cmd.Args = append([]string{o.Argv[0], childArg, string(specJSON)}, o.Argv...)
	// fd 3 the ruleset, 4 the denied entries, 5 the exec report
	cmd.ExtraFiles = make([]*os.File, 3)
	if p.rs != nil {
		fd, err := unix.FcntlInt(uintptr(p.rs.fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return nil, "", err
		}
		cmd.ExtraFiles[0] = os.NewFile(uintptr(fd), "landlock-ruleset")
	}
	if p.spec.UserNS {
		f, err := bindsFile(p.roBinds)
		if err != nil {
			closeAll(cmd.ExtraFiles)
			return nil, "", err
		}
		cmd.ExtraFiles[1] = f
	}
	return cmd, path, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// execReportFD is where the launcher child reports a failed start.
const execReportFD = 5

// startChild starts the launcher child and waits until it has exec'd the
// command (the report pipe closes on exec, empty) or said why not: "E"
// and the errno of a failed exec, returned as the thread launch's
// cmd.Start returns it (a shell's 126 or 127), or "F" and what failed
// before.
func startChild(cmd *exec.Cmd, path string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd.ExtraFiles[2] = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		return err
	}
	report, _ := io.ReadAll(r)
	if len(report) == 0 {
		return nil
	}
	_ = cmd.Wait()
	if report[0] == 'E' {
		n, _ := strconv.Atoi(string(report[1:]))
		return &fs.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(n)}
	}
	return errors.New(strings.TrimPrefix(string(report), "F"))
}

// reexec: the launch goes through the launcher child, asked for or
// needed (a user namespace cannot be entered by a thread of this
// multi-threaded process, and its mounts need code before the exec).
func (p *plan) reexec() bool { return p.opt.ReExec || p.spec.UserNS }

// startOnRestrictedThread restricts a fresh locked thread and forks the
// command from it. The goroutine returns still locked, so the runtime
// ends the thread: the restrictions never serve other goroutines.
func (p *plan) startOnRestrictedThread(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked, on purpose
		if unix.Gettid() == unix.Getpid() {
			// the main thread: the runtime would park it, restricted,
			// for the life of the process (see init). Only a binary
			// that unlocked its main goroutine gets here.
			errc <- errMainThread
			return
		}
		if err := dropCapabilities(p.spec.Caps); err != nil {
			errc <- err
			return
		}
		if p.spec.Landlock {
			if err := restrictSelf(p.rs.fd); err != nil {
				errc <- err
				return
			}
		}
		if p.spec.Seccomp {
			if err := installSeccomp(seccompFilter{metadata: p.spec.Metadata}); err != nil {
				errc <- err
				return
			}
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// errMainThread refuses to restrict the main thread.
var errMainThread = errors.New("the launch landed on the main thread, which would keep the sandbox's restrictions for the life of this process: nothing was started")

// lookPath finds the command as the child would, with the child's PATH,
// and as a shell does: a name with a slash is that file (exec.ErrNotFound
// when it does not exist); a bare name is the first executable regular
// file of that name on PATH, else, when PATH holds one that is not
// executable, that file with a permission error (a shell's 126), else
// exec.ErrNotFound (127).
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return "", notFound{name: name}
		}
		return name, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	denied := ""
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if st.Mode()&0o111 != 0 {
			return p, nil
		}
		if denied == "" {
			denied = p
		}
	}
	if denied != "" {
		return "", &fs.PathError{Op: "exec", Path: denied, Err: fs.ErrPermission}
	}
	return "", notFound{name: name, onPath: true}
}

// notFound is a command that is not there; it is exec.ErrNotFound.
type notFound struct {
	name   string
	onPath bool // searched for on PATH; false: a path that does not exist
}

func (e notFound) Error() string {
	if e.onPath {
		return e.name + ": not found on PATH"
	}
	return e.name + ": no such file"
}

func (e notFound) Is(target error) bool { return target == exec.ErrNotFound }

// foreground: this process is in f's foreground process group.
func foreground(f *os.File) bool {
	pg, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	return err == nil && pg == unix.Getpgrp()
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// launcherChild: this binary called MaybeChild, so /proc/self/exe can be
// the launcher child. The namespace launch needs it; a binary that never
// called it (another package's test binary) would run itself again.
var launcherChild atomic.Bool

// MaybeChild is the launcher child: when this process was started as one,
// it restricts itself and execs the target, and never returns. Every
// binary that launches sandboxed commands calls it first thing in main.
func MaybeChild() {
	launcherChild.Store(true)
	if len(os.Args) < 4 || os.Args[1] != childArg {
		return
	}
	os.Exit(child(os.Args[2], os.Args[3:]))
}

func child(specJSON string, argv []string) int {
	report := os.NewFile(execReportFD, "exec-report")
	fail := func(code int, format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		if _, err := report.WriteString("F" + msg); err != nil {
			fmt.Fprintf(os.Stderr, "airlock run: %s\n", msg) // an older parent: no report pipe
		}
		return code
	}
	unix.CloseOnExec(execReportFD)
	var spec childSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fail(126, "sandbox child: bad spec: %v", err)
	}
	path := spec.Path
	if path == "" {
		var err error
		if path, err = exec.LookPath(argv[0]); err != nil {
			return fail(127, "%s: %v", argv[0], err)
		}
	}
	// Restrictions attach to the thread: the one that restricts must be
	// the one that execs.
	runtime.LockOSThread()
	if spec.UserNS {
		if err := readOnlyBinds(bindsChildFD); err != nil {
			return fail(126, "sandbox: %v: not started", err)
		}
	}
	if err := dropCapabilities(readCaps()); err != nil {
		return fail(126, "sandbox: %v: not started", err)
	}
	if spec.Landlock {
		if err := restrictSelf(rulesetChildFD); err != nil {
			return fail(126, "sandbox: %v: not started", err)
		}
		unix.Close(rulesetChildFD)
	}
	if spec.Seccomp {
		if err := installSeccomp(seccompFilter{metadata: spec.Metadata}); err != nil {
			return fail(126, "sandbox: %v: not started", err)
		}
	}
	err := unix.Exec(path, argv, os.Environ())
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if _, werr := report.WriteString("E" + strconv.Itoa(int(errno))); werr == nil {
			return 126
		}
	}
	return fail(126, "%s: %v", argv[0], err)
}
