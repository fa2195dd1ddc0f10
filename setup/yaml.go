package setup

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"gopkg.in/yaml.v3"
)

func (p *parser) yaml(data []byte) error {
	var doc yaml.Node
	if err := guard(func() error { return yaml.Unmarshal(data, &doc) }); err != nil {
		line, msg := 0, err.Error()
		if m := yamlErrLine().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		return &ParseError{Path: p.st.Path, Line: line, Err: &causeError{"invalid YAML: " + msg, err}}
	}
	root := yval{&doc}
	switch root.kind() {
	case kNull:
		return nil
	case kObj:
	default:
		return &ParseError{Path: p.st.Path, Line: root.line(), Err: &FieldError{Want: "a YAML mapping at the top level"}}
	}
	if p.st.Agent == "Goose" {
		m, ok := field(root, "extensions")
		if !ok {
			return nil
		}
		if m.val.kind() != kObj {
			p.fail(m.line, &FieldError{Field: "extensions", Want: "a mapping of extensions"})
			return nil
		}
		p.addMembers(m.val, dialectGoose, "")
		return nil
	}
	m, ok := field(root, "mcpServers")
	if !ok {
		return nil
	}
	switch m.val.kind() {
	case kObj: // the Claude-style map Continue also accepts
		p.addMembers(m.val, dialectMCP, "")
	case kArr:
		p.continueList(m.val)
	default:
		p.fail(m.line, &FieldError{Field: "mcpServers", Want: "a list of servers"})
	}
	return nil
}

var yamlErrLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) }) // compiled on first use, not in every process that links setup

// continueList reads Continue's mcpServers list: - name: x, command: …
// An item that only references a hub block (uses: owner/block) is kept
// under that reference, with no command: its definition is not local.
func (p *parser) continueList(list value) {
	for i, item := range list.elems() {
		where := fmt.Sprintf("mcpServers[%d]", i)
		if item.kind() != kObj {
			p.fail(item.line(), &FieldError{Field: where, Want: "a mapping"})
			continue
		}
		name, bad := "", false
		for _, k := range []string{"name", "uses"} {
			m, ok := field(item, k)
			if !ok {
				continue
			}
			if name, ok = scalarString(m.val); !ok {
				p.fail(m.line, &FieldError{Field: where + "." + k, Want: "a string"})
				bad = true
			}
			break
		}
		if bad {
			continue
		}
		if name == "" {
			p.fail(item.line(), &FieldError{Field: where + ".name", Want: "a string"})
			continue
		}
		s, err := readServer(p.st, name, item.line(), item, dialectMCP)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		p.cfg.Servers = append(p.cfg.Servers, s)
	}
}

// yval is a YAML node. Aliases are followed one hop at a time, only where
// a reader looks, so an alias bomb costs no more than its text.
type yval struct{ n *yaml.Node }

// maxAliasHops bounds a chain of aliases to aliases.
const maxAliasHops = 32

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < maxAliasHops; i++ {
		switch n.Kind {
		case 0: // an empty document
			return nil
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return nil
}

func (y yval) kind() kind {
	n := resolve(y.n)
	if n == nil {
		return kNull
	}
	switch n.Kind {
	case yaml.MappingNode:
		return kObj
	case yaml.SequenceNode:
		return kArr
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return kNull
		case "!!bool":
			return kBool
		case "!!int", "!!float":
			return kNum
		case "!!str", "!!timestamp":
			return kStr
		}
	}
	return kOther
}

func (y yval) text() string {
	if n := resolve(y.n); n != nil {
		return n.Value
	}
	return ""
}

func (y yval) line() int {
	if y.n == nil {
		return 0
	}
	if y.n.Kind == yaml.DocumentNode {
		if n := resolve(y.n); n != nil {
			return n.Line
		}
	}
	return y.n.Line
}

func (y yval) loose() bool { return true }

func (y yval) elems() []value {
	n := resolve(y.n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]value, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, yval{c})
	}
	return out
}

// members lists a mapping's pairs. Merge keys (<<) are not followed: agent
// configs do not use them, and an entry written that way is read without
// the merged fields.
func (y yval) members() []member {
	n := resolve(y.n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]member, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode || k.Value == "<<" && k.ShortTag() == "!!merge" {
			continue
		}
		out = append(out, member{key: k.Value, line: n.Content[i].Line, val: yval{n.Content[i+1]}})
	}
	return out
}
