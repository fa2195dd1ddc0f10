package setup

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// flatHooks reads a hooks file whose events list handlers directly
// (Cursor, Windsurf, Copilot):
//
//	{"version": 1, "hooks": {"preToolUse": [{"command": "…", "timeout": 30, "matcher": "Shell"}]}}
//
// Copilot's command is in "bash" (and "powershell"). A handler of another
// type ("prompt") runs no local command and is skipped; one of the wrong
// shape is reported and skipped.
func (p *parser) flatHooks(root value, d *hookDialect) {
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
		if shadowed(evs, i) || ev.val.kind() == kNull {
			continue
		}
		if ev.val.kind() != kArr {
			p.fail(ev.line, &FieldError{Field: where, Want: "an array"})
			continue
		}
		for hi, hv := range ev.val.elems() {
			hwhere := fmt.Sprintf("%s[%d]", where, hi)
			if hv.kind() != kObj {
				p.fail(hv.line(), &FieldError{Field: hwhere, Want: "an object"})
				continue
			}
			if t, ok := field(hv, "type"); ok && (t.val.kind() != kStr || t.val.text() != "command") {
				continue
			}
			c, ok := field(hv, d.commandKey())
			if !ok && d.copilot {
				// a Windows-only hook: what the powershell field runs
				c, ok = field(hv, "powershell")
			}
			if !ok || c.val.kind() != kStr {
				line := hv.line()
				if ok {
					line = c.line
				}
				p.fail(line, &FieldError{Field: hwhere + "." + d.commandKey(), Want: "a string"})
				continue
			}
			hk := Hook{Event: ev.key, Command: c.val.text(), Line: c.val.line()}
			if m, ok := field(hv, "matcher"); ok {
				if m.val.kind() != kStr {
					p.fail(m.line, &FieldError{Field: hwhere + ".matcher", Want: "a string"})
					continue
				}
				hk.Matcher = m.val.text()
			}
			if d.timeoutKey != "" {
				if m, ok := field(hv, d.timeoutKey); ok {
					n, err := strconv.ParseFloat(m.val.text(), 64)
					if m.val.kind() != kNum || err != nil || n < 0 {
						p.fail(m.line, &FieldError{Field: hwhere + "." + d.timeoutKey, Want: "a number of seconds"})
						continue
					}
					hk.Timeout = int(math.Min(math.Ceil(n), math.MaxInt32))
				}
			}
			p.cfg.Hooks = append(p.cfg.Hooks, hk)
		}
	}
}

// script reads a hook that is a program (Cline's PreToolUse): each line
// that is not blank or a comment is a command the agent runs, named by
// the file (the event).
func (p *parser) script(data []byte) {
	ev := base(p.st.Path)
	for i, l := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		p.cfg.Hooks = append(p.cfg.Hooks, Hook{Event: ev, Command: strings.TrimPrefix(s, "exec "), Line: i + 1})
	}
}

// geminiHooksConfig reads Gemini CLI's switches for its hooks:
// hooksConfig.enabled false runs none, and hooksConfig.disabled names
// hooks (by name, or by command) that do not run.
func (p *parser) geminiHooksConfig(root value) {
	hc, ok := field(root, "hooksConfig")
	if !ok || hc.val.kind() != kObj {
		return
	}
	if m, ok := field(hc.val, "enabled"); ok {
		if b, ok := scalarBool(m.val); ok && !b {
			p.cfg.HooksDisabled = true
		}
	}
	if m, ok := field(hc.val, "disabled"); ok && m.val.kind() == kArr {
		for _, e := range m.val.elems() {
			if e.kind() == kStr {
				p.cfg.DisabledHooks = append(p.cfg.DisabledHooks, e.text())
			}
		}
	}
}
