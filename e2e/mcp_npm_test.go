//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
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

// TestMCPProxyEverythingSamplingIsDecided: server-everything's
// trigger-sampling-request asks the client's model for a completion; the
// proxy decides that request as mcp__everything__sampling_createMessage
// and records it, and a rule naming it refuses it before the client sees
// it.
func TestMCPProxyEverythingSamplingIsDecided(t *testing.T) {
	npmDir(t)
	sample := func(t *testing.T, px proxyFixture) (*wireLog, string) {
		w := &wireLog{notes: map[string]int{}}
		c := mcpClientWith(t, px.env, []client.ClientOption{client.WithSamplingHandler(w)}, px.proxied("everything", serverEverythingCmd(t)...)...)
		listAllTools(t, c)
		res, err := tryCallTool(t, c, "trigger-sampling-request", map[string]any{"prompt": "Say hi."})
		text := ""
		if err != nil {
			text = err.Error()
		} else {
			text = textOf(res)
		}
		return w, text
	}
	decisions := func(t *testing.T, px proxyFixture) []string {
		var out []string
		for _, rec := range auditRecords(t, px) {
			if rec.Get("event").Str == "decision" && rec.Get("tool").Str == "mcp__everything__sampling_createMessage" {
				out = append(out, rec.Get("effective").Str)
			}
		}
		return out
	}

	t.Run("allowed", func(t *testing.T) {
		px := newProxyFixture(t)
		w, text := sample(t, px)
		if !strings.Contains(text, "sampled: hi") || len(w.requests) != 1 {
			t.Fatalf("sampling through the proxy: %q (client got %v)", text, w.requests)
		}
		if got := decisions(t, px); len(got) != 1 || got[0] != "allow" {
			t.Fatalf("the sampling request is recorded as %v, want one allow", got)
		}
	})

	t.Run("refused by a rule", func(t *testing.T) {
		px := newProxyFixture(t)
		if err := os.MkdirAll(px.AirlockHome, 0o700); err != nil {
			t.Fatal(err)
		}
		pol := "mode: enforce\ndefault: allow\nrules:\n  - id: no-sampling\n    tool: mcp__*__sampling_createMessage\n    action: block\n    reason: no server here may ask the model for completions\n"
		if err := os.WriteFile(filepath.Join(px.AirlockHome, "policy.yaml"), []byte(pol), 0o600); err != nil {
			t.Fatal(err)
		}
		w, text := sample(t, px)
		if strings.Contains(text, "sampled: hi") || len(w.requests) != 0 {
			t.Fatalf("a refused sampling request reached the client: %q (client got %v)", text, w.requests)
		}
		if got := decisions(t, px); len(got) != 1 || got[0] != "block" {
			t.Fatalf("the sampling request is recorded as %v, want one block", got)
		}
	})
}
