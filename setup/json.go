package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// json reads a JSON (or JSONC) store. The text is blanked of comments
// first, then checked whole by encoding/json, so what is read is what
// encoding/json would decode; servers are then found in place, with their
// lines, by the agent's dialect.
func (p *parser) json(data []byte) error {
	src := blankJSONC(data)
	d := &jdoc{src: src}
	root, ok := d.root()
	if !ok {
		return nil
	}
	if !json.Valid(src) {
		var raw json.RawMessage
		err := json.Unmarshal(src, &raw)
		line := 0
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 0 {
			line = d.lineAt(int(se.Offset) - 1)
		}
		if err == nil { // cannot happen: Valid and Unmarshal agree
			err = errors.New("not valid JSON")
		}
		return &ParseError{Path: p.st.Path, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	switch root.kind() {
	case kNull:
		return nil
	case kObj:
	default:
		return &ParseError{Path: p.st.Path, Line: root.line(), Err: &FieldError{Want: "a JSON object at the top level"}}
	}
	if p.st.Kind == KindSettings {
		p.hooks(root)
		return nil
	}
	if p.st.Kind == kindHooks {
		if d := dialectOf(p.st); d != nil && d.grouped {
			p.hookGroups(root)
		} else if d != nil {
			p.flatHooks(root, d)
		}
		return nil
	}
	if p.st.Agent == "Gemini CLI" {
		// settings.json holds Gemini's hooks next to its servers, with
		// timeouts in milliseconds
		n := len(p.cfg.Hooks)
		p.hookGroups(root)
		for i := n; i < len(p.cfg.Hooks); i++ {
			p.cfg.Hooks[i].Timeout = (p.cfg.Hooks[i].Timeout + 999) / 1000
		}
		p.geminiHooksConfig(root)
	}
	switch p.st.Agent {
	case "VS Code":
		if base(p.st.Path) == "settings.json" {
			// VS Code settings kept servers under "mcp" before mcp.json existed.
			if m, ok := get(root, "mcp"); ok && m.val.kind() == kObj {
				p.serverMap(root, "mcp.servers", dialectMCP)
			}
			return nil
		}
		p.serverMap(root, "servers", dialectMCP)
	case "Zed":
		p.serverMap(root, "context_servers", dialectZed)
	case "opencode":
		p.opencode(root)
	case "grok-cli":
		// grok-cli reads mcpServers, and servers when mcpServers is absent.
		if _, ok := get(root, "mcpServers"); ok {
			p.serverMap(root, "mcpServers", dialectGrokCLI)
		} else {
			p.serverMap(root, "servers", dialectGrokCLI)
		}
	case "generic":
		if _, ok := get(root, "mcpServers"); !ok {
			if _, ok := get(root, "servers"); ok {
				p.serverMap(root, "servers", dialectMCP)
				return nil
			}
		}
		p.serverMap(root, "mcpServers", dialectMCP)
	default:
		p.serverMap(root, "mcpServers", dialectMCP)
		if p.st.Agent == "Claude Code" && base(p.st.Path) == ".claude.json" {
			p.claudeProjects(root)
		}
	}
	return nil
}

// serverMap reads the servers under obj[key] (a dotted key walks down).
func (p *parser) serverMap(obj value, key string, d dialect) {
	var m member
	for _, k := range strings.Split(key, ".") {
		var ok bool
		if m, ok = get(obj, k); !ok {
			return
		}
		obj = m.val
	}
	switch obj.kind() {
	case kNull:
		return
	case kObj:
	default:
		p.fail(m.line, &FieldError{Field: key, Want: "an object"})
		return
	}
	p.addMembers(obj, d, "")
}

// claudeProjects reads ~/.claude.json's local-scope servers:
// projects["/abs/path"].mcpServers.
func (p *parser) claudeProjects(root value) {
	projects, ok := get(root, "projects")
	if !ok || projects.val.kind() != kObj {
		// Claude Code's own state, not a server definition: not ours to judge.
		return
	}
	for _, proj := range projects.val.members() {
		if proj.val.kind() != kObj {
			continue
		}
		m, ok := get(proj.val, "mcpServers")
		if !ok || m.val.kind() == kNull {
			continue
		}
		if m.val.kind() != kObj {
			p.fail(m.line, &FieldError{Field: "projects." + proj.key + ".mcpServers", Want: "an object"})
			continue
		}
		p.addMembers(m.val, dialectMCP, proj.key)
	}
}

// opencode reads opencode's mcp block: servers directly under "mcp", or
// under "mcp.servers" in the newer layout. A server may itself be named
// "servers", so the nested layout is taken only when that member does not
// look like a server.
func (p *parser) opencode(root value) {
	m, ok := get(root, "mcp")
	if !ok || m.val.kind() == kNull {
		return
	}
	if m.val.kind() != kObj {
		p.fail(m.line, &FieldError{Field: "mcp", Want: "an object"})
		return
	}
	if s, ok := get(m.val, "servers"); ok && s.val.kind() == kObj && !looksLikeServer(s.val) {
		p.addMembers(s.val, dialectOpencode, "")
		return
	}
	p.addMembers(m.val, dialectOpencode, "")
}

func looksLikeServer(v value) bool {
	for _, k := range []string{"type", "command", "url", "enabled", "disabled", "environment"} {
		if _, ok := get(v, k); ok {
			return true
		}
	}
	return false
}

// base is the last element of a path written with / or \.
func base(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	return path.Base(p)
}
