package setup

import (
	"reflect"
	"testing"
)

func TestWrappedCommand(t *testing.T) {
	tests := []struct {
		command string
		args    []string
		name    string
		inner   []string
		ok      bool
	}{
		{"airlock-mcp", []string{"--name", "github", "--", "npx", "-y", "server-github"}, "github", []string{"npx", "-y", "server-github"}, true},
		{"/usr/local/bin/airlock-mcp", []string{"--name=fs", "--", "node", "index.js"}, "fs", []string{"node", "index.js"}, true},
		{"airlock-mcp", []string{"-name", "x", "--", "srv"}, "x", []string{"srv"}, true},
		{"airlock-mcp", []string{"--sandbox", "--name", "x", "--", "srv", "--name", "inner"}, "x", []string{"srv", "--name", "inner"}, true},
		{"airlock-mcp", []string{"--name", "x", "--sandbox", "--", "srv"}, "x", []string{"srv"}, true},
		{`C:\Program Files\Airlock\airlock-mcp.exe`, []string{"--name", "w", "--", "cmd.exe", "/c", "srv"}, "w", []string{"cmd.exe", "/c", "srv"}, true},
		{`C:\tools\AIRLOCK-MCP.EXE`, []string{"--name", "w", "--", "srv"}, "w", []string{"srv"}, true},
		{"./bin/airlock-mcp", []string{"--name", "--", "--", "srv"}, "--", []string{"srv"}, true}, // --name takes the next word, as airlock-mcp does
		// Wrapped, but badly: still reported as wrapped, parts missing.
		{"airlock-mcp", []string{"--name", "x"}, "x", nil, true},
		{"airlock-mcp", []string{"--", "srv"}, "", []string{"srv"}, true},
		{"airlock-mcp", nil, "", nil, true},
		{"airlock-mcp", []string{"--name", "x", "--"}, "x", nil, true},
		// Not wrapped.
		{"npx", []string{"airlock-mcp", "--name", "x", "--", "srv"}, "", nil, false},
		{"airlock", []string{"mcp", "--name", "x", "--", "srv"}, "", nil, false},
		{"airlock-mcp-fake", []string{"--name", "x", "--", "srv"}, "", nil, false},
		{"/opt/airlock-mcp/server", []string{"--name", "x", "--", "srv"}, "", nil, false},
		{"", nil, "", nil, false},
	}
	for _, tc := range tests {
		name, inner, ok := WrappedCommand(tc.command, tc.args)
		if name != tc.name || !reflect.DeepEqual(inner, tc.inner) || ok != tc.ok {
			t.Errorf("WrappedCommand(%q, %q) = %q, %q, %v; want %q, %q, %v", tc.command, tc.args, name, inner, ok, tc.name, tc.inner, tc.ok)
		}
	}
}

// TestWrappedCommandDoesNotAlias: Inner is a copy; changing it must not
// change the Server's Args.
func TestWrappedCommandDoesNotAlias(t *testing.T) {
	args := []string{"--name", "x", "--", "srv", "a"}
	_, inner, _ := WrappedCommand("airlock-mcp", args)
	inner[0] = "changed"
	if args[3] != "srv" {
		t.Fatal("Inner shares memory with args")
	}
}
