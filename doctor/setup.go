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
// airlock-mcp, and what cannot be covered; unwired reports that no
// agent's tool calls pass the gate at all. Then the first check
// ("agents") fails saying so: a machine where nothing is wired enforces
// nothing, however clean the other checks look.
func checkSetup(o Options) (checks []Check, unwired bool) {
	st, err := setup.Status(setupOptions(o))
	if err != nil && st == nil {
		return []Check{{Name: "agents", Status: fail, Detail: err.Error()}}, false
	}
	var out []Check
	if unwired = !isWired(st) && !systemWired(o); unwired {
		out = append(out, Check{Name: "agents", Status: fail,
			Detail: "nothing is wired: no agent's tool calls pass the gate (no agent's hook in force, no MCP server behind airlock-mcp)",
			Fix:    "airlock init wires the agents it finds (install your agent first); airlock run -- AGENT confines any agent in the kernel sandbox"})
	}
	out = append(out, hookCheck(o, st.Hook))
	out = append(out, serversCheck(o, st))
	out = append(out, coverageTable(o, st))
	out = append(out, coverageCheck(st))
	if c, ok := remoteCheck(o, st); ok {
		out = append(out, c)
	}
	if err != nil {
		out = append(out, Check{Name: "init manifest", Status: warn, Detail: err.Error(),
			Fix: "airlock uninstall needs it to restore your files; do not edit $AIRLOCK_HOME/setup by hand"})
	}
	return out, unwired
}

// isWired: Claude Code's hook runs a runnable airlock-hook on PreToolUse
// and nothing silences it, or some MCP server runs behind the installed
// airlock-mcp. (A hook-gated server counts through the hook.)
func isWired(st *setup.StatusReport) bool {
	h := st.Hook
	if h.Pre && h.Executable && !h.Disabled && h.Error == "" {
		return true
	}
	for _, a := range st.Agents {
		if a.Gated() {
			return true
		}
	}
	for _, s := range st.Stores {
		if len(s.Wrapped) > 0 {
			return true
		}
	}
	return false
}

func hookCheck(o Options, h setup.HookStatus) Check {
	c := Check{Name: "Claude Code hook"}
	c.Items = append(c.Items, h.Issues...)
	if o.HookPath == "" {
		c.Items = append(c.Items, "the installed airlock-hook was not found (next to airlock or on PATH): the hook's program could not be compared with it")
	}
	switch {
	case h.Error != "":
		c.Status, c.Detail = fail, h.Error
		c.Fix = "fix " + h.Settings + " (Claude Code reads it as strict JSON and skips it whole on a schema error), then airlock doctor --fix"
	case h.Disabled:
		by := h.DisabledBy
		if by == "" {
			by = h.Settings
		}
		c.Status, c.Detail = fail, by+" sets disableAllHooks: Claude Code runs no hook, airlock-hook included"
		c.Fix = "remove disableAllHooks from " + by
	case h.Pre && h.Post && h.Failure && h.Executable && o.HookPath != "":
		c.Status, c.Detail = OK, fmt.Sprintf("PreToolUse, PostToolUse and PostToolUseFailure run %s (%s)", h.Command, h.Settings)
	case h.Pre && h.Post && h.Executable && o.HookPath != "":
		// wired before init wired the failure event: every call is gated,
		// but Claude Code fires PostToolUseFailure, not PostToolUse, for a
		// tool that failed, and that run leaves no outcome record
		c.Status = warn
		c.Detail = fmt.Sprintf("PreToolUse and PostToolUse run %s (%s), but PostToolUseFailure does not run airlock-hook: a tool that fails leaves no outcome record", h.Command, h.Settings)
		c.Fix = "airlock doctor --fix (or airlock init) adds it; airlock uninstall removes it again"
	case h.Pre && h.Post && h.Executable:
		c.Status, c.Detail = fail, fmt.Sprintf("PreToolUse and PostToolUse run %s (%s), but no installed airlock-hook was found to check it is Airlock's", h.Command, h.Settings)
		c.Fix = "install Airlock with install.sh (airlock, airlock-hook and airlock-mcp side by side), then airlock doctor --fix"
	case h.Pre || h.Post || len(h.Issues) > 0:
		c.Status = fail
		c.Detail = fmt.Sprintf("wired in %s but not in force for every call: PreToolUse %v, PostToolUse %v, PostToolUseFailure %v, runnable %v (%s)", h.Settings, h.Pre, h.Post, h.Failure, h.Executable, h.Command)
		c.Fix = "airlock doctor --fix (or airlock init) adds a match-all, synchronous hook running the installed airlock-hook; remove the narrower ones listed"
	default:
		if _, err := os.Stat(filepath.Dir(h.Settings)); err != nil {
			c.Status, c.Detail = info, "Claude Code is not set up for this user ("+filepath.Dir(h.Settings)+" does not exist)"
			c.Fix = "after installing Claude Code: airlock init"
			return c
		}
		c.Status, c.Detail = fail, "not wired: Claude Code's tool calls do not pass the gate ("+h.Settings+")"
		c.Fix = "airlock doctor --fix (or airlock init)"
	}
	return c
}

func serversCheck(o Options, st *setup.StatusReport) Check {
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
		for _, m := range s.Misrouted {
			c.Items = append(c.Items, fmt.Sprintf("%s (%s): %s", s.Store.Path, s.Store.Agent, m))
		}
	}
	c.Detail = fmt.Sprintf("%d behind airlock-mcp, %d Claude Code servers gated by the hook, %d not gated", wrapped, hook, len(c.Items))
	if o.MCPPath == "" {
		c.Items = append(c.Items, "the installed airlock-mcp was not found (next to airlock or on PATH): wrapped servers' programs could not be compared with it")
	}
	if len(c.Items) > 0 {
		c.Status = fail
		c.Fix = "airlock doctor --fix (or airlock init) wraps stragglers and repoints wrappers to the installed airlock-mcp; a server gated under another name needs its --name set to its own"
	} else {
		c.Status = OK
	}
	return c
}

// coverageCheck lists what Airlock cannot enforce by its nature: remote
// servers, and agents whose own tools (shell, file edits) run no hook
// Airlock can wire, so that only their MCP servers pass the gate.
func coverageCheck(st *setup.StatusReport) Check {
	c := Check{Name: "coverage gaps", Status: OK, Detail: "none found"}
	agents := map[string]bool{}
	for _, s := range st.Stores {
		if !hookedAgents[s.Store.Agent] && s.Store.Agent != "generic" {
			agents[s.Store.Agent] = true
		}
		for _, n := range s.Remote {
			c.Items = append(c.Items, fmt.Sprintf("remote server %q in %s (%s): not behind airlock-mcp --url (airlock init says why), so its calls are not gated", n, s.Store.Path, s.Store.Agent))
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
		c.Items = append(c.Items, fmt.Sprintf("native tools not hooked (the agent runs no hook Airlock can wire; only its MCP servers pass the gate): %s", strings.Join(names, ", ")))
	}
	if len(c.Items) > 0 {
		c.Status, c.Detail = warn, fmt.Sprintf("%d thing(s) Airlock cannot enforce", len(c.Items))
	}
	return c
}

// systemWired says some agent's managed channel runs airlock-hook.
func systemWired(o Options) bool {
	for _, m := range setup.SystemWiring(o.SystemRoot, o.GOOS) {
		if m.Wired {
			return true
		}
	}
	return false
}
