package setup

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxTOMLDepth bounds nested arrays and inline tables before the TOML
// decoder sees them: it recurses once per level, and a 16 MiB file of "["
// would exhaust the stack, a crash no recover can catch.
const maxTOMLDepth = 128

func (p *parser) toml(data []byte) (err error) {
	if d := tomlDepth(data); d > maxTOMLDepth {
		return &ParseError{Path: p.st.Path, Err: fmt.Errorf("invalid TOML: arrays or tables nested deeper than %d", maxTOMLDepth)}
	}
	var doc map[string]any
	var md toml.MetaData
	if err := guard(func() (e error) { md, e = toml.Decode(string(data), &doc); return e }); err != nil {
		line := 0
		var pe toml.ParseError
		msg := err.Error()
		if errors.As(err, &pe) {
			line, msg = pe.Position.Line, pe.Message
		}
		return &ParseError{Path: p.st.Path, Line: line, Err: &causeError{"invalid TOML: " + msg, err}}
	}
	lines, anyLine := tomlServerLines(data)
	if n, ok := doc["notify"].([]any); ok && p.st.Agent == "Codex CLI" {
		// Codex runs notify's argv after every turn, by itself.
		var argv []string
		for _, a := range n {
			if s, ok := a.(string); ok {
				argv = append(argv, s)
			}
		}
		line := 0
		for i, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "notify") {
				line = i + 1
				break
			}
		}
		if len(argv) > 0 {
			p.cfg.Hooks = append(p.cfg.Hooks, Hook{Event: "notify", Command: strings.Join(argv, " "), Line: line, Helper: true})
		}
	}
	raw, ok := doc["mcp_servers"]
	if !ok {
		return nil
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		p.fail(anyLine, &FieldError{Field: "mcp_servers", Want: "a table of servers ([mcp_servers.NAME])"})
		return nil
	}
	for _, name := range tomlOrder(md, servers, lines) {
		line := lines[name]
		if line == 0 {
			line = anyLine
		}
		s, err := readServer(p.st, name, line, tval{servers[name], line}, dialectTOML)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		p.cfg.Servers = append(p.cfg.Servers, s)
	}
	return nil
}

// tomlOrder lists the server names in the order the file first mentions
// them (a Go map has none).
func tomlOrder(md toml.MetaData, servers map[string]any, lines map[string]int) []string {
	var order []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "mcp_servers" && !seen[k[1]] {
			if _, ok := servers[k[1]]; ok {
				seen[k[1]] = true
				order = append(order, k[1])
			}
		}
	}
	var rest []string
	for name := range servers {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		if lines[rest[i]] != lines[rest[j]] {
			return lines[rest[i]] < lines[rest[j]]
		}
		return rest[i] < rest[j]
	})
	return append(order, rest...)
}

// tval is a decoded TOML value. TOML decoders give no positions, so every
// field carries its server's line.
type tval struct {
	v  any
	ln int
}

func (t tval) kind() kind {
	switch t.v.(type) {
	case nil:
		return kNull
	case string:
		return kStr
	case bool:
		return kBool
	case int64, float64:
		return kNum
	case []any, []map[string]any:
		return kArr
	case map[string]any:
		return kObj
	}
	return kOther
}

func (t tval) text() string {
	switch x := t.v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(t.v)
}

func (t tval) line() int   { return t.ln }
func (t tval) loose() bool { return false }

func (t tval) elems() []value {
	var out []value
	switch x := t.v.(type) {
	case []any:
		for _, e := range x {
			out = append(out, tval{e, t.ln})
		}
	case []map[string]any:
		for _, e := range x {
			out = append(out, tval{e, t.ln})
		}
	}
	return out
}

func (t tval) members() []member {
	m, ok := t.v.(map[string]any)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]member, 0, len(keys))
	for _, k := range keys {
		out = append(out, member{key: k, line: t.ln, val: tval{m[k], t.ln}})
	}
	return out
}

// causeError is a message of our own over a parser's error, which stays
// reachable through errors.As (a toml.ParseError keeps its Position).
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }

// errParserPanic is the cause when a third-party parser panics on a file.
var errParserPanic = errors.New("the parser failed on this input")

// guard runs a third-party parser. Config files are untrusted input, and a
// parser bug must cost one file, not the process.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w (%v)", errParserPanic, r)
		}
	}()
	return f()
}
