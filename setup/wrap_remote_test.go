package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A remote server becomes the bridge; its headers reach it in env, none
// on the command line; uninstall gives the file back byte for byte, and
// in a file edited since, the entry as it was written.
func TestInitWrapsRemoteServersAndUninstallRestoresThem(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.proj, ".mcp.json")
	orig := []byte(`{
  "mcpServers": {
    "linear": {"type": "sse", "url": "https://mcp.linear.app/sse"},
    "sentry": {
      "type": "http",
      "url": "https://mcp.sentry.dev/mcp",
      "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}", "X-Org": "acme"},
      "timeout": 30000
    },
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}
  }
}
`)
	writeTestFile(t, p, orig, 0o644)
	r := mustInit(t, e.opt)
	st := byID(Locate(e.home, e.proj, "linux", nil))["claude-code.project-mcp"]
	got := readServers(t, st)
	lin, sen := got["linear"], got["sentry"]
	if !lin.Wrapped || bridgeURL(&lin) != "https://mcp.linear.app/sse" || !strings.Contains(strings.Join(lin.Args, " "), "--transport sse") {
		t.Fatalf("linear: %+v\n%s", lin, reportText(r))
	}
	if !sen.Wrapped || bridgeURL(&sen) != "https://mcp.sentry.dev/mcp" || sen.Env["AIRLOCK_MCP_HEADER_1"] != "Authorization: Bearer ${SENTRY_TOKEN}" || sen.Env["AIRLOCK_MCP_HEADER_2"] != "X-Org: acme" {
		t.Fatalf("sentry: %+v", sen)
	}
	if strings.Contains(strings.Join(sen.Args, " "), "Bearer") {
		t.Fatalf("a header on the command line: %q", sen.Args)
	}
	data, _ := os.ReadFile(p)
	if !bytes.Contains(data, []byte(`"timeout": 30000`)) || bytes.Contains(data, []byte(`"headers"`)) {
		t.Fatalf("the rewrite:\n%s", data)
	}
	if !got["fs"].Wrapped {
		t.Fatal("the stdio server beside them was not wrapped")
	}
	mustUninstall(t, e.home, e.opt.AirlockHome)
	if data, _ := os.ReadFile(p); !bytes.Equal(data, orig) {
		t.Fatalf("uninstall:\n%s\nwant\n%s", data, orig)
	}

	// edited since init: the entry comes back as written, the edit stays
	mustInit(t, e.opt)
	data, _ = os.ReadFile(p)
	edited := bytes.Replace(data, []byte(`"mcpServers": {`), []byte(`"note": "mine", "mcpServers": {`), 1)
	writeTestFile(t, p, edited, 0o644)
	mustUninstall(t, e.home, e.opt.AirlockHome)
	want := bytes.Replace(orig, []byte(`"mcpServers": {`), []byte(`"note": "mine", "mcpServers": {`), 1)
	if data, _ := os.ReadFile(p); !bytes.Equal(data, want) {
		t.Fatalf("uninstall after an edit:\n%s\nwant\n%s", data, want)
	}
}

// What is not wrapped says why; "not gateable" is gone.
func TestRemoteNotWrappedSaysWhy(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.home, ".config", "zed", "settings.json")
	writeTestFile(t, p, []byte(`{"context_servers": {"figma": {"url": "http://127.0.0.1:3845/mcp"}}}`), 0o644)
	r := mustInit(t, e.opt)
	found := false
	for _, l := range r.Lines {
		if l.Server == "figma" {
			found = true
			if l.Action != actRemote || !strings.Contains(l.Detail, "does not rewrite Zed's remote entries") {
				t.Errorf("figma: %s", l)
			}
		}
	}
	if !found || strings.Contains(reportText(r), "not gateable") {
		t.Fatalf("report:\n%s", reportText(r))
	}
}

// Codex: the url line becomes the bridge; the bearer token's variable is
// passed through by name, static headers go to env; uninstall restores.
func TestInitWrapsCodexRemoteServer(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.home, ".codex", "config.toml")
	orig := []byte(`model = "o4"

[mcp_servers.github]
url = "https://api.githubcopilot.com/mcp/"
bearer_token_env_var = "GITHUB_PAT"
http_headers = { "X-Org" = "acme" }
startup_timeout_sec = 20

[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
`)
	writeTestFile(t, p, orig, 0o644)
	r := mustInit(t, e.opt)
	st := byID(Locate(e.home, e.proj, "linux", nil))["codex.user"]
	got := readServers(t, st)
	gh := got["github"]
	if !gh.Wrapped || bridgeURL(&gh) != "https://api.githubcopilot.com/mcp/" || gh.Env["AIRLOCK_MCP_BEARER_ENV"] != "GITHUB_PAT" || gh.Env["AIRLOCK_MCP_HEADER_1"] != "X-Org: acme" {
		data, _ := os.ReadFile(p)
		t.Fatalf("github: %+v\n%s\n%s", gh, data, reportText(r))
	}
	data, _ := os.ReadFile(p)
	if !bytes.Contains(data, []byte(`env_vars = ["GITHUB_PAT"]`)) || !bytes.Contains(data, []byte("startup_timeout_sec = 20")) || bytes.Contains(data, []byte("bearer_token_env_var")) {
		t.Fatalf("the rewrite:\n%s", data)
	}
	if !got["fs"].Wrapped {
		t.Fatal("the stdio server beside it was not wrapped")
	}
	mustUninstall(t, e.home, e.opt.AirlockHome)
	if data, _ := os.ReadFile(p); !bytes.Equal(data, orig) {
		t.Fatalf("uninstall:\n%s\nwant\n%s", data, orig)
	}
	// edited since: the entry's lines come back where the bridge was
	mustInit(t, e.opt)
	data, _ = os.ReadFile(p)
	writeTestFile(t, p, bytes.Replace(data, []byte(`model = "o4"`), []byte(`model = "o5"`), 1), 0o644)
	mustUninstall(t, e.home, e.opt.AirlockHome)
	data, _ = os.ReadFile(p)
	gh = readServers(t, st)["github"]
	if !gh.Remote || gh.Wrapped || !bytes.Contains(data, []byte(`model = "o5"`)) || !bytes.Contains(data, []byte(`bearer_token_env_var = "GITHUB_PAT"`)) {
		t.Fatalf("uninstall after an edit: %+v\n%s", gh, data)
	}
}

// A URL's credentials never reach the bridge's command line, which any
// local user can read: a query (where servers take keys) moves into its
// env beside the headers, and a URL with a user name or password is not
// wrapped (the bridge refuses one; the entry would be left broken with
// the password on argv). Uninstall gives the file back byte for byte.
func TestInitKeepsURLCredentialsOffTheCommandLine(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.proj, ".mcp.json")
	orig := []byte(`{"mcpServers": {
  "exa": {"type": "http", "url": "https://mcp.exa.ai/mcp?exaApiKey=sk-live-q123&tools=web"},
  "basic": {"type": "http", "url": "https://bob:pw-secret-9@mcp.example.com/mcp"}
}}
`)
	writeTestFile(t, p, orig, 0o644)
	r := mustInit(t, e.opt)
	st := byID(Locate(e.home, e.proj, "linux", nil))["claude-code.project-mcp"]
	got := readServers(t, st)
	exa, basic := got["exa"], got["basic"]
	if !exa.Wrapped || strings.Contains(strings.Join(exa.Args, " "), "sk-live-q123") || exa.Env["AIRLOCK_MCP_URL_QUERY"] != "exaApiKey=sk-live-q123&tools=web" {
		t.Fatalf("exa: %+v\n%s", exa, reportText(r))
	}
	if bridgeURL(&exa) != "https://mcp.exa.ai/mcp?exaApiKey=sk-live-q123&tools=web" {
		t.Fatalf("exa's bridge URL: %q", bridgeURL(&exa))
	}
	if basic.Wrapped || strings.Contains(strings.Join(basic.Args, " "), "pw-secret-9") {
		t.Fatalf("basic: %+v", basic)
	}
	found := false
	for _, l := range r.Lines {
		if l.Server == "basic" {
			found = true
			if !strings.Contains(l.Detail, "user name or password") || strings.Contains(l.Detail, "pw-secret-9") {
				t.Errorf("basic: %s", l)
			}
		}
	}
	if !found {
		t.Errorf("basic is not reported:\n%s", reportText(r))
	}
	if strings.Contains(reportText(r), "sk-live-q123") || strings.Contains(reportText(r), "pw-secret-9") {
		t.Errorf("the report shows a credential:\n%s", reportText(r))
	}
	mustUninstall(t, e.home, e.opt.AirlockHome)
	if data, _ := os.ReadFile(p); !bytes.Equal(data, orig) {
		t.Fatalf("uninstall:\n%s\nwant\n%s", data, orig)
	}
}

// Codex's TOML too: the query goes in the bridge's env.
func TestInitKeepsCodexURLQueryOffTheCommandLine(t *testing.T) {
	e := newHostileEnv(t)
	p := filepath.Join(e.home, ".codex", "config.toml")
	orig := []byte("[mcp_servers.exa]\nurl = \"https://mcp.exa.ai/mcp?exaApiKey=sk-live-tq9\"\n")
	writeTestFile(t, p, orig, 0o600)
	r := mustInit(t, e.opt)
	exa := readServers(t, byID(Locate(e.home, e.proj, "linux", nil))["codex.user"])["exa"]
	if !exa.Wrapped || strings.Contains(strings.Join(exa.Args, " "), "sk-live-tq9") || exa.Env["AIRLOCK_MCP_URL_QUERY"] != "exaApiKey=sk-live-tq9" || bridgeURL(&exa) != "https://mcp.exa.ai/mcp?exaApiKey=sk-live-tq9" {
		data, _ := os.ReadFile(p)
		t.Fatalf("exa: %+v\n%s\n%s", exa, data, reportText(r))
	}
	if strings.Contains(reportText(r), "sk-live-tq9") {
		t.Errorf("the report shows the key:\n%s", reportText(r))
	}
	mustUninstall(t, e.home, e.opt.AirlockHome)
	if data, _ := os.ReadFile(p); !bytes.Equal(data, orig) {
		t.Fatalf("uninstall:\n%s\nwant\n%s", data, orig)
	}
}
