package contracts

import (
	"fmt"
	"path"
	"strings"

	"github.com/agentairlock/airlock/policy"
)

// verdict is a contract's answer on a call outside it.
type verdict struct {
	Decision policy.Decision
	// Enforced is false for a report-only contract (enforced: false): the
	// caller records the decision beside the policy's own and lets the
	// policy's decision stand.
	Enforced bool
}

// Check decides a call of server's tool (the name the server lists, or
// Claude Code's spelling of it) with the facts policy.Classify derived
// from its arguments. It returns ok=false when the server has no contract
// or the call is inside it; otherwise the verdict refuses the first thing
// outside the contract, in this order: the tool, shell commands, paths,
// hosts.
//
// A path is inside only when EVERY spelling of it is: as written (cleaned,
// absolute), symlink-resolved, and percent-decoded to a fixpoint against
// the same base (so "%2e%2e/" and a symlink out of the tree are both
// refused). A host is compared in canonical form. Arguments the classifier
// could not read whole (Facts.TooLarge) are outside any contract.
func (s *Set) Check(server, tool string, f *policy.Facts) (verdict, bool) {
	e := s.lookup(server)
	if e == nil || f == nil {
		return verdict{}, false
	}
	d, out := e.check(NormName(tool), f, s.home)
	if !out {
		return verdict{}, false
	}
	return verdict{Decision: d, Enforced: e.c.Enforced}, true
}

// GateView adapts a Set to the gate's Contracts interface, which wants
// the verdict as (decision, enforced, hit).
type GateView struct{ Set *Set }

// Check is Set.Check with the verdict spread out.
func (g GateView) Check(server, tool string, f *policy.Facts) (d policy.Decision, enforced, hit bool) {
	v, hit := g.Set.Check(server, tool, f)
	return v.Decision, v.Enforced, hit
}

func (e *compiled) check(tool string, f *policy.Facts, home string) (policy.Decision, bool) {
	name := e.c.Name
	refuse := func(target, arg, format string, args ...any) (policy.Decision, bool) {
		return policy.Decision{
			Action: e.c.Default,
			Source: policy.FromContract,
			Rule:   "contract:" + name,
			Reason: fmt.Sprintf(format, args...),
			Target: target,
			Arg:    arg,
			Hidden: arg != "" && arg != f.PrimaryArg,
		}, true
	}
	if f.TooLarge != "" {
		return refuse("", "", "contract for %q cannot vouch for arguments Airlock did not read whole: %s", name, f.TooLarge)
	}
	if !e.allowsTool(tool) {
		return refuse(tool, "", "contract for %q does not list tool %q (tools: %s)", name, tool, list(e.c.Tools))
	}
	if !e.c.Shell {
		for _, c := range f.Commands {
			cmd := strings.Join(c.Argv, " ")
			return refuse(cmd, c.Arg, "contract for %q does not allow shell commands (%s)", name, short(cmd))
		}
		for _, sg := range f.Signals {
			return refuse(sg.Detail, sg.Arg, "contract for %q does not allow shell commands (%s: %s)", name, sg.Signal, short(sg.Detail))
		}
	}
	for _, pf := range f.Paths {
		sp, problem := spellings(pf, home)
		if problem != "" {
			return refuse(pf.Raw, pf.Arg, "contract for %q cannot place path %q: %s (fs: %s)", name, pf.Raw, problem, list(e.c.FS))
		}
		for _, p := range sp {
			if e.allowsPath(p.path) {
				continue
			}
			if p.how == "" {
				return refuse(p.path, pf.Arg, "contract for %q does not cover path %q (fs: %s)", name, p.path, list(e.c.FS))
			}
			return refuse(p.path, pf.Arg, "contract for %q does not cover path %q: it %s %q (fs: %s)", name, pf.Raw, p.how, p.path, list(e.c.FS))
		}
	}
	for _, h := range f.Hosts {
		host := h.Host
		if host == "" {
			host = policy.CanonicalHost(h.Raw)
		}
		if host == "" {
			return refuse(h.Raw, h.Arg, "contract for %q cannot read host %q, so it cannot vouch for it (net: %s)", name, h.Raw, list(e.c.Net))
		}
		if !e.allowsHost(host) {
			return refuse(host, h.Arg, "contract for %q does not allow host %q (net: %s)", name, host, list(e.c.Net))
		}
	}
	return policy.Decision{}, false
}

func (e *compiled) allowsTool(tool string) bool {
	for _, t := range e.tools {
		if t == tool || strings.ContainsAny(t, "*?") && policy.TextGlob(t, tool) {
			return true
		}
	}
	return false
}

func (e *compiled) allowsPath(p string) bool {
	for _, g := range e.fs {
		if g.Match(p) {
			return true
		}
	}
	return false
}

func (e *compiled) allowsHost(h string) bool {
	for _, p := range e.net {
		if p.match(h) {
			return true
		}
	}
	return false
}

// spelling is one absolute path a path fact may reach, and how it was
// derived from what was written ("" for the cleaned form itself).
type spelling struct {
	path string
	how  string
}

// spellings returns every place a path fact may name. problem is set when
// one spelling cannot be placed at all: a contract can only vouch for a
// path it can place, so the caller refuses.
//
// The classifier already cleans the path and resolves its symlinks; this
// adds the percent-decoded spelling with its exact case (the classifier's
// own decoded twin is case-folded, for deny rules), made absolute against
// the same base the written path was, because a server that decodes its
// arguments reads "/ws/%2e%2e/etc/passwd" as /etc/passwd.
func spellings(pf policy.PathFact, home string) ([]spelling, string) {
	if pf.Path == "" || !absPath(pf.Path) {
		return nil, "it is not an absolute path"
	}
	out := []spelling{{path: pf.Path}}
	if pf.Resolved != "" && pf.Resolved != pf.Path {
		if !absPath(pf.Resolved) {
			return nil, "its symlinks resolve to a relative path"
		}
		out = append(out, spelling{path: pf.Resolved, how: "resolves to"})
	}
	dec := policy.PercentDecode(pf.Raw)
	if dec == pf.Raw {
		return out, ""
	}
	base, ok := baseOf(pf, home)
	if !ok {
		return nil, "it climbs out of its directory with '..' and hides more behind percent-escapes"
	}
	d := policy.ExpandPath(dec, base, home)
	if !absPath(d) {
		return nil, "decoded, it is not an absolute path"
	}
	if d != pf.Path {
		out = append(out, spelling{path: d, how: "decodes to"})
		if r := policy.ResolveSymlinks(d); r != d {
			out = append(out, spelling{path: r, how: "decodes and resolves to"})
		}
	}
	return out, ""
}

// baseOf finds the directory a path fact's Raw was made absolute against:
// the call's cwd, or the directory a shell command cd'd into. The fact
// does not carry it, so it is read back from Path: for a relative Raw that
// does not climb, Path is base + Raw cleaned. The classifier's decoded
// twin of a fact was built from the folded Raw, so that spelling is tried
// too. ok is false when no base reproduces Path.
func baseOf(pf policy.PathFact, home string) (string, bool) {
	for _, raw := range []string{pf.Raw, policy.FoldText(pf.Raw)} {
		if policy.ExpandPath(raw, probeA, home) == policy.ExpandPath(raw, probeB, home) {
			// rooted: ~, $HOME, /, a drive or file:// — the base plays no part
			if policy.ExpandPath(raw, "/", home) == pf.Path {
				return "/", true
			}
			continue
		}
		if c := path.Clean(strings.ReplaceAll(raw, `\`, "/")); c == ".." || strings.HasPrefix(c, "../") {
			continue // the written path climbs: Path lost the segments the base had
		}
		drive := ""
		if len(pf.Path) >= 2 && pf.Path[1] == ':' {
			drive = pf.Path[:2]
		}
		rel := strings.TrimPrefix(policy.ExpandPath(raw, drive+"/", home), drive)
		base := pf.Path
		if rel != "/" {
			var cut bool
			if base, cut = strings.CutSuffix(pf.Path, rel); !cut {
				continue
			}
		}
		if base == "" || base == drive {
			base = drive + "/"
		}
		if policy.ExpandPath(raw, base, home) == pf.Path {
			return base, true
		}
	}
	return "", false
}

// Two deep, disjoint directories: a raw path that comes out the same
// against both does not depend on its base (a relative one that climbs
// would need eight ".." to look rooted).
const (
	probeA = "/a/b/c/d/e/f/g/h"
	probeB = "/i/j/k/l/m/n/o/p"
)

// absPath reports whether p is rooted: "/x" or "C:/x".
func absPath(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) > 2 && p[1] == ':' && p[2] == '/'
}

func list(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// short keeps a command readable inside a reason; the full text is the
// decision's target.
func short(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
