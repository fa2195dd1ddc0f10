package setup

import (
	"path"
	"strconv"
	"strings"
)

// format is a config file's syntax.
type format string

const (
	formatJSON  format = "json"
	formatJSONC format = "jsonc" // JSON with comments and trailing commas
	formatTOML  format = "toml"
	formatYAML  format = "yaml"
)

// Store kinds.
const (
	kindMCP      = "mcp"      // holds server definitions
	KindSettings = "settings" // Claude Code settings: hooks, and no servers
)

// Store scopes.
const (
	scopeUser    = "user"
	ScopeProject = "project"
	scopeSystem  = "system" // managed by an administrator
)

// Store is one agent config file location.
type Store struct {
	Agent  string // display name: "Claude Code", "Cursor", … "generic" for a file the user names
	ID     string // stable short id: "claude-code.project-mcp", "cursor.user", "codex.user"
	Scope  string // "user", "project", "system"
	Path   string // absolute path (for Recognize: the path as given)
	Format format
	Kind   string // "mcp" or "settings"
}

// Dir is a directory in which every *.json or *.yaml file is a store of
// one agent (Continue's .continue/mcpServers/, Amazon Q's cli-agents/).
// Locate cannot list its files without reading the disk; a caller that
// does hands each file to Recognize.
type Dir struct {
	Agent, ID, Scope, Path string
}

type storeInfo struct {
	agent, scope string
	format       format
	kind         string
}

// catalog is every store id Locate and Recognize hand out. Ids of the
// VS Code extensions (cline.*, roo.*) are built per editor from editors.
var catalog = map[string]storeInfo{
	"claude-code.user-mcp":          {"Claude Code", scopeUser, formatJSON, kindMCP},
	"claude-code.user-settings":     {"Claude Code", scopeUser, formatJSON, KindSettings},
	"claude-code.project-mcp":       {"Claude Code", ScopeProject, formatJSON, kindMCP},
	"claude-code.project-settings":  {"Claude Code", ScopeProject, formatJSON, KindSettings},
	"claude-code.local-settings":    {"Claude Code", ScopeProject, formatJSON, KindSettings},
	"claude-code.managed-settings":  {"Claude Code", scopeSystem, formatJSON, KindSettings},
	"claude-code.managed-mcp":       {"Claude Code", scopeSystem, formatJSON, kindMCP},
	"claude-desktop.user":           {"Claude Desktop", scopeUser, formatJSON, kindMCP},
	"cursor.user":                   {"Cursor", scopeUser, formatJSONC, kindMCP},
	"cursor.project":                {"Cursor", ScopeProject, formatJSONC, kindMCP},
	"windsurf.user":                 {"Windsurf", scopeUser, formatJSON, kindMCP},
	"cline.cli":                     {"Cline", scopeUser, formatJSON, kindMCP},
	"roo.project":                   {"Roo Code", ScopeProject, formatJSON, kindMCP},
	"vscode.user":                   {"VS Code", scopeUser, formatJSONC, kindMCP},
	"vscode.user-settings":          {"VS Code", scopeUser, formatJSONC, kindMCP},
	"vscode-insiders.user":          {"VS Code", scopeUser, formatJSONC, kindMCP},
	"vscode-insiders.user-settings": {"VS Code", scopeUser, formatJSONC, kindMCP},
	"vscode.project":                {"VS Code", ScopeProject, formatJSONC, kindMCP},
	"vscode.project-settings":       {"VS Code", ScopeProject, formatJSONC, kindMCP},
	"copilot.user":                  {"Copilot CLI", scopeUser, formatJSON, kindMCP},
	"codex.user":                    {"Codex CLI", scopeUser, formatTOML, kindMCP},
	"codex.project":                 {"Codex CLI", ScopeProject, formatTOML, kindMCP},
	"gemini.user":                   {"Gemini CLI", scopeUser, formatJSON, kindMCP},
	"gemini.project":                {"Gemini CLI", ScopeProject, formatJSON, kindMCP},
	"gemini.system":                 {"Gemini CLI", scopeSystem, formatJSON, kindMCP},
	"kimi.user":                     {"Kimi CLI", scopeUser, formatJSON, kindMCP},
	"kimi-code.user":                {"Kimi Code", scopeUser, formatJSON, kindMCP},
	"kimi-code.project":             {"Kimi Code", ScopeProject, formatJSON, kindMCP},
	"grok.user":                     {"Grok CLI", scopeUser, formatTOML, kindMCP},
	"grok.project":                  {"Grok CLI", ScopeProject, formatTOML, kindMCP},
	"grok-cli.user-mcp":             {"grok-cli", scopeUser, formatJSON, kindMCP},
	"grok-cli.project-mcp":          {"grok-cli", ScopeProject, formatJSON, kindMCP},
	"grok-cli.project-settings":     {"grok-cli", ScopeProject, formatJSON, kindMCP},
	"zed.user":                      {"Zed", scopeUser, formatJSONC, kindMCP},
	"zed.project":                   {"Zed", ScopeProject, formatJSONC, kindMCP},
	"continue.user":                 {"Continue", scopeUser, formatYAML, kindMCP},
	"continue.project":              {"Continue", ScopeProject, formatYAML, kindMCP},
	"continue.project-server":       {"Continue", ScopeProject, formatYAML, kindMCP}, // format by extension
	"goose.user":                    {"Goose", scopeUser, formatYAML, kindMCP},
	"opencode.user":                 {"opencode", scopeUser, formatJSONC, kindMCP},
	"opencode.user-jsonc":           {"opencode", scopeUser, formatJSONC, kindMCP},
	"opencode.project":              {"opencode", ScopeProject, formatJSONC, kindMCP},
	"opencode.project-jsonc":        {"opencode", ScopeProject, formatJSONC, kindMCP},
	"opencode.project-dot":          {"opencode", ScopeProject, formatJSONC, kindMCP},
	"opencode.project-dot-jsonc":    {"opencode", ScopeProject, formatJSONC, kindMCP},
	"amazonq.user":                  {"Amazon Q", scopeUser, formatJSON, kindMCP},
	"amazonq.project":               {"Amazon Q", ScopeProject, formatJSON, kindMCP},
	"amazonq.ide-agent":             {"Amazon Q", scopeUser, formatJSON, kindMCP},
	"amazonq.cli-agent":             {"Amazon Q", scopeUser, formatJSON, kindMCP},
	"amazonq.project-cli-agent":     {"Amazon Q", ScopeProject, formatJSON, kindMCP},
	"kiro.user":                     {"Kiro", scopeUser, formatJSON, kindMCP},
	// Files of hooks only (kindHooks): what the agents run before and
	// after a tool; init wires the user-scope ones of agents it finds.
	"codex.user-hooks":         {"Codex CLI", scopeUser, formatJSON, kindHooks},
	"codex.project-hooks":      {"Codex CLI", ScopeProject, formatJSON, kindHooks},
	"cursor.user-hooks":        {"Cursor", scopeUser, formatJSON, kindHooks},
	"cursor.project-hooks":     {"Cursor", ScopeProject, formatJSON, kindHooks},
	"windsurf.user-hooks":      {"Windsurf", scopeUser, formatJSON, kindHooks},
	"windsurf.project-hooks":   {"Windsurf", ScopeProject, formatJSON, kindHooks},
	"copilot.user-hooks":       {"Copilot CLI", scopeUser, formatJSON, kindHooks},    // the file init writes
	"copilot.hooks":            {"Copilot CLI", scopeUser, formatJSON, kindHooks},    // any other in ~/.copilot/hooks
	"copilot.project-hooks":    {"Copilot CLI", ScopeProject, formatJSON, kindHooks}, // .github/hooks/*.json
	"cline.user-pre":           {"Cline", scopeUser, formatScript, kindHooks},
	"cline.user-post":          {"Cline", scopeUser, formatScript, kindHooks},
	"cline.hook":               {"Cline", scopeUser, formatScript, kindHooks},
	"cline.project-hook":       {"Cline", ScopeProject, formatScript, kindHooks},
	"claude-code.plugin-hooks": {"Claude Code", ScopeProject, formatJSON, KindSettings}, // <plugin>/hooks/hooks.json
	"kiro.project":             {"Kiro", ScopeProject, formatJSON, kindMCP},
	// The managed channels init --system wires (SystemStores): files
	// only root writes, which the agents read before the user's own.
	"codex.requirements":    {"Codex CLI", scopeSystem, formatTOML, kindHooks},
	"cursor.system-hooks":   {"Cursor", scopeSystem, formatJSON, kindHooks},
	"windsurf.system-hooks": {"Windsurf", scopeSystem, formatJSON, kindHooks},
	"copilot.system-hooks":  {"Copilot CLI", scopeSystem, formatJSON, kindHooks},
}

// editors are the VS Code builds whose globalStorage holds the Cline and
// Roo Code extensions' settings: the directory under the OS's application
// config dir, and the id suffix.
var editors = []struct{ dir, id string }{
	{"Code", "code"},
	{"Code - Insiders", "code-insiders"},
	{"VSCodium", "vscodium"},
	{"Cursor", "cursor"},
	{"Windsurf", "windsurf"},
}

const (
	clineExt = "saoudrizwan.claude-dev"
	rooExt   = "rooveterinaryinc.roo-cline"
)

func newStore(id, p string) Store {
	if info, ok := catalog[id]; ok {
		return Store{Agent: info.agent, ID: id, Scope: info.scope, Path: p, Format: info.format, Kind: info.kind}
	}
	switch {
	case strings.HasPrefix(id, "cline."):
		return Store{Agent: "Cline", ID: id, Scope: scopeUser, Path: p, Format: formatJSON, Kind: kindMCP}
	case strings.HasPrefix(id, "roo."):
		return Store{Agent: "Roo Code", ID: id, Scope: scopeUser, Path: p, Format: formatJSON, Kind: kindMCP}
	}
	return Store{Agent: "generic", ID: id, Scope: scopeUser, Path: p, Format: formatByExt(p, formatJSON), Kind: kindMCP}
}

func formatByExt(p string, def format) format {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(p, `\`, "/"))) {
	case ".json":
		return formatJSON
	case ".jsonc":
		return formatJSONC
	case ".toml":
		return formatTOML
	case ".yaml", ".yml":
		return formatYAML
	}
	return def
}

// locator builds paths for one OS, whatever the OS Airlock runs on.
type locator struct {
	goos, home string
	env        func(string) string
	stores     []Store
	dirs       []Dir
}

func (l *locator) join(base string, elems ...string) string {
	if l.goos != "windows" {
		return path.Join(append([]string{base}, elems...)...)
	}
	p := base
	for _, e := range elems {
		if !strings.HasSuffix(p, `\`) && !strings.HasSuffix(p, "/") {
			p += `\`
		}
		p += strings.ReplaceAll(e, "/", `\`)
	}
	return p
}

func (l *locator) add(id, base string, elems ...string) {
	if base == "" {
		return // no home (or no workspace): no such store
	}
	l.stores = append(l.stores, newStore(id, l.join(base, elems...)))
}

func (l *locator) addDir(agent, id, scope, base string, elems ...string) {
	if base == "" {
		return
	}
	l.dirs = append(l.dirs, Dir{Agent: agent, ID: id, Scope: scope, Path: l.join(base, elems...)})
}

// under returns the directory an environment variable names, or
// def/elems when it is unset.
func (l *locator) under(name, def string, elems ...string) string {
	if v := l.env(name); v != "" {
		return v
	}
	if def == "" {
		return ""
	}
	return l.join(def, elems...)
}

// xdgConfig is $XDG_CONFIG_HOME, or ~/.config when it is unset or not
// absolute (the XDG spec says to ignore a relative one).
func (l *locator) xdgConfig() string {
	if v := l.env("XDG_CONFIG_HOME"); v != "" && (strings.HasPrefix(v, "/") || l.goos == "windows" && isWindowsAbs(v)) {
		return v
	}
	if l.home == "" {
		return ""
	}
	return l.join(l.home, ".config")
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}

// appConfig is where desktop applications (Electron editors, Claude
// Desktop) keep their settings on each OS.
func (l *locator) appConfig() string {
	switch l.goos {
	case "darwin":
		if l.home == "" {
			return ""
		}
		return l.join(l.home, "Library", "Application Support")
	case "windows":
		return l.appData()
	}
	return l.xdgConfig()
}

func (l *locator) appData() string {
	if v := l.env("APPDATA"); v != "" {
		return v
	}
	if l.home == "" {
		return ""
	}
	return l.join(l.home, "AppData", "Roaming")
}

// Locate returns every candidate store for this home directory and
// workspace (project root) on goos ("linux", "darwin", "windows"), whether
// or not the file exists. It reads no files. env looks up the variables
// that move stores: CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME, CODEX_HOME,
// KIMI_CODE_HOME, CLINE_MCP_SETTINGS_PATH (the file, or a directory holding
// cline_mcp_settings.json), APPDATA (windows), and AIRLOCK_MCP_CONFIGS:
// extra "generic" mcpServers files, separated by goos's list separator
// (";" on windows, ":" elsewhere; os.PathListSeparator when goos is the
// running OS), read in the format their extension names (JSON by default).
// home "" means no user stores (except those an env variable places);
// workspace "" means no project stores. A nil env reads nothing.
func Locate(home, workspace, goos string, env func(string) string) []Store {
	l := newLocator(home, workspace, goos, env)
	return l.stores
}

// LocateDirs returns the directories whose every *.json or *.yaml file is
// a store, for Recognize to name once the caller has listed them.
func LocateDirs(home, workspace, goos string, env func(string) string) []Dir {
	l := newLocator(home, workspace, goos, env)
	return l.dirs
}

func newLocator(home, workspace, goos string, env func(string) string) *locator {
	if env == nil {
		env = func(string) string { return "" }
	}
	l := &locator{goos: goos, home: home, env: env}
	h, ws := home, workspace

	// Claude Code: CLAUDE_CONFIG_DIR moves both .claude.json and settings.json.
	if dir := env("CLAUDE_CONFIG_DIR"); dir != "" {
		l.add("claude-code.user-mcp", dir, ".claude.json")
		l.add("claude-code.user-settings", dir, "settings.json")
	} else {
		l.add("claude-code.user-mcp", h, ".claude.json")
		l.add("claude-code.user-settings", h, ".claude", "settings.json")
	}
	l.add("claude-code.project-mcp", ws, ".mcp.json")
	l.add("claude-code.project-settings", ws, ".claude", "settings.json")
	l.add("claude-code.local-settings", ws, ".claude", "settings.local.json")
	managed := map[string]string{
		"linux":   "/etc/claude-code",
		"darwin":  "/Library/Application Support/ClaudeCode",
		"windows": `C:\Program Files\ClaudeCode`,
	}[goos]
	l.add("claude-code.managed-settings", managed, "managed-settings.json")
	l.add("claude-code.managed-mcp", managed, "managed-mcp.json")

	app := l.appConfig()
	l.add("claude-desktop.user", app, "Claude", "claude_desktop_config.json")

	l.add("cursor.user", h, ".cursor", "mcp.json")
	l.add("cursor.project", ws, ".cursor", "mcp.json")
	l.add("windsurf.user", h, ".codeium", "windsurf", "mcp_config.json")
	l.add("cursor.user-hooks", h, ".cursor", "hooks.json")
	l.add("windsurf.user-hooks", h, ".codeium", "windsurf", "hooks.json")
	l.add("cline.user-pre", h, "Documents", "Cline", "Hooks", "PreToolUse")
	l.add("cline.user-post", h, "Documents", "Cline", "Hooks", "PostToolUse")

	for _, e := range editors {
		l.add("cline."+e.id, app, e.dir, "User", "globalStorage", clineExt, "settings", "cline_mcp_settings.json")
	}
	if p := env("CLINE_MCP_SETTINGS_PATH"); p != "" {
		if strings.HasSuffix(strings.ToLower(p), ".json") {
			l.stores = append(l.stores, newStore("cline.cli", p))
		} else {
			l.add("cline.cli", p, "cline_mcp_settings.json")
		}
	} else {
		l.add("cline.cli", h, ".cline", "data", "settings", "cline_mcp_settings.json")
	}
	for _, e := range editors {
		l.add("roo."+e.id, app, e.dir, "User", "globalStorage", rooExt, "settings", "mcp_settings.json")
	}
	l.add("roo.project", ws, ".roo", "mcp.json")

	l.add("vscode.user", app, "Code", "User", "mcp.json")
	l.add("vscode.user-settings", app, "Code", "User", "settings.json")
	l.add("vscode-insiders.user", app, "Code - Insiders", "User", "mcp.json")
	l.add("vscode-insiders.user-settings", app, "Code - Insiders", "User", "settings.json")
	l.add("vscode.project", ws, ".vscode", "mcp.json")
	l.add("vscode.project-settings", ws, ".vscode", "settings.json")
	l.add("copilot.user", h, ".copilot", "mcp-config.json")
	l.add("copilot.user-hooks", l.under("COPILOT_HOME", h, ".copilot"), "hooks", "airlock.json")
	l.addDir("Copilot CLI", "copilot.hooks", scopeUser, l.under("COPILOT_HOME", h, ".copilot"), "hooks")

	// hooks.json before config.toml: init records Codex's trust of the
	// hooks it wires there in config.toml
	l.add("codex.user-hooks", l.under("CODEX_HOME", h, ".codex"), "hooks.json")
	l.add("codex.user", l.under("CODEX_HOME", h, ".codex"), "config.toml")
	l.add("codex.project", ws, ".codex", "config.toml")

	l.add("gemini.user", h, ".gemini", "settings.json")
	l.add("gemini.project", ws, ".gemini", "settings.json")
	gemSys := map[string]string{
		"linux":   "/etc/gemini-cli",
		"darwin":  "/Library/Application Support/GeminiCli",
		"windows": `C:\ProgramData\gemini-cli`,
	}[goos]
	l.add("gemini.system", gemSys, "settings.json")

	l.add("kimi.user", h, ".kimi", "mcp.json")
	l.add("kimi-code.user", l.under("KIMI_CODE_HOME", h, ".kimi-code"), "mcp.json")
	l.add("kimi-code.project", ws, ".kimi-code", "mcp.json")

	l.add("grok.user", h, ".grok", "config.toml")
	l.add("grok.project", ws, ".grok", "config.toml")
	l.add("grok-cli.user-mcp", h, ".grok", "mcp.json")
	l.add("grok-cli.project-mcp", ws, ".grok", "mcp.json")
	l.add("grok-cli.project-settings", ws, ".grok", "settings.json")

	switch goos {
	case "windows":
		l.add("zed.user", l.appData(), "Zed", "settings.json")
	case "darwin":
		l.add("zed.user", h, ".config", "zed", "settings.json")
	default:
		l.add("zed.user", l.xdgConfig(), "zed", "settings.json")
	}
	l.add("zed.project", ws, ".zed", "settings.json")

	l.add("continue.user", h, ".continue", "config.yaml")
	l.add("continue.project", ws, ".continue", "config.yaml")
	l.addDir("Continue", "continue.project-server", ScopeProject, ws, ".continue", "mcpServers")

	if goos == "windows" {
		l.add("goose.user", l.appData(), "Block", "goose", "config", "config.yaml")
	} else {
		l.add("goose.user", l.xdgConfig(), "goose", "config.yaml")
	}

	l.add("opencode.user", l.xdgConfig(), "opencode", "opencode.json")
	l.add("opencode.user-jsonc", l.xdgConfig(), "opencode", "opencode.jsonc")
	l.add("opencode.project", ws, "opencode.json")
	l.add("opencode.project-jsonc", ws, "opencode.jsonc")
	l.add("opencode.project-dot", ws, ".opencode", "opencode.json")
	l.add("opencode.project-dot-jsonc", ws, ".opencode", "opencode.jsonc")

	l.add("amazonq.user", h, ".aws", "amazonq", "mcp.json")
	l.add("amazonq.project", ws, ".amazonq", "mcp.json")
	l.add("amazonq.ide-agent", h, ".aws", "amazonq", "agents", "default.json")
	l.addDir("Amazon Q", "amazonq.cli-agent", scopeUser, h, ".aws", "amazonq", "cli-agents")
	l.addDir("Amazon Q", "amazonq.project-cli-agent", ScopeProject, ws, ".amazonq", "cli-agents")

	l.add("kiro.user", h, ".kiro", "settings", "mcp.json")
	l.add("kiro.project", ws, ".kiro", "settings", "mcp.json")

	sep := ":"
	if goos == "windows" {
		sep = ";"
	}
	n := 0
	for _, p := range strings.Split(env("AIRLOCK_MCP_CONFIGS"), sep) {
		if p = strings.TrimSpace(p); p != "" {
			n++
			l.stores = append(l.stores, newStore("generic."+strconv.Itoa(n), p))
		}
	}
	return l
}
