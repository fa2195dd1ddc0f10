package setup

import (
	"slices"
	"strings"
)

// Recognize says whether a file met while walking a tree is an agent
// config, judged by its name and the directories right above it; path may
// use "/" or "\". A name that many tools share (settings.json, config.yaml,
// mcp.json, config.toml) counts only under a directory that tells whose it
// is (.claude/, .gemini/, goose/ …).
//
// The Store's Path is path as given. A file that exists both in a home and
// in projects (.cursor/mcp.json, .claude/settings.json) is named by its
// project id and scope: a name alone cannot tell a home from a project, so
// a caller that knows the home should prefer the Store Locate gives for it.
func Recognize(path string) (Store, bool) {
	id := recognizeID(path)
	if id == "" {
		return Store{}, false
	}
	st := newStore(id, path)
	if id == "continue.project-server" {
		st.Format = formatByExt(path, formatYAML)
	}
	return st, true
}

func recognizeID(path string) string {
	c := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	if len(c) == 0 {
		return ""
	}
	up := func(n int) string { // the n-th directory above the file
		if len(c)-1-n < 0 {
			return ""
		}
		return c[len(c)-1-n]
	}
	name, p1, p2 := c[len(c)-1], up(1), up(2)
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		ext = strings.ToLower(name[i+1:])
	}

	// Directories whose every file is a store.
	switch {
	case p1 == "mcpServers" && p2 == ".continue" && (ext == "yaml" || ext == "yml" || ext == "json"):
		return "continue.project-server"
	case p1 == "cli-agents" && p2 == "amazonq" && ext == "json":
		return "amazonq.cli-agent"
	case p1 == "cli-agents" && p2 == ".amazonq" && ext == "json":
		return "amazonq.project-cli-agent"
	case p1 == "agents" && p2 == "amazonq" && ext == "json":
		return "amazonq.ide-agent"
	}

	switch {
	case ext == "json" && p1 == "hooks" && p2 == ".copilot":
		return "copilot.hooks"
	case ext == "json" && p1 == "hooks" && p2 == ".github":
		return "copilot.project-hooks"
	case clineHookNames[name] && p1 == "Hooks" && p2 == "Cline":
		return "cline.hook"
	case clineHookNames[name] && p1 == "hooks" && p2 == ".clinerules":
		return "cline.project-hook"
	}

	switch name {
	case "hooks.json":
		switch {
		case p1 == ".codex":
			return "codex.project-hooks"
		case p1 == ".cursor":
			return "cursor.project-hooks"
		case p1 == "windsurf" && p2 == ".codeium":
			return "windsurf.user-hooks"
		case p1 == ".windsurf":
			return "windsurf.project-hooks"
		case p1 == "hooks":
			// a Claude Code (or Codex) plugin's hooks, in Claude Code's shape
			return "claude-code.plugin-hooks"
		}
	case ".mcp.json":
		return "claude-code.project-mcp"
	case ".claude.json":
		return "claude-code.user-mcp"
	case "managed-settings.json":
		return "claude-code.managed-settings"
	case "managed-mcp.json":
		return "claude-code.managed-mcp"
	case "claude_desktop_config.json":
		return "claude-desktop.user"
	case "settings.local.json":
		if p1 == ".claude" {
			return "claude-code.local-settings"
		}
	case "settings.json":
		switch {
		case p1 == ".claude":
			return "claude-code.project-settings"
		case p1 == ".gemini":
			return "gemini.project"
		case p1 == "gemini-cli" || p1 == "GeminiCli":
			return "gemini.system"
		case p1 == ".zed":
			return "zed.project"
		case p1 == "zed" || p1 == "Zed":
			return "zed.user"
		case p1 == ".vscode":
			return "vscode.project-settings"
		case p1 == ".grok":
			return "grok-cli.project-settings"
		case p1 == "User" && p2 == "Code":
			return "vscode.user-settings"
		case p1 == "User" && p2 == "Code - Insiders":
			return "vscode-insiders.user-settings"
		}
	case "mcp.json":
		switch {
		case p1 == ".cursor":
			return "cursor.project"
		case p1 == ".vscode":
			return "vscode.project"
		case p1 == ".roo":
			return "roo.project"
		case p1 == ".amazonq":
			return "amazonq.project"
		case p1 == "amazonq" && p2 == ".aws":
			return "amazonq.user"
		case p1 == "settings" && p2 == ".kiro":
			return "kiro.project"
		case p1 == ".kimi":
			return "kimi.user"
		case p1 == ".kimi-code":
			return "kimi-code.project"
		case p1 == ".grok":
			return "grok-cli.project-mcp"
		case p1 == "User" && p2 == "Code", p2 == "profiles" && up(3) == "User" && up(4) == "Code":
			return "vscode.user"
		case p1 == "User" && p2 == "Code - Insiders", p2 == "profiles" && up(3) == "User" && up(4) == "Code - Insiders":
			return "vscode-insiders.user"
		}
	case "mcp_config.json":
		if p1 == "windsurf" || p1 == "windsurf-next" {
			return "windsurf.user"
		}
	case "cline_mcp_settings.json":
		if slices.Contains(c, ".cline") {
			return "cline.cli"
		}
		return "cline." + editorOf(c)
	case "mcp_settings.json":
		return "roo." + editorOf(c)
	case "config.toml":
		switch p1 {
		case ".codex":
			return "codex.project"
		case ".grok":
			return "grok.project"
		}
	case "opencode.json", "opencode.jsonc":
		id := "opencode.project"
		switch p1 {
		case ".opencode":
			id = "opencode.project-dot"
		case "opencode":
			id = "opencode.user"
		}
		if ext == "jsonc" {
			id += "-jsonc"
		}
		return id
	case "config.yaml":
		switch {
		case p1 == ".continue":
			return "continue.project"
		case p1 == "goose", p1 == "config" && p2 == "goose":
			return "goose.user"
		}
	case "mcp-config.json":
		if p1 == ".copilot" {
			return "copilot.user"
		}
	}
	return ""
}

// clineHookNames are the executables Cline runs from its hooks folders.
var clineHookNames = map[string]bool{
	"PreToolUse": true, "PostToolUse": true, "UserPromptSubmit": true, "TaskStart": true,
	"TaskResume": true, "TaskCancel": true, "TaskComplete": true, "PreCompact": true,
}

// editorOf names the VS Code build whose globalStorage holds an extension's
// settings file (…/Code/User/globalStorage/…), "code" when it cannot tell.
func editorOf(c []string) string {
	for i := len(c) - 1; i >= 2; i-- {
		if c[i] == "globalStorage" && c[i-1] == "User" {
			for _, e := range editors {
				if c[i-2] == e.dir {
					return e.id
				}
			}
		}
	}
	return "code"
}
