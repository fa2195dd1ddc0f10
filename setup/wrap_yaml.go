package setup

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// YAML edits work from yaml.v3's node positions (line and column, in
// characters) back to byte offsets in the raw text. Each scalar the edit
// touches is checked: the bytes found there must read, alone, as the value
// the parser gave; anything Airlock cannot place exactly (a block scalar,
// a multi-line value, an alias, an anchored node other places share) is
// refused rather than guessed.

// ydoc is a YAML text with its line starts.
type ydoc struct {
	src   []byte
	lines []int
}

func newYdoc(src []byte) *ydoc {
	d := &ydoc{src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

// offset is the byte offset of a node's (line, column).
func (d *ydoc) offset(n *yaml.Node) (int, bool) {
	if n.Line < 1 || n.Line > len(d.lines) {
		return 0, false
	}
	i := d.lines[n.Line-1]
	for c := 1; c < n.Column; c++ {
		if i >= len(d.src) || d.src[i] == '\n' {
			return 0, false
		}
		_, w := utf8.DecodeRune(d.src[i:])
		i += w
	}
	return i, true
}

// scalar is the byte span of a one-line scalar node, checked to read as
// the node's value. inFlow: the scalar sits in a [..] or {..}.
func (d *ydoc) scalar(n *yaml.Node, inFlow bool) (int, int, bool) {
	if n.Kind != yaml.ScalarNode || n.Anchor != "" || n.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return 0, 0, false
	}
	off, ok := d.offset(n)
	if !ok {
		return 0, 0, false
	}
	src := d.src
	end := off
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for end = off + 1; end < len(src) && src[end] != '"' && src[end] != '\n'; end++ {
			if src[end] == '\\' {
				end++
			}
		}
		end++
	case n.Style&yaml.SingleQuotedStyle != 0:
		for end = off + 1; end < len(src) && src[end] != '\n'; end++ {
			if src[end] == '\'' {
				if end+1 < len(src) && src[end+1] == '\'' {
					end++
					continue
				}
				break
			}
		}
		end++
	default:
		for end < len(src) && src[end] != '\n' && src[end] != '\r' {
			if (src[end] == '#' && end > off && (src[end-1] == ' ' || src[end-1] == '\t')) ||
				(inFlow && strings.IndexByte(",[]{}", src[end]) >= 0) {
				break
			}
			end++
		}
		for end > off && (src[end-1] == ' ' || src[end-1] == '\t') {
			end--
		}
	}
	if end > len(src) || end <= off || !yamlReadsAs(src[off:end], n.Value) {
		return 0, 0, false
	}
	return off, end, true
}

// yamlReadsAs says tok, read alone, is the scalar want.
func yamlReadsAs(tok []byte, want string) bool {
	var n yaml.Node
	if guard(func() error { return yaml.Unmarshal(tok, &n) }) != nil {
		return false
	}
	r := resolve(&n)
	return r != nil && r.Kind == yaml.ScalarNode && r.Value == want
}

var yamlPlainSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./@+=-]*$`) }) // compiled on first use, not in every process that links setup

// yamlQuote writes s as a YAML scalar: plain when that cannot be read as
// anything else, double-quoted otherwise (JSON's escapes are YAML's).
func yamlQuote(s string) string {
	if yamlPlainSafe().MatchString(s) && resolveTag(s) == "!!str" {
		return s
	}
	return jsonQuote(s)
}

// resolveTag is the tag YAML gives a plain scalar s ("" if s is not one).
func resolveTag(s string) string {
	var n yaml.Node
	if guard(func() error { return yaml.Unmarshal([]byte(s), &n) }) != nil {
		return ""
	}
	if r := resolve(&n); r != nil && r.Kind == yaml.ScalarNode && r.Value == s {
		return r.ShortTag()
	}
	return ""
}

// yamlSite is where one server's command and args sit.
type yamlSite struct {
	d              *ydoc
	entry          *yaml.Node // the server's mapping
	cmdKey, cmd    *yaml.Node
	argsKey, args  *yaml.Node // nil when there is no args key
	cmdOff, cmdEnd int
}

func yamlPair(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if kn := m.Content[i]; kn.Kind == yaml.ScalarNode && kn.Value == key {
			k, v = kn, m.Content[i+1]
		}
	}
	return k, v
}

func yamlSiteOf(st Store, data []byte, name string) (*yamlSite, error) {
	var doc yaml.Node
	if err := guard(func() error { return yaml.Unmarshal(data, &doc) }); err != nil {
		return nil, refuse("invalid YAML")
	}
	root := resolve(&doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, refuse("no servers in the file")
	}
	cmdName := "command"
	var entry *yaml.Node
	if st.Agent == "Goose" {
		cmdName = "cmd"
		if _, ext := yamlPair(root, "extensions"); ext != nil && ext.Kind == yaml.MappingNode {
			_, entry = yamlPair(ext, name)
		}
	} else if _, list := yamlPair(root, "mcpServers"); list != nil {
		switch list.Kind {
		case yaml.MappingNode:
			_, entry = yamlPair(list, name)
		case yaml.SequenceNode:
			for _, item := range list.Content {
				if item.Kind != yaml.MappingNode {
					continue
				}
				// Parse names an item by its name, or else by the hub
				// block it uses.
				for _, k := range []string{"name", "uses"} {
					_, v := yamlPair(item, k)
					if v = resolve(v); v == nil || v.Tag == "!!null" {
						continue
					}
					if v.Kind == yaml.ScalarNode && v.Value == name {
						if entry != nil {
							return nil, refuse("two servers named %q", name)
						}
						entry = item
					}
					break
				}
			}
		}
	}
	if entry == nil || entry.Kind != yaml.MappingNode || entry.Anchor != "" {
		return nil, refuse("server %q is not a mapping Airlock can edit (an alias or an anchor other entries share?)", name)
	}
	s := &yamlSite{d: newYdoc(data), entry: entry}
	s.cmdKey, s.cmd = yamlPair(entry, cmdName)
	s.argsKey, s.args = yamlPair(entry, "args")
	if s.cmd == nil {
		return nil, refuse("server %q has no %s", name, cmdName)
	}
	var ok bool
	if s.cmdOff, s.cmdEnd, ok = s.d.scalar(s.cmd, entry.Style&yaml.FlowStyle != 0); !ok {
		return nil, refuse("server %q: %s is not a one-line value Airlock can edit in place", name, cmdName)
	}
	if s.args != nil && (s.args.Kind == yaml.AliasNode || s.args.Anchor != "") {
		return nil, refuse("server %q: args is an alias or anchor other entries share", name)
	}
	if s.args != nil && s.args.Kind == yaml.ScalarNode && s.args.Tag == "!!null" {
		return nil, refuse("server %q: args is empty (null); write args: [] and run airlock init again", name)
	}
	if s.args != nil && s.args.Kind != yaml.SequenceNode {
		return nil, refuse("server %q: args is not a list", name)
	}
	return s, nil
}

// yseq is an args sequence as written.
type yseq struct {
	flow  bool
	open  int      // flow: the offset just past "["
	elems [][2]int // each item's scalar
	lines []int    // block: each item's line start
	ind   string   // block: the text before each "- "
}

func (s *yamlSite) seq() (*yseq, bool) {
	d, n := s.d, s.args
	q := &yseq{flow: n.Style&yaml.FlowStyle != 0}
	if q.flow {
		off, ok := d.offset(n)
		if !ok || d.src[off] != '[' {
			return nil, false
		}
		q.open = off + 1
	}
	for i, item := range n.Content {
		a, b, ok := d.scalar(item, q.flow)
		if !ok {
			return nil, false
		}
		q.elems = append(q.elems, [2]int{a, b})
		if q.flow {
			continue
		}
		// The item's dash, and nothing but indentation before it.
		dash := a - 1
		for dash >= 0 && (d.src[dash] == ' ' || d.src[dash] == '\t') {
			dash--
		}
		ls := lineStart(d.src, a)
		if dash < ls || d.src[dash] != '-' || strings.TrimLeft(string(d.src[ls:dash]), " ") != "" {
			return nil, false
		}
		if i == 0 {
			q.ind = string(d.src[ls:dash])
		}
		q.lines = append(q.lines, ls)
	}
	return q, true
}

// wrapYAML is wrapJSON for Continue's and Goose's YAML.
func wrapYAML(st Store, data []byte, s *server, mcp string) ([]byte, wrapRecord, error) {
	rec := wrapRecord{Name: s.Name}
	site, err := yamlSiteOf(st, data, s.Name)
	if err != nil {
		return nil, rec, err
	}
	flowEntry := site.entry.Style&yaml.FlowStyle != 0
	tok := string(data[site.cmdOff:site.cmdEnd])
	nl := newline(data)
	sp := []splice{{site.cmdOff, site.cmdEnd, yamlQuote(mcp)}}
	tail := ""
	if !flowEntry && onlyCommentAfter(data, site.cmdEnd) {
		tail = " " + mark
	}
	flowTok := tok // the command as an item of a [..] list
	if site.cmd.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && strings.ContainsAny(tok, ",[]{}#:") {
		flowTok = jsonQuote(site.cmd.Value)
	}
	if site.args == nil {
		rec.Args = argsAbsent
		list := strings.Join(append(wrapPrefix(s.Name, jsonQuote), flowTok), ", ")
		if flowEntry {
			sp = append(sp, splice{site.cmdEnd, site.cmdEnd, ", args: [" + list + "]"})
		} else {
			ind := strings.Repeat(" ", site.cmdKey.Column-1)
			tail += nl + ind + "args: [" + list + "] " + mark
		}
	} else {
		q, ok := site.seq()
		if !ok {
			return nil, rec, refuse("server %q: args is not a list of one-line values Airlock can edit in place", s.Name)
		}
		switch {
		case q.flow:
			list := strings.Join(append(wrapPrefix(s.Name, jsonQuote), flowTok), ", ")
			if len(q.elems) > 0 {
				sp = append(sp, splice{q.elems[0][0], q.elems[0][0], list + ", "})
			} else {
				sp = append(sp, splice{q.open, q.open, list})
			}
		default:
			var b strings.Builder
			for _, w := range append(wrapPrefix(s.Name, jsonQuote), tok) {
				b.WriteString(q.ind + "- " + w + nl)
			}
			sp = append(sp, splice{q.lines[0], q.lines[0], b.String()})
		}
	}
	if tail != "" {
		at := eol(data, site.cmdEnd)
		sp = append(sp, splice{at, at, tail})
	}
	out, err := applySplices(data, sp)
	return out, rec, err
}

// unwrapYAML undoes wrapYAML for server s, which reads as wrapped.
func unwrapYAML(st Store, data []byte, s *server, rec wrapRecord) ([]byte, error) {
	site, err := yamlSiteOf(st, data, s.Name)
	if err != nil {
		return nil, err
	}
	j := len(s.Args) - len(s.Inner) // the first word after "--"
	if site.args == nil {
		return nil, refuse("server %q: args is not a list", s.Name)
	}
	q, ok := site.seq()
	if !ok || len(q.elems) != len(s.Args) {
		return nil, refuse("server %q: args is not a list Airlock can edit in place", s.Name)
	}
	inner := string(data[q.elems[j][0]:q.elems[j][1]])
	sp := []splice{{site.cmdOff, site.cmdEnd, inner}}
	cmdEOL := eol(data, site.cmdEnd)
	if strings.HasSuffix(string(data[site.cmdEnd:cmdEOL]), " "+mark) {
		sp = append(sp, splice{cmdEOL - len(" "+mark), cmdEOL, ""})
	}
	argsOff, _ := site.d.offset(site.argsKey)
	switch {
	case !q.flow && j+1 < len(q.elems):
		sp = append(sp, splice{q.lines[0], q.lines[j+1], ""})
	case !q.flow:
		// Every item was Airlock's: leave an empty list.
		if !strings.HasPrefix(string(data[argsOff:]), "args:") {
			return nil, refuse("server %q: args is written in a way Airlock cannot edit in place", s.Name)
		}
		sp = append(sp, splice{argsOff + len("args:"), eol(data, q.elems[len(q.elems)-1][1]), " []"})
	case j+1 < len(q.elems):
		sp = append(sp, splice{q.elems[0][0], q.elems[j+1][0], ""})
	case rec.Args == argsAbsent && site.entry.Style&yaml.FlowStyle != 0 && argsOff > site.cmdEnd && string(data[site.cmdEnd:argsOff]) == ", ":
		sp = []splice{{site.cmdOff, yamlFlowEnd(data, q.open), inner}}
	case rec.Args == argsAbsent && lineEnd(data, site.cmdEnd)+1 == lineStart(data, argsOff) &&
		strings.HasSuffix(string(data[argsOff:eol(data, argsOff)]), "] "+mark):
		// The line wrapYAML added below the command: take it out whole.
		sp = append(sp, splice{cmdEOL, eol(data, argsOff), ""})
	default:
		sp = append(sp, splice{q.elems[0][0], q.elems[j][1], ""})
	}
	return applySplices(data, sp)
}

// yamlFlowEnd is the offset just past the "]" closing the flow sequence
// whose items start at open.
func yamlFlowEnd(data []byte, open int) int {
	depth := 1
	for i := open; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(data) && data[i] != '\''; i++ {
			}
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(data)
}
