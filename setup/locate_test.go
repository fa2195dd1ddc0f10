package setup

import (
	"strconv"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func byID(stores []Store) map[string]Store {
	m := map[string]Store{}
	for _, s := range stores {
		m[s.ID] = s
	}
	return m
}

func TestLocateLinuxDefaults(t *testing.T) {
	want := map[string]string{
		"claude-code.user-mcp":          "/home/dev/.claude.json",
		"claude-code.user-settings":     "/home/dev/.claude/settings.json",
		"claude-code.project-mcp":       "/work/app/.mcp.json",
		"claude-code.project-settings":  "/work/app/.claude/settings.json",
		"claude-code.local-settings":    "/work/app/.claude/settings.local.json",
		"claude-code.managed-settings":  "/etc/claude-code/managed-settings.json",
		"claude-code.managed-mcp":       "/etc/claude-code/managed-mcp.json",
		"claude-desktop.user":           "/home/dev/.config/Claude/claude_desktop_config.json",
		"cursor.user":                   "/home/dev/.cursor/mcp.json",
		"cursor.project":                "/work/app/.cursor/mcp.json",
		"windsurf.user":                 "/home/dev/.codeium/windsurf/mcp_config.json",
		"cline.code":                    "/home/dev/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		"cline.code-insiders":           "/home/dev/.config/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		"cline.vscodium":                "/home/dev/.config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		"cline.cursor":                  "/home/dev/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		"cline.windsurf":                "/home/dev/.config/Windsurf/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		"cline.cli":                     "/home/dev/.cline/data/settings/cline_mcp_settings.json",
		"roo.code":                      "/home/dev/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
		"roo.code-insiders":             "/home/dev/.config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
		"roo.vscodium":                  "/home/dev/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
		"roo.cursor":                    "/home/dev/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
		"roo.windsurf":                  "/home/dev/.config/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
		"roo.project":                   "/work/app/.roo/mcp.json",
		"vscode.user":                   "/home/dev/.config/Code/User/mcp.json",
		"vscode.user-settings":          "/home/dev/.config/Code/User/settings.json",
		"vscode-insiders.user":          "/home/dev/.config/Code - Insiders/User/mcp.json",
		"vscode-insiders.user-settings": "/home/dev/.config/Code - Insiders/User/settings.json",
		"vscode.project":                "/work/app/.vscode/mcp.json",
		"vscode.project-settings":       "/work/app/.vscode/settings.json",
		"copilot.user":                  "/home/dev/.copilot/mcp-config.json",
		"codex.user":                    "/home/dev/.codex/config.toml",
		"codex.project":                 "/work/app/.codex/config.toml",
		"gemini.user":                   "/home/dev/.gemini/settings.json",
		"gemini.project":                "/work/app/.gemini/settings.json",
		"gemini.system":                 "/etc/gemini-cli/settings.json",
		"kimi.user":                     "/home/dev/.kimi/mcp.json",
		"kimi-code.user":                "/home/dev/.kimi-code/mcp.json",
		"kimi-code.project":             "/work/app/.kimi-code/mcp.json",
		"grok.user":                     "/home/dev/.grok/config.toml",
		"grok.project":                  "/work/app/.grok/config.toml",
		"grok-cli.user-mcp":             "/home/dev/.grok/mcp.json",
		"grok-cli.project-mcp":          "/work/app/.grok/mcp.json",
		"grok-cli.project-settings":     "/work/app/.grok/settings.json",
		"zed.user":                      "/home/dev/.config/zed/settings.json",
		"zed.project":                   "/work/app/.zed/settings.json",
		"continue.user":                 "/home/dev/.continue/config.yaml",
		"continue.project":              "/work/app/.continue/config.yaml",
		"goose.user":                    "/home/dev/.config/goose/config.yaml",
		"opencode.user":                 "/home/dev/.config/opencode/opencode.json",
		"opencode.user-jsonc":           "/home/dev/.config/opencode/opencode.jsonc",
		"opencode.project":              "/work/app/opencode.json",
		"opencode.project-jsonc":        "/work/app/opencode.jsonc",
		"opencode.project-dot":          "/work/app/.opencode/opencode.json",
		"opencode.project-dot-jsonc":    "/work/app/.opencode/opencode.jsonc",
		"amazonq.user":                  "/home/dev/.aws/amazonq/mcp.json",
		"amazonq.project":               "/work/app/.amazonq/mcp.json",
		"amazonq.ide-agent":             "/home/dev/.aws/amazonq/agents/default.json",
		"kiro.user":                     "/home/dev/.kiro/settings/mcp.json",
		"kiro.project":                  "/work/app/.kiro/settings/mcp.json",
		"codex.user-hooks":              "/home/dev/.codex/hooks.json",
		"cursor.user-hooks":             "/home/dev/.cursor/hooks.json",
		"windsurf.user-hooks":           "/home/dev/.codeium/windsurf/hooks.json",
		"copilot.user-hooks":            "/home/dev/.copilot/hooks/airlock.json",
		"cline.user-pre":                "/home/dev/Documents/Cline/Hooks/PreToolUse",
		"cline.user-post":               "/home/dev/Documents/Cline/Hooks/PostToolUse",
	}
	got := Locate("/home/dev", "/work/app", "linux", nil)
	if len(got) != len(want) {
		t.Errorf("Locate returned %d stores, want %d", len(got), len(want))
	}
	for _, s := range got {
		if w, ok := want[s.ID]; !ok {
			t.Errorf("unexpected store %s at %s", s.ID, s.Path)
		} else if s.Path != w {
			t.Errorf("%s: path %q, want %q", s.ID, s.Path, w)
		}
	}
	for id := range want {
		if _, ok := byID(got)[id]; !ok {
			t.Errorf("store %s missing", id)
		}
	}
	dirs := LocateDirs("/home/dev", "/work/app", "linux", nil)
	wantDirs := map[string]string{
		"continue.project-server":   "/work/app/.continue/mcpServers",
		"amazonq.cli-agent":         "/home/dev/.aws/amazonq/cli-agents",
		"amazonq.project-cli-agent": "/work/app/.amazonq/cli-agents",
		"copilot.hooks":             "/home/dev/.copilot/hooks",
	}
	if len(dirs) != len(wantDirs) {
		t.Errorf("LocateDirs returned %d dirs, want %d: %+v", len(dirs), len(wantDirs), dirs)
	}
	for _, d := range dirs {
		if wantDirs[d.ID] != d.Path {
			t.Errorf("dir %s: path %q, want %q", d.ID, d.Path, wantDirs[d.ID])
		}
	}
}

func TestLocateEnvOverrides(t *testing.T) {
	tests := []struct {
		name          string
		home, ws, os  string
		env           map[string]string
		want          map[string]string // id -> path
		absent        []string
		generic       []string
		genericFormat []format
	}{
		{
			name: "linux XDG, CLAUDE_CONFIG_DIR, CODEX_HOME, KIMI_CODE_HOME, CLINE file",
			home: "/home/dev", ws: "/work/app", os: "linux",
			env: map[string]string{
				"XDG_CONFIG_HOME":         "/xdg",
				"CLAUDE_CONFIG_DIR":       "/cfg/claude",
				"CODEX_HOME":              "/cfg/codex",
				"KIMI_CODE_HOME":          "/cfg/kimi-code",
				"CLINE_MCP_SETTINGS_PATH": "/cfg/cline/mcp.json",
				"AIRLOCK_MCP_CONFIGS":     "/etc/team/servers.json::/home/dev/more.yaml: ",
			},
			want: map[string]string{
				"claude-code.user-mcp":      "/cfg/claude/.claude.json",
				"claude-code.user-settings": "/cfg/claude/settings.json",
				"codex.user":                "/cfg/codex/config.toml",
				"kimi-code.user":            "/cfg/kimi-code/mcp.json",
				"cline.cli":                 "/cfg/cline/mcp.json",
				"claude-desktop.user":       "/xdg/Claude/claude_desktop_config.json",
				"vscode.user":               "/xdg/Code/User/mcp.json",
				"cline.code":                "/xdg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
				"zed.user":                  "/xdg/zed/settings.json",
				"goose.user":                "/xdg/goose/config.yaml",
				"opencode.user":             "/xdg/opencode/opencode.json",
				"cursor.user":               "/home/dev/.cursor/mcp.json", // XDG moves nothing else
			},
			generic:       []string{"/etc/team/servers.json", "/home/dev/more.yaml"},
			genericFormat: []format{formatJSON, formatYAML},
		},
		{
			name: "linux relative XDG is ignored; CLINE dir",
			home: "/home/dev", ws: "", os: "linux",
			env: map[string]string{"XDG_CONFIG_HOME": "relative/cfg", "CLINE_MCP_SETTINGS_PATH": "/opt/cline"},
			want: map[string]string{
				"zed.user":  "/home/dev/.config/zed/settings.json",
				"cline.cli": "/opt/cline/cline_mcp_settings.json",
			},
			absent: []string{"claude-code.project-mcp", "cursor.project", "opencode.project"},
		},
		{
			name: "darwin",
			home: "/Users/dev", ws: "/Users/dev/src/app", os: "darwin",
			env: map[string]string{"XDG_CONFIG_HOME": "/xdg"},
			want: map[string]string{
				"claude-desktop.user":          "/Users/dev/Library/Application Support/Claude/claude_desktop_config.json",
				"vscode.user":                  "/Users/dev/Library/Application Support/Code/User/mcp.json",
				"roo.code":                     "/Users/dev/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
				"claude-code.managed-settings": "/Library/Application Support/ClaudeCode/managed-settings.json",
				"gemini.system":                "/Library/Application Support/GeminiCli/settings.json",
				"zed.user":                     "/Users/dev/.config/zed/settings.json", // Zed ignores XDG on macOS
				"goose.user":                   "/xdg/goose/config.yaml",
				"opencode.user":                "/xdg/opencode/opencode.json",
				"claude-code.project-mcp":      "/Users/dev/src/app/.mcp.json",
			},
		},
		{
			name: "windows default APPDATA",
			home: `C:\Users\dev`, ws: `C:\src\app`, os: "windows",
			env: map[string]string{"AIRLOCK_MCP_CONFIGS": `C:\team\servers.json;D:\x\codex.toml`},
			want: map[string]string{
				"claude-code.user-mcp":         `C:\Users\dev\.claude.json`,
				"claude-code.user-settings":    `C:\Users\dev\.claude\settings.json`,
				"claude-code.project-mcp":      `C:\src\app\.mcp.json`,
				"claude-code.managed-settings": `C:\Program Files\ClaudeCode\managed-settings.json`,
				"claude-desktop.user":          `C:\Users\dev\AppData\Roaming\Claude\claude_desktop_config.json`,
				"vscode.user":                  `C:\Users\dev\AppData\Roaming\Code\User\mcp.json`,
				"cline.code":                   `C:\Users\dev\AppData\Roaming\Code\User\globalStorage\saoudrizwan.claude-dev\settings\cline_mcp_settings.json`,
				"zed.user":                     `C:\Users\dev\AppData\Roaming\Zed\settings.json`,
				"goose.user":                   `C:\Users\dev\AppData\Roaming\Block\goose\config\config.yaml`,
				"codex.user":                   `C:\Users\dev\.codex\config.toml`,
				"opencode.user":                `C:\Users\dev\.config\opencode\opencode.json`,
				"gemini.system":                `C:\ProgramData\gemini-cli\settings.json`,
				"kiro.project":                 `C:\src\app\.kiro\settings\mcp.json`,
			},
			generic:       []string{`C:\team\servers.json`, `D:\x\codex.toml`},
			genericFormat: []format{formatJSON, formatTOML},
		},
		{
			name: "windows APPDATA and CODEX_HOME set",
			home: `C:\Users\dev`, ws: "", os: "windows",
			env: map[string]string{"APPDATA": `D:\Roaming`, "CODEX_HOME": `D:\codex`, "CLAUDE_CONFIG_DIR": `D:\claude\`},
			want: map[string]string{
				"claude-desktop.user":       `D:\Roaming\Claude\claude_desktop_config.json`,
				"vscode.user-settings":      `D:\Roaming\Code\User\settings.json`,
				"zed.user":                  `D:\Roaming\Zed\settings.json`,
				"goose.user":                `D:\Roaming\Block\goose\config\config.yaml`,
				"codex.user":                `D:\codex\config.toml`,
				"claude-code.user-mcp":      `D:\claude\.claude.json`,
				"claude-code.user-settings": `D:\claude\settings.json`,
			},
			absent: []string{"claude-code.project-mcp", "vscode.project"},
		},
		{
			name: "no home: only system stores and what env places",
			home: "", ws: "/work/app", os: "linux",
			env: map[string]string{"CODEX_HOME": "/cfg/codex"},
			want: map[string]string{
				"codex.user":              "/cfg/codex/config.toml",
				"claude-code.managed-mcp": "/etc/claude-code/managed-mcp.json",
				"claude-code.project-mcp": "/work/app/.mcp.json",
			},
			absent: []string{"claude-code.user-mcp", "cursor.user", "zed.user", "claude-desktop.user"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Locate(tc.home, tc.ws, tc.os, envOf(tc.env))
			m := byID(got)
			for id, p := range tc.want {
				if m[id].Path != p {
					t.Errorf("%s: path %q, want %q", id, m[id].Path, p)
				}
			}
			for _, id := range tc.absent {
				if s, ok := m[id]; ok {
					t.Errorf("%s present at %q, want absent", id, s.Path)
				}
			}
			var generic []Store
			for _, s := range got {
				if s.Agent == "generic" {
					generic = append(generic, s)
				}
			}
			if len(generic) != len(tc.generic) {
				t.Fatalf("generic stores %+v, want paths %q", generic, tc.generic)
			}
			for i, s := range generic {
				if s.Path != tc.generic[i] || s.Format != tc.genericFormat[i] || s.ID != "generic."+strconv.Itoa(i+1) || s.Kind != kindMCP {
					t.Errorf("generic store %d = %+v, want path %q format %q", i, s, tc.generic[i], tc.genericFormat[i])
				}
			}
		})
	}
}

// TestLocateInvariants: on every OS, ids are unique, paths absolute, and
// Recognize names each default location the same way Locate does.
func TestLocateInvariants(t *testing.T) {
	for _, c := range []struct{ os, home, ws string }{
		{"linux", "/home/dev", "/work/app"},
		{"darwin", "/Users/dev", "/Users/dev/app"},
		{"windows", `C:\Users\dev`, `C:\src\app`},
	} {
		seen := map[string]bool{}
		for _, s := range Locate(c.home, c.ws, c.os, nil) {
			if seen[s.ID] {
				t.Errorf("%s: id %s twice", c.os, s.ID)
			}
			seen[s.ID] = true
			abs := strings.HasPrefix(s.Path, "/")
			if c.os == "windows" {
				abs = isWindowsAbs(s.Path) && !strings.Contains(s.Path, "/")
			}
			if !abs {
				t.Errorf("%s: %s path %q is not absolute for the OS", c.os, s.ID, s.Path)
			}
			if s.Agent == "" || s.Format == "" || (s.Kind != kindMCP && s.Kind != KindSettings && s.Kind != kindHooks) ||
				(s.Scope != scopeUser && s.Scope != ScopeProject && s.Scope != scopeSystem) {
				t.Errorf("%s: incomplete store %+v", c.os, s)
			}
			r, ok := Recognize(s.Path)
			if !ok {
				t.Errorf("%s: Recognize does not know %s's default path %q", c.os, s.ID, s.Path)
				continue
			}
			if r.Agent != s.Agent || r.Format != s.Format || r.Kind != s.Kind {
				t.Errorf("%s: %q: Locate says %s/%s/%s, Recognize %s/%s/%s", c.os, s.Path, s.Agent, s.Format, s.Kind, r.Agent, r.Format, r.Kind)
			}
		}
	}
}

// TestLocateDirsMatchRecognize: a file found in a Dir is named by that
// Dir's id and agent.
func TestLocateDirsMatchRecognize(t *testing.T) {
	for _, c := range []struct{ os, home, ws, sep string }{
		{"linux", "/home/dev", "/work/app", "/"},
		{"windows", `C:\Users\dev`, `C:\src\app`, `\`},
	} {
		dirs := LocateDirs(c.home, c.ws, c.os, nil)
		if len(dirs) == 0 {
			t.Fatalf("%s: no dirs", c.os)
		}
		for _, d := range dirs {
			st, ok := Recognize(d.Path + c.sep + "some-file.json")
			if !ok || st.ID != d.ID || st.Agent != d.Agent || st.Scope != d.Scope {
				t.Errorf("%s: a file in %s (%s) is recognised as %+v (ok=%v)", c.os, d.Path, d.ID, st, ok)
			}
		}
	}
}
