package contracts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentairlock/airlock/internal/regular"
	"github.com/agentairlock/airlock/internal/yamldoc"
	"github.com/agentairlock/airlock/policy"
	"gopkg.in/yaml.v3"
)

// Load reads $AIRLOCK_HOME/contracts.yaml. A missing file is no
// contracts. vars expands ${workspace}, ${home}, ${tmp}, ${user} and
// ${airlock_home} in fs patterns, exactly as in the policy file. Any
// problem is a *yamldoc.LoadError naming the file, the line and the fix: a
// contract that half loads would silently allow what it was written to
// refuse.
func Load(airlockHome string, vars policy.Vars) (*Set, error) {
	path := filepath.Join(airlockHome, FileName)
	data, err := regular.ReadState(path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &Set{path: path, home: vars.Home, servers: map[string]*compiled{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read contracts %s: %w", path, err)
	}
	return parse(data, path, vars)
}

// The file's schema. Every mapping is checked against its known keys, so a
// misspelt "tols:" is an error with a hint, never a contract that allows
// no tools by accident (or every tool, had the default been lax).
var (
	topKeys    = []string{"servers"}
	serverKeys = []string{"enforced", "tools", "fs", "net", "shell", "default"}
)

// parse decodes, validates and compiles a contracts file. It reports every
// problem at once so the user fixes them in one go.
func parse(data []byte, name string, vars policy.Vars) (*Set, error) {
	s := &Set{path: name, home: vars.Home, servers: map[string]*compiled{}}
	errs := yamldoc.Problems{File: name}
	// strictly: a repeated key, a merge key or a second document would
	// otherwise be read one way by Airlock and another by a person
	doc, probs := yamldoc.Parse(data)
	if len(probs) > 0 {
		for _, p := range probs {
			errs.AddProblem(p)
		}
		return nil, errs.Err()
	}
	if len(doc.Content) == 0 || len(bytes.TrimSpace(data)) == 0 {
		return s, nil // an empty file (or only comments): no contracts
	}
	top := doc.Content[0]
	if isNull(top) {
		return s, nil
	}
	if top.Kind != yaml.MappingNode {
		errs.Add(top.Line, "the contracts file must be a mapping starting with `servers:`, not a %s", yamldoc.Kind(top))
		return nil, errs.Err()
	}
	yamldoc.UnknownKeys(top, topKeys, "the contracts file", &errs)
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "servers" {
			continue
		}
		servers := top.Content[i+1]
		if isNull(servers) {
			break
		}
		if servers.Kind != yaml.MappingNode {
			errs.Add(servers.Line, "servers must be a mapping of server name to contract, not a %s", yamldoc.Kind(servers))
			break
		}
		for j := 0; j+1 < len(servers.Content); j += 2 {
			k, v := servers.Content[j], servers.Content[j+1]
			e := compileServer(k, v, vars, &errs)
			if e == nil {
				continue
			}
			key := NormName(e.c.Name)
			if prev, dup := s.servers[key]; dup {
				errs.Add(k.Line, "server %q already has a contract at line %d: keep one entry", k.Value, prev.c.Line)
				continue
			}
			s.servers[key] = e
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// compileServer validates one server entry; it returns nil after adding
// problems.
func compileServer(k, v *yaml.Node, vars policy.Vars, errs *yamldoc.Problems) *compiled {
	n0 := errs.Len()
	name := k.Value
	if k.Kind != yaml.ScalarNode || name == "" {
		errs.Add(k.Line, "a server name must be a non-empty string")
		return nil
	}
	if norm := NormName(name); norm != name {
		errs.Add(k.Line, "server name %q has characters Claude Code rewrites: write %q", name, norm)
	}
	e := &compiled{c: Contract{Name: name, Enforced: true, Default: policy.Block, Line: k.Line}}
	if isNull(v) {
		return e // an empty contract: the server may do nothing
	}
	if v.Kind != yaml.MappingNode {
		errs.Add(v.Line, "the contract for %q must be a mapping (enforced:, tools:, fs:, net:, shell:, default:), not a %s", name, yamldoc.Kind(v))
		return nil
	}
	yamldoc.UnknownKeys(v, serverKeys, fmt.Sprintf("the contract for %q", name), errs)
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i].Value, v.Content[i+1]
		switch key {
		case "enforced":
			e.c.Enforced = boolValue(val, key, errs)
		case "shell":
			e.c.Shell = boolValue(val, key, errs)
		case "default":
			e.c.Default = defaultValue(val, errs)
		case "tools":
			for _, it := range strList(val, key, errs) {
				if it.Value == "" {
					errs.Add(it.Line, "an empty tool name: remove it")
					continue
				}
				if norm := normBytes(it.Value, true); norm != it.Value {
					errs.Add(it.Line, "tool %q has characters Claude Code rewrites: write %q", it.Value, norm)
					continue
				}
				e.c.Tools = append(e.c.Tools, it.Value)
				e.tools = append(e.tools, it.Value)
			}
		case "fs":
			for _, it := range strList(val, key, errs) {
				e.c.FS = append(e.c.FS, it.Value)
				if p, ok := compileFS(it, vars, errs); ok {
					e.fs = append(e.fs, p)
				}
			}
		case "net":
			for _, it := range strList(val, key, errs) {
				e.c.Net = append(e.c.Net, it.Value)
				if p, ok := compileNet(it, errs); ok {
					e.net = append(e.net, p)
				}
			}
		}
	}
	if errs.Len() > n0 {
		return nil
	}
	return e
}

// compileFS expands and compiles one path glob. A pattern naming an empty
// variable (no workspace) is dropped: it can never match, the safe reading
// for an allow list.
func compileFS(it *yaml.Node, vars policy.Vars, errs *yamldoc.Problems) (policy.PathPattern, bool) {
	g := it.Value
	if g == "" {
		errs.Add(it.Line, "an empty fs pattern: remove it")
		return policy.PathPattern{}, false
	}
	if strings.HasPrefix(g, "~") {
		errs.Add(it.Line, "fs pattern %q: write ${home}%s (~ is not expanded in patterns)", g, strings.TrimPrefix(g, "~"))
		return policy.PathPattern{}, false
	}
	exp, ok, err := vars.Expand(g)
	if err != nil {
		errs.Add(it.Line, "fs pattern %q: %v", g, err)
		return policy.PathPattern{}, false
	}
	if !strings.HasPrefix(g, "${") && !absPattern(exp) {
		errs.Add(it.Line, "fs pattern %q is not absolute: start it with /, ${workspace}, ${home}, ${tmp} or **", g)
		return policy.PathPattern{}, false
	}
	p, err := policy.CompilePathGlob(exp)
	if err != nil {
		errs.Add(it.Line, "fs pattern %q is not a valid glob: %v (braces must pair up; '*', '**' and '?' are the wildcards)", g, err)
		return policy.PathPattern{}, false
	}
	return p, ok
}

// absPattern reports whether a path glob names a place from the root: a
// relative "src/**" would silently mean "/src/**".
func absPattern(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "**") {
		return true
	}
	return len(p) > 2 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// compileNet canonicalises one host pattern the way the policy does: an
// exact name or IP in any spelling becomes its canonical host; "*", label
// globs and CIDR prefixes are matched by policy.HostMatch.
func compileNet(it *yaml.Node, errs *yamldoc.Problems) (hostPattern, bool) {
	h := strings.ToLower(strings.TrimSpace(it.Value))
	switch {
	case h == "":
		errs.Add(it.Line, "an empty net pattern: remove it")
	case h == "*":
		return hostPattern{glob: h}, true
	case strings.Contains(h, "/") && !strings.Contains(h, "://"):
		if _, err := netip.ParsePrefix(h); err != nil {
			errs.Add(it.Line, "net pattern %q is not a CIDR prefix like 10.0.0.0/8: %v", it.Value, err)
			break
		}
		return hostPattern{glob: h}, true
	case strings.Contains(h, "*"):
		return hostPattern{glob: h}, true
	default:
		if c := policy.CanonicalHost(h); c != "" {
			return hostPattern{exact: c}, true
		}
		errs.Add(it.Line, "net pattern %q is not a host name, IP, *.domain glob or CIDR", it.Value)
	}
	return hostPattern{}, false
}

func boolValue(n *yaml.Node, key string, errs *yamldoc.Problems) bool {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		if b, err := strconv.ParseBool(n.Value); err == nil {
			return b
		}
	}
	errs.Add(n.Line, "%s must be true or false, not %q", key, n.Value)
	return false
}

func defaultValue(n *yaml.Node, errs *yamldoc.Problems) policy.Action {
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "block", "deny":
			return policy.Block
		case "ask":
			return policy.Ask
		case "allow":
			errs.Add(n.Line, "default: allow would let every call outside the contract through: write block or ask (or remove the contract)")
			return policy.Block
		}
		if hint := yamldoc.Suggest(n.Value, []string{"block", "ask"}); hint != "" {
			errs.AddFix(n.Line, fmt.Sprintf("did you mean %q?", hint), "default %q is not block or ask", n.Value)
			return policy.Block
		}
	}
	errs.Add(n.Line, "default must be block or ask, not %q", n.Value)
	return policy.Block
}

// strList accepts one string or a list of strings.
func strList(n *yaml.Node, key string, errs *yamldoc.Problems) []*yaml.Node {
	switch {
	case isNull(n):
		return nil
	case n.Kind == yaml.ScalarNode:
		return []*yaml.Node{n}
	case n.Kind == yaml.SequenceNode:
		out := make([]*yaml.Node, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode || isNull(c) {
				errs.Add(c.Line, "each item of %s must be a string", key)
				continue
			}
			out = append(out, c)
		}
		return out
	}
	errs.Add(n.Line, "%s must be a string or a list of strings, not a %s", key, yamldoc.Kind(n))
	return nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}
