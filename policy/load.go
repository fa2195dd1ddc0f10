package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/yamldoc"
	"github.com/agentairlock/airlock/profiles"
	"gopkg.in/yaml.v3"
)

// Options say where the policy is loaded for: the call's directory (for
// ${workspace} and the repo overlay) and the user's environment.
type Options struct {
	Cwd         string
	Home        string
	User        string
	Tmp         string
	AirlockHome string
	Getenv      func(string) string
}

// loadedFile is one file that shaped the policy, with its digest, so a
// substituted policy shows in the audit log.
type loadedFile struct {
	Path   string
	Digest string
	Role   string // policy | overlay | profile
}

// Grant is a reviewed exception written by a person (airlock allow).
type Grant struct {
	Tool    string
	Match   string
	Reason  string
	Added   string
	Expires string
	Line    int
	tools   *Rule
	match   matcher
	expiry  time.Time // zero: no expiry
	invalid bool      // unreadable expiry: never grants

	Commands []string // a shell grant's command patterns (grant_commands.go)
}

type matcher interface{ match(f *Facts) bool }

// Indicator is text evidence of steering, graded for escalation.
type Indicator struct {
	ID       string
	Severity Severity
	Reason   string
	texts    []TextPattern
}

// Policy is a loaded, compiled, validated policy.
type Policy struct {
	Source      string // the file or bundled profile it came from
	Profile     string
	Files       []loadedFile
	Mode        Mode
	Default     Action
	AskFallback Action
	Escalate    map[Severity]Action
	// TaintAction is what a privileged action of a tainted session gets
	// (taint.action: ask, block; allow switches the stage off); TaintTTL
	// how long a taint lasts (taint.ttl).
	TaintAction Action
	TaintTTL    time.Duration
	// Limits are the call budgets and the loop detector (limits:, loop:).
	Limits Limits
	// secretReads are the secrets.* forbids, overridden ones too: a
	// tainted session's read of a secret-class path escalates even where
	// an override lets it through.
	secretReads []*Rule
	// MaxBytesOut caps, per canonical host, the bytes airlock run's egress
	// proxy lets leave for it (egress.max_bytes_out).
	MaxBytesOut map[string]int64
	Rules       []*Rule
	Grants      []*Grant
	Overrides   map[string]string // forbid id → reason
	Forbids     []*Rule
	Indicators  []*Indicator
	Overlay     *overlay
	managed     *managed // the organisation's layer, nil on an unmanaged machine
	Vars        Vars
	Warnings    []string
	ModeFromEnv string // AIRLOCK_MODE, when it changed the mode
}

// overlay is a repository's tighten-only policy.
type overlay struct {
	File  string
	Rules []*Rule
}

// Load finds and compiles the policy in force: AIRLOCK_POLICY (taken
// whole) → $AIRLOCK_HOME/policy.yaml → the bundled profile AIRLOCK_PROFILE
// (default "default"); then the repository overlay, unless AIRLOCK_POLICY
// named the file. A file that does not load is a *yamldoc.LoadError (every
// problem with its line and fix), or wraps one.
func Load(o Options) (*Policy, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	vars := Vars{Home: o.Home, Tmp: o.Tmp, User: o.User, AirlockHome: o.AirlockHome}
	vars.Workspace = Workspace(o.Cwd, o.Home)

	var (
		p   *Policy
		err error
	)
	explicit := getenv("AIRLOCK_POLICY")
	switch {
	case explicit != "":
		p, err = loadExplicit(explicit, vars)
	default:
		home := airlockhome.PolicyFile(o.AirlockHome)
		// Airlock's own file: never through a link, never another user's.
		data, rerr := readPolicyFile(home, regular.OpenState)
		switch {
		case rerr == nil:
			p, err = parse(data, home, "policy", vars)
		case errors.Is(rerr, fs.ErrNotExist):
			name := getenv("AIRLOCK_PROFILE")
			if name == "" {
				name = "default"
			}
			p, err = LoadProfile(name, vars)
		default:
			return nil, rerr
		}
	}
	if err != nil {
		return nil, err
	}
	if m := getenv("AIRLOCK_MODE"); m != "" {
		mode, merr := parseMode(m)
		if merr != nil {
			return nil, fmt.Errorf("AIRLOCK_MODE: %w", merr)
		}
		if mode != p.Mode {
			p.Mode, p.ModeFromEnv = mode, m
		}
	}
	// after AIRLOCK_MODE: a variable cannot take the mode below the floor
	if err := p.applyManaged(vars); err != nil {
		return nil, err
	}
	if explicit == "" {
		if err := p.loadOverlay(o.Cwd, vars.Workspace); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Workspace is ${workspace} for a call in cwd: the repository it is in
// (FindWorkspace), or, outside any repository, cwd itself unless that is
// the home or the root.
func Workspace(cwd, home string) string {
	if ws := FindWorkspace(cwd, home); ws != "" {
		return ws
	}
	if filepath.IsAbs(cwd) && filepath.Clean(cwd) != filepath.Clean(home) && !isRoot(filepath.Clean(cwd)) {
		return filepath.Clean(cwd)
	}
	return ""
}

// LoadFile loads one policy file as the whole policy.
func LoadFile(path string, vars Vars) (*Policy, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	data, err := readPolicyFile(abs, regular.Open)
	if err != nil {
		return nil, err
	}
	return parse(data, abs, "policy", vars)
}

// LoadProfile loads a bundled profile.
func LoadProfile(name string, vars Vars) (*Policy, error) {
	data, err := profiles.Get(name)
	if err != nil {
		return nil, err
	}
	return parse(data, "profile:"+name, "profile", vars)
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// parse decodes, validates and compiles one policy file with the built-in
// forbids and indicators.
func parse(data []byte, name, role string, vars Vars) (*Policy, error) {
	// a bundled profile, as loaded with no policy file or as airlock init
	// copied it, is decoded at build time (profile_gen.go): no YAML parse
	raw := bundledDoc(data)
	if raw == nil {
		var errs yamldoc.Problems
		raw, errs = decode(data, name, false)
		if err := errs.Err(); err != nil {
			return nil, err
		}
	}
	return parseDoc(raw, data, name, role, vars)
}

// parseDoc validates and compiles one decoded policy file with the
// built-in forbids and indicators.
func parseDoc(raw *rawDoc, data []byte, name, role string, vars Vars) (*Policy, error) {
	errs := yamldoc.Problems{File: name}
	p := &Policy{
		Source:    name,
		Profile:   raw.Profile,
		Files:     []loadedFile{{Path: name, Digest: digest(data), Role: role}},
		Mode:      Guard,
		Default:   Ask,
		Escalate:  map[Severity]Action{},
		Overrides: map[string]string{},
		Vars:      vars,
	}
	if role != "overlay" {
		// unnamed, a taint asks and lasts two hours (taint.DefaultTTL);
		// an overlay that names none changes nothing
		p.TaintAction, p.TaintTTL = Ask, 2*time.Hour
		// and the loop detector is on (limits.go, DefaultLoop)
		p.Limits.Loop = DefaultLoop()
	}
	if err := p.settle(raw, name, vars, &errs); err != nil {
		return nil, err
	}
	if role == "overlay" {
		// forbids and indicators come from the base policy; overrides are
		// kept only so the merge can say they were ignored
		for _, ov := range raw.overrides {
			p.Overrides[ov.Forbid] = ov.Reason
		}
		return p, nil
	}
	forbids, indicators, err := builtins(vars)
	if err != nil {
		return nil, err
	}
	recorded, err := recordedForbids(vars.AirlockHome)
	if err != nil {
		return nil, err
	}
	forbids = append(forbids, recorded...)
	for _, o := range raw.overrides {
		if !hasForbid(forbids, o.Forbid) {
			errs.Add(o.line, "override names %q, which is not a built-in forbid: run `airlock policy check --forbids` for the ids", o.Forbid)
			continue
		}
		if strings.TrimSpace(o.Reason) == "" {
			errs.Add(o.line, "override of %q has no reason: write reason: why this repository needs it", o.Forbid)
			continue
		}
		if _, dup := p.Overrides[o.Forbid]; dup {
			errs.Add(o.line, "%q is overridden twice: keep one entry", o.Forbid)
			continue
		}
		p.Overrides[o.Forbid] = o.Reason
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	for _, f := range forbids {
		if _, off := p.Overrides[f.ID]; !off {
			p.Forbids = append(p.Forbids, f)
		}
		if strings.HasPrefix(f.ID, "secrets.") && f.path != nil {
			p.secretReads = append(p.secretReads, f)
		}
	}
	p.Indicators = indicators
	if p.Mode == Observe && len(p.Overrides) > 0 {
		p.Warnings = append(p.Warnings, "overrides relax nothing: mode observe refuses nothing anyway")
	}
	return p, nil
}

// rawDoc is a decoded file with the line of every item kept.
type rawDoc struct {
	rawFile
	rules      []rawRule
	grants     []rawGrant
	overrides  []rawOverride
	forbids    []rawRule
	indicators []rawIndicator
	limits     []rawLimit
	hasRules   bool
	lines      map[string]int // top-level key → line (audit.KEY: audit's keys)
}

func decode(data []byte, name string, builtin bool) (*rawDoc, yamldoc.Problems) {
	errs := yamldoc.Problems{File: name}
	// strictly: a key written twice would otherwise be read as the last
	// one (the walk below is over nodes, not a decode), so an appended
	// `mode: observe` would switch the gate off
	doc, probs := yamldoc.Parse(data)
	if len(probs) > 0 {
		for _, p := range probs {
			errs.AddProblem(p)
		}
		return nil, errs
	}
	switch written, expanded, cyclic := aliasGrowth(doc); {
	case cyclic:
		errs.Add(0, "a YAML alias (*name) refers to the node that holds it: remove the aliases")
		return nil, errs
	case expanded-written > maxAliasNodes:
		errs.Add(0, "its YAML aliases (*name) make it decode to %d nodes more than the %d it spells out, past the %d allowed: write the lists out, or remove the aliases",
			expanded-written, written, maxAliasNodes)
		return nil, errs
	}
	if len(doc.Content) == 0 || len(bytes.TrimSpace(data)) == 0 {
		errs.Add(0, "the file is empty: a policy needs at least `rules:` (write `rules: []` for none)")
		return nil, errs
	}
	checkKeys(doc, &errs)
	if errs.Len() > 0 {
		return nil, errs
	}
	top := doc.Content[0]
	out := &rawDoc{lines: map[string]int{}}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		out.lines[k.Value] = k.Line
		var err error
		switch k.Value {
		case "rules":
			out.hasRules = true
			err = eachItem(v, func(n *yaml.Node) error {
				var r rawRule
				if err := n.Decode(&r); err != nil {
					return err
				}
				r.line = n.Line
				out.rules = append(out.rules, r)
				return nil
			})
		case "forbids":
			err = eachItem(v, func(n *yaml.Node) error {
				var r rawRule
				if err := n.Decode(&r); err != nil {
					return err
				}
				r.line = n.Line
				out.forbids = append(out.forbids, r)
				return nil
			})
		case "grants":
			err = eachItem(v, func(n *yaml.Node) error {
				var g rawGrant
				if err := n.Decode(&g); err != nil {
					return err
				}
				g.line = n.Line
				for j := 0; j+1 < len(n.Content); j += 2 {
					g.hasCommands = g.hasCommands || n.Content[j].Value == "commands"
				}
				out.grants = append(out.grants, g)
				return nil
			})
		case "overrides":
			err = eachItem(v, func(n *yaml.Node) error {
				var o rawOverride
				if err := n.Decode(&o); err != nil {
					return err
				}
				o.line = n.Line
				out.overrides = append(out.overrides, o)
				return nil
			})
		case "indicators":
			err = eachItem(v, func(n *yaml.Node) error {
				var ind rawIndicator
				if err := n.Decode(&ind); err != nil {
					return err
				}
				ind.line = n.Line
				out.indicators = append(out.indicators, ind)
				return nil
			})
		case "escalate":
			err = v.Decode(&out.Escalate)
		case "egress":
			err = v.Decode(&out.Egress)
		case "taint":
			err = v.Decode(&out.Taint)
		case "loop":
			err = v.Decode(&out.Loop)
		case "limits":
			err = eachItem(v, func(n *yaml.Node) error {
				var l rawLimit
				if err := n.Decode(&l); err != nil {
					return err
				}
				l.line = n.Line
				out.limits = append(out.limits, l)
				return nil
			})
		case "version":
			err = v.Decode(&out.Version)
		case "lock_forbids":
			err = v.Decode(&out.LockForbids)
		case "no_grants":
			err = v.Decode(&out.NoGrants)
		case "export":
			err = v.Decode(&out.Export)
		case "audit":
			err = v.Decode(&out.Audit)
			for j := 0; err == nil && j+1 < len(v.Content); j += 2 {
				out.lines["audit."+v.Content[j].Value] = v.Content[j].Line
			}
		case "tests":
			// examples for `airlock policy test` (Tests reads and checks
			// them); deciding a call never needs them
		default:
			if v.Kind != yaml.ScalarNode {
				errs.Add(v.Line, "%s must be a single value", k.Value)
				continue
			}
			switch k.Value {
			case "profile":
				out.Profile = v.Value
			case "mode":
				out.Mode = v.Value
			case "default":
				out.Default = v.Value
			case "ask_fallback":
				out.AskFallback = v.Value
			}
		}
		if err != nil {
			addDecodeErr(&errs, k.Value, v.Line, err)
		}
	}
	if !builtin {
		if !out.hasRules {
			errs.Add(0, "no `rules:` key: a policy without rules is almost always a truncated or mistyped file; write `rules: []` if you mean none")
		}
		for _, k := range []string{"forbids", "indicators"} {
			if l, ok := out.lines[k]; ok {
				errs.Add(l, "%s: is for Airlock's built-in list only: write your own as rules with action: block", k)
			}
		}
		for _, k := range []string{"lock_forbids", "no_grants", "export", "audit"} {
			if l, ok := out.lines[k]; ok {
				errs.Add(l, "%s: is for the managed policy only (%s), which an administrator sets", k, airlockhome.ManagedFile())
			}
		}
	}
	return out, errs
}

// maxAliasNodes bounds what YAML aliases may add to a policy file: the
// byte bounds (MaxOverlayBytes, MaxPolicyBytes) bound its cost only when
// every node is spelled out, and an alias repeats a node of any size
// without repeating its text (a 145 KB overlay of 2,000 rules aliasing one
// list of 20,000 strings decoded for 14 s). Reusing an anchor for a few
// lists of paths stays far under it.
const maxAliasNodes = 10000

// aliasGrowth counts the nodes of doc as written (an alias is one node)
// and as decoding expands them (an alias is what it refers to), and
// reports an alias that refers to itself. Counts stop growing past any
// bound, so neither overflows.
func aliasGrowth(doc *yaml.Node) (written, expanded int, cyclic bool) {
	const stop = 1 << 40
	var count func(n *yaml.Node) int
	count = func(n *yaml.Node) int {
		total := 1
		for _, c := range n.Content {
			total = min(total+count(c), stop)
		}
		return total
	}
	memo := map[*yaml.Node]int{} // expanded size of a node an alias refers to; -1 while it is counted
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if cyclic {
			return 0
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return 1
			}
			t := n.Alias
			if v, seen := memo[t]; seen {
				if v < 0 {
					cyclic = true
					return 0
				}
				return v
			}
			memo[t] = -1
			v := size(t)
			memo[t] = v
			return v
		}
		if n.Anchor != "" {
			if v, seen := memo[n]; seen {
				if v < 0 {
					cyclic = true
					return 0
				}
				return v
			}
			memo[n] = -1
		}
		total := 1
		for _, c := range n.Content {
			total = min(total+size(c), stop)
		}
		if n.Anchor != "" {
			memo[n] = total
		}
		return total
	}
	return count(doc), size(doc), cyclic
}

// addDecodeErr reports what yaml.v3 could not decode under key: each of
// its problems on its own line, which yaml.v3 puts in the message.
func addDecodeErr(errs *yamldoc.Problems, key string, line int, err error) {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		errs.Add(line, "%s: %s", key, strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	for _, e := range te.Errors {
		l, rest := yamldoc.CutLine(e)
		if l == 0 {
			l = line
		}
		errs.Add(l, "%s: %s", key, rest)
	}
}

func eachItem(seq *yaml.Node, f func(*yaml.Node) error) error {
	if seq.Kind != yaml.SequenceNode {
		return nil // null or already reported by checkKeys
	}
	for _, n := range seq.Content {
		if n.Kind != yaml.MappingNode {
			continue
		}
		if err := f(n); err != nil {
			return err
		}
	}
	return nil
}

// settle validates the scalar settings and compiles rules and grants.
func (p *Policy) settle(raw *rawDoc, name string, vars Vars, errs *yamldoc.Problems) error {
	if raw.Mode != "" {
		m, err := parseMode(raw.Mode)
		if err != nil {
			errs.Add(raw.lines["mode"], "mode: %v", err)
		}
		p.Mode = m
	}
	for _, s := range []struct {
		key string
		val string
		dst *Action
	}{{"default", raw.Default, &p.Default}, {"ask_fallback", raw.AskFallback, &p.AskFallback}} {
		if s.val == "" {
			continue
		}
		a, err := parseAction(s.val)
		if err != nil {
			errs.Add(raw.lines[s.key], "%s: %v", s.key, err)
		}
		*s.dst = a
	}
	if raw.AskFallback == "" {
		p.AskFallback = Block
	}
	hosts := slices.Sorted(maps.Keys(raw.Egress.MaxBytesOut))
	spelt := map[string]string{} // canonical host → its spelling in the file
	for _, host := range hosts {
		n := raw.Egress.MaxBytesOut[host]
		h := CanonicalHost(host)
		if first, dup := spelt[h]; dup && h != "" {
			// two spellings of one host: which cap applies would depend
			// on the order a map is read in
			errs.Add(raw.lines["egress"], "egress.max_bytes_out: %q and %q are the same host: keep one", first, host)
			continue
		}
		spelt[h] = host
		switch {
		case h == "":
			errs.Add(raw.lines["egress"], "egress.max_bytes_out: %q is not a host name or address", host)
		case n <= 0:
			errs.Add(raw.lines["egress"], "egress.max_bytes_out.%s: %d: write a number of bytes above 0", host, n)
		default:
			if p.MaxBytesOut == nil {
				p.MaxBytesOut = map[string]int64{}
			}
			p.MaxBytesOut[h] = n
		}
	}
	if raw.Taint.Action != "" {
		a, err := parseAction(raw.Taint.Action)
		if err != nil {
			errs.Add(raw.lines["taint"], "taint.action: %v", err)
		}
		p.TaintAction = a
	}
	p.settleLimits(raw, vars, name, errs)
	if raw.Taint.TTL != "" {
		d, err := time.ParseDuration(raw.Taint.TTL)
		if err != nil || d <= 0 {
			errs.Add(raw.lines["taint"], "taint.ttl: %q: write a duration such as 2h or 30m", raw.Taint.TTL)
		}
		p.TaintTTL = d
	}
	for k, v := range raw.Escalate {
		sev, ok := parseSeverity(k)
		if !ok {
			errs.Add(raw.lines["escalate"], "escalate: %q is not a severity: write low, med or high", k)
			continue
		}
		a, err := parseAction(v)
		if err != nil {
			errs.Add(raw.lines["escalate"], "escalate.%s: %v", k, err)
			continue
		}
		p.Escalate[sev] = a
	}
	seen := map[string]int{}
	for _, r := range raw.rules {
		if r.ID == "" {
			errs.Add(r.line, "rule has no id: write id: a short name (it appears in every decision it makes)")
			continue
		}
		if l, dup := seen[r.ID]; dup {
			errs.Add(r.line, "rule id %q is used twice (first at line %d): ids must be unique", r.ID, l)
			continue
		}
		seen[r.ID] = r.line
		rule, err := compileRule(r, vars, name)
		if err != nil {
			errs.Add(r.line, "%v", err)
			continue
		}
		p.Rules = append(p.Rules, rule)
	}
	for _, g := range raw.grants {
		gr, err := compileGrant(g, vars, name)
		if err != nil {
			errs.Add(g.line, "%v", err)
			continue
		}
		if gr.invalid {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s:%d: grant for %s has an unreadable expires %q (write YYYY-MM-DD): it never applies", name, g.line, g.Tool, g.Expires))
		}
		p.Grants = append(p.Grants, gr)
	}
	return errs.Err()
}

var dateRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) }) // only a grant with expires: needs it

func compileGrant(g rawGrant, vars Vars, name string) (*Grant, error) {
	if g.Tool == "" {
		return nil, fmt.Errorf("grant has no tool: write tool: the tool name or glob it covers")
	}
	out := &Grant{Tool: g.Tool, Match: g.Match, Commands: g.Commands, Reason: g.Reason, Added: g.Added, Expires: g.Expires, Line: g.line}
	tr, err := compileRule(rawRule{ID: "grant", Tool: g.Tool, Action: "allow", line: g.line}, vars, name)
	if err != nil {
		return nil, err
	}
	out.tools = tr
	if g.Match != "" {
		m, err := compileGrantMatch(g.Match, vars)
		if err != nil {
			return nil, fmt.Errorf("grant match %q: %w", g.Match, err)
		}
		out.match = m
	}
	if g.hasCommands && len(g.Commands) == 0 {
		return nil, fmt.Errorf("grant for %s: commands: lists no command (it would grant every call): write them, or match: '*'", g.Tool)
	}
	if len(g.Commands) > 0 {
		if g.Match != "" {
			return nil, fmt.Errorf("grant for %s has both match and commands: write one of them", g.Tool)
		}
		m, err := compileGrantCommands(g.Commands, vars)
		if err != nil {
			return nil, err
		}
		out.match = m
	}
	if g.Expires != "" {
		t, err := time.ParseInLocation("2006-01-02", g.Expires, time.Local)
		if !dateRE().MatchString(g.Expires) || err != nil {
			out.invalid = true
		} else {
			out.expiry = t.AddDate(0, 0, 1) // valid through the whole named day
		}
	}
	return out, nil
}

// A grant's match is a path glob when it names a path (every path of the
// call must fit, written and resolved); for a fetch, a host or a host glob
// such as *.example.com when it is a bare name (every host the call
// reaches must fit, compared in canonical form); otherwise a glob over the whole of the
// call's primary argument, a match with no wildcard compared exactly.
//
// A grant is never a substring test, as a forbid's text pattern is: a
// forbid errs wide and a grant must err narrow ("docs.example.com" does
// not grant https://evil.example/?q=docs.example.com, and "npm test" does
// not grant "npm test; curl …").
type grantMatch struct {
	path *pathMatcher
	host string // a canonical host or host glob, for a fetch
	text string // a whole-string glob, for every other call
}

// hostLike says a grant's match is a bare host name or host glob: letters,
// digits, dots, dashes and '*', with a dot in it, nothing else.
func hostLike(m string) bool {
	if !strings.Contains(m, ".") {
		return false
	}
	for _, r := range m {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '*':
		default:
			return false
		}
	}
	return true
}

func compileGrantMatch(m string, vars Vars) (matcher, error) {
	e, ok, err := vars.expand(m)
	if err != nil {
		return nil, err
	}
	if !ok {
		return grantMatch{}, nil // can never match
	}
	if strings.HasPrefix(e, "/") || strings.HasPrefix(e, "~") {
		pp, err := CompilePathGlob(e)
		if err != nil {
			return nil, err
		}
		return grantMatch{path: &pathMatcher{globs: []PathPattern{pp}, access: accessAny}}, nil
	}
	if e == "" {
		return nil, errEmptyPattern
	}
	g := grantMatch{text: e}
	if hostLike(e) {
		g.host = CanonicalHost(e)
	}
	return g, nil
}

func (g grantMatch) match(f *Facts) bool {
	switch {
	case g.path != nil:
		return g.path.allow(f.Paths)
	case g.host != "" && toolKindOf(f.Tool) == kindFetch:
		if len(f.Hosts) == 0 {
			return false
		}
		for _, h := range f.Hosts {
			if !globMatch(g.host, h.Host) {
				return false
			}
		}
		return true
	case g.text != "":
		return globMatch(g.text, f.Primary)
	}
	return false
}

// loadOverlay finds the repository's .airlock/policy.yaml or .airlock.yaml
// by walking up from cwd to the workspace root.
func (p *Policy) loadOverlay(cwd, workspace string) error {
	if cwd == "" {
		return nil
	}
	dir := filepath.Clean(cwd)
	root := workspace
	if root == "" {
		root = dir // outside any repository only the call's own directory is looked at
	}
	for {
		for _, name := range []string{filepath.Join(".airlock", "policy.yaml"), ".airlock.yaml"} {
			file := filepath.Join(dir, name)
			data, err := readOverlayFile(file, root)
			if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrOverlayRefused) {
				continue
			}
			if err != nil {
				return err
			}
			return p.applyOverlay(data, file)
		}
		if workspace == "" || dir == workspace || !strings.HasPrefix(dir, workspace) {
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// applyOverlay merges a repository policy so that it can only tighten: its
// grants and overrides are ignored, mode/default/ask_fallback/escalate only
// get stricter, and its rules are consulted per call only for a stricter
// answer (a repository cannot vote on its own gate).
func (p *Policy) applyOverlay(data []byte, file string) error {
	o, err := parse(data, file, "overlay", p.Vars)
	if err != nil {
		return err
	}
	p.Files = append(p.Files, loadedFile{Path: file, Digest: digest(data), Role: "overlay"})
	if o.Mode > p.Mode {
		p.Mode = o.Mode
	}
	p.Default = stricter(p.Default, o.Default)
	p.AskFallback = stricter(p.AskFallback, o.AskFallback)
	if o.TaintAction > p.TaintAction {
		p.TaintAction = o.TaintAction
	}
	p.TaintTTL = max(p.TaintTTL, o.TaintTTL) // a repository may keep a taint longer, never shorten it
	p.Limits.tighten(o.Limits)               // a repository may lower a limit, never raise one
	for sev, a := range o.Escalate {
		if cur, ok := p.Escalate[sev]; !ok || a > cur {
			p.Escalate[sev] = a
		}
	}
	for h, n := range o.MaxBytesOut {
		if cur, ok := p.MaxBytesOut[h]; !ok || n < cur {
			if p.MaxBytesOut == nil {
				p.MaxBytesOut = map[string]int64{}
			}
			p.MaxBytesOut[h] = n // a repository may lower a cap, never raise one
		}
	}
	if len(o.Grants) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s: its %d grant(s) are ignored: a repository cannot grant itself exceptions", file, len(o.Grants)))
	}
	if len(o.Overrides) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s: its overrides are ignored: only your own policy can relax a built-in forbid", file))
	}
	var rules []*Rule
	for _, r := range o.Rules {
		if r.Action != Allow {
			rules = append(rules, r)
		}
	}
	p.Overlay = &overlay{File: file, Rules: rules}
	return nil
}

// builtins returns the forbid list and the indicator floor, compiled. They
// are written in profiles/*.yaml and compiled into builtin_gen.go, so no
// hook process pays for parsing them, and further into static data
// (forbids_gen.go) where no ${variable} makes them the call's, so none
// pays for compiling them either; an error here is a bug in Airlock,
// reported, never ignored.
func builtins(vars Vars) ([]*Rule, []*Indicator, error) {
	if compiledDigest != builtinDigest {
		return compileBuiltins(vars) // forbids_gen.go is stale (its test says so)
	}
	forbids := make([]*Rule, 0, len(builtinForbids))
	for i, r := range builtinForbids {
		if c := compiledForbids[i]; c != nil {
			forbids = append(forbids, c)
			continue
		}
		if c := compiledExceptOnly[i]; c != nil {
			// the globs are static: compile the exceptions alone
			except, _, err := compileGlobs(r.Path.Except, true, vars.expand, CompilePathGlob)
			if err != nil {
				return nil, nil, fmt.Errorf("built-in forbids: rule %s: path except: %w", r.ID, err)
			}
			rule, pm := *c, *c.path
			pm.except = except
			rule.path = &pm
			forbids = append(forbids, &rule)
			continue
		}
		rule, err := compileBuiltinForbid(r, vars)
		if err != nil {
			return nil, nil, err
		}
		forbids = append(forbids, rule)
	}
	return forbids, append([]*Indicator(nil), compiledIndicators[:]...), nil
}

// compileBuiltins compiles every built-in forbid and indicator from its
// raw form: what forbids_gen.go is generated from and checked against.
func compileBuiltins(vars Vars) ([]*Rule, []*Indicator, error) {
	forbids := make([]*Rule, 0, len(builtinForbids))
	for _, r := range builtinForbids {
		rule, err := compileBuiltinForbid(r, vars)
		if err != nil {
			return nil, nil, err
		}
		forbids = append(forbids, rule)
	}
	inds := make([]*Indicator, 0, len(builtinIndicators))
	for _, r := range builtinIndicators {
		sev, ok := parseSeverity(r.Severity)
		if !ok {
			return nil, nil, fmt.Errorf("built-in indicators: %s: bad severity %q", r.ID, r.Severity)
		}
		ind := &Indicator{ID: r.ID, Severity: sev, Reason: r.Reason}
		for _, t := range r.Text {
			tp, err := CompileTextGlob(FoldText(t))
			if err != nil {
				return nil, nil, fmt.Errorf("built-in indicators: %s: %w", r.ID, err)
			}
			ind.texts = append(ind.texts, tp)
		}
		inds = append(inds, ind)
	}
	return forbids, inds, nil
}

func compileBuiltinForbid(r rawRule, vars Vars) (*Rule, error) {
	if r.Action == "" {
		r.Action = "block"
	}
	rule, err := compileRule(r, vars, "built-in forbids")
	if err != nil {
		return nil, fmt.Errorf("built-in forbids: %w", err)
	}
	return rule, nil
}

// recordedIDs are the ids of the forbids Airlock's own records make
// (recordedForbids): an override may name them, so a lock may too.
var recordedIDs = []string{feedHostsForbid, binariesForbid}

// recordedForbids are the forbids Airlock's own records in airlockHome
// make beyond the built-in list: the feed's collector hosts and the
// recorded binaries, each when its record is there.
func recordedForbids(airlockHome string) ([]*Rule, error) {
	var out []*Rule
	if fr, err := feedHostsRule(airlockHome); err != nil {
		return nil, err
	} else if fr != nil {
		out = append(out, fr)
	}
	if br, err := binariesRule(airlockHome); err != nil {
		return nil, err
	} else if br != nil {
		out = append(out, br)
	}
	return out, nil
}

func hasForbid(list []*Rule, id string) bool {
	for _, f := range list {
		if f.ID == id {
			return true
		}
	}
	return false
}

// ForbidIDs lists the built-in forbid ids with their reasons.
func ForbidIDs() ([][2]string, error) {
	fs, _, err := builtins(Vars{})
	if err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, [2]string{f.ID, f.Reason})
	}
	return out, nil
}
