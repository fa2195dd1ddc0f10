package hook

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentairlock/airlock/policy"
	"github.com/tidwall/gjson"
)

// Agent names an agent whose hook protocol airlock-hook speaks. It is
// chosen by `airlock-hook --agent NAME`, written by `airlock init`; a hook
// wired without the flag (before there were adapters) is Claude Code's.
type Agent string

// The agents, as --agent spells them.
const (
	Claude   Agent = "claude"
	Codex    Agent = "codex"
	Gemini   Agent = "gemini"
	Cursor   Agent = "cursor"
	Windsurf Agent = "windsurf"
	Cline    Agent = "cline"
	Copilot  Agent = "copilot"
)

// Agents lists every agent with an adapter, in the order docs show them.
var Agents = []Agent{Claude, Codex, Gemini, Cursor, Windsurf, Cline, Copilot}

// AgentFlag is the flag that names the agent on the hook's command line.
const AgentFlag = "--agent"

// ParseAgent reads an --agent value; "" is Claude Code.
func ParseAgent(s string) (Agent, error) {
	if s == "" {
		return Claude, nil
	}
	for _, a := range Agents {
		if string(a) == strings.ToLower(s) {
			return a, nil
		}
	}
	names := make([]string, len(Agents))
	for i, a := range Agents {
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown agent %q (one of %s)", s, strings.Join(names, ", "))
}

// HookTimeout is what `airlock init` writes as an agent's hook timeout,
// and what the agent does when a hook outlives it.
type HookTimeout struct {
	// Timeout is the value to write (in the agent's unit: Unit), 0 when
	// the agent's config has no timeout field (its own, Default,
	// applies).
	Timeout time.Duration
	// Unit is how the agent's config counts it: "s" (seconds) or "ms".
	Unit string
	// Field is the config key ("timeout", "timeoutSec").
	Field string
	// Default is what the agent applies when no timeout is written (0:
	// not documented).
	Default time.Duration
	// FailsOpen: a hook killed at the timeout lets the call through (the
	// deadline below must answer first).
	FailsOpen bool
}

// Deadline is when airlock-hook refuses a call it has not decided: 5 s
// before the timeout written, else the agent's default, else 5 s before
// Claude Code's 30 s when the agent documents none.
func (h HookTimeout) Deadline() time.Duration {
	t := h.Timeout
	if t == 0 {
		t = h.Default
	}
	if t == 0 {
		t = AgentTimeout
	}
	return t - deadlineMargin
}

// deadlineMargin leaves a loaded machine room to write the answer and the
// agent room to read it.
const deadlineMargin = 5 * time.Second

// askTimeout is how long an agent that cannot ask gives a person on
// Airlock's ask channel: the channel's own default (60 s), inside a hook
// timeout of 90 s (deadline 85 s, the answer recorded and written by then).
const askTimeout = 90 * time.Second

// TimeoutOf is an agent's hook timeout for `airlock init` (docs/hooks.md
// has the table with each agent's default and limit); Claude Code's for
// an agent it does not know.
func TimeoutOf(a Agent) HookTimeout {
	switch a {
	case Codex:
		// seconds, default 600; the ask goes to Airlock's channel
		return HookTimeout{Timeout: askTimeout, Unit: "s", Field: "timeout", Default: 600 * time.Second, FailsOpen: true}
	case Gemini:
		// milliseconds, default 60000
		return HookTimeout{Timeout: askTimeout, Unit: "ms", Field: "timeout", Default: 60 * time.Second, FailsOpen: true}
	case Cursor:
		// seconds; with failClosed (init writes it) a killed hook refuses
		return HookTimeout{Timeout: askTimeout, Unit: "s", Field: "timeout"}
	case Windsurf:
		// no timeout field and no documented limit: the hook keeps
		// Claude Code's deadline
		return HookTimeout{FailsOpen: true}
	case Cline:
		// no timeout field; Cline gives a hook 30 s
		return HookTimeout{Default: 30 * time.Second, FailsOpen: true}
	case Copilot:
		// timeoutSec, default 30; a timed-out hook lets the call through;
		// the CLI asks itself
		return HookTimeout{Timeout: AgentTimeout, Unit: "s", Field: "timeoutSec", Default: 30 * time.Second, FailsOpen: true}
	}
	// Claude Code asks itself; its default is 600 s, and a stuck hook
	// lets the call through
	return HookTimeout{Timeout: AgentTimeout, Unit: "s", Field: "timeout", Default: 600 * time.Second, FailsOpen: true}
}

// Call is one canonical call of an event: a tool name and argument shape
// the policy knows (Bash, Read, Write, Edit, MultiEdit, Grep, Glob,
// WebFetch, WebSearch, Task, mcp__server__tool), or the agent's own name
// and arguments for a tool no adapter maps (the policy reads its
// arguments conservatively).
type Call struct {
	Tool  string
	Input []byte // a JSON object
}

// verdict is what the agent is told about an event.
type verdict struct {
	Action policy.Action // Allow, Ask (only to an agent that asks) or Block
	Tool   string        // the tool the reason is about (the agent's name)
	Reason string        // escaped and masked
}

// adapter is one agent's hook protocol.
type adapter struct {
	// parse reads one event (a JSON object) into canonical calls.
	parse func(root gjson.Result) (*Event, error)
	// post says whether the event is an outcome (never blocks).
	post func(root gjson.Result) bool
	// asks says whether the agent puts an ask to a person itself for
	// this event; when it does not, the ask goes to Airlock's channel.
	asks func(ev *Event) bool
	// answer writes the verdict in the agent's format and returns the
	// exit code.
	answer func(w answerTo, ev *Event, v verdict) int
	// answerPost writes what a post event (or a failure that passes)
	// answers, when the agent expects something; nil: nothing.
	answerPost func(w answerTo)
}

// answerTo is where an answer goes.
type answerTo struct{ Stdout, Stderr io.Writer }

// adapterFor is an agent's adapter (Claude Code's for ""). A switch, not
// a map: a map is built at package initialisation, which every hook
// process pays.
func adapterFor(a Agent) *adapter {
	switch a {
	case Codex:
		return codexAdapter
	case Gemini:
		return geminiAdapter
	case Cursor:
		return cursorAdapter
	case Windsurf:
		return windsurfAdapter
	case Cline:
		return clineAdapter
	case Copilot:
		return copilotAdapter
	}
	return claudeAdapter
}

func never(*Event) bool { return false }

// errNoTool is an event none of an agent's shapes explains.
var errNoTool = errors.New("the event names no tool this agent's hook sends")
