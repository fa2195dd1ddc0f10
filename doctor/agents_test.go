package doctor

import (
	"path/filepath"
	"strings"
	"testing"
)

// row is the coverage table's line for agent ("" when there is none).
func row(c Check, agent string) string {
	for _, it := range c.Items {
		if strings.HasPrefix(it, agent+"  ") {
			return it
		}
	}
	return ""
}

// TestCoverageTableNamesEachAgent: every agent found has a row saying
// whether its own tools pass the gate and why; an agent init would wire
// and has not fails the check, while agents init cannot wire (no hook
// system, or their hook place not made yet) are named without failing.
func TestCoverageTableNamesEachAgent(t *testing.T) {
	e := newDocEnv(t)
	server := `{"mcpServers": {"s": {"command": "x"}}}`
	// Zed: no hooks at all; Cline: its MCP settings, but no ~/Documents/Cline
	writeFile(t, filepath.Join(e.home, ".config", "zed", "settings.json"), `{"context_servers": {"z": {"command": "z"}}}`, 0o644)
	writeFile(t, filepath.Join(e.home, ".cline", "data", "settings", "cline_mcp_settings.json"), server, 0o644)
	writeFile(t, filepath.Join(e.proj, ".mcp.json"), server, 0o644)
	c := check(t, e.run(t), "agent coverage")
	for agent, want := range map[string]string{
		"Zed":         "not hooked",
		"Cline":       "Documents/Cline does not exist, so airlock init does not wire its hooks",
		"Claude Code": ".claude does not exist: Claude Code is not set up for this user",
	} {
		if r := row(c, agent); !strings.Contains(r, want) {
			t.Errorf("%s: row %q, want it to say %q\n%s", agent, r, want, strings.Join(c.Items, "\n"))
		}
	}
	if c.Status != warn {
		t.Errorf("status %s, want warn: none of these agents can be wired by init\n%s", c.Status, strings.Join(c.Items, "\n"))
	}

	// Cursor installed, its hooks not wired: the check fails
	writeFile(t, filepath.Join(e.home, ".cursor", "mcp.json"), server, 0o644)
	c = check(t, e.run(t), "agent coverage")
	if r := row(c, "Cursor"); !strings.Contains(r, "NOT gated") || !strings.Contains(r, "airlock init wires it") || c.Status != fail {
		t.Errorf("an installed Cursor without the hook: %s row %q", c.Status, r)
	}
	// a narrowed matcher is not gated either
	writeFile(t, filepath.Join(e.home, ".cursor", "hooks.json"), `{"version": 1, "hooks": {"preToolUse": [{"command": "`+e.hookPath()+` --agent cursor", "timeout": 30, "matcher": "Shell"}]}}`, 0o644)
	c = check(t, e.run(t), "agent coverage")
	if r := row(c, "Cursor"); !strings.Contains(r, `matcher "Shell" only`) || c.Status != fail {
		t.Errorf("a Cursor hook for Shell only counts: %s row %q", c.Status, r)
	}
	// as init wires it: gated
	writeFile(t, filepath.Join(e.home, ".cursor", "hooks.json"), `{"version": 1, "hooks": {"preToolUse": [{"command": "`+e.hookPath()+` --agent cursor", "timeout": 90, "failClosed": true}], "postToolUse": [{"command": "`+e.hookPath()+` --agent cursor --post", "timeout": 90}]}}`, 0o644)
	c = check(t, e.run(t), "agent coverage")
	if r := row(c, "Cursor"); !strings.HasPrefix(r, "Cursor       gated") {
		t.Errorf("Cursor wired as init wires it: row %q\n%s", r, strings.Join(c.Items, "\n"))
	}
}

// TestCoverageTableManagedWiring: a managed channel that runs airlock-hook
// (init --system) has a row of its own, "(managed)", told apart from the
// user's; an agent whose user files are not wired is not failed when the
// managed wiring gates it.
func TestCoverageTableManagedWiring(t *testing.T) {
	e := newDocEnv(t)
	sys := filepath.Join(e.root, "sysroot")
	writeFile(t, filepath.Join(e.home, ".cursor", "mcp.json"), `{"mcpServers": {}}`, 0o644)
	c := check(t, e.run(t), "agent coverage")
	if r := row(c, "Cursor"); !strings.Contains(r, "NOT gated") || c.Status != fail {
		t.Fatalf("Cursor unwired and no managed wiring: %s row %q", c.Status, r)
	}
	if items := strings.Join(c.Items, "\n"); strings.Contains(items, "not covered: Claude Code's managed MCP") {
		t.Errorf("a machine with no managed wiring is told of managed-mcp.json:\n%s", items)
	}
	writeFile(t, filepath.Join(sys, "etc", "cursor", "hooks.json"), `{"version": 1, "hooks": {"preToolUse": [{"command": "`+e.hookPath()+` --agent cursor", "timeout": 30, "failClosed": true}]}}`, 0o644)
	writeFile(t, filepath.Join(sys, "etc", "claude-code", "managed-settings.json"), `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "`+e.hookPath()+`", "timeout": 30}]}]}}`, 0o644)
	c = check(t, e.run(t), "agent coverage")
	for agent, want := range map[string]string{
		"Cursor (managed)":      "gated (managed)",
		"Claude Code (managed)": "gated (managed)",
		"Cursor":                "the managed wiring does",
	} {
		if r := row(c, agent); !strings.Contains(r, want) {
			t.Errorf("%s: row %q, want %q\n%s", agent, r, want, strings.Join(c.Items, "\n"))
		}
	}
	if r := row(c, "Cursor (managed)"); !strings.Contains(r, filepath.Join(sys, "etc", "cursor", "hooks.json")) {
		t.Errorf("the managed row names its file: %q", r)
	}
	if c.Status == fail {
		t.Errorf("status fail with every agent gated by the managed wiring:\n%s", strings.Join(c.Items, "\n"))
	}
	// the managed MCP servers file is named as not covered, present or not
	mcp := filepath.Join(sys, "etc", "claude-code", "managed-mcp.json")
	if items := strings.Join(c.Items, "\n"); !strings.Contains(items, "not covered: Claude Code's managed MCP servers file "+mcp+" (absent now): Airlock does not rewrite it") {
		t.Errorf("no not-covered line for %s:\n%s", mcp, items)
	}
	writeFile(t, mcp, `{"mcpServers": {"fs": {"command": "npx"}}}`, 0o644)
	c = check(t, e.run(t), "agent coverage")
	if items := strings.Join(c.Items, "\n"); !strings.Contains(items, mcp+" (present: its servers reach Claude Code without airlock-mcp") {
		t.Errorf("a present managed-mcp.json not named as not covered:\n%s", items)
	}
}
