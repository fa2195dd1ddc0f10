package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentairlock/airlock/setup"
)

// setupOptions are the options setup reads the agents' stores with.
func setupOptions(o Options) setup.Options {
	return setup.Options{
		Home: o.Env.Home, Workspace: o.Workspace, GOOS: o.GOOS, Env: o.Getenv,
		AirlockHome: o.Env.AirlockHome, HookPath: o.HookPath, MCPPath: o.MCPPath,
		ExtraConfigs: o.ExtraConfigs,
	}
}

// checkSetup: the Claude Code hook, every stdio MCP server behind
// airlock-mcp, and what cannot be covered.
func checkSetup(o Options) []Check {
	st, err := setup.Status(setupOptions(o))
	if err != nil && st == nil {
		return []Check{{Name: "agents", Status: Fail, Detail: err.Error()}}
	}
	var out []Check
	out = append(out, hookCheck(o, st.Hook))
	out = append(out, serversCheck(st))
	out = append(out, coverageCheck(st))
	if err != nil {
		out = append(out, Check{Name: "init manifest", Status: Warn, Detail: err.Error(),
			Fix: "airlock uninstall needs it to restore your files; do not edit $AIRLOCK_HOME/setup by hand"})
	}
	return out
}

func hookCheck(o Options, h setup.HookStatus) Check {
	c := Check{Name: "Claude Code hook"}
	switch {
	case h.Error != "":
		c.Status, c.Detail = Fail, h.Error
		c.Fix = "fix " + h.Settings + " (it must be JSON), then airlock doctor --fix"
	case h.Disabled:
		c.Status, c.Detail = Fail, h.Settings+" sets disableAllHooks: Claude Code runs no hook, airlock-hook included"
		c.Fix = "remove disableAllHooks from " + h.Settings
	case h.Pre && h.Post && h.Executable:
		c.Status, c.Detail = OK, fmt.Sprintf("PreToolUse and PostToolUse run %s (%s)", h.Command, h.Settings)
	case h.Pre || h.Post:
		c.Status = Fail
		c.Detail = fmt.Sprintf("wired in %s but not whole: PreToolUse %v, PostToolUse %v, runnable %v (%s)", h.Settings, h.Pre, h.Post, h.Executable, h.Command)
		c.Fix = "airlock doctor --fix (or airlock init) wires both to an existing airlock-hook"
	default:
		if _, err := os.Stat(filepath.Dir(h.Settings)); err != nil {
			c.Status, c.Detail = Info, "Claude Code is not set up for this user ("+filepath.Dir(h.Settings)+" does not exist)"
			c.Fix = "after installing Claude Code: airlock init"
			return c
		}
		c.Status, c.Detail = Fail, "not wired: Claude Code's tool calls do not pass the gate ("+h.Settings+")"
		c.Fix = "airlock doctor --fix (or airlock init)"
	}
	return c
}

func serversCheck(st *setup.StatusReport) Check {
	c := Check{Name: "MCP servers"}
	wrapped, hook := 0, 0
	for _, s := range st.Stores {
		wrapped += len(s.Wrapped)
		hook += len(s.HookGated)
		if s.Error != "" {
			c.Items = append(c.Items, fmt.Sprintf("%s (%s): unreadable: %s", s.Store.Path, s.Store.Agent, s.Error))
		}
		for _, n := range s.Stragglers {
			c.Items = append(c.Items, fmt.Sprintf("%s (%s): %q is not behind airlock-mcp", s.Store.Path, s.Store.Agent, n))
		}
	}
	c.Detail = fmt.Sprintf("%d behind airlock-mcp, %d Claude Code servers gated by the hook, %d not gated", wrapped, hook, len(c.Items))
	if len(c.Items) > 0 {
		c.Status = Fail
		c.Fix = "airlock doctor --fix (or airlock init) wraps them"
	} else {
		c.Status = OK
	}
	return c
}

// nativeTools are agents whose own tools (shell, file edits) Airlock does
// not see: only their MCP servers pass the gate.
func coverageCheck(st *setup.StatusReport) Check {
	c := Check{Name: "coverage gaps", Status: OK, Detail: "none found"}
	agents := map[string]bool{}
	for _, s := range st.Stores {
		if s.Store.Agent != "Claude Code" && s.Store.Agent != "generic" {
			agents[s.Store.Agent] = true
		}
		for _, n := range s.Remote {
			c.Items = append(c.Items, fmt.Sprintf("remote server %q in %s (%s): a stdio proxy cannot gate it", n, s.Store.Path, s.Store.Agent))
		}
		for _, n := range s.HookGated {
			c.Items = append(c.Items, fmt.Sprintf("Claude Code server %q: calls gated by airlock-hook; its tool descriptions are pinned only behind airlock-mcp", n))
		}
	}
	var names []string
	for a := range agents {
		names = append(names, a)
	}
	sort.Strings(names)
	if len(names) > 0 {
		c.Items = append(c.Items, fmt.Sprintf("native tools not hooked (only their MCP servers pass the gate): %s", strings.Join(names, ", ")))
	}
	if len(c.Items) > 0 {
		c.Status, c.Detail = Warn, fmt.Sprintf("%d thing(s) Airlock cannot enforce", len(c.Items))
	}
	return c
}
