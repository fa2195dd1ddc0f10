package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/policy/shell"
	"github.com/tidwall/gjson"
)

// budget bounds how much of a call's arguments the classifier reads. A
// call past any bound is refused: "not read" is not "clean" (an attacker
// hid a secret behind 600 filler arguments once).
type budget struct {
	MaxValues int // strings, keys and scalars
	MaxChars  int // total characters of strings and keys
	MaxDepth  int // nesting of objects and arrays
}

// defaultBudget is 4096 values, 1,000,000 characters, depth 12.
var defaultBudget = budget{MaxValues: 4096, MaxChars: 1_000_000, MaxDepth: 12}

// BudgetFromEnv reads AIRLOCK_MAX_ARG_VALUES, AIRLOCK_MAX_ARG_CHARS and
// AIRLOCK_MAX_ARG_DEPTH; unreadable or non-positive values keep the default.
func BudgetFromEnv(getenv func(string) string) budget {
	b := defaultBudget
	for _, v := range []struct {
		name string
		dst  *int
	}{{"AIRLOCK_MAX_ARG_VALUES", &b.MaxValues}, {"AIRLOCK_MAX_ARG_CHARS", &b.MaxChars}, {"AIRLOCK_MAX_ARG_DEPTH", &b.MaxDepth}} {
		if s := getenv(v.name); s != "" {
			if n, err := strconv.Atoi(s); err == nil && n > 0 {
				*v.dst = n
			}
		}
	}
	return b
}

// CallEnv is what classification needs to know about where a call runs.
type CallEnv struct {
	Cwd    string
	Home   string
	User   string
	Budget budget
	// NoResolve skips symlink resolution (tests of pure string behaviour).
	NoResolve bool
	// InputSchema is the pinned input schema of an MCP tool when the
	// caller has it (pins.json): its property descriptions give the
	// arguments roles (roles.go). nil: roles by argument name only.
	InputSchema []byte
}

// Classify derives the facts of one tool call from its JSON arguments.
// Every string is looked at — values, list items and object keys, at any
// depth — because a secret path in a second argument is still read by a
// tool that takes it.
func Classify(tool string, input []byte, env CallEnv) *Facts {
	f := &Facts{Tool: tool}
	c := classifier{f: f, env: env, kind: toolKindOf(tool)}
	if env.Budget == (budget{}) {
		c.env.Budget = defaultBudget
	}
	f.roles = rolesFor(tool, env.InputSchema)
	root := gjson.ParseBytes(input)
	if !root.IsObject() {
		c.text("", root.String())
	} else {
		c.mcpCommand(root) // mcpargv.go: argv arrays, stdin, env and cwd of MCP process tools
		c.walk(root, "", 1)
		c.argvCommand(root)
	}
	for _, pc := range c.pending {
		c.writeContent(c.target, pc.name, pc.s)
	}
	c.autorunWrites() // autorun.go: content written into files that run by themselves
	c.searchGlob(root)
	c.argvArray(root)
	c.mcpTrees()
	c.notebookCode(root)
	c.finish()
	c.tokenFlows()
	c.finishFlows()
	if f.Mentioned != nil {
		m := classifier{f: f.Mentioned, env: c.env}
		m.finish()
	}
	return f
}

type toolKind int

const (
	kindOther toolKind = iota
	kindShell
	kindRead
	kindWrite
	kindFetch
	kindGlob
	kindGrep
)

type classifier struct {
	f      *Facts
	env    CallEnv
	kind   toolKind
	values int
	chars  int

	pending  []pendingContent // content strings, judged once the target is known
	target   string           // a write's target as written
	cellType string           // NotebookEdit's cell_type
	encl     role             // the role of the MCP prose field the walk is inside
	autorun  autorunState     // autorun.go
	consumed map[string]bool  // mcpargv.go: top-level fields read as one composed command
}

func toolKindOf(tool string) toolKind {
	t := strings.ToLower(tool)
	mcp := strings.HasPrefix(t, "mcp__")
	if mcp {
		if i := strings.LastIndex(t, "__"); i >= 0 {
			t = t[i+2:]
		}
	}
	switch t {
	case "bash", "shell", "powershell", "run_command", "execute", "exec", "run_shell", "terminal", "execute_command", "run_terminal_cmd", "shell_exec":
		return kindShell
	case "read", "notebookread":
		return kindRead
	case "write", "edit", "multiedit", "notebookedit":
		return kindWrite
	case "webfetch", "fetch", "fetch_url":
		return kindFetch
	case "glob":
		return kindGlob
	case "grep":
		return kindGrep
	}
	if mcp {
		return mcpVerbKind(t)
	}
	return kindOther
}

// mcpVerbKind guesses read or write access from an MCP tool's name.
func mcpVerbKind(name string) toolKind {
	for _, w := range []string{"write", "edit", "create", "save", "append", "put", "update", "delete", "remove", "move", "rename", "copy", "mkdir", "patch", "upload"} {
		if strings.Contains(name, w) {
			return kindWrite
		}
	}
	for _, w := range []string{"read", "get", "list", "search", "view", "open", "cat", "show", "find", "stat", "tree", "head", "tail", "download"} {
		if strings.Contains(name, w) {
			return kindRead
		}
	}
	if strings.Contains(name, "shell") || strings.Contains(name, "command") || strings.Contains(name, "exec") {
		return kindShell
	}
	return kindOther
}

func (c *classifier) over(what string) {
	if c.f.TooLarge == "" {
		c.f.TooLarge = what
	}
}

func (c *classifier) walk(v gjson.Result, at string, depth int) {
	if c.f.TooLarge != "" {
		return
	}
	if depth > c.env.Budget.MaxDepth {
		c.over(fmt.Sprintf("arguments nested deeper than %d levels (AIRLOCK_MAX_ARG_DEPTH)", c.env.Budget.MaxDepth))
		return
	}
	switch {
	case v.IsObject():
		v.ForEach(func(k, val gjson.Result) bool {
			key := k.String()
			name := joinArg(at, key)
			c.count(len(key))
			c.str("key:"+name, "", key)
			c.value(val, name, key, depth)
			return c.f.TooLarge == ""
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, val gjson.Result) bool {
			c.value(val, at+"["+strconv.Itoa(i)+"]", lastKey(at), depth)
			i++
			return c.f.TooLarge == ""
		})
	}
}

func (c *classifier) value(val gjson.Result, name, key string, depth int) {
	if c.f.TooLarge != "" {
		return
	}
	switch val.Type {
	case gjson.String:
		s := val.String()
		c.count(len(s))
		c.str(name, key, s)
	case gjson.JSON:
		c.count(0)
		prev := c.encl
		if c.f.roles.mcp && !c.f.roles.runs && prev == roleUnknown && key != "" {
			// the role a prose field gives what it holds (enclosingRole)
			c.encl = mcpNameRole(strings.ToLower(key))
		}
		c.walk(val, name, depth+1)
		c.encl = prev
	default:
		c.count(0)
	}
}

func (c *classifier) count(n int) {
	c.values++
	c.chars += n
	if c.values > c.env.Budget.MaxValues {
		c.over(fmt.Sprintf("more than %d argument values (AIRLOCK_MAX_ARG_VALUES)", c.env.Budget.MaxValues))
	} else if c.chars > c.env.Budget.MaxChars {
		c.over(fmt.Sprintf("more than %d characters of arguments (AIRLOCK_MAX_ARG_CHARS)", c.env.Budget.MaxChars))
	}
}

func joinArg(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func lastKey(at string) string {
	if i := strings.LastIndexByte(at, '.'); i >= 0 {
		at = at[i+1:]
	}
	if i := strings.IndexByte(at, '['); i >= 0 {
		at = at[:i]
	}
	return at
}

var (
	shellKeys = map[string]bool{"command": true, "cmd": true, "script": true, "shell": true, "commandline": true, "command_line": true}
	urlKeys   = map[string]bool{"url": true, "uri": true, "href": true, "endpoint": true, "link": true, "urls": true}
	pathKeys  = map[string]bool{"path": true, "paths": true, "file": true, "files": true, "file_path": true, "filepath": true, "filename": true,
		"dir": true, "directory": true, "folder": true, "source": true, "destination": true, "target": true, "src": true, "dst": true,
		"dest": true, "root": true, "cwd": true, "notebook_path": true, "workdir": true, "working_directory": true}
)

// str classifies one string; key is the name of the field it sits in ("" for keys).
func (c *classifier) str(name, key, s string) {
	c.text(name, s)
	if s == "" || c.consumedArg(name) {
		return
	}
	lk := strings.ToLower(key)
	c.noteContent(name, lk, s) // autorun.go
	top := !strings.ContainsAny(name, ".[") && !strings.HasPrefix(name, "key:")
	switch {
	case c.kind == kindShell && (lk == "command" || (shellKeys[lk] && top)):
		c.primary(name, s)
		c.shell(name, s)
		return
	case shellKeys[lk] && strings.HasPrefix(strings.ToLower(c.f.Tool), "mcp__"):
		c.shell(name, s)
		return
	}
	if top && lk == "cell_type" {
		c.cellType = s
	}
	r := c.roleOf(name, key)
	if c.f.roles.mcp && (r == roleData || r == roleUnknown) && sqlStatement(s) {
		// a database server's query: its file functions read what they
		// name, COPY … PROGRAM runs a shell (sqltext.go)
		for _, p := range sqlPrograms(s) {
			c.shell(name, p)
		}
		r = roleUnknown
	}
	switch r {
	case roleContent:
		if c.target != "" && !strings.EqualFold(c.f.Tool, "NotebookEdit") {
			c.writeContent(c.target, name, s)
		} else {
			// the target (or a notebook's cell_type) comes later in the
			// JSON, or never
			c.pending = append(c.pending, pendingContent{name: name, s: s})
		}
		return
	case roleProse, roleData:
		return // the text fact above is all it yields
	case roleBrief:
		c.mention(name, s)
		return
	}
	switch c.kind {
	case kindRead, kindWrite:
		if top && (lk == "file_path" || lk == "notebook_path" || lk == "path" && c.f.Primary == "") {
			c.primary(name, s)
			acc := accessRead
			if c.kind == kindWrite {
				acc = accessWrite
				c.writeTarget(s)
			}
			c.path(name, s, acc)
			return
		}
	case kindGlob, kindGrep:
		if top && lk == "path" {
			c.primary(name, s)
			c.path(name, s, accessRead)
			if c.kind == kindGrep {
				c.f.Paths[len(c.f.Paths)-1].Tree = true
			}
			return
		}
		if top && c.kind == kindGlob && lk == "pattern" {
			if c.f.Primary == "" {
				c.primary(name, s)
			}
			if strings.ContainsAny(s, "/~\\") {
				c.path(name, s, accessRead)
			}
			return
		}
		if top && c.kind == kindGrep && (lk == "pattern" || lk == "glob") {
			return // a regular expression, or the glob searchGlob reads with the path
		}
	case kindFetch:
		if top && urlKeys[lk] {
			c.primary(name, s)
		}
	}
	if urlKeys[lk] && c.f.Primary == "" && top {
		c.primary(name, s)
	}
	if c.f.roles.mcp && r == roleUnknown && mcpShellish(s) {
		// a string whose use the tool does not say, written as a shell
		// pipeline (a scheduler's task, a job's step): read as one too
		c.shell(name, s)
	}
	c.generic(name, lk, s)
}

// mcpShellish reports whether an MCP string of unknown use is written as
// shell: a pipe into another program, a command list or a substitution,
// between words (not a bare regular expression's a|b).
func mcpShellish(s string) bool {
	if len(s) > 4096 || !strings.Contains(s, " ") {
		return false
	}
	return strings.Contains(s, " | ") || strings.Contains(s, " && ") || strings.Contains(s, "; ") || strings.Contains(s, "$(")
}

func (c *classifier) primary(name, s string) {
	if c.f.Primary == "" {
		c.f.Primary, c.f.PrimaryArg = s, name
	}
}

// generic finds targets in a string whose meaning the tool does not tell.
func (c *classifier) generic(name, key, s string) {
	whole := len(s) < 4096 && !strings.ContainsAny(s, "\n\r")
	if whole && looksLikePath(s) {
		acc := accessAny
		switch c.kind {
		case kindRead, kindGlob, kindGrep:
			acc = accessRead
		case kindWrite:
			if pathKeys[key] {
				acc = accessWrite
				c.writeTarget(s)
			}
		}
		c.path(name, s, acc)
		return
	}
	hasURL := false
	urls := ExtractURLs(s)
	for _, u := range urls {
		hasURL = true
		c.url(name, u)
	}
	if whole && len(urls) > 0 && urls[0] != s && strings.HasPrefix(s, urls[0]) && !strings.ContainsAny(s, " \t") {
		// a value that is one URL to the tool reading it (WebFetch's url,
		// a fetch server's): a quote ends a URL in shell text, not there,
		// and "http://a.example'@169.254.169.254/" is a user name and
		// another host. The whole value is judged too.
		c.url(name, s)
	}
	if whole && !hasURL && !strings.ContainsAny(s, " \t") && LooksLikeHost(s) {
		c.f.Hosts = append(c.f.Hosts, HostFact{Raw: s, Arg: name})
		return
	}
	for _, p := range ExtractPaths(s) {
		c.path(name, p, accessRead)
	}
}

func (c *classifier) url(name, u string) {
	if len(u) > 7 && strings.EqualFold(u[:7], "file://") {
		c.path(name, u, accessAny)
		return
	}
	c.f.Hosts = append(c.f.Hosts, HostFact{Raw: u, Arg: name})
}

func looksLikePath(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '/':
		return !strings.HasPrefix(s, "//")
	case '~':
		return len(s) == 1 || s[1] == '/' || s[1] == '\\'
	case '.':
		return strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, ".\\") || strings.HasPrefix(s, "..\\")
	case '$':
		return strings.HasPrefix(s, "$HOME") || strings.HasPrefix(s, "${HOME}")
	case '\\':
		return true
	}
	if len(s) > 7 && strings.EqualFold(s[:7], "file://") {
		return true
	}
	return len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') && isASCIILetter(s[0])
}

func (c *classifier) path(name, raw string, acc Access) {
	c.f.Paths = append(c.f.Paths, PathFact{Raw: raw, Access: acc, Arg: name})
}

func (c *classifier) text(name, s string) {
	c.f.Texts = append(c.f.Texts, textFact{Raw: s, Arg: name})
}

func (c *classifier) shell(name, src string) {
	if strings.EqualFold(c.f.Tool, "PowerShell") || pwshTool(c.f.Tool) {
		src = "pwsh -NoProfile -Command " + shQuoteWord(src) // pwsh.go in policy/shell reads it
	}
	r := shell.Parse(src, c.env.Cwd, c.env.Home, c.env.User)
	if r.TooDeep {
		c.over("a shell command nested or repeated beyond what Airlock reads")
	}
	parsed := parsedPaths(r.Paths)
	for _, sc := range r.Commands {
		cmd := commandFact{Argv: sc.Argv, Dir: sc.Dir, Home: c.env.Home, Arg: name}
		c.f.Commands = append(c.f.Commands, cmd)
		// the safety net under the parser: a path named anywhere in the
		// words of a command the analyzer did not model completely is at
		// least read (`socat - UNIX-CONNECT:/tmp/ssh-x/agent.1`) unless the parser
		// recorded that path itself (ls ~/.ssh: names only). A modelled
		// command's words are data unless its facts say otherwise: `echo
		// ~/.netrc` and `git commit -m "…"` mention, they do not read.
		if sc.Modelled {
			continue
		}
		for _, w := range cmd.Argv[1:] {
			for _, p := range ExtractPaths(w) {
				if !parsed[ExpandPath(p, sc.Dir, c.env.Home)] {
					c.path(name, p, accessRead)
				}
			}
		}
	}
	for _, p := range r.Paths {
		c.f.Paths = append(c.f.Paths, PathFact{Raw: p.Raw, Path: p.Path, Access: p.Access, Arg: name, Glob: p.Glob, Tree: p.Tree, Names: p.Names})
	}
	for _, h := range r.Hosts {
		c.f.Hosts = append(c.f.Hosts, HostFact{Raw: h.Raw, Arg: name})
	}
	c.shellFlows(name, r.Flows)
	for _, s := range r.Signals {
		c.f.Signals = append(c.f.Signals, signalFact{Signal: Signal(s.Signal), Detail: s.Detail, Arg: name})
	}
	for _, e := range r.Env {
		k, v, _ := strings.Cut(e, "=")
		c.f.Env = append(c.f.Env, envFact{Name: k, Value: v, Arg: name})
		for _, p := range ExtractPaths(v) {
			c.path(name, p, accessRead)
		}
	}
	for _, code := range r.Embedded {
		for _, u := range ExtractURLs(code) {
			c.url(name, u)
		}
		if !slices.Contains(r.Inert, code) {
			for _, p := range ExtractPaths(code) {
				c.path(name, p, accessAny)
			}
		}
		c.text(name, code)
	}
	c.autorunShell(&r) // autorun.go: what it writes into files that run by themselves
}

// finish canonicalises what the parsers found: absolute, clean and
// symlink-resolved paths, folded forms for deny matching, canonical hosts.
func (c *classifier) finish() {
	home := c.env.Home
	var once resolvedOnce
	for i := range c.f.Paths {
		p := &c.f.Paths[i]
		fromRaw := p.Path == ""
		if fromRaw {
			p.Path = ExpandPath(p.Raw, c.env.Cwd, home)
		}
		p.Resolved = p.Path
		if !c.env.NoResolve && strings.HasPrefix(p.Path, "/") {
			p.Resolved = once.resolve(p.Path)
		}
		p.fold = FoldPath(p.Path)
		// a spelling that folds to itself expands to p.Path and folds to
		// p.fold: only another spelling can name another place
		if !fromRaw || FoldText(p.Raw) != p.Raw {
			if raw := FoldPath(ExpandPath(FoldText(p.Raw), c.env.Cwd, home)); raw != p.fold {
				// the folded spelling may decode to a different place than
				// the written one (%2e%2e, fullwidth dots): deny on either
				c.f.Paths = append(c.f.Paths, PathFact{Raw: p.Raw, Path: raw, Access: p.Access, Arg: p.Arg, Resolved: raw, fold: raw,
					Glob: p.Glob, Tree: p.Tree, Names: p.Names, search: p.search})
				p = &c.f.Paths[i]
			}
		}
		if p.Tree && home != "" {
			p.home = FoldPath(home)
			if n := len(c.f.Paths) - 1; n != i && c.f.Paths[n].Tree && c.f.Paths[n].Raw == p.Raw {
				c.f.Paths[n].home = p.home
			}
		}
		if p.Resolved != p.Path {
			p.rfold = FoldPath(p.Resolved)
		}
	}
	for i := range c.f.Paths {
		c.f.Paths[i].setKeys()
	}
	for i := range c.f.Commands {
		// folded once per call, not once per forbid that names a program
		c.f.Commands[i].fprog = FoldText(c.f.Commands[i].Program())
		c.f.Commands[i].pbits[0], c.f.Commands[i].pbits[1] = progBits(c.f.Commands[i].fprog)
		c.f.Commands[i].pbitsSet = true
	}
	for i := range c.f.Hosts {
		h := &c.f.Hosts[i]
		if h.Host == "" {
			h.Host = CanonicalHost(h.Raw)
		}
	}
	for i := range c.f.Texts {
		c.f.Texts[i].fold = FoldText(c.f.Texts[i].Raw)
	}
}
