package policy

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Option value patterns of command patterns: "a -v/--volume/--mount whose
// source is / or the home", "--pid=host", "ssh -R to any host". A rule
// writes
//
//	options: {"v|volume|mount": ["/", "${home}", "!/etc/localtime"], "pid": ["host"]}
//
// Every key must hold (AND): one of its option names is present with a
// value that fits one of the patterns and none of the "!" exceptions. A
// key with no patterns holds when the option is present with any value.
// Names are written without dashes; a one-letter name is a short option
// (-v VALUE, -vVALUE, -v=VALUE, or the last letter of a cluster, -itv
// VALUE), a longer one --name VALUE, --name=VALUE or -name VALUE.
//
// A pattern starting with "/" names a place: it is a path glob (** and all)
// met by the paths the value denotes — the value itself, its part before
// the first ':' (a volume's source, "/:/host:ro"), and the source=/src=
// field of a comma list (--mount type=bind,source=/,target=/h), each
// cleaned and made absolute against the command's directory. Any other
// pattern is a whole-value text glob ("host", "*sys_admin*"), folded like
// the value on the deny side.

type optMatcher struct {
	names  []string
	values []optValue
	except []optValue
}

type optValue struct {
	path PathPattern // abs or home
	glob string      // otherwise
	abs  bool
	home bool // "~…": met by the candidate's place in the home
}

func compileOptions(src optionMap, deny bool, expand func(string) (string, bool, error)) ([]optMatcher, error) {
	if len(src) == 0 {
		return nil, nil
	}
	byName := make(map[string]strList, len(src))
	keys := make([]string, 0, len(src))
	for _, e := range src {
		if _, dup := byName[e.Names]; !dup {
			keys = append(keys, e.Names)
		}
		byName[e.Names] = e.Values
	}
	sort.Strings(keys)
	out := make([]optMatcher, 0, len(keys))
	for _, k := range keys {
		var om optMatcher
		for _, n := range strings.Split(k, "|") {
			n = strings.TrimLeft(strings.TrimSpace(n), "-")
			if n == "" {
				return nil, fmt.Errorf("options: empty option name in %q", k)
			}
			om.names = append(om.names, n)
		}
		pats := byName[k]
		for _, p := range pats {
			neg := strings.HasPrefix(p, "!")
			if neg {
				p = p[1:]
			}
			e, ok, err := expand(p)
			if err != nil {
				return nil, fmt.Errorf("options %q: %w", k, err)
			}
			if !ok || e == "" {
				continue
			}
			if deny {
				e = FoldText(e)
			}
			v := optValue{glob: e}
			if home := e == "~" || strings.HasPrefix(e, "~/"); home || strings.HasPrefix(e, "/") {
				pp, err := CompilePathGlob(e)
				if err != nil {
					return nil, fmt.Errorf("options %q: pattern %q: %w", k, p, err)
				}
				v = optValue{path: pp, abs: !home, home: home}
			}
			if neg {
				om.except = append(om.except, v)
			} else {
				om.values = append(om.values, v)
			}
		}
		if len(pats) > 0 && len(om.values) == 0 {
			// every pattern named an empty variable: this key can never hold
			om.values = []optValue{}
		}
		out = append(out, om)
	}
	return out, nil
}

// shaped reports whether the matcher has any of the keys matchShape tests.
func (m *cmdMatcher) shaped() bool {
	return len(m.opts) > 0 || len(m.unlessArgs) > 0 || len(m.sources) > 0 || len(m.cwd) > 0
}

// matchShape reports whether every option matcher holds for args, the
// word after the subcommand fits no unless_args pattern, a source fits sources: and the
// directory fits cwd:.
func (m *cmdMatcher) matchShape(args []string, norm func(string) string, c *commandFact) bool {
	dir, home := norm(c.Dir), norm(c.Home)
	if len(m.cwd) > 0 && (dir == "" || !matchAt(m.cwd, dir, dir, home)) {
		return false
	}
	if len(m.sources) > 0 && !m.matchSources(args, norm, dir, home) {
		return false
	}
	for i := range m.opts {
		if !m.opts[i].holds(args, norm, dir, home) {
			return false
		}
	}
	// only the word right after the subcommand (or the program): a later
	// one may be an option's value (airlock allow --match list Bash)
	if len(m.unlessArgs) > 0 && len(args) > 0 && !isFlag(args[0]) && matchAt(m.unlessArgs, norm(args[0]), dir, home) {
		return false
	}
	return true
}

// argsAt matches one positional against args:.
func (m *cmdMatcher) argsAt(a, dir, home string) bool { return matchAt(m.args, a, dir, home) }

// matchAt compares a word with positional patterns: literal ("=…"),
// home-relative ("~…": the word's absolute path inside home, as "~/…")
// and the rest as argMatches does.
func matchAt(globs []argPattern, a, dir, home string) bool {
	rel, relDone := "", false
	for i := range globs {
		g := &globs[i]
		if !g.home && g.lit == "" {
			if argMatches(globs[i:i+1], a, dir) {
				return true
			}
			continue
		}
		if g.home {
			if !relDone {
				rel, relDone = homeRel(a, dir, home), true
			}
			if rel == "" {
				continue
			}
			if g.lit != "" {
				if rel == g.lit {
					return true
				}
			} else if g.p.Match(rel) {
				return true
			}
			continue
		}
		if a == g.lit || (g.abs && absArg(a, dir) == g.lit) {
			return true
		}
	}
	return false
}

// homeRel is the word's place in home as "~" or "~/…", or "" when it is
// not in home (or there is no home). A word still spelled "~…" (a tilde
// the shell left alone, as in -v ~:/h) is taken as written.
func homeRel(a, dir, home string) string {
	if a == "~" || strings.HasPrefix(a, "~/") {
		return path.Clean(a)
	}
	if home == "" {
		return ""
	}
	abs := absArg(a, dir)
	home = strings.TrimSuffix(home, "/")
	switch {
	case abs == "" || home == "":
		return ""
	case abs == home:
		return "~"
	case strings.HasPrefix(abs, home+"/"):
		return "~/" + abs[len(home)+1:]
	}
	return ""
}

// compileArgs compiles positional patterns (args:, sources:, cwd:,
// unless_args:). A pattern written "=TEXT" is the literal TEXT (after
// variables), met by the word or the absolute path it denotes; one
// written "~…" names a place in the call's home.
func compileArgs(src []string, deny bool, expand func(string) (string, bool, error)) ([]argPattern, error) {
	var out []argPattern
	for _, s := range src {
		lit := strings.HasPrefix(s, "=") && len(s) > 1
		if lit {
			s = s[1:]
		}
		e, ok, err := expand(s)
		if err != nil {
			return nil, err
		}
		if !ok || e == "" {
			continue
		}
		if deny {
			e = FoldText(e)
		}
		home := e == "~" || strings.HasPrefix(e, "~/")
		if lit {
			out = append(out, argPattern{lit: e, abs: strings.HasPrefix(e, "/"), home: home})
			continue
		}
		p, err := CompilePathGlob(e)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", s, err)
		}
		out = append(out, argPattern{p: p, abs: strings.HasPrefix(e, "/"), home: home})
	}
	return out, nil
}

func (m *optMatcher) holds(args []string, norm func(string) string, dir, home string) bool {
	found := false
	eachOptionValue(args, m.names, func(v string) bool {
		if m.values == nil {
			found = true
			return true
		}
		v = norm(v)
		if m.fits(v, dir, home) {
			found = true
			return true
		}
		return false
	})
	return found
}

func (m *optMatcher) fits(v, dir, home string) bool {
	hit := false
	for _, c := range optCandidates(v, dir, home) {
		if anyOptValue(m.except, c) {
			return false
		}
		if !hit && anyOptValue(m.values, c) {
			hit = true
		}
	}
	return hit
}

func anyOptValue(vs []optValue, c optCandidate) bool {
	for i := range vs {
		v := &vs[i]
		switch {
		case v.home:
			if c.rel != "" && v.path.Match(c.rel) {
				return true
			}
		case v.abs:
			if c.abs != "" && v.path.Match(c.abs) {
				return true
			}
		case c.text != "" && globMatch(v.glob, c.text):
			return true
		}
	}
	return false
}

type optCandidate struct{ text, abs, rel string }

// optCandidates are the strings a value is judged by: the whole value, a
// volume's source (before the first ':'), and the source= or src= field
// of a comma list; each with the absolute path it denotes when it is a
// path ("/…", "./…", "~…" already expanded by the shell reader).
func optCandidates(v, dir, home string) []optCandidate {
	out := make([]optCandidate, 0, 3)
	add := func(s string) {
		c := optCandidate{text: s}
		if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") {
			c.abs = absArg(s, dir)
		}
		if c.abs != "" || strings.HasPrefix(s, "~") {
			c.rel = homeRel(s, dir, home)
		}
		out = append(out, c)
	}
	add(v)
	if i := strings.IndexByte(v, ':'); i > 0 && !strings.Contains(v, "://") {
		add(v[:i])
	}
	if strings.IndexByte(v, '=') >= 0 {
		for _, f := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			switch strings.TrimSpace(strings.ToLower(k)) {
			case "source", "src", "device":
				add(val)
			}
		}
	}
	return out
}

// eachOptionValue calls f with the value of every occurrence of an option
// named by one of names, until f returns true. "--" ends the options.
func eachOptionValue(args, names []string, f func(string) bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		// the next word is the value; an option last on the line has the
		// empty value (present, valueless: a matcher with no patterns holds)
		next := func() (string, bool) {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", true
		}
		if strings.HasPrefix(a, "--") {
			name, val, valued := strings.Cut(a[2:], "=")
			for _, n := range names {
				if len(n) > 1 && strings.EqualFold(name, n) {
					if !valued {
						val, valued = next()
					}
					if valued && f(val) {
						return
					}
				}
			}
			continue
		}
		word := a[1:]
		for _, n := range names {
			if len(n) > 1 {
				// -name VALUE, -name=VALUE (single-dash long options)
				name, val, valued := strings.Cut(word, "=")
				if strings.EqualFold(name, n) {
					if !valued {
						val, valued = next()
					}
					if valued && f(val) {
						return
					}
				}
				continue
			}
			switch {
			case word[0] == n[0] && len(word) > 1:
				// -vVALUE, -v=VALUE
				if f(strings.TrimPrefix(word[1:], "=")) {
					return
				}
			case word[len(word)-1] == n[0] && isLetters(word):
				// -v VALUE, -itv VALUE
				if v, ok := next(); ok && f(v) {
					return
				}
			}
		}
	}
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// matchSources: a positional before the last, or any positional when the
// destination is given by -t/--target-directory, fits sources:.
func (m *cmdMatcher) matchSources(args []string, norm func(string) string, dir, home string) bool {
	var pos []string
	target := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case a == "-t" || a == "--target-directory":
			target = true
			i++
		case strings.HasPrefix(a, "--target-directory=") || (strings.HasPrefix(a, "-t") && !strings.HasPrefix(a, "--")):
			target = true
		case !isFlag(a):
			pos = append(pos, a)
		}
	}
	if !target && len(pos) > 0 {
		pos = pos[:len(pos)-1]
	}
	for _, a := range pos {
		if matchAt(m.sources, norm(a), dir, home) {
			return true
		}
	}
	return false
}

// progFilter is a quick test of which program names a rule's commands can
// meet, so a pipeline's commands skip the rules that name none of their
// programs without matching every pattern: a two-bit Bloom filter of the
// literal program names, and the few patterns with a wildcard beside it
// (one that starts with a wildcard lets every name through).
type progFilter struct {
	bloom [8]uint64
	wild  []string
	all   bool
}

func progBits(name string) (uint16, uint16) {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	h ^= h >> 33 // finalizer: FNV's low bits mix poorly for short names
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return uint16(h & 511), uint16(h >> 9 & 511)
}

func newProgFilter(cms []cmdMatcher) progFilter {
	var f progFilter
	for _, cm := range cms {
		for _, g := range cm.program {
			switch {
			case g == "" || g[0] == '*' || g[0] == '?':
				return progFilter{all: true}
			case strings.ContainsAny(g, "*?"):
				f.wild = append(f.wild, g)
			default:
				a, b := progBits(g)
				f.bloom[a>>6] |= 1 << (a & 63)
				f.bloom[b>>6] |= 1 << (b & 63)
			}
		}
	}
	return f
}

// anyOf reports whether one of cmds may meet the rule (folded names, as
// deny matching compares them).
func (f *progFilter) anyOf(cmds []commandFact) bool {
	if f.all {
		return true
	}
	for i := range cmds {
		c := &cmds[i]
		prog := c.fprog
		if prog == "" {
			prog = FoldText(c.Program())
		}
		if prog == "" {
			continue
		}
		a, b := c.pbits[0], c.pbits[1]
		if !c.pbitsSet {
			a, b = progBits(prog)
		}
		if f.bloom[a>>6]&(1<<(a&63)) != 0 && f.bloom[b>>6]&(1<<(b&63)) != 0 {
			return true
		}
		for _, g := range f.wild {
			if wildMatch(g, prog) {
				return true
			}
		}
	}
	return false
}
