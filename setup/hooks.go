package setup

import (
	"fmt"
	"math"
	"strconv"
)

// hooks reads a Claude Code settings file's command hooks:
//
//	"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}
//
// Hook types other than "command" (prompt, agent, http, mcp_tool) run no
// local command and are skipped. A group or hook of the wrong shape is
// reported and skipped; the others are kept.
func (p *parser) hooks(root value) {
	if m, ok := field(root, "disableAllHooks"); ok {
		if b, ok := scalarBool(m.val); ok {
			p.cfg.HooksDisabled = b
		} else {
			p.fail(m.line, &FieldError{Field: "disableAllHooks", Want: "a boolean"})
		}
	}
	p.helpers(root)
	p.hookGroups(root)
}

// hookGroups reads the "hooks" object of matcher groups that Claude Code,
// Codex and Gemini CLI share.
func (p *parser) hookGroups(root value) {
	h, ok := field(root, "hooks")
	if !ok {
		return
	}
	if h.val.kind() != kObj {
		p.fail(h.line, &FieldError{Field: "hooks", Want: "an object"})
		return
	}
	evs := h.val.members()
	for i, ev := range evs {
		where := "hooks." + ev.key
		if shadowed(evs, i) {
			// JSON.parse keeps the last of a repeated key: Claude Code
			// never sees this list.
			continue
		}
		if ev.val.kind() == kNull {
			continue
		}
		if ev.val.kind() != kArr {
			p.fail(ev.line, &FieldError{Field: where, Want: "an array"})
			continue
		}
		for gi, g := range ev.val.elems() {
			gwhere := fmt.Sprintf("%s[%d]", where, gi)
			if g.kind() != kObj {
				p.fail(g.line(), &FieldError{Field: gwhere, Want: "an object"})
				continue
			}
			matcher := ""
			if m, ok := field(g, "matcher"); ok {
				if m.val.kind() != kStr {
					p.fail(m.line, &FieldError{Field: gwhere + ".matcher", Want: "a string"})
					continue
				}
				matcher = m.val.text()
			}
			list, ok := field(g, "hooks")
			if !ok {
				continue
			}
			if list.val.kind() != kArr {
				p.fail(list.line, &FieldError{Field: gwhere + ".hooks", Want: "an array"})
				continue
			}
			for hi, hv := range list.val.elems() {
				hwhere := fmt.Sprintf("%s.hooks[%d]", gwhere, hi)
				if hk, ok := p.hook(hv, hwhere); ok {
					hk.Event, hk.Matcher = ev.key, matcher
					p.cfg.Hooks = append(p.cfg.Hooks, hk)
				}
			}
		}
	}
}

func (p *parser) hook(v value, where string) (Hook, bool) {
	if v.kind() != kObj {
		p.fail(v.line(), &FieldError{Field: where, Want: "an object"})
		return Hook{}, false
	}
	t, ok := field(v, "type")
	if !ok || t.val.kind() != kStr || t.val.text() != "command" {
		return Hook{}, false
	}
	var h Hook
	c, ok := field(v, "command")
	if !ok || c.val.kind() != kStr {
		line := c.line
		if !ok {
			line = t.line
		}
		p.fail(line, &FieldError{Field: where + ".command", Want: "a string"})
		return Hook{}, false
	}
	h.Command, h.Line = c.val.text(), c.val.line()
	if m, ok := field(v, "timeout"); ok {
		n, err := strconv.ParseFloat(m.val.text(), 64)
		if m.val.kind() != kNum || err != nil || n < 0 {
			p.fail(m.line, &FieldError{Field: where + ".timeout", Want: "a number of seconds"})
			return Hook{}, false
		}
		h.Timeout = int(math.Min(math.Ceil(n), math.MaxInt32))
	}
	if m, ok := field(v, "if"); ok {
		if m.val.kind() != kStr {
			p.fail(m.line, &FieldError{Field: where + ".if", Want: "a string"})
			return Hook{}, false
		}
		h.If = m.val.text()
	}
	for _, k := range []string{"async", "asyncRewake"} {
		if m, ok := field(v, k); ok {
			b, ok := scalarBool(m.val)
			if !ok {
				p.fail(m.line, &FieldError{Field: where + "." + k, Want: "a boolean"})
				return Hook{}, false
			}
			h.Async = h.Async || b
		}
	}
	return h, true
}

// shadowed says member i is repeated later in the object, where the last
// of a repeated key wins.
func shadowed(ms []member, i int) bool {
	for _, m := range ms[i+1:] {
		if m.key == ms[i].key {
			return true
		}
	}
	return false
}

// helperKeys are settings whose value is a command Claude Code runs by
// itself, outside any hook: the status line on every prompt, the helpers
// that fetch credentials and headers.
var helperKeys = []string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper"}

// helpers reads those commands as hooks whose Event is the setting's name
// and Helper is set.
func (p *parser) helpers(root value) {
	if m, ok := field(root, "statusLine"); ok && m.val.kind() == kObj {
		if c, ok := field(m.val, "command"); ok && c.val.kind() == kStr {
			p.cfg.Hooks = append(p.cfg.Hooks, Hook{Event: "statusLine", Command: c.val.text(), Line: c.val.line(), Helper: true})
		}
	}
	for _, k := range helperKeys {
		if m, ok := field(root, k); ok && m.val.kind() == kStr {
			p.cfg.Hooks = append(p.cfg.Hooks, Hook{Event: k, Command: m.val.text(), Line: m.val.line(), Helper: true})
		}
	}
}
