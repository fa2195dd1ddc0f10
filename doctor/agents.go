package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentairlock/airlock/setup"
)

// hookedAgents are the agents whose own tools airlock init can put behind
// airlock-hook; any other agent's native tools pass no gate (only its MCP
// servers, behind airlock-mcp, do).
var hookedAgents = map[string]bool{
	"Claude Code": true, "Codex CLI": true, "Gemini CLI": true, "Cursor": true,
	"Windsurf": true, "Copilot CLI": true, "Cline": true,
}

// agentRow is one line of the coverage table.
type agentRow struct {
	agent, native, mcp, why string
	gated, failing          bool
	unconfirmed             bool // Codex could not be asked
}

// coverageTable is the doctor's table of every agent found: whether its
// own tools pass the gate (and, for Codex, whether Codex itself says it
// will run the hook), its MCP servers gated and not, its remote servers,
// and why. An installed agent whose own tools are not gated fails it.
func coverageTable(o Options, st *setup.StatusReport) Check {
	var rows []agentRow
	seen := map[string]bool{}
	byAgent := func(agent string) *agentRow {
		for i := range rows {
			if rows[i].agent == agent {
				return &rows[i]
			}
		}
		rows = append(rows, agentRow{agent: agent})
		return &rows[len(rows)-1]
	}
	// Claude Code: its hook check says the detail
	h := st.Hook
	if h.Command != "" || h.Pre || len(h.Issues) > 0 || dirExists(h.Settings) {
		r := byAgent("Claude Code")
		seen["Claude Code"] = true
		switch {
		case h.Pre && h.Executable && !h.Disabled && h.Error == "":
			r.gated, r.native = true, "gated"
		default:
			r.native, r.failing, r.why = "NOT gated", true, "see the Claude Code hook check"
		}
	}
	for _, a := range st.Agents {
		if !a.Installed {
			continue
		}
		seen[a.Agent] = true
		r := byAgent(a.Agent)
		r.gated = a.Gated()
		switch {
		case a.Error != "":
			r.native, r.why = "NOT gated", a.Error
		case len(a.Pre) == 0 && len(a.Issues) > 0:
			r.native, r.why = "NOT gated", a.Issues[0]
		case len(a.Pre) == 0:
			r.native, r.why = "NOT gated", "no hook runs airlock-hook ("+a.File+"): airlock init wires it"
		case len(a.MissingPre) > 0:
			r.native, r.why = "NOT gated", strings.Join(a.MissingPre, ", ")+" does not run airlock-hook ("+a.File+"): airlock init wires it"
		case !a.Executable:
			r.native, r.why = "NOT gated", a.Command+" is not a program that can run"
		case !r.gated:
			r.native, r.why = "NOT gated", "Codex has not recorded its trust of the hook and skips it: "+codexStep
		default:
			r.native = "gated"
			if len(a.MissingPost) > 0 {
				r.why = strings.Join(a.MissingPost, ", ") + " does not run airlock-hook: outcomes are not recorded"
			}
		}
		if a.Agent == "Codex CLI" && r.gated {
			askCodex(o, a, r)
		}
		r.failing = !r.gated
	}
	// MCP servers, per agent, from the stores
	for _, s := range st.Stores {
		a := s.Store.Agent
		if a == "generic" {
			continue
		}
		if len(s.Wrapped)+len(s.Stragglers)+len(s.Remote)+len(s.HookGated)+len(s.Misrouted) == 0 && seen[a] {
			continue
		}
		r := byAgent(a)
		if !seen[a] {
			seen[a] = true
			switch dir := hookHome(st, a); {
			case dir != "":
				// its MCP servers are here, its hooks' place is not:
				// init wires an agent only where it finds it
				r.native, r.why = "NOT gated", dir+" does not exist, so airlock init does not wire its hooks (it does once the agent made it)"
			case a == "Claude Code":
				// a project's servers, and no Claude Code for this user
				r.native, r.why = "NOT gated", filepath.Dir(st.Hook.Settings)+" does not exist: Claude Code is not set up for this user"
			case hookedAgents[a]:
				r.native, r.why = "NOT gated", "its hooks are not wired: airlock init wires them"
				r.failing = true
			default:
				r.native, r.why = "not hooked", "it runs no hook Airlock can wire: only its MCP servers pass the gate (airlock run -- AGENT confines it in the kernel sandbox)"
			}
		}
		r.mcp = addCounts(r.mcp, len(s.Wrapped)+len(s.HookGated), len(s.Stragglers)+len(s.Misrouted), len(s.Remote))
		if len(s.Remote) > 0 && !strings.Contains(r.why, "remote") {
			r.why = joinWhy(r.why, "remote servers not behind airlock-mcp --url (airlock init says why)")
		}
	}
	// The managed channels (init --system): a row each where airlock-hook
	// is wired, told apart from the user's; an agent gated there is gated
	// whatever the user's own files say.
	managed := false
	for _, m := range setup.SystemWiring(o.SystemRoot, o.GOOS) {
		managed = managed || m.Problem != "" || m.Wired
		switch {
		case m.Problem != "":
			rows = append(rows, agentRow{agent: m.Agent + " (managed)", native: "unknown", mcp: "-", why: m.Problem})
		case m.Wired:
			for i := range rows {
				if rows[i].agent == m.Agent && !rows[i].gated {
					rows[i].failing = false
					rows[i].why = joinWhy("the user's files do not run airlock-hook, the managed wiring does", rows[i].why)
				}
			}
			rows = append(rows, agentRow{agent: m.Agent + " (managed)", native: "gated (managed)", mcp: "-", gated: true,
				why: m.Path + ": root's, the user cannot remove it (airlock uninstall --system does)"})
		}
	}
	c := Check{Name: "agent coverage", table: true}
	if len(rows) == 0 {
		c.Status, c.Detail = info, "no agent found for this user"
		return c
	}
	gated, failing, unconfirmed := 0, 0, 0
	wa, wn, wm := len("AGENT"), len("OWN TOOLS"), len("MCP SERVERS")
	for i := range rows {
		if rows[i].mcp == "" {
			rows[i].mcp = "none"
		}
		wa, wn, wm = max(wa, len(rows[i].agent)), max(wn, len(rows[i].native)), max(wm, len(rows[i].mcp))
		if rows[i].gated {
			gated++
		}
		if rows[i].failing {
			failing++
		}
		if rows[i].unconfirmed {
			unconfirmed++
		}
	}
	line := func(a, n, m, w string) string {
		return strings.TrimRight(fmt.Sprintf("%-*s  %-*s  %-*s  %s", wa, a, wn, n, wm, m, w), " ")
	}
	c.Items = append(c.Items, line("AGENT", "OWN TOOLS", "MCP SERVERS", "WHY"))
	for _, r := range rows {
		c.Items = append(c.Items, line(r.agent, r.native, r.mcp, r.why))
	}
	if managed {
		c.Items = append(c.Items, managedMCPNote(o))
	}
	c.Detail = fmt.Sprintf("%d of %d agents found have their own tools behind airlock-hook", gated, len(rows))
	switch {
	case failing > 0:
		c.Status = fail
		c.Fix = "airlock doctor --fix (or airlock init) wires the hooks of every agent it finds; airlock uninstall takes them out again"
	case gated < len(rows) || unconfirmed > 0:
		c.Status = warn
	default:
		c.Status = OK
	}
	return c
}

// askCodex asks Codex itself whether it will run the hooks (its
// app-server's hook listing), and marks the row not gated when it will
// not: Codex skips an untrusted hook without a word.
func askCodex(o Options, a setup.AgentStatus, r *agentRow) {
	if o.CodexPath == "" {
		r.why = joinWhy(r.why, "trust recorded in config.toml; codex was not found on PATH to confirm it")
		r.unconfirmed = true
		return
	}
	cwd := o.Workspace
	if cwd == "" {
		cwd = o.Env.Home
	}
	hooks, err := codexHooks(o.CodexPath, cwd, nil)
	if err != nil {
		r.gated, r.native, r.why = false, "NOT confirmed", "could not ask Codex: "+err.Error()
		return
	}
	byKey := map[string]codexHook{}
	for _, h := range hooks {
		byKey[h.Key] = h
	}
	for _, t := range a.Trust {
		h, ok := byKey[t.Key]
		switch {
		case !ok:
			r.gated, r.native, r.why = false, "NOT gated", "Codex does not list the hook "+t.Key
			return
		case !h.Enabled:
			r.gated, r.native, r.why = false, "NOT gated", "Codex lists "+t.Key+" as disabled"
			return
		case h.TrustStatus != "trusted" && h.TrustStatus != "managed":
			r.gated, r.native, r.why = false, "NOT gated", fmt.Sprintf("Codex lists %s as %s: it skips it; %s", t.Key, h.TrustStatus, codexStep)
			return
		}
	}
	r.native = "gated (Codex: trusted)"
}

// codexStep is the one step that makes Codex run the hook.
const codexStep = "airlock init records the trust, or open Codex, type /hooks and trust airlock-hook"

func addCounts(prev string, gated, ungated, remote int) string {
	var g, u, rm int
	if prev != "" {
		fmt.Sscanf(prev, "%d gated, %d not, %d remote", &g, &u, &rm)
	}
	return fmt.Sprintf("%d gated, %d not, %d remote", g+gated, u+ungated, rm+remote)
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// dirExists says the directory holding file exists.
func dirExists(file string) bool {
	fi, err := os.Stat(filepath.Dir(file))
	return file != "" && err == nil && fi.IsDir()
}

// hookHome is where an agent found by its MCP config alone keeps its
// hooks, when that place does not exist ("" otherwise).
func hookHome(st *setup.StatusReport, agent string) string {
	for _, a := range st.Agents {
		if a.Agent == agent && !a.Installed {
			return a.Dir
		}
	}
	return ""
}

// managedMCPNote is the line under the coverage table when it lists
// managed wiring: init --system does not rewrite Claude Code's managed MCP
// servers file, so what it lists is not covered by the managed wiring.
func managedMCPNote(o Options) string {
	p := setup.ManagedMCPFile(o.SystemRoot, o.GOOS)
	if p == "" {
		return "not covered: managed MCP servers (init --system wires hooks only)"
	}
	state := "absent now"
	if _, err := os.Lstat(p); err == nil {
		state = "present: its servers reach Claude Code without airlock-mcp unless their commands run it"
	}
	return fmt.Sprintf("not covered: Claude Code's managed MCP servers file %s (%s): Airlock does not rewrite it", p, state)
}
