package main

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/agentairlock/airlock/setup"
)

// TestInitSystemNeedsRoot: init --system and uninstall --system refuse a
// user who is not root, saying why and what to run, before they read or
// write anything (the wiring itself is setup's TestInitSystem, under a
// fake root: no test writes the real /etc).
func TestInitSystemNeedsRoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("init --system is refused on Windows before the user is looked at")
	}
	defer func(f func() int) { geteuid = f }(geteuid)
	geteuid = func() int { return 1000 }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"airlock", "init", "--system"}, "airlock init --system: run it as root (sudo airlock init --system)"},
		{[]string{"airlock", "uninstall", "--system", "-y"}, "airlock uninstall --system: run it as root (sudo airlock uninstall --system)"},
		{[]string{"airlock", "init", "--system", "--profile", "paranoid"}, "--profile and --mcp-config are for a user's init"},
	} {
		app := newApp()
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.Run(tc.args)
		var ee *exitError
		if !errors.As(err, &ee) || !strings.Contains(ee.msg, tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v printed a report before refusing:\n%s", tc.args, out.String())
		}
	}
}

// TestInitSystemOnWindows: init --system wires nothing on Windows, names
// each agent's managed channel there (or none) and the MDM, and exits 64
// before it looks at the user or a file.
func TestInitSystemOnWindows(t *testing.T) {
	defer func(g string, f func() int) { initGOOS, geteuid = g, f }(initGOOS, geteuid)
	initGOOS = "windows"
	geteuid = func() int { t.Fatal("init --system on Windows asked for the user id"); return 0 }
	app := newApp()
	var out, errOut bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errOut
	err := app.Run([]string{"airlock", "init", "--system"})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 64 || !strings.Contains(ee.msg, "wires nothing on Windows") || !strings.Contains(ee.msg, "MDM") {
		t.Fatalf("err = %#v, want exit 64 naming the MDM", err)
	}
	for _, want := range []string{
		`Claude Code: C:\Program Files\ClaudeCode\managed-settings.json: not written by Airlock: deploy it with your MDM`,
		`Cursor: C:\ProgramData\Cursor\hooks.json: not written by Airlock`,
		`Windsurf: C:\ProgramData\Windsurf\hooks.json: not written by Airlock`,
		"Codex: none: ",
		"Copilot CLI: none: ",
		"docs/fleet.md",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("output does not say %q:\n%s", want, errOut.String())
		}
	}
	if out.Len() != 0 {
		t.Errorf("printed a report on stdout:\n%s", out.String())
	}
}

// TestInitSystemNamesManagedMCPAsNotCovered: on Linux and macOS the line
// init --system prints after its report names Claude Code's managed MCP
// servers file as not covered.
func TestInitSystemNamesManagedMCPAsNotCovered(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":  "/etc/claude-code/managed-mcp.json",
		"darwin": "/Library/Application Support/ClaudeCode/managed-mcp.json",
	} {
		line := notCoveredManagedMCP(setupManagedMCP(goos))
		if !strings.HasPrefix(line, "not covered: Claude Code's managed MCP servers file "+want+": Airlock does not rewrite it") {
			t.Errorf("%s: %q", goos, line)
		}
	}
	if p := setupManagedMCP("windows"); p != "" {
		t.Errorf("windows: %q, want none (init --system wires nothing there)", p)
	}
}

func setupManagedMCP(goos string) string { return setup.ManagedMCPFile("", goos) }
