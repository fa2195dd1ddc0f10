package setup

import "testing"

func TestRecognize(t *testing.T) {
	tests := []struct {
		path   string
		id     string // "" = not an agent config
		format format
	}{
		// Claude Code
		{"/work/app/.mcp.json", "claude-code.project-mcp", formatJSON},
		{"/home/dev/.claude.json", "claude-code.user-mcp", formatJSON},
		{"/work/app/.claude/settings.json", "claude-code.project-settings", formatJSON},
		{"/work/app/.claude/settings.local.json", "claude-code.local-settings", formatJSON},
		{"/etc/claude-code/managed-settings.json", "claude-code.managed-settings", formatJSON},
		{"/etc/claude-code/managed-mcp.json", "claude-code.managed-mcp", formatJSON},
		{`C:\Users\dev\.claude\settings.json`, "claude-code.project-settings", formatJSON},
		{"/home/dev/Library/Application Support/Claude/claude_desktop_config.json", "claude-desktop.user", formatJSON},
		// editors and their extensions
		{"/work/app/.cursor/mcp.json", "cursor.project", formatJSONC},
		{`C:\Users\dev\.codeium\windsurf\mcp_config.json`, "windsurf.user", formatJSON},
		{"/home/dev/.codeium/windsurf-next/mcp_config.json", "windsurf.user", formatJSON},
		{"/home/dev/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "cline.code", formatJSON},
		{`C:\Users\dev\AppData\Roaming\Cursor\User\globalStorage\saoudrizwan.claude-dev\settings\cline_mcp_settings.json`, "cline.cursor", formatJSON},
		{"/home/dev/.cline/data/settings/cline_mcp_settings.json", "cline.cli", formatJSON},
		{"/home/dev/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "roo.vscodium", formatJSON},
		{"/work/app/.roo/mcp.json", "roo.project", formatJSON},
		{"/work/app/.vscode/mcp.json", "vscode.project", formatJSONC},
		{`C:\src\app\.vscode\mcp.json`, "vscode.project", formatJSONC},
		{"/work/app/.vscode/settings.json", "vscode.project-settings", formatJSONC},
		{"/home/dev/.config/Code/User/mcp.json", "vscode.user", formatJSONC},
		{"/home/dev/.config/Code/User/profiles/-4a8f2c1/mcp.json", "vscode.user", formatJSONC},
		{"/home/dev/.config/Code - Insiders/User/settings.json", "vscode-insiders.user-settings", formatJSONC},
		{"/home/dev/.copilot/mcp-config.json", "copilot.user", formatJSON},
		{"/work/app/.zed/settings.json", "zed.project", formatJSONC},
		{"/home/dev/.config/zed/settings.json", "zed.user", formatJSONC},
		{`C:\Users\dev\AppData\Roaming\Zed\settings.json`, "zed.user", formatJSONC},
		// CLIs
		{"/work/app/.codex/config.toml", "codex.project", formatTOML},
		{"/work/app/.gemini/settings.json", "gemini.project", formatJSON},
		{"/etc/gemini-cli/settings.json", "gemini.system", formatJSON},
		{"/home/dev/.kimi/mcp.json", "kimi.user", formatJSON},
		{"/home/dev/.kimi-code/mcp.json", "kimi-code.project", formatJSON},
		{"/work/app/.grok/config.toml", "grok.project", formatTOML},
		{"/work/app/.grok/settings.json", "grok-cli.project-settings", formatJSON},
		{"/work/app/.grok/mcp.json", "grok-cli.project-mcp", formatJSON},
		{"/work/app/opencode.json", "opencode.project", formatJSONC},
		{"/work/app/opencode.jsonc", "opencode.project-jsonc", formatJSONC},
		{"/work/app/.opencode/opencode.json", "opencode.project-dot", formatJSONC},
		{"/home/dev/.config/opencode/opencode.jsonc", "opencode.user-jsonc", formatJSONC},
		{"/work/app/.continue/config.yaml", "continue.project", formatYAML},
		{"/work/app/.continue/mcpServers/playwright.yaml", "continue.project-server", formatYAML},
		{"/work/app/.continue/mcpServers/db.yml", "continue.project-server", formatYAML},
		{"/work/app/.continue/mcpServers/claude.json", "continue.project-server", formatJSON},
		{"/home/dev/.config/goose/config.yaml", "goose.user", formatYAML},
		{`C:\Users\dev\AppData\Roaming\Block\goose\config\config.yaml`, "goose.user", formatYAML},
		{"/work/app/.amazonq/mcp.json", "amazonq.project", formatJSON},
		{"/home/dev/.aws/amazonq/mcp.json", "amazonq.user", formatJSON},
		{"/home/dev/.aws/amazonq/cli-agents/reviewer.json", "amazonq.cli-agent", formatJSON},
		{"/work/app/.amazonq/cli-agents/dev.json", "amazonq.project-cli-agent", formatJSON},
		{"/home/dev/.aws/amazonq/agents/default.json", "amazonq.ide-agent", formatJSON},
		{"/work/app/.kiro/settings/mcp.json", "kiro.project", formatJSON},
		{"relative/.kiro/settings/mcp.json", "kiro.project", formatJSON},
		{".mcp.json", "claude-code.project-mcp", formatJSON},

		// Look-alikes: shared names with no telling parent, near misses.
		{"/work/app/settings.json", "", ""},
		{"/work/app/config/settings.json", "", ""},
		{"/work/app/.vscode/launch.json", "", ""},
		{"/work/app/config.yaml", "", ""},
		{"/work/app/deploy/config.yaml", "", ""},
		{"/work/app/package.json", "", ""},
		{"/work/app/tsconfig.json", "", ""},
		{"/work/app/mcp.json", "", ""},
		{"/work/app/docs/mcp.json", "", ""},
		{"/work/app/config.toml", "", ""},
		{"/work/app/.cargo/config.toml", "", ""},
		{"/work/app/.claude/agents/reviewer.md", "", ""},
		{"/work/app/.claude/commands.json", "", ""},
		{"/work/app/settings.local.json", "", ""},
		{"/work/app/mcp_config.json", "", ""},
		{"/work/app/.cursor/rules.json", "", ""},
		{"/work/app/.continue/mcpServers/README.md", "", ""},
		{"/work/app/.continue/config.json", "", ""},
		{"/work/app/.amazonq/rules/x.json", "", ""},
		{"/work/app/.mcp.json.bak", "", ""},
		{"/work/app/Code/settings.json", "", ""},
		{"", "", ""},
		{"/", "", ""},
		{`\\`, "", ""},
	}
	for _, tc := range tests {
		st, ok := Recognize(tc.path)
		if tc.id == "" {
			if ok {
				t.Errorf("Recognize(%q) = %s, want not recognised", tc.path, st.ID)
			}
			continue
		}
		if !ok {
			t.Errorf("Recognize(%q) = false, want %s", tc.path, tc.id)
			continue
		}
		if st.ID != tc.id || st.Format != tc.format || st.Path != tc.path {
			t.Errorf("Recognize(%q) = %s/%s path %q, want %s/%s", tc.path, st.ID, st.Format, st.Path, tc.id, tc.format)
		}
		if st.Agent == "" || st.Kind == "" || st.Scope == "" {
			t.Errorf("Recognize(%q): incomplete store %+v", tc.path, st)
		}
	}
}

func TestRecognizeKinds(t *testing.T) {
	for path, kind := range map[string]string{
		"/w/.claude/settings.json":               KindSettings,
		"/w/.claude/settings.local.json":         KindSettings,
		"/etc/claude-code/managed-settings.json": KindSettings,
		"/etc/claude-code/managed-mcp.json":      kindMCP,
		"/w/.mcp.json":                           kindMCP,
		"/w/.gemini/settings.json":               kindMCP,
	} {
		st, ok := Recognize(path)
		if !ok || st.Kind != kind {
			t.Errorf("Recognize(%q) kind %q (ok=%v), want %q", path, st.Kind, ok, kind)
		}
	}
}
