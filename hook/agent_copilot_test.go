package hook

import "testing"

// Copilot's SERVER-TOOL names become mcp__SERVER__TOOL for the servers its
// config names, the longest name first; anything else is kept.
func TestCopilotMCPName(t *testing.T) {
	old := copilotServers
	copilotServers = func() []string { return []string{"fs", "my-fs", "github"} }
	t.Cleanup(func() { copilotServers = old })
	for in, want := range map[string]string{
		"fs-read_file":        "mcp__fs__read_file",
		"my-fs-read":          "mcp__my-fs__read",
		"github-create_issue": "mcp__github__create_issue",
		"fs-":                 "fs-",
		"other-tool":          "other-tool",
		"bash":                "bash",
		"mcp__fs__read_file":  "mcp__fs__read_file",
	} {
		if got := copilotMCPName(in); got != want {
			t.Errorf("copilotMCPName(%q) = %q, want %q", in, got, want)
		}
	}
}
