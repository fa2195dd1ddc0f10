package setup

import (
	"strings"
)

// kindHooks is a store that holds only command hooks: Codex's and
// Cursor's hooks.json, Windsurf's, Copilot's hook files, Cline's hook
// scripts.
const kindHooks = "hooks"

// formatScript is a hook that is a program of its own (Cline runs the
// executable named after the event).
const formatScript format = "script"

// hookEv is one event an agent fires around a tool call; post: it fires
// after the tool ran, so airlock-hook records the outcome (--post) and
// never blocks.
type hookEv struct {
	name string
	post bool
}

// hookDialect is how one agent writes its command hooks in a JSON file,
// and what init writes there for airlock-hook. The facts per agent are in
// docs/agents.md (events, timeouts and their defaults).
type hookDialect struct {
	// agent is airlock-hook's --agent NAME; "" for Claude Code, whose
	// wiring from before the flag existed has none.
	agent  string
	events []hookEv
	// grouped: each event lists matcher groups {"matcher", "hooks": [...]}
	// (Claude Code, Codex, Gemini CLI); otherwise handlers sit in the
	// event's list directly (Cursor, Windsurf, Copilot).
	grouped bool
	// timeoutKey names the handler's timeout ("" when the agent has none);
	// ms: it is in milliseconds (Gemini CLI).
	timeoutKey string
	ms         bool
	// timeout is what init writes, in seconds (0: HookTimeout). An agent
	// that cannot ask gets room for Airlock's ask channel: hook.TimeoutOf
	// says how much, and a test of hook's holds the two together.
	timeout int
	// typed: a handler carries "type": "command".
	typed bool
	// copilot: the command is in "bash" and "powershell", not "command".
	copilot bool
	// failClosed: a pre-tool handler carries "failClosed": true (Cursor:
	// a hook that crashes or times out then blocks the call).
	failClosed bool
	// quiet: a handler carries "show_output": false (Windsurf).
	quiet bool
	// version: a file init creates starts with "version": 1.
	version bool
}

var (
	claudeDialect = &hookDialect{events: []hookEv{{"PreToolUse", false}, {"PostToolUse", true}, {"PostToolUseFailure", true}},
		grouped: true, timeoutKey: "timeout", typed: true}
	codexDialect = &hookDialect{agent: "codex", events: []hookEv{{"PreToolUse", false}, {"PostToolUse", true}},
		grouped: true, timeoutKey: "timeout", typed: true, timeout: AskHookTimeout}
	geminiDialect = &hookDialect{agent: "gemini", events: []hookEv{{"BeforeTool", false}, {"AfterTool", true}},
		grouped: true, timeoutKey: "timeout", ms: true, typed: true, timeout: AskHookTimeout}
	cursorDialect = &hookDialect{agent: "cursor", events: []hookEv{{"preToolUse", false}, {"postToolUse", true}},
		timeoutKey: "timeout", failClosed: true, version: true, timeout: AskHookTimeout}
	windsurfDialect = &hookDialect{agent: "windsurf", events: []hookEv{
		{"pre_read_code", false}, {"pre_write_code", false}, {"pre_run_command", false}, {"pre_mcp_tool_use", false},
		{"post_read_code", true}, {"post_write_code", true}, {"post_run_command", true}, {"post_mcp_tool_use", true}},
		quiet: true}
	copilotDialect = &hookDialect{agent: "copilot", events: []hookEv{{"preToolUse", false}, {"postToolUse", true}},
		timeoutKey: "timeoutSec", typed: true, copilot: true, version: true}
	clineDialect = &hookDialect{agent: "cline", events: []hookEv{{"PreToolUse", false}, {"PostToolUse", true}}}
)

// dialectOf is the hook dialect of a store's file; nil when the file
// holds no hooks Airlock reads.
func dialectOf(st Store) *hookDialect {
	id := st.ID
	switch {
	case st.Kind == KindSettings:
		return claudeDialect
	case strings.HasPrefix(id, "codex.") && st.Kind == kindHooks:
		return codexDialect
	case strings.HasPrefix(id, "gemini."):
		return geminiDialect
	case strings.HasPrefix(id, "cursor.") && st.Kind == kindHooks:
		return cursorDialect
	case strings.HasPrefix(id, "windsurf.") && st.Kind == kindHooks:
		return windsurfDialect
	case strings.HasPrefix(id, "copilot.") && st.Kind == kindHooks:
		return copilotDialect
	case strings.HasPrefix(id, "cline.") && st.Kind == kindHooks:
		return clineDialect
	}
	return nil
}

// has says airlock-hook is wired under event in this dialect.
func (d *hookDialect) has(event string) bool {
	for _, e := range d.events {
		if e.name == event {
			return true
		}
	}
	return false
}

// isPost says event fires after the tool ran.
func (d *hookDialect) isPost(event string) bool {
	for _, e := range d.events {
		if e.name == event {
			return e.post
		}
	}
	return false
}

// args is what follows the program on the command line init writes for
// an event: --agent NAME, then --post after the tool ran.
func (d *hookDialect) args(post bool) string {
	s := ""
	if d.agent != "" {
		s = " --agent " + d.agent
	}
	if post {
		s += " --post"
	}
	return s
}

// command is the command line init writes for airlock-hook at path.
func (d *hookDialect) command(path string, post bool) string {
	return shellQuote(path) + d.args(post)
}

// powershellCommand is the same command for PowerShell (Copilot's
// "powershell" field, which Copilot runs on Windows).
func (d *hookDialect) powershellCommand(path string, post bool) string {
	return "& '" + strings.ReplaceAll(path, "'", "''") + "'" + d.args(post)
}

// handler is the hook init writes for an event.
func (d *hookDialect) handler(path string, ev hookEv) orderedObj {
	var o orderedObj
	if d.typed {
		o = append(o, kv{"type", "command"})
	}
	if d.copilot {
		o = append(o, kv{"bash", d.command(path, ev.post)}, kv{"powershell", d.powershellCommand(path, ev.post)})
	} else {
		o = append(o, kv{"command", d.command(path, ev.post)})
	}
	if d.timeoutKey != "" {
		t := d.seconds()
		if d.ms {
			t *= 1000
		}
		o = append(o, kv{d.timeoutKey, t})
	}
	if d.failClosed && !ev.post {
		o = append(o, kv{"failClosed", true})
	}
	if d.quiet {
		o = append(o, kv{"show_output", false})
	}
	return o
}

// entry is what init adds to an event's list: a match-all group holding
// the handler, or the handler itself.
func (d *hookDialect) entry(path string, ev hookEv) any {
	h := d.handler(path, ev)
	if d.grouped {
		return orderedObj{{"matcher", "*"}, {"hooks", []any{h}}}
	}
	return h
}

// written is the Hook Parse reads back from what init wrote for r.
func (d *hookDialect) written(r hookRecord) Hook {
	h := Hook{Event: r.Event, Command: r.Command}
	if d.grouped {
		h.Matcher = "*"
	}
	if d.timeoutKey != "" {
		h.Timeout = d.seconds()
	}
	return h
}

// seconds is the timeout init writes for the dialect.
func (d *hookDialect) seconds() int {
	if d.timeout > 0 {
		return d.timeout
	}
	return HookTimeout
}

// deadline is when airlock-hook, run with this dialect's --agent,
// refuses a call it has not decided, in seconds (hook.TimeoutOf's
// Deadline: 5 s before what init writes); a timeout at or under it ends
// the hook first.
func (d *hookDialect) deadline() int { return d.seconds() - (HookTimeout - HookDeadline) }

// AskHookTimeout is the timeout, in seconds, init writes for an agent
// whose hooks cannot ask (Codex, Gemini CLI, Cursor): the ask goes to
// Airlock's channel, and a person needs the time to answer
// (hook.TimeoutOf).
const AskHookTimeout = 90

// HookTimeoutOf is the timeout, in seconds, init writes for airlock-hook
// --agent NAME ("" or claude for Claude Code); 0 for an agent whose hooks
// have no timeout field.
func HookTimeoutOf(agent string) int {
	for _, d := range []*hookDialect{claudeDialect, codexDialect, geminiDialect, cursorDialect, windsurfDialect, copilotDialect, clineDialect} {
		if d.agent == agent || (agent == "claude" && d.agent == "") {
			if d.timeoutKey == "" {
				return 0
			}
			return d.seconds()
		}
	}
	return 0
}

// ev is the dialect's event named name.
func (d *hookDialect) ev(name string) hookEv {
	for _, e := range d.events {
		if e.name == name {
			return e
		}
	}
	return hookEv{name: name}
}
