package contracts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/policy"
	"gopkg.in/yaml.v3"
)

// fileHeader starts a contracts file Airlock creates.
const fileHeader = `# Airlock per-server contracts: what each MCP server may do.
# A call outside its server's contract becomes the contract's default
# (block or ask); enforced: false only reports it. Comments are kept when
# airlock edits this file.
`

// Promote turns server's observed footprint into the narrowest enforced
// contract and writes it into $AIRLOCK_HOME/contracts.yaml, replacing that
// server's entry and keeping every other entry and comment:
//
//   - tools: exactly the names observed;
//   - fs: the directory of every observed file (a directory observed as a
//     directory is itself) as "dir/**", dropping a directory another one
//     covers; under the workspace written ${workspace}/…, under the home
//     directory ${home}/…;
//   - net: exactly the canonical hosts observed;
//   - shell: as observed; default: block; enforced: true.
//
// Glob characters in a directory name ('*', '?', '{', '}') cannot be
// written literally (the glob syntax has no escape), so each becomes '?',
// the narrowest pattern that still covers the name.
//
// It refuses when nothing was observed for server, when the footprint was
// truncated (a contract from an incomplete footprint would block what was
// never recorded; write that contract by hand), and when the existing
// contracts file does not load.
func Promote(airlockHome, server string, vars policy.Vars) (*Contract, error) {
	var out *Contract
	err := withLock(airlockHome, func() error {
		fps, err := Footprints(airlockHome)
		if err != nil {
			return err
		}
		name := NormName(server)
		fp := fps[name]
		if fp == nil || fp.Calls == 0 {
			return fmt.Errorf("promote %s: nothing observed for this server: run it with AIRLOCK_MODE=observe first", server)
		}
		if fp.Truncated() {
			return fmt.Errorf("promote %s: the footprint is truncated (more than %d paths, %d hosts or %d tools): a contract from it would block what was not recorded; write this contract by hand", server, maxPaths, maxHosts, maxTools)
		}
		c := fromFootprint(name, fp, vars)
		file := filepath.Join(airlockHome, FileName)
		if err := writeContract(file, c, fp, vars); err != nil {
			return fmt.Errorf("promote %s: %w", server, err)
		}
		out = c
		return nil
	})
	return out, err
}

// fromFootprint builds the narrowest contract covering fp.
func fromFootprint(name string, fp *footprint, vars policy.Vars) *Contract {
	c := &Contract{
		Name:     name,
		Enforced: true,
		Tools:    append([]string(nil), fp.Tools...),
		Net:      append([]string(nil), fp.Hosts...),
		Shell:    fp.Shell,
		Default:  policy.Block,
	}
	sort.Strings(c.Tools)
	sort.Strings(c.Net)
	var dirs []string
	for _, p := range fp.Paths {
		if d, isDir := strings.CutSuffix(p, "/"); isDir {
			if d == "" || strings.HasSuffix(d, ":") {
				d += "/" // the root itself
			}
			dirs = append(dirs, d)
			continue
		}
		dirs = append(dirs, dirOf(p))
	}
	for _, d := range outermost(dirs) {
		c.FS = append(c.FS, withVars(escapeGlob(d), vars)+suffixAll(d))
	}
	sort.Strings(c.FS)
	return c
}

// dirOf is path.Dir that keeps a drive root ("C:/x" → "C:/").
func dirOf(p string) string {
	d := path.Dir(p)
	if len(d) == 2 && d[1] == ':' {
		d += "/"
	}
	return d
}

func suffixAll(dir string) string {
	if strings.HasSuffix(dir, "/") {
		return "**"
	}
	return "/**"
}

// outermost deduplicates dirs and drops every one that lies under another.
func outermost(dirs []string) []string {
	sort.Strings(dirs)
	var out []string
	for _, d := range dirs {
		covered := false
		for _, o := range out {
			if d == o || under(d, o) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// under reports whether p lies inside dir (segment-wise: /a/bc is not
// under /a/b).
func under(p, dir string) bool {
	if strings.HasSuffix(dir, "/") {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+"/")
}

// escapeGlob makes an observed path safe as a glob: characters the glob
// syntax would read ('*', '?', '{', '}' and the '$' of "${") become '?'.
func escapeGlob(p string) string {
	if !strings.ContainsAny(p, "*?{}$") {
		return p
	}
	b := []byte(p)
	for i, c := range b {
		if c == '*' || c == '{' || c == '}' || c == '$' && i+1 < len(b) && b[i+1] == '{' {
			b[i] = '?'
		}
	}
	return string(b)
}

// withVars writes a path under the workspace as ${workspace}/…, else under
// the home directory as ${home}/…, so the contract follows the user.
func withVars(p string, vars policy.Vars) string {
	for _, v := range []struct{ name, dir string }{{"workspace", vars.Workspace}, {"home", vars.Home}} {
		dir := filepath.ToSlash(v.dir)
		if dir == "" || !absPath(dir) || strings.ContainsAny(dir, "*?{}$") {
			continue
		}
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" || strings.HasSuffix(dir, ":") {
			continue // the root is no useful variable
		}
		if p == dir {
			return "${" + v.name + "}"
		}
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
			return "${" + v.name + "}/" + rest
		}
	}
	return p
}

// writeContract replaces (or adds) c's entry in the contracts file,
// editing the YAML tree so every other entry and every comment stays.
func writeContract(file string, c *Contract, fp *footprint, vars policy.Vars) error {
	data, err := regular.ReadState(file, maxFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", file, err)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if _, err := parse(data, file, vars); err != nil {
			return fmt.Errorf("fix the contracts file first: %w", err)
		}
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
	}
	fresh := len(doc.Content) == 0 || isNull(doc.Content[0])
	if fresh {
		comment := doc.HeadComment
		if len(doc.Content) > 0 {
			comment = joinComments(comment, doc.Content[0].HeadComment)
		}
		if strings.TrimSpace(comment) == "" {
			comment = strings.TrimSuffix(fileHeader, "\n")
		}
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: comment}}}
	}
	top := doc.Content[0]
	servers := mapValue(top, "servers")
	if servers == nil {
		servers = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		top.Content = append(top.Content, scalar("servers"), servers)
	} else if servers.Kind != yaml.MappingNode {
		*servers = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: servers.HeadComment, LineComment: servers.LineComment}
	}
	servers.Style &^= yaml.FlowStyle // "servers: {}" grows into a block mapping
	calls := "calls"
	if fp.Calls == 1 {
		calls = "call"
	}
	note := fmt.Sprintf("promoted by airlock from %d observed %s, %s to %s", fp.Calls, calls,
		fp.First.UTC().Format("2006-01-02"), fp.Last.UTC().Format("2006-01-02"))
	// The note rides on the entry's first key, so a comment the user wrote
	// on the server's own line or above it stays where it was.
	entry := contractNode(c)
	entry.Content[0].HeadComment = note
	replaced := false
	for i := 0; i+1 < len(servers.Content); i += 2 {
		if NormName(servers.Content[i].Value) == c.Name {
			servers.Content[i].Value = c.Name
			servers.Content[i+1] = entry
			replaced = true
			break
		}
	}
	if !replaced {
		servers.Content = append(servers.Content, scalar(c.Name), entry)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("encode %s: %w", file, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode %s: %w", file, err)
	}
	// What is written must load and say what was promoted: never leave a
	// file the gate would refuse to start with.
	set, err := parse(buf.Bytes(), file, vars)
	if err != nil {
		return fmt.Errorf("the edited contracts file would not load: %w", err)
	}
	if got, ok := set.Get(c.Name); !ok || !sameContract(got, c) {
		return fmt.Errorf("the edited contracts file does not hold the promoted contract for %q", c.Name)
	}
	return writeAtomic(file, buf.Bytes())
}

func contractNode(c *Contract) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) { m.Content = append(m.Content, scalar(k), v) }
	add("enforced", boolNode(c.Enforced))
	add("tools", seq(c.Tools, yaml.FlowStyle))
	add("fs", seq(c.FS, 0))
	add("net", seq(c.Net, yaml.FlowStyle))
	add("shell", boolNode(c.Shell))
	add("default", scalar(c.Default.String()))
	return m
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

func seq(items []string, style yaml.Style) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: style}
	if len(items) == 0 {
		n.Style = yaml.FlowStyle
	}
	for _, it := range items {
		n.Content = append(n.Content, scalar(it))
	}
	return n
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func joinComments(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

func sameContract(a, b *Contract) bool {
	eq := func(x, y []string) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return a.Enforced == b.Enforced && a.Shell == b.Shell && a.Default == b.Default &&
		eq(a.Tools, b.Tools) && eq(a.FS, b.FS) && eq(a.Net, b.Net)
}
