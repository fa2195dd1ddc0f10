//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPProxyRealServers puts the proxy in front of the reference servers
// from the npm registry and drives it with the real MCP Inspector CLI and
// with an mcp-go client: legitimate traffic must not notice the proxy, and
// a secret read through server-filesystem must be refused by it.
func TestMCPProxyRealServers(t *testing.T) {
	npmDir(t)
	px := newProxyFixture(t)
	// the server may read the whole home: only the proxy stands between
	// the agent and ~/.ssh
	fs := px.proxied("filesystem", serverFilesystemCmd(t, px.Home)...)
	readme := filepath.Join(px.WS, "README.md")
	secret := filepath.Join(px.Home, ".ssh", "id_rsa")

	t.Run("filesystem/inspector", func(t *testing.T) {
		out, errOut, code := inspectorCLI(t, "tools/list", nil, fs, px.env)
		if code != 0 || !strings.Contains(out, "read_text_file") {
			t.Fatalf("tools/list through the proxy: exit %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = inspectorCLI(t, "tools/call", []string{"--tool-name", "read_text_file", "--tool-arg", "path=" + readme}, fs, px.env)
		if code != 0 || !strings.Contains(out, "hello from the workspace") {
			t.Fatalf("workspace read through the proxy: exit %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = inspectorCLI(t, "tools/call", []string{"--tool-name", "read_text_file", "--tool-arg", "path=" + secret}, fs, px.env)
		if code != 5 || !strings.Contains(out, "Airlock blocked this call") || strings.Contains(out, "PRIVATE KEY") {
			t.Fatalf("secret read through the proxy: exit %d\n%s\n%s", code, out, errOut)
		}
	})

	t.Run("filesystem/mcp-go", func(t *testing.T) {
		c := mcpClient(t, px.env, fs...)
		tools, _ := listAllTools(t, c)
		if len(tools) < 10 {
			t.Fatalf("tools: %v", toolNames(tools))
		}
		if res := callTool(t, c, "read_text_file", map[string]any{"path": readme}); res.IsError || !strings.Contains(textOf(res), "hello from the workspace") {
			t.Fatalf("workspace read: %q", textOf(res))
		}
		for _, args := range []map[string]any{
			{"path": secret},
			{"path": px.WS + "/../.ssh/id_rsa"},
		} {
			if res := callTool(t, c, "read_text_file", args); !blockedText(res) || strings.Contains(textOf(res), "PRIVATE KEY") {
				t.Errorf("secret read %v: %q", args, textOf(res))
			}
		}
		res := callTool(t, c, "read_multiple_files", map[string]any{"paths": []any{readme, secret}})
		if !blockedText(res) {
			t.Errorf("a secret hidden in a list of paths: %q", textOf(res))
		}
	})

	t.Run("everything/mcp-go", func(t *testing.T) {
		testEverythingEveryTool(t, px.env, px.proxied("everything", serverEverythingCmd(t)...))
	})

	t.Run("everything/inspector", func(t *testing.T) {
		ev := px.proxied("everything", serverEverythingCmd(t)...)
		out, errOut, code := inspectorCLI(t, "tools/call", []string{"--tool-name", "get-sum", "--tool-arg", "a=2", "--tool-arg", "b=40"}, ev, px.env)
		if code != 0 || !strings.Contains(out, "42") {
			t.Fatalf("get-sum through the proxy: exit %d\n%s\n%s", code, out, errOut)
		}
	})

	// both servers were admitted at first sight, without a hold
	out := px.airlock(t, "pins")
	for _, name := range []string{"filesystem", "everything"} {
		line := ""
		for _, l := range strings.Split(out.stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), name) {
				line = l
			}
		}
		if !strings.Contains(line, "pinned") || strings.Contains(line, "held") {
			t.Errorf("%s was not admitted cleanly: %q\n%s", name, line, out.stdout)
		}
	}
	if v := px.airlock(t, "verify"); v.code != 0 {
		t.Errorf("verify: %s", v.stdout)
	}
}
