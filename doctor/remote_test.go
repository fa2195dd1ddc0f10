package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	airlockhome "github.com/agentairlock/airlock/internal/home"
	"github.com/agentairlock/airlock/mcpproxy/remote"
)

func TestRemoteCheckShowsWhichNeedALogin(t *testing.T) {
	root := t.TempDir()
	home, ws, ah := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "home", ".airlock")
	mcp := filepath.Join(root, "bin", "airlock-mcp")
	cfg := `{"mcpServers": {
  "linear": {"command": "` + mcp + `", "args": ["--name", "linear", "--url", "https://mcp.linear.app/mcp"]},
  "docs": {"command": "` + mcp + `", "args": ["--name", "docs", "--url", "https://docs.example/mcp", "--transport", "sse"]}
}}`
	for p, body := range map[string]string{filepath.Join(home, ".cursor", "mcp.json"): cfg, mcp: "#!/bin/sh\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := (remote.Store{Home: ah, Name: "linear"}).MarkLoginNeeded(); err != nil {
		t.Fatal(err)
	}
	o := Options{Env: airlockhome.Env{Home: home, AirlockHome: ah}, Workspace: ws, GOOS: "linux", Getenv: func(string) string { return "" }, MCPPath: mcp}
	checks, _ := checkSetup(o)
	var c *Check
	for i := range checks {
		if checks[i].Name == "remote MCP servers" {
			c = &checks[i]
		}
		if checks[i].Name == "MCP servers" && !strings.HasPrefix(checks[i].Detail, "2 behind airlock-mcp") {
			t.Errorf("the bridges are not counted as gated: %+v", checks[i])
		}
	}
	if c == nil {
		t.Fatalf("no remote check in %+v", checks)
	}
	items := strings.Join(c.Items, "\n")
	if c.Status != warn || !strings.Contains(items, "needs a login: airlock mcp login linear") || !strings.Contains(c.Detail, "2 behind airlock-mcp --url, 1 needing a login") {
		t.Fatalf("%+v", c)
	}
	if strings.Contains(items, `"docs" (https://docs.example/mcp): needs`) {
		t.Errorf("docs never asked for a login: %s", items)
	}
}

// A key in a remote URL's query (airlock init moves it into the bridge's
// env, off its command line) is not shown by doctor either.
func TestRemoteCheckHidesTheURLsQuery(t *testing.T) {
	root := t.TempDir()
	home, ws, ah := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "home", ".airlock")
	mcp := filepath.Join(root, "bin", "airlock-mcp")
	cfg := `{"mcpServers": {
  "exa": {"command": "` + mcp + `", "args": ["--name", "exa", "--url", "https://mcp.exa.ai/mcp"], "env": {"AIRLOCK_MCP_URL_QUERY": "exaApiKey=sk-live-doc55"}}
}}`
	for p, body := range map[string]string{filepath.Join(home, ".cursor", "mcp.json"): cfg, mcp: "#!/bin/sh\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Env: airlockhome.Env{Home: home, AirlockHome: ah}, Workspace: ws, GOOS: "linux", Getenv: func(string) string { return "" }, MCPPath: mcp}
	checks, _ := checkSetup(o)
	var items string
	for _, c := range checks {
		if c.Name == "remote MCP servers" {
			items = strings.Join(c.Items, "\n")
		}
	}
	if strings.Contains(items, "sk-live-doc55") || !strings.Contains(items, `"exa" (https://mcp.exa.ai/mcp?…)`) {
		t.Errorf("the query of exa's URL: %q", items)
	}
}
