package setup

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureRoot holds one directory per store id, each with a realistic
// config file at the path the agent keeps it.
const fixtureRoot = "../testdata/setup"

// srv is what a test expects of one Server.
type srv struct {
	Name      string
	Line      int
	Command   string
	Args      []string
	Env       map[string]string
	Cwd       string
	URL       string
	Transport string
	Remote    bool
	Disabled  bool
	Wrapped   bool
	WrapName  string
	Inner     []string
	Project   string
}

func toSrv(s server) srv {
	return srv{s.Name, s.Line, s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Transport, s.Remote, s.Disabled, s.Wrapped, s.WrapName, s.Inner, s.Project}
}

// fixtureStore names a fixture's store: Recognize, except for the generic
// file, which only a user's AIRLOCK_MCP_CONFIGS names.
func fixtureStore(t testing.TB, path string) Store {
	t.Helper()
	if strings.Contains(filepath.ToSlash(path), "/generic/") {
		return newStore("generic.1", path)
	}
	st, ok := Recognize(path)
	if !ok {
		t.Fatalf("Recognize(%q) = false for a fixture", path)
	}
	return st
}

var fixtureCases = []struct {
	file    string // under fixtureRoot; its first directory is the store id
	servers []srv
	hooks   []Hook
}{
	{file: "claude-code.project-mcp/.mcp.json", servers: []srv{
		{Name: "github", Line: 3, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"},
			Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}, Transport: "stdio"},
		{Name: "filesystem", Line: 11, Command: "/usr/local/bin/airlock-mcp",
			Args:      []string{"--name", "filesystem", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "${CLAUDE_PROJECT_DIR:-.}"},
			Transport: "stdio", Wrapped: true, WrapName: "filesystem",
			Inner: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "${CLAUDE_PROJECT_DIR:-.}"}},
		{Name: "sentry", Line: 23, URL: "https://mcp.sentry.dev/mcp", Transport: "http", Remote: true},
		{Name: "linear", Line: 28, URL: "https://mcp.linear.app/sse", Transport: "sse", Remote: true},
	}},
	{file: "claude-code.user-mcp/.claude.json", servers: []srv{
		{Name: "memory", Line: 32, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}, Transport: "stdio"},
		{Name: "context7", Line: 38, URL: "https://mcp.context7.com/mcp", Transport: "http", Remote: true},
		{Name: "postgres", Line: 15, Command: "airlock-mcp",
			Args: []string{"--name=postgres", "--", "uvx", "postgres-mcp", "--access-mode=restricted"},
			Env:  map[string]string{"DATABASE_URI": "postgresql://dev@localhost/shop"}, Transport: "stdio",
			Wrapped: true, WrapName: "postgres", Inner: []string{"uvx", "postgres-mcp", "--access-mode=restricted"},
			Project: "/home/dev/shop"},
	}},
	{file: "claude-code.project-settings/.claude/settings.json", hooks: []Hook{
		{Event: "PreToolUse", Matcher: "Bash|Write|Edit|mcp__.*", Command: "/usr/local/bin/airlock-hook pre", Timeout: 30, Line: 14},
		{Event: "PostToolUse", Matcher: "*", Command: "/usr/local/bin/airlock-hook post", Line: 24},
		{Event: "PostToolUse", Matcher: "Write", Command: `npx prettier --write "$CLAUDE_PROJECT_DIR"`, Timeout: 120, Line: 31},
	}},
	{file: "claude-code.local-settings/.claude/settings.local.json", hooks: []Hook{
		{Event: "SessionStart", Command: `echo "session started" >> ~/.cache/claude-sessions.log`, Line: 10},
	}},
	{file: "claude-code.managed-settings/etc/claude-code/managed-settings.json", hooks: []Hook{
		{Event: "PreToolUse", Command: "/opt/airlock/bin/airlock-hook pre", Timeout: 10, Line: 10},
	}},
	{file: "claude-code.managed-mcp/etc/claude-code/managed-mcp.json", servers: []srv{
		{Name: "company-docs", Line: 3, Command: "/opt/airlock/bin/airlock-mcp",
			Args:      []string{"--sandbox", "--name", "company-docs", "--", "/opt/mcp/docs-server", "--index", "/srv/docs"},
			Transport: "stdio", Wrapped: true, WrapName: "company-docs", Inner: []string{"/opt/mcp/docs-server", "--index", "/srv/docs"}},
		{Name: "jira", Line: 7, URL: "https://mcp.atlassian.example.com/v1/mcp", Transport: "http", Remote: true},
	}},
	{file: "claude-desktop.user/Library/Application Support/Claude/claude_desktop_config.json", servers: []srv{
		{Name: "filesystem", Line: 3, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/dev/Desktop", "/Users/dev/Downloads"}, Transport: "stdio"},
		// A stdio bridge to a remote server is a local command: wrappable.
		{Name: "notion", Line: 12, Command: "npx", Args: []string{"-y", "mcp-remote", "https://mcp.notion.com/mcp"}, Transport: "stdio"},
		{Name: "brave-search", Line: 16, Command: `C:\Program Files\Airlock\airlock-mcp.exe`,
			Args: []string{"--name", "brave-search", "--", "npx", "-y", "@brave/brave-search-mcp-server"},
			Env:  map[string]string{"BRAVE_API_KEY": "BSA-example"}, Transport: "stdio",
			Wrapped: true, WrapName: "brave-search", Inner: []string{"npx", "-y", "@brave/brave-search-mcp-server"}},
	}},
	{file: "cursor.project/.cursor/mcp.json", servers: []srv{
		{Name: "supabase", Line: 4, Command: "npx", Args: []string{"-y", "@supabase/mcp-server-supabase@latest", "--read-only"},
			Env: map[string]string{"SUPABASE_ACCESS_TOKEN": "${env:SUPABASE_ACCESS_TOKEN}"}, Transport: "stdio"},
		{Name: "figma", Line: 12, URL: "http://127.0.0.1:3845/mcp", Remote: true},
		{Name: "airlocked-shell", Line: 16, Command: "airlock-mcp", Args: []string{"--name", "airlocked-shell", "--", "uvx", "mcp-shell-server"},
			Transport: "stdio", Wrapped: true, WrapName: "airlocked-shell", Inner: []string{"uvx", "mcp-shell-server"}},
	}},
	{file: "windsurf.user/.codeium/windsurf/mcp_config.json", servers: []srv{
		{Name: "git", Line: 3, Command: "uvx", Args: []string{"mcp-server-git", "--repository", "/home/dev/src/app"}, Transport: "stdio", Disabled: true},
		{Name: "stripe", Line: 8, URL: "https://mcp.stripe.com", Remote: true},
		{Name: "puppeteer", Line: 12, Command: "/home/dev/.local/bin/airlock-mcp",
			Args: []string{"--name", "puppeteer", "--", "npx", "-y", "@modelcontextprotocol/server-puppeteer"},
			Env:  map[string]string{"PUPPETEER_LAUNCH_OPTIONS": `{"headless": true}`}, Transport: "stdio",
			Wrapped: true, WrapName: "puppeteer", Inner: []string{"npx", "-y", "@modelcontextprotocol/server-puppeteer"}},
	}},
	{file: "cline.code/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", servers: []srv{
		{Name: "weather", Line: 3, Command: "node", Args: []string{"/home/dev/Documents/Cline/MCP/weather-server/build/index.js"},
			Env: map[string]string{"OPENWEATHER_API_KEY": "ow-key"}, Transport: "stdio"},
		{Name: "deepwiki", Line: 11, URL: "https://mcp.deepwiki.com/mcp", Transport: "streamableHttp", Remote: true, Disabled: true},
	}},
	{file: "roo.project/.roo/mcp.json", servers: []srv{
		{Name: "local-tools", Line: 3, Command: "python", Args: []string{"-m", "tools_server"}, Cwd: "/home/dev/projects/tools",
			Env: map[string]string{"PYTHONUNBUFFERED": "1"}, Transport: "stdio"},
		{Name: "remote-api", Line: 11, URL: "https://api.example.com/mcp", Transport: "streamable-http", Remote: true},
	}},
	{file: "vscode.project/.vscode/mcp.json", servers: []srv{
		{Name: "Perplexity", Line: 13, Command: "npx", Args: []string{"-y", "server-perplexity-ask"},
			Env: map[string]string{"PERPLEXITY_API_KEY": "${input:perplexity-key}"}, Transport: "stdio"},
		{Name: "github", Line: 22, URL: "https://api.githubcopilot.com/mcp/", Transport: "http", Remote: true},
		{Name: "playwright", Line: 27, Command: "airlock-mcp", Args: []string{"--name", "playwright", "--", "npx", "@playwright/mcp@latest"},
			Cwd: "${workspaceFolder}", Transport: "stdio", Wrapped: true, WrapName: "playwright", Inner: []string{"npx", "@playwright/mcp@latest"}},
	}},
	{file: "vscode.user-settings/Code/User/settings.json", servers: []srv{
		{Name: "time", Line: 8, Command: "uvx", Args: []string{"mcp-server-time", "--local-timezone=Europe/Paris"}, Transport: "stdio"},
	}},
	{file: "copilot.user/.copilot/mcp-config.json", servers: []srv{
		{Name: "azure", Line: 3, Command: "npx", Args: []string{"-y", "@azure/mcp@latest", "server", "start"}, Transport: "local"},
		{Name: "microsoft-docs", Line: 10, URL: "https://learn.microsoft.com/api/mcp", Transport: "http", Remote: true},
	}},
	{file: "codex.project/.codex/config.toml", servers: []srv{
		{Name: "docs", Line: 10, Command: "airlock-mcp",
			Args:      []string{"--name", "docs", "--", "npx", "-y", "docs-mcp-server", "--note", "[mcp_servers.fake] is not a header"},
			Transport: "stdio", Wrapped: true, WrapName: "docs", Inner: []string{"npx", "-y", "docs-mcp-server", "--note", "[mcp_servers.fake] is not a header"}},
		{Name: "figma.dev", Line: 20, Command: "npx", Args: []string{"-y", "figma-developer-mcp", "--stdio"},
			Env: map[string]string{"FIGMA_API_KEY": "figd_example", "LOG": "warn"}, Cwd: "/home/dev/design", Transport: "stdio", Disabled: true},
		{Name: "github", Line: 27, URL: "https://api.githubcopilot.com/mcp/", Transport: "http", Remote: true},
		{Name: "sqlite", Line: 31, Command: "uvx", Args: []string{"mcp-server-sqlite", "--db-path", "/home/dev/data/app.db"},
			Env: map[string]string{"SQLITE_READONLY": "1"}, Transport: "stdio"},
	}},
	{file: "grok.project/.grok/config.toml", servers: []srv{
		{Name: "context7", Line: 4, Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"}, Transport: "stdio"},
		{Name: "exa", Line: 10, URL: "https://mcp.exa.ai/mcp", Remote: true},
		{Name: "browser", Line: 14, Command: "/usr/local/bin/airlock-mcp", Args: []string{"--name", "browser", "--", "npx", "@browsermcp/mcp@latest"},
			Env: map[string]string{"BROWSER": "chromium"}, Transport: "stdio", Wrapped: true, WrapName: "browser", Inner: []string{"npx", "@browsermcp/mcp@latest"}},
	}},
	{file: "gemini.project/.gemini/settings.json", servers: []srv{
		{Name: "pythonTools", Line: 4, Command: "python", Args: []string{"-m", "my_mcp_server", "--port", "8080"}, Cwd: "./mcp-servers/python",
			Env: map[string]string{"DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "${EXTERNAL_API_KEY}"}, Transport: "stdio"},
		{Name: "githubCopilot", Line: 16, URL: "https://api.githubcopilot.com/mcp/", Transport: "http", Remote: true},
		{Name: "legacySse", Line: 21, URL: "http://localhost:8081/sse", Transport: "sse", Remote: true},
	}},
	{file: "kimi.user/.kimi/mcp.json", servers: []srv{
		{Name: "context7", Line: 3, URL: "https://mcp.context7.com/mcp", Remote: true},
		{Name: "chrome-devtools", Line: 7, Command: "npx", Args: []string{"chrome-devtools-mcp@latest"}, Transport: "stdio"},
	}},
	{file: "kimi-code.project/.kimi-code/mcp.json", servers: []srv{
		{Name: "linear", Line: 3, URL: "https://mcp.linear.app/sse", Transport: "sse", Remote: true, Disabled: true},
		{Name: "fs", Line: 9, Command: "airlock-mcp", Args: []string{"--name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "."},
			Cwd: "/home/dev/work", Transport: "stdio", Wrapped: true, WrapName: "fs", Inner: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}},
	}},
	{file: "grok-cli.project-settings/.grok/settings.json", servers: []srv{
		{Name: "linear", Line: 4, URL: "https://mcp.linear.app/sse", Transport: "sse", Remote: true},
		{Name: "fs", Line: 11, Command: "airlock-mcp", Args: []string{"--name", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "."},
			Env: map[string]string{"NODE_OPTIONS": "--max-old-space-size=512"}, Transport: "stdio",
			Wrapped: true, WrapName: "fs", Inner: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}},
		{Name: "legacy", Line: 20, Command: "bun", Args: []string{"run", "./tools/mcp.ts"}, Transport: "stdio"},
	}},
	{file: "grok-cli.project-mcp/.grok/mcp.json", servers: []srv{
		{Name: "example-stdio", Line: 5, Command: "npx", Args: []string{"-y", "@example/mcp-server"}, Transport: "stdio", Disabled: true},
	}},
	{file: "zed.user/.config/zed/settings.json", servers: []srv{
		{Name: "mcp-server-github", Line: 11, Command: "github-mcp-server", Args: []string{"stdio"},
			Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"}, Transport: "stdio"},
		{Name: "postgres", Line: 19, Command: "airlock-mcp",
			Args:      []string{"--name", "postgres", "--", "npx", "-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb"},
			Transport: "stdio", Wrapped: true, WrapName: "postgres", Inner: []string{"npx", "-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb"}},
		{Name: "remote-tools", Line: 27, URL: "https://tools.example.com/mcp", Remote: true, Disabled: true},
		// An extension's server: neither a command nor a URL in the file.
		{Name: "mcp-server-context7", Line: 33},
	}},
	{file: "zed.project/.zed/settings.json", servers: []srv{
		{Name: "project-db", Line: 5, Command: "uvx", Args: []string{"mcp-server-sqlite", "--db-path", "./dev.db"}, Transport: "stdio"},
	}},
	{file: "continue.project/.continue/config.yaml", servers: []srv{
		{Name: "SQLite", Line: 13, Command: "npx", Args: []string{"-y", "mcp-sqlite", "/home/dev/data/app.db"}, Transport: "stdio"},
		{Name: "Web search", Line: 19, Command: "airlock-mcp",
			Args: []string{"--name", "web-search", "--", "uvx", "duckduckgo-mcp-server", "--port", "8080"},
			Env:  map[string]string{"SEARCH_REGION": "eu", "MAX_RESULTS": "10"}, Cwd: "/home/dev", Transport: "stdio",
			Wrapped: true, WrapName: "web-search", Inner: []string{"uvx", "duckduckgo-mcp-server", "--port", "8080"}},
		{Name: "Remote docs", Line: 27, URL: "https://docs.example.com/mcp", Transport: "streamable-http", Remote: true},
		{Name: "anthropic/memory-mcp", Line: 30},
	}},
	{file: "continue.project-server/.continue/mcpServers/playwright.yaml", servers: []srv{
		{Name: "Browser search", Line: 5, Command: "npx", Args: []string{"@playwright/mcp@latest"}, Transport: "stdio"},
	}},
	{file: "continue.project-server/.continue/mcpServers/claude-style.json", servers: []srv{
		{Name: "everything", Line: 3, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Transport: "stdio"},
	}},
	{file: "goose.user/.config/goose/config.yaml", servers: []srv{
		{Name: "developer", Line: 5, Transport: "builtin"},
		{Name: "github", Line: 12, Command: "github-mcp-server", Transport: "stdio"},
		{Name: "fetch", Line: 25, Command: "airlock-mcp", Args: []string{"--name", "fetch", "--", "uvx", "mcp-server-fetch"},
			Env: map[string]string{"FETCH_USER_AGENT": "goose"}, Transport: "stdio", Wrapped: true, WrapName: "fetch", Inner: []string{"uvx", "mcp-server-fetch"}},
		{Name: "remote-search", Line: 38, URL: "https://search.example.com/mcp", Transport: "streamable_http", Remote: true, Disabled: true},
		{Name: "legacy-events", Line: 46, URL: "http://localhost:8000/sse", Transport: "sse", Remote: true},
	}},
	{file: "opencode.project-jsonc/opencode.jsonc", servers: []srv{
		{Name: "everything", Line: 6, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"},
			Env: map[string]string{"MY_ENV_VAR": "my_env_var_value"}, Transport: "local"},
		{Name: "sentry", Line: 13, URL: "https://mcp.sentry.dev/mcp", Transport: "remote", Remote: true, Disabled: true},
		{Name: "gh_grep", Line: 19, Command: "airlock-mcp", Args: []string{"--name", "gh_grep", "--", "npx", "-y", "gh-grep-mcp"},
			Transport: "local", Wrapped: true, WrapName: "gh_grep", Inner: []string{"npx", "-y", "gh-grep-mcp"}},
	}},
	{file: "opencode.project-dot/.opencode/opencode.json", servers: []srv{
		{Name: "my-server", Line: 5, Command: "npx", Args: []string{"-y", "example-mcp-server"}, Transport: "local", Disabled: true},
		{Name: "context7", Line: 10, URL: "https://mcp.context7.com/mcp", Transport: "remote", Remote: true},
	}},
	{file: "amazonq.project/.amazonq/mcp.json", servers: []srv{
		{Name: "aws-docs", Line: 3, Command: "uvx", Args: []string{"awslabs.aws-documentation-mcp-server@latest"},
			Env: map[string]string{"FASTMCP_LOG_LEVEL": "ERROR", "AWS_DOCUMENTATION_PARTITION": "aws"}, Transport: "stdio"},
	}},
	{file: "amazonq.cli-agent/.aws/amazonq/cli-agents/reviewer.json", servers: []srv{
		{Name: "git", Line: 6, Command: "airlock-mcp", Args: []string{"--name", "git", "--", "uvx", "mcp-server-git"},
			Transport: "stdio", Wrapped: true, WrapName: "git", Inner: []string{"uvx", "mcp-server-git"}},
	}},
	{file: "kiro.project/.kiro/settings/mcp.json", servers: []srv{
		{Name: "fetch", Line: 3, Command: "uvx", Args: []string{"mcp-server-fetch"}, Transport: "stdio", Disabled: true},
		{Name: "aws-knowledge", Line: 10, URL: "https://knowledge-mcp.global.api.aws", Remote: true},
	}},
	{file: "generic/team-servers.json", servers: []srv{
		{Name: "internal-search", Line: 3, Command: "/opt/tools/search-mcp", Args: []string{"--index", "/srv/index"},
			Env: map[string]string{"SEARCH_TOKEN": "internal"}, Transport: "stdio"},
	}},
}

func TestParseFixtures(t *testing.T) {
	for _, tc := range fixtureCases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(fixtureRoot, tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			st := fixtureStore(t, path)
			if id, _, _ := strings.Cut(tc.file, "/"); id != "generic" && st.ID != id {
				t.Errorf("Recognize gives store %q, the fixture sits under %q", st.ID, id)
			}
			cfg, err := Parse(st, data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if cfg.Store != st {
				t.Errorf("Config.Store = %+v, want %+v", cfg.Store, st)
			}
			var got []srv
			for _, s := range cfg.Servers {
				if s.Store != st {
					t.Errorf("server %q: Store = %+v, want the file's", s.Name, s.Store)
				}
				got = append(got, toSrv(s))
			}
			if !reflect.DeepEqual(got, tc.servers) {
				t.Errorf("servers:\n got %s\nwant %s", dumpSrv(got), dumpSrv(tc.servers))
			}
			if !reflect.DeepEqual(cfg.Hooks, tc.hooks) {
				t.Errorf("hooks:\n got %+v\nwant %+v", cfg.Hooks, tc.hooks)
			}
		})
	}
}

func dumpSrv(ss []srv) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "\n  %+v", s)
	}
	return b.String()
}

// TestEveryFixtureHasACase keeps the table and the directory in step: a
// fixture added without expectations would otherwise test nothing.
func TestEveryFixtureHasACase(t *testing.T) {
	cases := map[string]bool{}
	for _, tc := range fixtureCases {
		cases[tc.file] = true
	}
	err := filepath.WalkDir(fixtureRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixtureRoot, p)
		rel = filepath.ToSlash(rel)
		if !cases[rel] {
			t.Errorf("fixture %s has no case in fixtureCases", rel)
		}
		delete(cases, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f := range cases {
		t.Errorf("case %s has no fixture file", f)
	}
}

// TestFixturesCoverEveryAgent: each agent Airlock knows has at least one
// realistic file, so a dialect cannot go untested.
func TestFixturesCoverEveryAgent(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range fixtureCases {
		seen[fixtureStore(t, filepath.Join(fixtureRoot, tc.file)).Agent] = true
	}
	for _, info := range catalog {
		if !seen[info.agent] {
			t.Errorf("no fixture for agent %q", info.agent)
		}
	}
	for _, a := range []string{"Cline", "Roo Code", "generic"} {
		if !seen[a] {
			t.Errorf("no fixture for agent %q", a)
		}
	}
}
