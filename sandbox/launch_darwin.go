//go:build darwin

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// On macOS the command runs under sandbox-exec with the profile
// seatbelt.go makes from the policy. sandbox-exec applies the profile to
// itself and execs the command, so nothing runs between the two; the
// rest of this process (the egress proxy, the records) stays unconfined.
// The backend is tested by its profile generator only until a macOS
// runner exists (docs/sandbox.md).

// sandboxExec is Apple's launcher: deprecated, still shipped.
const sandboxExec = "/usr/bin/sandbox-exec"

// plan is a prepared launch: the profile is made and the report known.
type plan struct {
	opt     Options
	profile string
	report  Report
}

// noSandboxExec is ErrUnsupported on a Mac without sandbox-exec.
type noSandboxExec struct{ err error }

func (e noSandboxExec) Error() string {
	return fmt.Sprintf("the macOS sandbox needs %s (%v): nothing was started", sandboxExec, e.err)
}
func (e noSandboxExec) Is(target error) bool { return target == ErrUnsupported }

// Probe reports what a launch here would enforce, without the policy:
// for doctor.
func Probe() Report {
	in := seatbeltInput{System: existing(seatbeltSystem), Devices: existing(seatbeltDevices), EgressPort: 1}
	r := seatbeltReport(in, "")
	r.Network = "TCP connect only to the egress proxy on loopback; DNS, UDP and bind refused"
	if _, err := os.Stat(sandboxExec); err != nil {
		r.Gaps = append([]string{noSandboxExec{err}.Error()}, r.Gaps...)
	}
	return r
}

// Prepare makes the profile. RequireABI and MaxABI are Landlock's and do
// not apply; a Mac without sandbox-exec is refused (ErrUnsupported).
func Prepare(o Options) (*plan, error) {
	if err := o.settle(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(sandboxExec); err != nil {
		return nil, noSandboxExec{err}
	}
	aliases := map[string]string{}
	for k, v := range seatbeltAliases {
		aliases[k] = v
	}
	// the policy's paths name the home as the environment spells it; the
	// kernel sees where it resolves to
	if h := o.Policy.Vars.Home; h != "" {
		if real, err := filepath.EvalSymlinks(h); err == nil && real != h {
			aliases[h] = real
		}
	}
	in := seatbeltInput{
		Roots:        resolveRoots(allowedRoots(o), filepath.EvalSymlinks),
		System:       existing(seatbeltSystem),
		Devices:      existing(seatbeltDevices),
		Deny:         o.Policy.KernelPaths().Globs(),
		Aliases:      aliases,
		EgressPort:   o.EgressPort,
		AllowNetwork: o.AllowNetwork,
	}
	profile, err := seatbeltProfile(in)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the Seatbelt profile: %w", err)
	}
	return &plan{opt: o, profile: profile, report: seatbeltReport(in, profile)}, nil
}

func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Report is what the prepared sandbox enforces.
func (p *plan) Report() Report { return p.report }

// Close does nothing: a profile holds no descriptor.
func (p *plan) Close() error { return nil }

// Run launches the command, passes SIGINT, SIGTERM and SIGHUP on, waits
// and returns its exit status (128+signal when a signal ended it), as on
// Linux.
func (p *plan) Run() (int, error) {
	o := p.opt
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM, unix.SIGHUP)
	defer signal.Stop(sigs)
	cmd, err := p.Start()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return 127, err
		}
		return 126, err
	}
	// a terminal sends SIGINT to its whole foreground group, child
	// included: passing it on too would deliver it twice
	interactive := isTerminal(o.Stdin)
	done := make(chan struct{})
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		stopped := false
		for {
			select {
			case s := <-sigs:
				if s == unix.SIGINT && interactive {
					continue
				}
				_ = cmd.Process.Signal(s)
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
	close(done)
	<-forwarded
	if cmd.ProcessState == nil {
		return 0, err
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}

// Start launches sandbox-exec -p PROFILE COMMAND… without waiting.
func (p *plan) Start() (*exec.Cmd, error) {
	o := p.opt
	path, err := commandPath(o.Argv[0], o.Env, o.Dir)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: sandboxExec, Env: o.Env, Dir: o.Dir, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
		Args: append([]string{"sandbox-exec", "-p", p.profile, path}, o.Argv[1:]...)}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the sandbox: %w", err)
	}
	return cmd, nil
}

// commandPath finds the command as the child's PATH does. sandbox-exec
// would find it too, but its failure is its own exit status, not a
// shell's 127 or 126; and an absolute path never reads as an option.
func commandPath(name string, env []string, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return p, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = dir
		}
		p := filepath.Join(d, name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH: %w", name, exec.ErrNotFound)
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TIOCGETA)
	return err == nil
}

// MaybeChild does nothing: sandbox-exec is the launcher here.
func MaybeChild() {}
