package policy

import (
	"strings"

	"github.com/agentairlock/airlock/policy/shell"
	"github.com/tidwall/gjson"
)

// parsedPaths is the set of paths the shell parser recorded, so the
// word-level safety net does not turn a name the parser judged (ls ~/.ssh:
// names only) back into a read.
func parsedPaths(ps []shell.Path) map[string]bool {
	if len(ps) == 0 {
		return nil
	}
	m := make(map[string]bool, len(ps))
	for i := range ps {
		m[ps[i].Path] = true
	}
	return m
}

// searchGlob adds what a Grep call's glob selects under its path (ripgrep
// glob rules: a glob without '/' matches a name at any depth), as a
// pattern fact: `Grep path=~ glob=.aws/*` reads ~/.aws/*.
func (c *classifier) searchGlob(root gjson.Result) {
	if c.kind != kindGrep || !root.IsObject() {
		return
	}
	g := root.Get("glob").String()
	if g == "" {
		return
	}
	base := root.Get("path").String()
	if base == "" {
		base = c.env.Cwd
	}
	if base == "" {
		return
	}
	base = strings.TrimRight(ExpandPath(base, c.env.Cwd, c.env.Home), "/")
	alts, err := expandBraces(g, nil)
	if err != nil {
		alts = []string{g}
	}
	for _, a := range alts {
		a = strings.TrimPrefix(a, "/")
		p := base + "/" + a
		if !strings.Contains(a, "/") {
			p = base + "/**/" + a
		}
		c.f.Paths = append(c.f.Paths, PathFact{Raw: p, Path: p, Access: accessRead, Arg: "glob", Glob: true, search: true})
	}
	// the glob narrows the search: the plain tree fact of the path would
	// judge files the glob never selects
	for i := range c.f.Paths {
		if c.f.Paths[i].Tree && c.f.Paths[i].Arg == "path" {
			c.f.Paths[i].Tree, c.f.Paths[i].Names = false, true
		}
	}
}

// mcpTrees: an MCP tool that searches (search_files, grep) reads the tree
// under its path, as the Grep tool does.
func (c *classifier) mcpTrees() {
	t := strings.ToLower(c.f.Tool)
	if !strings.HasPrefix(t, "mcp__") {
		return
	}
	if i := strings.LastIndex(t, "__"); i >= 0 {
		t = t[i+2:]
	}
	if !strings.Contains(t, "search") && !strings.Contains(t, "grep") {
		return
	}
	for i := range c.f.Paths {
		if c.f.Paths[i].Access&accessRead != 0 && !c.f.Paths[i].Glob {
			c.f.Paths[i].Tree = true
		}
	}
}

// notebookCode: a notebook cell runs; the paths its code builds or names
// for reading are reads (print(open('.env').read()), Path.home() / …).
func (c *classifier) notebookCode(root gjson.Result) {
	if !strings.EqualFold(c.f.Tool, "NotebookEdit") || !root.IsObject() {
		return
	}
	src := root.Get("new_source").String()
	if src == "" || c.env.Home == "" {
		return
	}
	for _, cp := range shell.FoldCodePaths(src, c.env.Home) {
		c.f.Paths = append(c.f.Paths, PathFact{Raw: cp.Path, Access: accessRead, Arg: "new_source", Glob: cp.Glob, Tree: cp.Tree})
	}
}

// argvArray: a shell-kind tool given its command as an argv array
// ({"argv":["cat",".env"]}) runs that command; it is read as the shell
// command those words quote to.
func (c *classifier) argvArray(root gjson.Result) {
	if !root.IsObject() {
		return
	}
	if c.kind != kindShell {
		// an MCP server whose name says it runs commands (mcp__shell__run)
		t := strings.ToLower(c.f.Tool)
		if !strings.HasPrefix(t, "mcp__") || !strings.Contains(t, "shell") && !strings.Contains(t, "exec") &&
			!strings.Contains(t, "terminal") && !strings.Contains(t, "command") {
			return
		}
	}
	for _, key := range [...]string{"argv", "args", "command", "cmd"} {
		v := root.Get(key)
		if !v.IsArray() {
			continue
		}
		var words []string
		ok := true
		v.ForEach(func(_, w gjson.Result) bool {
			if w.Type != gjson.String {
				ok = false
				return false
			}
			words = append(words, shellQuote(w.String()))
			return len(words) < 256
		})
		if ok && len(words) > 0 {
			c.shell(key, strings.Join(words, " "))
		}
		return
	}
}

// shellQuote quotes s for a POSIX shell as one word.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
