package mcpproxy

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/contracts"
	"github.com/agentairlock/airlock/gate"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/notify"
	"github.com/agentairlock/airlock/sandbox"
)

// profile is what the kernel lets one sandboxed server touch.
type profile struct {
	roots   []sandbox.Root
	network bool   // TCP through the egress proxy; false: no TCP connect
	source  string // where the profile came from, for the banner and the record
	gaps    []string
}

// serverProfile derives the per-server profile: the contract's fs (read
// and write: the gate decides which calls write) and net when a contract
// is enforced for this server, the workspace read-only otherwise; plus
// what the server process needs to run: its command's own tree and the
// package its script lives in (read and execute), and the temp dir.
func serverProfile(o Options) profile {
	var pr profile
	vars := o.Gate.Policy.Vars
	seen := map[string]bool{}
	add := func(path string, write bool) {
		path = filepath.Clean(path)
		if path == "/" || path == "." || seen[path] {
			return
		}
		seen[path] = true
		pr.roots = append(pr.roots, sandbox.Root{Path: path, Write: write})
	}
	var c *contracts.Contract
	if v, ok := o.Gate.Contracts.(contracts.GateView); ok {
		if got, ok := v.Set.Get(o.Name); ok && got.Enforced {
			c = got
		}
	}
	if c != nil {
		pr.source = fmt.Sprintf("the contract for %q", o.Name)
		for _, g := range c.FS {
			exp, ok, err := vars.Expand(g)
			if err != nil || !ok {
				continue // a pattern naming an empty variable covers nothing
			}
			dir := globBase(exp)
			if dir == "/" || dir == "" {
				pr.gaps = append(pr.gaps, fmt.Sprintf("fs pattern %q reaches the whole file system: the kernel grants it nothing", g))
				continue
			}
			add(dir, true)
		}
		pr.network = len(c.Net) > 0
	} else {
		pr.source = "no enforced contract: the workspace read-only"
		ws := vars.Workspace
		if ws == "" && o.Dir != vars.Home && o.Dir != "/" {
			ws = o.Dir
		}
		if ws != "" {
			add(ws, false)
		}
		pr.network = true
	}
	for _, d := range runTrees(o.Argv, o.Dir, vars.Home) {
		if covers(d, vars.Home) {
			pr.gaps = append(pr.gaps, fmt.Sprintf("%s holds the home directory: not granted for the server's command (install it in a directory of its own)", d))
			continue
		}
		add(d, false)
	}
	if vars.Tmp != "" {
		add(vars.Tmp, true)
	}
	return pr
}

// globBase is the directory a path glob cannot leave: everything before
// the first path element holding a wildcard.
func globBase(g string) string {
	i := strings.IndexAny(g, "*?[{")
	if i < 0 {
		return filepath.Clean(g)
	}
	j := strings.LastIndexByte(g[:i], '/')
	if j <= 0 {
		return "/"
	}
	return filepath.Clean(g[:j])
}

// systemTrees are granted by the launcher whole; a command there needs
// no tree of its own.
var systemTrees = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/opt", "/nix/store"}

func underSystem(p string) bool {
	for _, s := range systemTrees {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// runTrees is what the server's command needs to read to run: the
// command's installation (the parent of its bin directory, or its own
// directory) and, for every argument naming an existing file (node's
// script), the node_modules tree it lives in, or its directory.
func runTrees(argv []string, dir, home string) []string {
	var out []string
	if len(argv) == 0 {
		return nil
	}
	if path, err := exec.LookPath(argv[0]); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			for _, p := range []string{path, real} {
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				d := filepath.Dir(p)
				if up := filepath.Dir(d); filepath.Base(d) == "bin" && !covers(up, home) {
					d = up
				}
				if !underSystem(d) {
					out = append(out, d)
				}
			}
		}
	}
	for _, a := range argv[1:] {
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if underSystem(p) {
			continue
		}
		out = append(out, packageTree(p))
	}
	return out
}

// covers reports whether tree is path or one of its ancestors.
func covers(tree, path string) bool {
	if path == "" {
		return false
	}
	return tree == "/" || tree == path || strings.HasPrefix(path, tree+"/")
}

// packageTree is the outermost node_modules above file (its dependencies
// are resolved there), or the file's directory.
func packageTree(file string) string {
	best := ""
	for d := filepath.Dir(file); d != "/" && d != "."; d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			best = d
		}
	}
	if best != "" {
		return best
	}
	return filepath.Dir(file)
}

// sandboxed is a prepared sandbox for the server, and what to undo.
type sandboxed struct {
	sess    *sandbox.Session
	profile profile
	stdinR  *os.File
	stdinW  *os.File
}

// close stops the egress proxy (its last records go to the log, so
// before the log closes) and releases the ruleset. Calling it again does
// nothing.
func (s *sandboxed) close() {
	if s.sess != nil {
		_ = s.sess.Close()
	}
}

// prepareSandbox builds the server's profile and opens its sandbox
// session: the kernel ruleset and, when the profile allows network, the
// egress proxy, whose asks go to the gate's ask channel and whose blocks
// are noticed as the gate's are. Nothing is started on failure.
func prepareSandbox(o Options, p *Proxy, childOut *os.File) (*sandboxed, error) {
	if o.Gate == nil || o.Gate.Policy == nil {
		return nil, errors.New("--sandbox needs the policy")
	}
	s := &sandboxed{profile: serverProfile(o)}
	opt := sandbox.Options{Argv: o.Argv, Dir: o.Dir, Policy: o.Gate.Policy, Roots: s.profile.roots, Stdout: childOut, Stderr: o.Stderr, Env: os.Environ()}
	require := os.Getenv("AIRLOCK_REQUIRE_SANDBOX") == "1" // as airlock run: Landlock ABI 4 and seccomp
	if require {
		opt.RequireABI = 4
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	opt.Stdin = r
	cfg := sandbox.SessionConfig{
		Options:  opt,
		ID:       p.session,
		Home:     p.home(),
		Getenv:   o.Gate.Env.Getenv, // AIRLOCK_FAIL_OPEN
		NoEgress: !s.profile.network,
		Ask:      o.Gate.Ask,
		Server:   o.Name,
		Record:   func(r audit.Record) error { _, err := p.log.Append(r); return err },
	}
	if n := o.Gate.Notify; n != nil {
		source := "mcp:" + o.Name
		cfg.Notice = func(r audit.Record) {
			n.Blocked(notify.Block{Source: source, Tool: r.Tool, Target: r.Target, Rule: r.Rule, Reason: r.Reason, Fix: "airlock report"})
		}
	}
	sess, err := sandbox.OpenSession(cfg)
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	s.sess, s.stdinR, s.stdinW = sess, r, w
	if rep := sess.Report(); require && !rep.Seccomp {
		r.Close()
		w.Close()
		s.close()
		return nil, fmt.Errorf("a sandbox was required (AIRLOCK_REQUIRE_SANDBOX=1) and seccomp is off (%s)", rep.SeccompWhy)
	}
	return s, nil
}

// sandboxBanner is the launcher's banner as this server's.
func sandboxBanner(name string, s *sandboxed) string {
	b := strings.Replace(s.sess.Report().Banner(), "airlock run:", fmt.Sprintf("airlock-mcp %s:", textsafe.Escape(name)), 1) // the config chooses the name
	b += fmt.Sprintf("  profile:  %s\n", s.profile.source)
	for _, g := range s.profile.gaps {
		b += "    - " + g + "\n"
	}
	return b
}

func sandboxStartRecord(o Options, s *sandboxed) audit.Record {
	digest := gate.ConfigOf("mcp", o.Gate.Policy, o.Gate.Env).Fingerprint()
	return s.sess.StartRecord(describeArgv(redactArgv(o.Argv)), fmt.Sprintf("server=%q cwd=%q policy=%s profile=%q profile_gaps=%q", o.Name, o.Dir, digest, s.profile.source, strings.Join(s.profile.gaps, "; ")))
}
