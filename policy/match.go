package policy

import (
	"path"
	"strings"

	"github.com/agentairlock/airlock/scan/secret"
)

// Hit is the fact a rule matched: what to name in the reason.
type Hit struct {
	Target string
	Arg    string
	Via    string // what happened to the target, when the rule says it itself (a flow)
}

// Match reports whether the rule applies to the call described by f.
func (r *Rule) Match(f *Facts) (Hit, bool) {
	if r.never || !r.matchToolOf(f) {
		return Hit{}, false
	}
	if r.Action == Allow {
		return r.matchAllow(f)
	}
	return r.matchDeny(f)
}

// factKinds is which kinds of fact a call has, and what its paths do
// between them (kindsOf, once per call). Every matcher of a deny rule needs
// at least one fact of its kind (a path one with an overlapping access), so
// a rule whose kind the call lacks cannot match: the forbids' loop passes
// it over without a call to Match, which for ~150 forbids was an eighth
// of a Read's decision.
type factKinds struct {
	access                                  Access
	hosts, cmds, signals, env, texts, flows bool
}

func kindsOf(f *Facts) factKinds {
	k := factKinds{hosts: len(f.Hosts) > 0, cmds: len(f.Commands) > 0, signals: len(f.Signals) > 0,
		env: len(f.Env) > 0, texts: len(f.Texts) > 0, flows: len(f.Flows) > 0}
	for i := range f.Paths {
		k.access |= f.Paths[i].Access
	}
	if plainGlobScan {
		k = factKinds{access: ^Access(0), hosts: true, cmds: true, signals: true, env: true, texts: true, flows: true}
	}
	return k
}

// lacks reports whether the deny rule r needs a kind of fact k has none
// of: then r.Match(f) is false. An allow rule never lacks.
func (r *Rule) lacks(k *factKinds) bool {
	if r.Action == Allow {
		return false
	}
	return r.path != nil && r.path.access&k.access == 0 ||
		len(r.hosts) > 0 && !k.hosts || len(r.commands) > 0 && !k.cmds ||
		len(r.signals) > 0 && !k.signals || len(r.env) > 0 && !k.env ||
		len(r.flows) > 0 && !k.flows || len(r.texts) > 0 && !k.texts
}

func (r *Rule) matchDeny(f *Facts) (Hit, bool) {
	var hit Hit
	found := false
	take := func(h Hit) {
		if !found {
			hit, found = h, true
		}
	}
	if r.path != nil {
		h, ok := r.path.deny(f.Paths)
		if !ok {
			return Hit{}, false
		}
		take(h)
	}
	if len(r.hosts) > 0 {
		h, ok := denyHosts(r.hosts, f.Hosts)
		if !ok {
			return Hit{}, false
		}
		take(h)
	}
	if len(r.commands) > 0 {
		if !r.progs.anyOf(f.Commands) {
			return Hit{}, false
		}
		h, ok := denyCommands(r.commands, f.Commands)
		if !ok {
			return Hit{}, false
		}
		take(h)
	}
	if len(r.signals) > 0 {
		h, ok := matchSignals(r.signals, f.Signals)
		if !ok {
			return Hit{}, false
		}
		take(h)
	}
	if len(r.env) > 0 {
		h, ok := matchEnv(r.env, f.Env, true)
		if !ok {
			return Hit{}, false
		}
		take(h)
	}
	if len(r.flows) > 0 {
		h, ok := matchFlows(r.flows, f.Flows)
		if !ok {
			return Hit{}, false
		}
		// the call's own target stays the target (the record says what
		// the call was); what flowed where is the via
		h.Via = h.Target
		h.Target = f.Primary
		take(h)
	}
	if len(r.texts) > 0 {
		h, ok := denyTexts(r.texts, f.Texts)
		if !ok {
			return Hit{}, false
		}
		take(h)
	}
	if !found {
		hit = Hit{Target: f.Primary, Arg: f.PrimaryArg}
	}
	return hit, true
}

func (r *Rule) matchAllow(f *Facts) (Hit, bool) {
	hit := Hit{Target: f.Primary, Arg: f.PrimaryArg}
	if r.path != nil && !r.path.allow(f.Paths) {
		return Hit{}, false
	}
	if len(r.hosts) > 0 && !allowHosts(r.hosts, f.Hosts) {
		return Hit{}, false
	}
	if len(r.commands) > 0 && !allowCommands(r.commands, f.Commands) {
		return Hit{}, false
	}
	if len(r.signals) > 0 {
		if _, ok := matchSignals(r.signals, f.Signals); !ok {
			return Hit{}, false
		}
	}
	if len(r.env) > 0 {
		if _, ok := matchEnv(r.env, f.Env, false); !ok {
			return Hit{}, false
		}
	}
	if len(r.texts) > 0 {
		ok := false
		for _, t := range r.texts {
			if t.Match(f.Primary) {
				ok = true
				break
			}
		}
		if !ok {
			return Hit{}, false
		}
	}
	return hit, true
}

// deny: one fact with an overlapping access, in its written or its resolved
// form, fits a glob and no exception.
func (m *pathMatcher) deny(paths []PathFact) (Hit, bool) {
	for i := range paths {
		p := &paths[i]
		if p.Access&m.access == 0 {
			continue
		}
		keys := &p.keys
		var own [2]formIndex
		if !p.keyed {
			// a fact not made by Classify: the same answer, with its keys
			// computed here
			own = [2]formIndex{formKeys(p.fold), formKeys(p.rfold)}
			keys = &own
		}
		for k, form := range [2]string{p.fold, p.rfold} {
			if form == "" {
				continue
			}
			if p.Glob || p.Tree || p.Names {
				// a pattern, a tree or a name: its literal keys say
				// nothing about what it can name (match_shapes.go)
				if m.denyShaped(p, form, &keys[k]) {
					return Hit{Target: p.Path, Arg: p.Arg}, true
				}
				continue
			}
			if m.index.skips(&keys[k]) {
				continue
			}
			if matchAnyKeyed(m.globs, form, &keys[k]) && !matchAny(m.except, form) {
				return Hit{Target: p.Path, Arg: p.Arg}, true
			}
		}
	}
	return Hit{}, false
}

// allow: every fact of the rule's access fits, written and resolved, and
// there is at least one (or none, for a matcher with or_absent).
func (m *pathMatcher) allow(paths []PathFact) bool {
	n := 0
	for i := range paths {
		p := &paths[i]
		if p.Access&m.access == 0 {
			continue
		}
		if p.Access&^m.access != 0 && m.access != accessAny {
			// the fact also does something the rule does not allow
			return false
		}
		n++
		for _, form := range [2]string{p.Path, p.Resolved} {
			if form == "" {
				continue
			}
			if !matchAny(m.globs, form) || matchAny(m.except, form) {
				return false
			}
		}
	}
	return n > 0 || m.orAbsent
}

func matchAny(globs []PathPattern, p string) bool {
	for i := range globs {
		if globs[i].Match(p) {
			return true
		}
	}
	return false
}

func denyHosts(patterns []hostPattern, hosts []HostFact) (Hit, bool) {
	for _, h := range hosts {
		if h.Host == "" {
			continue
		}
		for _, p := range patterns {
			if p.match(h.Host) {
				return Hit{Target: h.Host, Arg: h.Arg}, true
			}
		}
	}
	return Hit{}, false
}

func allowHosts(patterns []hostPattern, hosts []HostFact) bool {
	if len(hosts) == 0 {
		return false
	}
	for _, h := range hosts {
		ok := false
		for _, p := range patterns {
			if h.Host != "" && p.match(h.Host) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func denyCommands(ms []cmdMatcher, cmds []commandFact) (Hit, bool) {
	for i := range cmds {
		for j := range ms {
			if ms[j].match(&cmds[i], true) {
				return Hit{Target: strings.Join(cmds[i].Argv, " "), Arg: cmds[i].Arg}, true
			}
		}
	}
	return Hit{}, false
}

func allowCommands(ms []cmdMatcher, cmds []commandFact) bool {
	if len(cmds) == 0 {
		return false
	}
	for i := range cmds {
		ok := false
		for j := range ms {
			if ms[j].match(&cmds[i], false) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// match tests one command. On the deny side the words are folded like the
// patterns; on the allow side they are compared as written.
func (m *cmdMatcher) match(c *commandFact, deny bool) bool {
	if len(c.Argv) == 0 {
		return false
	}
	norm := func(s string) string {
		if deny {
			return FoldText(s)
		}
		return s
	}
	// the folded name the classifier filled, without Program's copy of
	// the fact (a deny rule's every command matcher meets every command)
	prog := ""
	switch {
	case deny && c.fprog != "":
		prog = c.fprog
	case deny:
		prog = FoldText(c.Program())
	default:
		prog = c.Program()
	}
	ok := false
	for _, g := range m.program {
		if wildMatch(g, prog) {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	args := c.Argv[1:]
	if len(m.sub) > 0 {
		sub := firstPositional(args, c.Program())
		if sub < 0 {
			return false
		}
		ok = false
		for _, g := range m.sub {
			if wildMatch(g, norm(args[sub])) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
		args = args[sub+1:]
	}
	for _, alts := range m.flags {
		if !hasFlag(args, alts, true) {
			return false
		}
	}
	for _, alts := range m.unless {
		if hasFlag(args, alts, false) {
			return false
		}
	}
	if m.minArgs > 0 {
		n := 0
		for _, a := range args {
			if !isFlag(a) {
				n++
			}
		}
		if n < m.minArgs {
			return false
		}
	}
	if m.shaped() && !m.matchShape(args, norm, c) {
		return false
	}
	if len(m.args) > 0 {
		ok = false
		for _, a := range args {
			if isFlag(a) {
				continue
			}
			if m.argsAt(norm(a), norm(c.Dir), norm(c.Home)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// argMatches compares a positional argument with the rule's patterns. A
// pattern that starts with "/" names a place: it meets the absolute clean
// path the argument denotes from the command's directory (so `cd / && rm
// -rf *` is `rm -rf /*`). Any other pattern meets the word as written.
func argMatches(globs []argPattern, a, dir string) bool {
	abs := ""
	for i := range globs {
		g := &globs[i]
		if !g.abs {
			if g.p.Match(a) {
				return true
			}
			continue
		}
		if abs == "" {
			abs = absArg(a, dir)
			if abs == "" {
				abs = "\x00"
			}
		}
		if abs != "\x00" && g.p.Match(abs) {
			return true
		}
	}
	return false
}

func absArg(a, dir string) string {
	if a == "" || strings.Contains(a, "://") {
		return ""
	}
	if strings.HasPrefix(a, "/") {
		return path.Clean(a)
	}
	if dir == "" {
		return ""
	}
	return path.Clean(dir + "/" + a)
}

func isFlag(a string) bool {
	return len(a) > 1 && a[0] == '-'
}

// firstPositional finds the subcommand, skipping the global options of
// programs that take a value before it (git -C dir, git -c k=v).
func firstPositional(args []string, prog string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !isFlag(a) {
			return i
		}
		if prog == "git" && (a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace") {
			i++
		}
	}
	return -1
}

// hasFlag reports whether any alternative is present: a one-letter
// alternative as a short flag in any cluster (-rf, -fr, -r -f), a longer
// one as --name, --name=value or -name (find's single-dash words).
// goValue also reads -name=value as the flag (Go's flag package does:
// airlock run -yes=true is --yes): a rule's flags meet it, its unless
// exceptions do not (git would refuse it, and an exception must not
// grow).
func hasFlag(args []string, alts []string, goValue bool) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !isFlag(a) {
			continue
		}
		if strings.HasPrefix(a, "--") {
			name := a[2:]
			if i := strings.IndexByte(name, '='); i >= 0 {
				name = name[:i]
			}
			for _, alt := range alts {
				if len(alt) > 1 && strings.EqualFold(name, alt) {
					return true
				}
			}
			continue
		}
		// one dash: a cluster of short flags (-rf), or a long name
		// (find -delete), with a value for Go's flag package
		word := a[1:]
		name, _, valued := strings.Cut(word, "=")
		if valued && !goValue {
			name = word
		}
		for _, alt := range alts {
			if len(alt) == 1 {
				if strings.Contains(word, alt) && !strings.ContainsRune(word, '=') {
					return true
				}
			} else if strings.EqualFold(name, alt) {
				return true
			}
		}
	}
	return false
}

func matchSignals(want []Signal, have []signalFact) (Hit, bool) {
	for _, s := range have {
		for _, w := range want {
			if s.Signal == w {
				return Hit{Target: s.Detail, Arg: s.Arg}, true
			}
		}
	}
	return Hit{}, false
}

func matchEnv(globs []string, env []envFact, deny bool) (Hit, bool) {
	if !deny && len(env) == 0 {
		return Hit{}, false
	}
	for _, e := range env {
		ok := false
		for _, g := range globs {
			if wildMatch(g, strings.ToUpper(e.Name)) {
				ok = true
				break
			}
		}
		if deny && ok {
			return Hit{Target: e.Name + "=" + e.Value, Arg: e.Arg}, true
		}
		if !deny && !ok {
			return Hit{}, false
		}
	}
	return Hit{}, !deny
}

func denyTexts(ps []TextPattern, texts []textFact) (Hit, bool) {
	for i := range texts {
		t := &texts[i]
		for j := range ps {
			if ps[j].Match(t.fold) {
				return Hit{Target: clip(t.Raw, 120), Arg: t.Arg}, true
			}
		}
	}
	return Hit{}, false
}

// clip cuts a target to n bytes for a decision. A text past n is masked
// first (scan/secret), as the audit log would mask it whole: a token cut
// in two no longer has its shape, and the log would keep most of it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if s = secret.Mask(s); len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
