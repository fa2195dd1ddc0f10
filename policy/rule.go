package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// Rule is a compiled rule, forbid or overlay rule. All its matchers must
// hold (AND); within one matcher any listed pattern may hold (OR).
//
// A rule that can only tighten (ask, block) matches when ONE fact fits,
// in any spelling: patterns and facts are folded (case, NFKC, percent
// decoding, backslashes) and both the written and the symlink-resolved
// path are tried. An allow rule matches only when it covers EVERY fact of
// its kind, exactly as written and as resolved: "allow the workspace"
// must not let `cp ws/a ~/.bashrc` through because one of its paths fits.
type Rule struct {
	ID     string
	Reason string
	Action Action
	File   string
	Line   int

	tools    []string // lower-case globs; empty = every tool
	path     *pathMatcher
	hosts    []hostPattern
	commands []cmdMatcher
	progs    progFilter // which program names any of commands can meet (cmd_options.go)
	texts    []TextPattern
	signals  []Signal
	env      []string
	flows    []string // sink kinds of secret flows (flow.go)
	never    bool     // a pattern used an empty variable (no workspace)
	hasFacts bool     // at least one fact matcher: otherwise a tool-only rule
}

type pathMatcher struct {
	globs    []PathPattern
	except   []PathPattern
	index    globIndex // of globs: which paths cannot match any (glob_index.go)
	access   Access
	src      []string
	orAbsent bool // allow: no path of the access is a fit too
}

type cmdMatcher struct {
	program []string   // globs over the program's base name
	sub     []string   // globs over the first positional
	flags   [][]string // each entry: alternatives; every entry must be present
	unless  [][]string // any entry present: no match (git config --get is a read)
	minArgs int        // positional arguments after the subcommand, at least
	args    []argPattern
	opts    []optMatcher // every entry must hold (cmd_options.go)
	// unlessArgs: the word after the subcommand fitting one of these is
	// no match (airlock allow list is a read)
	unlessArgs []argPattern
	sources    []argPattern // a positional before the last fits (mv SRC… DST)
	cwd        []argPattern // the command's directory fits
}

// hostPattern is a host rule pattern. An exact host or IP is canonicalised
// once here, so matching it is a string comparison; wildcards and CIDRs go
// through HostMatch.
type hostPattern struct {
	exact string
	glob  string
}

func compileHost(h string) hostPattern {
	if h != "*" && !strings.ContainsAny(h, "*/") {
		if c := CanonicalHost(h); c != "" {
			return hostPattern{exact: c}
		}
	}
	return hostPattern{glob: h}
}

func (p hostPattern) match(host string) bool {
	if p.exact != "" {
		return p.exact == host
	}
	return HostMatch(p.glob, host)
}

type argPattern struct {
	p   PathPattern
	abs bool // names a place ("/…"): compared with the argument's absolute path
	// lit: a pattern written "=TEXT" is TEXT itself, wildcards and all:
	// "=/*" is the word rm -rf /* spells, not every top-level directory
	lit string
	// home: a pattern written "~" or "~/…" names a place in the call's
	// home; it is met by the argument's absolute path rewritten as "~/…"
	// (so the rule names no ${home} and compiles once, at build time)
	home bool
}

// compileRule turns a raw rule into a Rule. deny says whether the rule can
// only tighten; its patterns are then folded like the facts they meet.
func compileRule(r rawRule, vars Vars, file string) (*Rule, error) {
	act, err := parseAction(r.Action)
	if r.Action == "" {
		return nil, fmt.Errorf("rule %s has no action: write action: allow, ask or block", ruleName(r))
	}
	if err != nil {
		return nil, fmt.Errorf("rule %s: %w", ruleName(r), err)
	}
	deny := act != Allow
	out := &Rule{ID: r.ID, Reason: r.Reason, Action: act, File: file, Line: r.line}
	if out.Reason == "" {
		out.Reason = "rule " + ruleName(r)
	}
	if r.Tool != "" {
		for _, t := range strings.Split(r.Tool, "|") {
			t = strings.ToLower(strings.TrimSpace(t))
			if t == "" {
				return nil, fmt.Errorf("rule %s: empty alternative in tool %q", ruleName(r), r.Tool)
			}
			out.tools = append(out.tools, t)
		}
	}
	// A pattern that uses an empty variable (no workspace) is dropped; a
	// matcher left with no pattern at all can never match.
	expand := vars.expand
	if r.Path != nil {
		if len(r.Path.Glob) == 0 {
			return nil, fmt.Errorf("rule %s: path needs at least one glob", ruleName(r))
		}
		if r.Path.OrAbsent && deny {
			return nil, fmt.Errorf("rule %s: path or_absent is for allow rules (a call with no path is allowed when the rule's globs would allow its paths)", ruleName(r))
		}
		pm := &pathMatcher{access: accessAny, orAbsent: r.Path.OrAbsent}
		if len(r.Path.Access) > 0 {
			pm.access = 0
			for _, a := range r.Path.Access {
				bit, err := parseAccess(a)
				if err != nil {
					return nil, fmt.Errorf("rule %s: %w", ruleName(r), err)
				}
				pm.access |= bit
			}
		}
		if pm.globs, _, err = compileGlobs(r.Path.Glob, deny, expand, CompilePathGlob); err != nil {
			return nil, fmt.Errorf("rule %s: path: %w", ruleName(r), err)
		}
		if pm.except, _, err = compileGlobs(r.Path.Except, deny, expand, CompilePathGlob); err != nil {
			return nil, fmt.Errorf("rule %s: path except: %w", ruleName(r), err)
		}
		pm.src = r.Path.Glob
		pm.index = indexGlobs(pm.globs)
		if len(pm.globs) == 0 {
			out.never = true
		}
		out.path = pm
		out.hasFacts = true
	}
	for _, h := range r.Host {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			return nil, fmt.Errorf("rule %s: empty host pattern", ruleName(r))
		}
		out.hosts = append(out.hosts, compileHost(h))
		out.hasFacts = true
	}
	for _, c := range r.Command {
		cm, err := compileCommand(c, deny, expand)
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", ruleName(r), err)
		}
		if len(c.Args) > 0 && len(cm.args) == 0 {
			continue
		}
		out.commands = append(out.commands, cm)
		out.hasFacts = true
	}
	out.progs = newProgFilter(out.commands)
	if out.texts, _, err = compileGlobs(r.Text, deny, expand, CompileTextGlob); err != nil {
		return nil, fmt.Errorf("rule %s: text: %w", ruleName(r), err)
	}
	if len(out.texts) > 0 {
		out.hasFacts = true
	}
	if len(r.Text) > 0 && len(out.texts) == 0 {
		out.never = true
	}
	if len(r.Command) > 0 && len(out.commands) == 0 {
		out.never = true
	}
	for _, s := range r.Signal {
		switch Signal(s) {
		case signalDownloadExec, signalReverseShell, signalForkBomb, signalUnparsed, signalAutorunUntrusted, signalPathPlant, signalPkgSource,
			signalObfuscatedExec, signalTrustSubverted, signalTrustWeakened, signalDepRedirect,
			signalRemoteDestroy, signalHistoryDestroy, signalPublish, signalAccessGrant, signalTyposquat:
			out.signals = append(out.signals, Signal(s))
		default:
			return nil, fmt.Errorf("rule %s: unknown signal %q: write download-exec, reverse-shell, fork-bomb, unparsed, autorun-untrusted, path-plant, package-source, obfuscated-exec, trust-subverted, trust-weakened, dependency-redirect, remote-destroy, history-destroy, publish, access-grant or typosquat", ruleName(r), s)
		}
		out.hasFacts = true
	}
	for _, e := range r.Env {
		out.env = append(out.env, strings.ToUpper(e))
		out.hasFacts = true
	}
	if r.Flow != nil {
		if !deny {
			return nil, fmt.Errorf("rule %s: a flow matcher can only ask or block", ruleName(r))
		}
		if out.flows, err = compileFlow(r.Flow, ruleName(r)); err != nil {
			return nil, err
		}
		out.hasFacts = true
	}
	return out, nil
}

func compileCommand(c rawCommand, deny bool, expand func(string) (string, bool, error)) (cmdMatcher, error) {
	var cm cmdMatcher
	var err error
	if len(c.Program) == 0 {
		return cm, fmt.Errorf("command needs a program")
	}
	if c.MinArgs < 0 {
		return cm, fmt.Errorf("command min_args is %d: write a count of arguments, 0 or more", c.MinArgs)
	}
	cm.minArgs = c.MinArgs
	low := func(s string) string {
		if deny {
			return FoldText(s)
		}
		return s
	}
	for _, p := range c.Program {
		cm.program = append(cm.program, low(p))
	}
	for _, s := range c.Subcommand {
		cm.sub = append(cm.sub, low(s))
	}
	for _, l := range []struct {
		src strList
		dst *[][]string
	}{{c.Flags, &cm.flags}, {c.Unless, &cm.unless}} {
		for _, f := range l.src {
			alts := strings.Split(f, "|")
			for i := range alts {
				alts[i] = strings.TrimLeft(strings.TrimSpace(alts[i]), "-")
				if alts[i] == "" {
					return cm, fmt.Errorf("empty flag in %q", f)
				}
			}
			*l.dst = append(*l.dst, alts)
		}
	}
	if cm.opts, err = compileOptions(c.Options, deny, expand); err != nil {
		return cm, err
	}
	if cm.unlessArgs, err = compileArgs(c.UnlessArgs, deny, expand); err != nil {
		return cm, err
	}
	if cm.sources, err = compileArgs(c.Sources, deny, expand); err != nil {
		return cm, err
	}
	if cm.cwd, err = compileArgs(c.Cwd, deny, expand); err != nil {
		return cm, err
	}
	cm.args, err = compileArgs(c.Args, deny, expand)
	return cm, err
}

// compileGlobs expands the variables in each pattern, folds it on the deny
// side (like the facts it will meet) and compiles it. A pattern naming an
// empty variable is dropped. It returns the expanded texts beside the
// compiled patterns.
func compileGlobs[T any](src []string, deny bool, expand func(string) (string, bool, error), compile func(string) (T, error)) ([]T, []string, error) {
	if len(src) == 0 {
		return nil, nil, nil
	}
	// sized once: growing them was most of compiling the built-in forbids,
	// which every hook process does
	out := make([]T, 0, len(src))
	texts := make([]string, 0, len(src))
	for _, g := range src {
		e, ok, err := expand(g)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		if deny {
			e = FoldText(e)
		}
		p, err := compile(e)
		if err != nil {
			return nil, nil, fmt.Errorf("pattern %q: %w", g, err)
		}
		out = append(out, p)
		texts = append(texts, e)
	}
	if len(out) == 0 {
		return nil, nil, nil // as before: every pattern dropped is no pattern
	}
	return out, texts, nil
}

func parseAccess(s string) (Access, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return accessRead, nil
	case "write":
		return accessWrite, nil
	case "exec", "execute":
		return accessExec, nil
	case "any":
		return accessAny, nil
	}
	return 0, fmt.Errorf("%q is not an access: write read, write, exec or any", s)
}

// ruleName names a rule in a message: its ID quoted (%q), else its line.
// It is strconv, not fmt: the rules Airlock makes itself (the loop's
// exceptions, limits, grants) have no reason, so every hook process names
// a few of them for their default reason.
func ruleName(r rawRule) string {
	if r.ID != "" {
		return strconv.Quote(r.ID)
	}
	if r.line > 0 {
		return "at line " + strconv.Itoa(r.line)
	}
	return "(unnamed)"
}

// matchTool reports whether a tool name fits the rule's tool globs.
// Agent and Task are one tool under two names (Claude Code renamed it).
func (r *Rule) matchTool(tool string) bool {
	if len(r.tools) == 0 {
		return true
	}
	return r.matchLowerTool(strings.ToLower(tool))
}

// matchToolOf is matchTool for a call's facts, lower-casing the tool name
// once per call rather than once per rule.
func (r *Rule) matchToolOf(f *Facts) bool {
	if len(r.tools) == 0 {
		return true
	}
	if f.ltool == "" || f.ltoolOf != f.Tool {
		f.ltool, f.ltoolOf = strings.ToLower(f.Tool), f.Tool
	}
	return r.matchLowerTool(f.ltool)
}

func (r *Rule) matchLowerTool(t string) bool {
	alias := ""
	switch t {
	case "agent":
		alias = "task"
	case "task":
		alias = "agent"
	}
	for _, g := range r.tools {
		if wildMatch(g, t) || (alias != "" && wildMatch(g, alias)) {
			return true
		}
	}
	return false
}

// wildMatch is an anchored glob with * and ? only (tool and program names).
func wildMatch(pattern, s string) bool {
	px, sx := 0, 0
	nextPx, nextSx := -1, -1
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}
