package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/agentairlock/airlock/audit"
	"github.com/agentairlock/airlock/internal/textsafe"
	"github.com/agentairlock/airlock/policy"
)

// ProposeOptions says which records a proposal reads and where the user's
// home is (paths under it are written with ${home}, and neither / nor the
// home directory itself is ever folded into a glob).
type ProposeOptions struct {
	Since time.Time
	Home  string
	User  string
}

// ProposedGrant is one least-privilege grant covering observed calls.
type ProposedGrant struct {
	Tool   string
	Match  string // "" covers every call of the tool
	Calls  int
	First  string // time of the first and last call it covers
	Last   string
	Shell  bool // a grant over a shell tool: a text match on a command line cannot stop what is chained after it
	Reason string
}

// Withheld is a group of calls that are listed for the user and never
// whitelisted: blocked, asked about, flagged, or impossible to place.
type Withheld struct {
	Tool    string
	Why     string
	Rule    string
	Reason  string
	Example string
	Count   int
}

// proposal is what `airlock policy propose` derives from the log.
type proposal struct {
	Since     time.Time
	Decisions int // decision records read
	Covered   int // allowed benign calls the grants cover
	Grants    []ProposedGrant
	Withheld  []Withheld
}

// Propose derives the narrowest grants that cover every call the log shows
// as allowed and benign. A call is a candidate only when the policy said
// allow and it happened (so a yolo week's "would have blocked" records,
// asks, forbid hits and escalations are never candidates), and its target,
// decided again on its own against the built-in forbids and the high
// indicators, is still clean: the record keeps no raw arguments, so this
// second look is the most a log allows.
func Propose(src Source, o ProposeOptions) (*proposal, error) {
	check, err := newRecheck(o)
	if err != nil {
		return nil, err
	}
	pr := &proposal{Since: o.Since}
	withheld := map[[3]string]*Withheld{}
	hold := func(r audit.Record, why, rule, reason string) {
		k := [3]string{r.Tool, why, rule}
		w := withheld[k]
		if w == nil {
			w = &Withheld{Tool: r.Tool, Why: why, Rule: rule, Reason: reason, Example: r.Target}
			withheld[k] = w
		}
		w.Count++
	}
	fold := newFolder(o.Home)
	filter := Filter{Since: o.Since}
	err = src.Each(func(e Entry) error {
		if e.Err != nil || e.Record.Event != "decision" || !filter.Keep(e) {
			return nil
		}
		r := e.Record
		pr.Decisions++
		switch {
		case r.Decision == "block" && r.Effective == "allow":
			hold(r, "would have been blocked (let through by "+r.Mode+" mode)", r.Rule, r.Reason)
			return nil
		case r.Decision == "block" || r.Effective == "block":
			hold(r, "blocked", r.Rule, r.Reason)
			return nil
		case r.Decision == "ask" || r.Effective == "ask":
			hold(r, "asked", r.Rule, r.Reason)
			return nil
		case r.Decision != "allow" || (r.Effective != "allow" && r.Effective != ""):
			hold(r, "not a plain allow ("+r.Decision+"/"+r.Effective+")", r.Rule, r.Reason)
			return nil
		}
		if d, bad := check.flagged(r.Tool, r.Target); bad {
			hold(r, "flagged", d.Rule, d.Reason)
			return nil
		}
		if why := fold.add(r); why != "" {
			hold(r, why, "", "")
			return nil
		}
		pr.Covered++
		return nil
	})
	if err != nil {
		return nil, err
	}
	pr.Grants = fold.grants()
	for _, w := range withheld {
		pr.Withheld = append(pr.Withheld, *w)
	}
	sort.Slice(pr.Withheld, func(i, j int) bool {
		a, b := pr.Withheld[i], pr.Withheld[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Tool+a.Why+a.Rule < b.Tool+b.Why+b.Rule
	})
	return pr, nil
}

// recheck decides a record's target again, alone, against the forbids and
// the high-severity indicators (yolo's escalate is empty, so its records
// never name an indicator).
type recheck struct {
	p    *policy.Policy
	home string
	user string
}

func newRecheck(o ProposeOptions) (*recheck, error) {
	p, err := policy.LoadProfile("default", policy.Vars{Home: o.Home, User: o.User, Tmp: "/tmp"})
	if err != nil {
		return nil, fmt.Errorf("propose: %w", err)
	}
	q := *p
	q.Escalate = map[policy.Severity]policy.Action{policy.SevHigh: policy.Block}
	return &recheck{p: &q, home: o.Home, user: o.User}, nil
}

func (c *recheck) flagged(tool, target string) (policy.Decision, bool) {
	if target == "" {
		return policy.Decision{}, false
	}
	f := policy.Classify(tool, policy.TargetInput(tool, target), policy.CallEnv{Cwd: "/", Home: c.home, User: c.user})
	if d, hit := c.p.CheckForbids(f); hit {
		return d, true
	}
	d := c.p.EscalateDecision(f, policy.Decision{Action: policy.Allow})
	return d, d.Action != policy.Allow
}

type targetKind int

const (
	kindOpaque targetKind = iota
	kindShell
	kindPath
	kindURL
)

var (
	shellTools = map[string]bool{"bash": true, "shell": true, "powershell": true, "run_command": true, "execute": true, "exec": true,
		"run_shell": true, "terminal": true, "execute_command": true, "run_terminal_cmd": true, "shell_exec": true}
	pathTools = map[string]bool{"read": true, "write": true, "edit": true, "multiedit": true, "notebookedit": true,
		"notebookread": true, "glob": true, "grep": true, "ls": true}
)

func kindOf(tool, target string) targetKind {
	t := strings.ToLower(tool)
	if i := strings.LastIndex(t, "__"); strings.HasPrefix(t, "mcp__") && i >= 0 {
		t = t[i+2:]
	}
	switch {
	case shellTools[t]:
		return kindShell
	case strings.Contains(target, "://"):
		return kindURL
	case pathTools[t], strings.HasPrefix(target, "/"), strings.HasPrefix(target, "~"):
		return kindPath
	}
	return kindOpaque
}

// folder collapses candidate calls into grants: per tool, paths into the
// deepest directory their top directory shares, hosts one per grant,
// shell commands by program.
type folder struct {
	home   string
	groups map[[2]string]*group // tool, key
}

type group struct {
	tool, key   string
	kind        targetKind
	paths       map[string]bool
	bare        bool // a command that is the program alone
	calls       int
	first, last string
}

func newFolder(home string) *folder {
	return &folder{home: strings.TrimSuffix(path.Clean(home), "/"), groups: map[[2]string]*group{}}
}

// add files one allowed call; a non-empty answer is why it cannot be
// granted narrowly.
func (fo *folder) add(r audit.Record) string {
	kind := kindOf(r.Tool, r.Target)
	key, why := "", ""
	var p, rp string
	bare := false
	switch {
	case r.Target == "":
		kind = kindOpaque
	case kind == kindShell:
		key, bare, why = program(r.Target)
	case kind == kindURL:
		key, why = origin(r.Target)
	case kind == kindPath:
		p, key, why = fo.place(r.Target)
		rp, why = fo.resolved(p, key, why)
	default:
		kind = kindOpaque // a tool-wide grant: the target is not a path, host or command
	}
	if why != "" {
		return why
	}
	k := [2]string{r.Tool, key}
	g := fo.groups[k]
	if g == nil {
		g = &group{tool: r.Tool, key: key, kind: kind, paths: map[string]bool{}, first: r.Time}
		fo.groups[k] = g
	}
	if p != "" {
		g.paths[p] = true
		if rp != "" {
			g.paths[rp] = true
		}
	}
	g.bare = g.bare || bare
	g.calls++
	g.last = r.Time
	return ""
}

// program is the first word of a command line, when it is a plain name.
func program(cmd string) (string, bool, string) {
	fields := strings.Fields(cmd)
	if len(fields) == 0 {
		return "", false, "an empty command"
	}
	p := fields[0]
	if strings.ContainsAny(p, "=$`'\"*?[]{}()<>|;&\\") {
		return "", false, "the command does not start with a plain program name"
	}
	return p, len(fields) == 1 && strings.TrimSpace(cmd) == p, ""
}

// origin is scheme://host of a URL whose host a grant can pin exactly.
func origin(raw string) (string, string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || strings.ContainsAny(u.Host, "*?\\") {
		return "", "a URL whose host cannot be pinned by a grant"
	}
	o := u.Scheme + "://" + u.Host
	if !strings.HasPrefix(raw, o+"/") {
		return "", "a URL without a path (a host grant matches " + o + "/…)"
	}
	return o, ""
}

// place makes a path target absolute and finds its top directory: the
// first directory below the home directory, or below / elsewhere.
func (fo *folder) place(raw string) (p, top, why string) {
	switch {
	case raw == "~" || strings.HasPrefix(raw, "~/"):
		raw = fo.home + raw[1:]
	case !strings.HasPrefix(raw, "/"):
		return "", "", "a relative path (the record does not keep the working directory)"
	}
	p = path.Clean(raw)
	if strings.ContainsAny(p, "*?[]{}") || strings.Contains(p, "${") {
		return "", "", "a path with glob characters in its name"
	}
	base := ""
	if fo.home != "" && fo.home != "/" && strings.HasPrefix(p, fo.home+"/") {
		base = fo.home
	}
	rest := strings.TrimPrefix(p[len(base):], "/")
	first, _, _ := strings.Cut(rest, "/")
	return p, base + "/" + first, ""
}

// resolved is p with its symlinks resolved, when that differs: a grant
// must cover the written and the resolved path with one glob, so both
// join the group, and a link out of its top directory is left to a person.
func (fo *folder) resolved(p, top, why string) (string, string) {
	if why != "" {
		return "", why
	}
	r := policy.ResolveSymlinks(p)
	if r == p || r == "" {
		return "", ""
	}
	if _, rtop, _ := fo.place(r); rtop != top {
		return "", "a symlink to " + r + " (one grant cannot cover both places; write it by hand if you mean it)"
	}
	return r, ""
}

func (fo *folder) grants() []ProposedGrant {
	var out []ProposedGrant
	for _, g := range fo.groups {
		pg := ProposedGrant{Tool: g.tool, Calls: g.calls, First: g.first, Last: g.last}
		switch g.kind {
		case kindShell:
			pg.Shell = true
			pg.Match = g.key + " *"
			if g.bare {
				pg.Match = g.key + "*"
			}
		case kindURL:
			pg.Match = g.key + "/*"
		case kindPath:
			for _, m := range fo.fold(g) {
				pg.Match = m
				out = append(out, pg)
			}
			continue
		}
		out = append(out, pg)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Shell != out[j].Shell {
			return !out[i].Shell
		}
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return out[i].Match < out[j].Match
	})
	for i := range out {
		out[i].Reason = fmt.Sprintf("observed %d call(s) %s..%s (airlock policy propose)", out[i].Calls, day(out[i].First), day(out[i].Last))
	}
	return out
}

// fold is the deepest directory glob the paths of one top directory share;
// a single file stays itself, and a file directly in / or the home
// directory is never widened to the directory holding it.
func (fo *folder) fold(g *group) []string {
	ps := make([]string, 0, len(g.paths))
	for p := range g.paths {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	if len(ps) == 1 {
		return []string{fo.vars(ps[0])}
	}
	common := strings.Split(ps[0], "/")
	for _, p := range ps[1:] {
		seg := strings.Split(p, "/")
		n := 0
		for n < len(common) && n < len(seg) && common[n] == seg[n] {
			n++
		}
		common = common[:n]
	}
	dir := strings.Join(common, "/")
	if dir == "" || dir == "/" || dir == fo.home || !strings.HasPrefix(dir+"/", g.key+"/") {
		// the top "directory" is a file in / or home itself: list them as they are
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = fo.vars(p)
		}
		return out
	}
	return []string{fo.vars(dir) + "/**"}
}

func (fo *folder) vars(p string) string {
	if fo.home != "" && fo.home != "/" && strings.HasPrefix(p, fo.home+"/") {
		return "${home}" + p[len(fo.home):]
	}
	return p
}

func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

// Write renders the proposal as YAML a user can paste under a policy's
// grants: key, with everything not proposed as comments. Shell grants are
// commented out unless includeShell.
func (pr *proposal) Write(w io.Writer, includeShell bool, today string) error {
	var b strings.Builder
	since := "the start of the log"
	if !pr.Since.IsZero() {
		since = audit.FormatTime(pr.Since)
	}
	fmt.Fprintf(&b, "# airlock policy propose: %d decision(s) since %s\n", pr.Decisions, since)
	fmt.Fprintf(&b, "# %d allowed call(s) covered by %d grant(s); %d call(s) not proposed\n", pr.Covered, len(pr.Grants), pr.withheldCalls())
	b.WriteString("grants:\n")
	if len(pr.Grants) == 0 {
		b.WriteString("  []\n")
	}
	for _, g := range pr.Grants {
		lead := "  "
		if g.Shell && !includeShell {
			b.WriteString("  # shell grant, held back (a command line can chain anything after its program; --include-shell applies it):\n")
			lead = "  # "
		}
		fmt.Fprintf(&b, "%s- tool: %s\n", lead, yamlScalar(g.Tool))
		if g.Match != "" {
			fmt.Fprintf(&b, "%s  match: %s\n", lead, yamlScalar(g.Match))
		}
		fmt.Fprintf(&b, "%s  reason: %s\n", lead, yamlScalar(g.Reason))
		fmt.Fprintf(&b, "%s  added: %s\n", lead, today)
	}
	if len(pr.Withheld) > 0 {
		b.WriteString("\n# not proposed (listed for you to see, never whitelisted):\n")
		for _, wh := range pr.Withheld {
			fmt.Fprintf(&b, "#   %5d  %s  %s", wh.Count, textsafe.Escape(wh.Tool), textsafe.Escape(wh.Why))
			if wh.Rule != "" {
				fmt.Fprintf(&b, "  [%s]", textsafe.Escape(wh.Rule))
			}
			if wh.Reason != "" {
				fmt.Fprintf(&b, " %s", textsafe.Escape(wh.Reason))
			}
			if wh.Example != "" {
				fmt.Fprintf(&b, "  e.g. %s", textsafe.Escape(clip(wh.Example, 100)))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (pr *proposal) withheldCalls() int {
	n := 0
	for _, w := range pr.Withheld {
		n += w.Count
	}
	return n
}

// Applicable is the grants --apply writes.
func (pr *proposal) Applicable(includeShell bool) (apply, held []ProposedGrant) {
	for _, g := range pr.Grants {
		if g.Shell && !includeShell {
			held = append(held, g)
			continue
		}
		apply = append(apply, g)
	}
	return apply, held
}

// yamlScalar quotes a value as a YAML double-quoted string (JSON's escapes
// are valid there), so a glob or a hostile name cannot change the document.
func yamlScalar(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
